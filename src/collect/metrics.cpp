#include "collect/metrics.hpp"

#include "collect/exposition.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

namespace petricore::collect {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

std::optional<double> per_core(const JobSample& job) {
  if (!job.cpu_percent || job.cpus.empty()) return std::nullopt;
  return *job.cpu_percent / static_cast<double>(job.cpus.size());
}

// The families of the contract, in their order, handed to `out` (SnapshotOut
// or TextOut below): family() starts one; job(), job_info() and instance()
// add a series to it. A family left without series is not exported: HELP
// and TYPE alone would be noise in every scrape.
template <typename Out>
void emit_families(const std::vector<JobSample>& jobs, const SelfMetrics& self, Out& out) {
  auto per_job = [&](const char* name, const char* help, const auto& value) {
    out.family(name, help, MetricType::Gauge);
    for (const auto& job : jobs)
      if (std::optional<double> v = value(job)) out.job(job, *v);
  };
  // With an extra label, several series per job.
  auto per_job_labelled = [&](const char* name, const char* help, const char* label, const auto& each) {
    out.family(name, help, MetricType::Gauge);
    for (const auto& job : jobs)
      each(job, [&](const auto& label_value, double v) { out.job(job, v, label, label_value); });
  };

  per_job("jobs_cpu_percent", "CPU use of the job in percent of one CPU, from the cgroup CPU time between two passes",
          [](const JobSample& j) { return j.cpu_percent; });
  per_job("jobs_cpu_percent_per_core", "jobs_cpu_percent divided by the number of CPUs allocated to the job", per_core);
  per_job("jobs_rss", "Resident memory of the job in MiB (anon + shmem)", [](const JobSample& j) { return j.rss_mib; });
  per_job("jobs_spawned_processes", "Processes in the job's cgroups, slurmstepd excluded",
          [](const JobSample& j) { return std::optional<double>(static_cast<double>(j.processes)); });
  per_job("jobs_opened_files", "Distinct regular files open across the job's processes",
          [](const JobSample& j) { return std::optional<double>(static_cast<double>(j.opened_files)); });
  per_job_labelled("jobs_thread_count", "Threads of the job's processes, by command name", "proc_name",
                   [](const JobSample& j, const auto& emit) {
                     for (const auto& [name, n] : j.threads_by_name) emit(name, static_cast<double>(n));
                   });
  per_job("jobs_user_time", "CPU time of the job in user mode, seconds",
          [](const JobSample& j) { return j.user_time; });
  per_job("jobs_system_time", "CPU time of the job in system mode, seconds",
          [](const JobSample& j) { return j.system_time; });
  per_job("jobs_cpu_time_total", "CPU time of the job, seconds", [](const JobSample& j) { return j.cpu_time_total; });
  per_job_labelled("jobs_cpu_time_core", "CPU time of the job on each allocated CPU, seconds", "core",
                   [](const JobSample& j, const auto& emit) {
                     for (const auto& [cpu, seconds] : j.cpu_time_core) emit(cpu, seconds);
                   });
  per_job("jobs_uses_scratch", "1 once a process of the job had its cwd or an open file under a scratch prefix",
          [](const JobSample& j) { return std::optional<double>(j.uses_scratch ? 1.0 : 0.0); });
  per_job("jobs_read_mb", "MiB read from storage by the job's processes, exited ones included",
          [](const JobSample& j) { return std::optional<double>(j.read_mib); });
  per_job("jobs_write_mb", "MiB written to storage by the job's processes, exited ones included",
          [](const JobSample& j) { return std::optional<double>(j.write_mib); });
  per_job("jobs_read_count", "Read system calls of the job's processes, exited ones included",
          [](const JobSample& j) { return std::optional<double>(static_cast<double>(j.read_count)); });
  per_job("jobs_write_count", "Write system calls of the job's processes, exited ones included",
          [](const JobSample& j) { return std::optional<double>(static_cast<double>(j.write_count)); });
  per_job_labelled("jobs_gpus_used", "1 for each GPU allocated to the job (node GPU index from SLURM_JOB_GPUS)",
                   "gpuid", [](const JobSample& j, const auto& emit) {
                     for (const auto& gpu : j.gpus) emit(gpu, 1.0);
                   });
  // The GPUs the job holds, as NVML or ROCm SMI read them (gpu_mapping.hpp).
  out.family("jobs_gpu_info", "GPU the job holds; always 1", MetricType::Gauge);
  for (const auto& job : jobs)
    for (const auto& gpu : job.gpu_readings) out.gpu_info(job, gpu);
  auto per_gpu = [&](const char* name, const char* help, std::optional<double> JobGpuReading::*value) {
    out.family(name, help, MetricType::Gauge);
    for (const auto& job : jobs)
      for (const auto& gpu : job.gpu_readings)
        if (const std::optional<double>& v = gpu.*value) out.job(job, *v, "gpuid", gpu.gpuid);
  };
  per_gpu("jobs_gpu_utilization_percent", "Percent of the last sample period the GPU was busy",
          &JobGpuReading::utilization_percent);
  per_gpu("jobs_gpu_memory_utilization_percent", "Percent of the last sample period the GPU memory was read or written",
          &JobGpuReading::memory_utilization_percent);
  per_gpu("jobs_gpu_memory_used_mb", "GPU memory in use on the device, MiB", &JobGpuReading::memory_used_mib);
  per_gpu("jobs_gpu_memory_total_mb", "GPU memory of the device, MiB", &JobGpuReading::memory_total_mib);
  per_gpu("jobs_gpu_power_watts", "Power draw of the GPU, watts", &JobGpuReading::power_watts);
  per_job_labelled("jobs_gpu_foreign_processes", "Processes of the job on a GPU it does not hold", "gpuid",
                   [](const JobSample& j, const auto& emit) {
                     for (const auto& [gpu, n] : j.gpu_foreign_processes) emit(gpu, static_cast<double>(n));
                   });

  // user, uid, account and, only for a job whose cgroup is named by its
  // SLUID, sluid: the series of other jobs stay what they were.
  out.family("jobs_info", "Owner of the job; always 1", MetricType::Gauge);
  for (const auto& job : jobs) out.job_info(job);
  per_job("jobs_cpus_allocated", "CPUs in the job's cpuset", [](const JobSample& j) {
    return j.cpus.empty() ? std::nullopt : std::optional<double>(static_cast<double>(j.cpus.size()));
  });
  per_job("jobs_memory_limit_mb", "Memory limit of the job's cgroup in MiB",
          [](const JobSample& j) { return j.memory_limit_mib; });
  per_job("jobs_memory_peak_mb", "Peak memory use of the job's cgroup in MiB, page cache included",
          [](const JobSample& j) { return j.memory_peak_mib; });
  per_job("jobs_memory_anon_mb", "Anonymous memory of the job in MiB (heap, stacks)",
          [](const JobSample& j) { return j.anon_mib; });
  per_job("jobs_memory_shmem_mb", "Shared memory and tmpfs of the job in MiB",
          [](const JobSample& j) { return j.shmem_mib; });
  per_job("jobs_memory_file_mb", "Page cache of the job in MiB (reclaimable; shmem not included)",
          [](const JobSample& j) { return j.file_mib; });
  per_job("jobs_memory_kernel_mb", "Kernel memory charged to the job in MiB",
          [](const JobSample& j) { return j.kernel_mib; });
  per_job("jobs_memory_swap_mb", "Memory of the job swapped out, MiB", [](const JobSample& j) { return j.swap_mib; });
  per_job("jobs_memory_usage_mb", "Memory the job's limit counts, MiB (v1 memory.usage_in_bytes, v2 memory.current)",
          [](const JobSample& j) { return j.usage_mib; });

  out.family("petricore_collect_duration_seconds", "Wall time of the last collection pass", MetricType::Gauge);
  out.instance(self.collect_duration_seconds);
  out.family("petricore_collect_errors_total",
             "Errors met while collecting, by source; the collector skips and goes on", MetricType::Counter);
  for (const auto& [source, n] : self.errors_by_source) out.instance(static_cast<double>(n), "source", source);
  out.family("petricore_collect_skipped_total",
             "Job processes whose /proc reads a pass left out so that a hung file system cannot stall it, by reason; "
             "their jobs are still exported",
             MetricType::Counter);
  for (const auto& [reason, n] : self.skipped_by_reason) out.instance(static_cast<double>(n), "reason", reason);
  out.family("petricore_jobs", "Jobs running on this node (ended jobs still exported not counted)", MetricType::Gauge);
  out.instance(static_cast<double>(self.running_jobs.value_or(jobs.size())));
}

// jobs_info's uid label: empty while the job's owner is unknown.
std::string uid_label(const JobSample& job) {
  return job.uid ? std::to_string(*job.uid) : std::string{};
}

class SnapshotOut {
 public:
  // The families above and a few more (the vector is moved out whole).
  static constexpr std::size_t kFamilies = 48;
  explicit SnapshotOut(const std::string& instance) : instance_(instance) { families_.reserve(kFamilies); }

  void family(const char* name, const char* help, MetricType type) {
    families_.push_back(MetricFamily{name, help, type, {}});
  }
  void job(const JobSample& job, double value) { add(series(job, value, {})); }
  void job(const JobSample& job, double value, const char* label, const std::string& label_value) {
    add(series(job, value, {{label, label_value}}));
  }
  void job(const JobSample& job, double value, const char* label, int label_value) {
    add(series(job, value, {{label, std::to_string(label_value)}}));
  }
  void gpu_info(const JobSample& job, const JobGpuReading& gpu) {
    add(series(job, 1.0, {{"gpuid", gpu.gpuid}, {"uuid", gpu.uuid}, {"model", gpu.model}, {"vendor", gpu.vendor}}));
  }
  void job_info(const JobSample& job) {
    std::vector<ClientMetric::Label> labels{{"user", job.user}, {"uid", uid_label(job)}, {"account", job.account}};
    if (!job.sluid.empty()) labels.push_back({"sluid", job.sluid});
    add(series(job, 1.0, std::move(labels)));
  }
  void instance(double value) { add(instance_series(value, {})); }
  void instance(double value, const char* label, const std::string& label_value) {
    add(instance_series(value, {{label, label_value}}));
  }

  Snapshot take() {
    families_.erase(
        std::remove_if(families_.begin(), families_.end(), [](const MetricFamily& f) { return f.metric.empty(); }),
        families_.end());
    return std::move(families_);
  }

 private:
  void add(ClientMetric m) { families_.back().metric.push_back(std::move(m)); }
  ClientMetric series(const JobSample& job, double value, std::vector<ClientMetric::Label> extra) const {
    ClientMetric m;
    m.label.reserve(2 + extra.size());
    m.label.push_back({"instance", instance_});
    m.label.push_back({"slurm_job", job.job_id});
    for (auto& l : extra) m.label.push_back(std::move(l));
    m.gauge.value = value;
    return m;
  }
  ClientMetric instance_series(double value, std::vector<ClientMetric::Label> extra) const {
    ClientMetric m;
    m.label.reserve(1 + extra.size());
    m.label.push_back({"instance", instance_});
    for (auto& l : extra) m.label.push_back(std::move(l));
    m.gauge.value = value;
    m.counter.value = value;
    return m;
  }

  const std::string& instance_;
  Snapshot families_;
};

// The same bytes as serialize_text(SnapshotOut's families), straight into
// one string: a family's HELP and TYPE lines are written with its first series.
class TextOut {
 public:
  // The label prefixes every series repeats are escaped once: the
  // instance's, and each job's slurm_job (by its index in `jobs`).
  TextOut(const std::string& instance, const std::vector<JobSample>& jobs) : jobs_(jobs) {
    text_.reserve(4096 + 2048 * jobs.size());
    instance_label_ = "{instance=\"";
    append_escaped(instance_label_, instance, true);
    instance_label_ += '"';
    job_labels_.reserve(jobs.size());
    for (const JobSample& job : jobs) {
      std::string& label = job_labels_.emplace_back(",slurm_job=\"");
      append_escaped(label, job.job_id, true);
      label += '"';
    }
  }

  void family(const char* name, const char* help, MetricType type) {
    name_ = name;
    help_ = help;
    type_ = type;
    header_written_ = false;
  }
  void job(const JobSample& job, double value) {
    job_labels(job);
    end(value);
  }
  void job(const JobSample& job, double value, const char* label, std::string_view label_value) {
    job_labels(job);
    label_pair(label, label_value);
    end(value);
  }
  void job(const JobSample& job, double value, const char* label, int label_value) {
    char digits[16];
    auto last = std::to_chars(digits, digits + sizeof digits, label_value).ptr;
    this->job(job, value, label, std::string_view(digits, static_cast<std::size_t>(last - digits)));
  }
  void gpu_info(const JobSample& job, const JobGpuReading& gpu) {
    job_labels(job);
    label_pair("gpuid", gpu.gpuid);
    label_pair("uuid", gpu.uuid);
    label_pair("model", gpu.model);
    label_pair("vendor", gpu.vendor);
    end(1.0);
  }
  void job_info(const JobSample& job) {
    job_labels(job);
    label_pair("user", job.user);
    label_pair("uid", uid_label(job));
    label_pair("account", job.account);
    if (!job.sluid.empty()) label_pair("sluid", job.sluid);
    end(1.0);
  }
  void instance(double value) {
    start_series();
    end(value);
  }
  void instance(double value, const char* label, std::string_view label_value) {
    start_series();
    label_pair(label, label_value);
    end(value);
  }

  std::string take() { return std::move(text_); }

 private:
  // "name{instance=\"...\"": every series has the instance label first.
  void start_series() {
    if (!header_written_) {
      header_written_ = true;
      text_ += header(name_, help_, type_);
    }
    text_ += name_;
    text_ += instance_label_;
  }
  void job_labels(const JobSample& job) {
    start_series();
    auto index = static_cast<std::size_t>(&job - jobs_.data());
    if (index < job_labels_.size()) {
      text_ += job_labels_[index];
    } else {  // not one of `jobs` (never, as emit_families calls it)
      label_pair("slurm_job", job.job_id);
    }
  }
  // A family's "# HELP" and "# TYPE" lines. The families are string
  // literals, the same on every pass: each thread keeps the lines it wrote,
  // by the name's address.
  static const std::string& header(const char* name, const char* help, MetricType type) {
    thread_local std::vector<std::pair<const char*, std::string>> written;
    for (const auto& [of, lines] : written)
      if (of == name) return lines;
    std::string lines;
    if (*help) {
      lines += "# HELP ";
      lines += name;
      lines += ' ';
      append_escaped(lines, help, false);
      lines += '\n';
    }
    lines += "# TYPE ";
    lines += name;
    lines += ' ';
    lines += type == MetricType::Counter ? "counter" : "gauge";
    lines += '\n';
    return written.emplace_back(name, std::move(lines)).second;
  }
  void label_pair(const char* name, std::string_view value) {
    text_ += ',';
    text_ += name;
    text_ += "=\"";
    append_escaped(text_, value, true);
    text_ += '"';
  }
  void end(double value) {
    text_ += "} ";
    append_value(text_, value);
    text_ += '\n';
  }

  const std::vector<JobSample>& jobs_;
  std::string instance_label_;
  std::vector<std::string> job_labels_;
  std::string text_;
  const char* name_ = "";
  const char* help_ = "";
  MetricType type_ = MetricType::Gauge;
  bool header_written_ = false;
};

// A pass's jobs, from which its families are built when asked.
class JobFamilies final : public Exposition::Families {
 public:
  JobFamilies(std::vector<JobSample> jobs, std::string instance, SelfMetrics self)
      : jobs_(std::move(jobs)), instance_(std::move(instance)), self_(std::move(self)) {}
  Snapshot build() const override { return build_snapshot(jobs_, instance_, self_); }
  const std::vector<JobSample>& jobs() const { return jobs_; }
  const std::string& instance() const { return instance_; }
  const SelfMetrics& self() const { return self_; }

 private:
  std::vector<JobSample> jobs_;
  std::string instance_;
  SelfMetrics self_;
};

class ReadyFamilies final : public Exposition::Families {
 public:
  explicit ReadyFamilies(Snapshot families) : families_(std::move(families)) {}
  Snapshot build() const override { return families_; }
  const Snapshot& families() const { return families_; }

 private:
  Snapshot families_;
};

}  // namespace

Snapshot build_snapshot(const std::vector<JobSample>& jobs, const std::string& instance, const SelfMetrics& self) {
  SnapshotOut out(instance);
  emit_families(jobs, self, out);
  return out.take();
}

std::string render_text(const std::vector<JobSample>& jobs, const std::string& instance, const SelfMetrics& self) {
  TextOut out(instance, jobs);
  emit_families(jobs, self, out);
  return out.take();
}

Exposition::Exposition(std::vector<JobSample> jobs, std::string instance, SelfMetrics self) {
  auto families = std::make_shared<const JobFamilies>(std::move(jobs), std::move(instance), std::move(self));
  text_ = render_text(families->jobs(), families->instance(), families->self());
  families_ = std::move(families);
}

Exposition::Exposition(Snapshot families) {
  auto ready = std::make_shared<const ReadyFamilies>(std::move(families));
  text_ = serialize_text(ready->families());
  families_ = std::move(ready);
}

}  // namespace petricore::collect
