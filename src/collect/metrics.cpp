#include "collect/metrics.hpp"

#include <algorithm>
#include <functional>
#include <optional>

namespace petricore::collect {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(const std::string& instance) : instance_(instance) {}

  // One gauge family with one series per job (when value() has one).
  void per_job(const char* name, const char* help, const std::vector<JobSample>& jobs,
               const std::function<std::optional<double>(const JobSample&)>& value) {
    MetricFamily& family = start(name, help, MetricType::Gauge);
    family.metric.reserve(jobs.size());
    for (const auto& job : jobs) {
      if (auto v = value(job)) family.metric.push_back(series(job, *v, {}));
    }
  }

  // One gauge family with an extra label, several series per job.
  void per_job_labelled(
      const char* name, const char* help, const char* label, const std::vector<JobSample>& jobs,
      const std::function<void(const JobSample&, const std::function<void(std::string, double)>&)>& each) {
    MetricFamily& family = start(name, help, MetricType::Gauge);
    for (const auto& job : jobs) {
      each(job, [&](std::string label_value, double v) {
        family.metric.push_back(series(job, v, {{label, std::move(label_value)}}));
      });
    }
  }

  MetricFamily& start(const char* name, const char* help, MetricType type) {
    families_.push_back(MetricFamily{name, help, type, {}});
    return families_.back();
  }

  ClientMetric series(const JobSample& job, double value, std::vector<ClientMetric::Label> extra) {
    ClientMetric m;
    m.label.reserve(2 + extra.size());
    m.label.push_back({"instance", instance_});
    m.label.push_back({"slurm_job", job.job_id});
    for (auto& l : extra) m.label.push_back(std::move(l));
    m.gauge.value = value;
    return m;
  }

  ClientMetric instance_series(double value, std::vector<ClientMetric::Label> extra = {}) {
    ClientMetric m;
    m.label.reserve(1 + extra.size());
    m.label.push_back({"instance", instance_});
    for (auto& l : extra) m.label.push_back(std::move(l));
    m.gauge.value = value;
    m.counter.value = value;
    return m;
  }

  Snapshot take() { return std::move(families_); }

 private:
  const std::string& instance_;
  Snapshot families_;
};

std::optional<double> per_core(const JobSample& job) {
  if (!job.cpu_percent || job.cpus.empty()) return std::nullopt;
  return *job.cpu_percent / static_cast<double>(job.cpus.size());
}

}  // namespace

Snapshot build_snapshot(const std::vector<JobSample>& jobs, const std::string& instance, const SelfMetrics& self) {
  SnapshotBuilder b(instance);
  b.per_job("jobs_cpu_percent", "CPU use of the job in percent of one CPU, from the cgroup CPU time between two passes",
            jobs, [](const JobSample& j) { return j.cpu_percent; });
  b.per_job("jobs_cpu_percent_per_core", "jobs_cpu_percent divided by the number of CPUs allocated to the job", jobs,
            per_core);
  b.per_job("jobs_rss", "Resident memory of the job in MiB (anon + shmem)", jobs,
            [](const JobSample& j) { return j.rss_mib; });
  b.per_job("jobs_spawned_processes", "Processes in the job's cgroups, slurmstepd excluded", jobs,
            [](const JobSample& j) { return std::optional<double>(static_cast<double>(j.processes)); });
  b.per_job("jobs_opened_files", "Distinct regular files open across the job's processes", jobs,
            [](const JobSample& j) { return std::optional<double>(static_cast<double>(j.opened_files)); });
  b.per_job_labelled("jobs_thread_count", "Threads of the job's processes, by command name", "proc_name", jobs,
                     [](const JobSample& j, const auto& emit) {
                       for (const auto& [name, n] : j.threads_by_name) emit(name, static_cast<double>(n));
                     });
  b.per_job("jobs_user_time", "CPU time of the job in user mode, seconds", jobs,
            [](const JobSample& j) { return j.user_time; });
  b.per_job("jobs_system_time", "CPU time of the job in system mode, seconds", jobs,
            [](const JobSample& j) { return j.system_time; });
  b.per_job("jobs_cpu_time_total", "CPU time of the job, seconds", jobs,
            [](const JobSample& j) { return j.cpu_time_total; });
  b.per_job_labelled("jobs_cpu_time_core", "CPU time of the job on each allocated CPU, seconds", "core", jobs,
                     [](const JobSample& j, const auto& emit) {
                       for (const auto& [cpu, seconds] : j.cpu_time_core) emit(std::to_string(cpu), seconds);
                     });
  b.per_job("jobs_uses_scratch", "1 once a process of the job had its cwd or an open file under a scratch prefix", jobs,
            [](const JobSample& j) { return std::optional<double>(j.uses_scratch ? 1.0 : 0.0); });
  b.per_job("jobs_read_mb", "MiB read from storage by the job's processes, exited ones included", jobs,
            [](const JobSample& j) { return std::optional<double>(j.read_mib); });
  b.per_job("jobs_write_mb", "MiB written to storage by the job's processes, exited ones included", jobs,
            [](const JobSample& j) { return std::optional<double>(j.write_mib); });
  b.per_job("jobs_read_count", "Read system calls of the job's processes, exited ones included", jobs,
            [](const JobSample& j) { return std::optional<double>(static_cast<double>(j.read_count)); });
  b.per_job("jobs_write_count", "Write system calls of the job's processes, exited ones included", jobs,
            [](const JobSample& j) { return std::optional<double>(static_cast<double>(j.write_count)); });
  b.per_job_labelled("jobs_gpus_used", "1 for each GPU allocated to the job (node GPU index from SLURM_JOB_GPUS)",
                     "gpuid", jobs, [](const JobSample& j, const auto& emit) {
                       for (const auto& gpu : j.gpus) emit(gpu, 1.0);
                     });

  MetricFamily& info = b.start("jobs_info", "Owner of the job; always 1", MetricType::Gauge);
  for (const auto& job : jobs) {
    std::vector<ClientMetric::Label> labels{
        {"user", job.user}, {"uid", job.uid ? std::to_string(*job.uid) : std::string{}}, {"account", job.account}};
    // Only a job whose cgroup is named by its SLUID has the label: the
    // series of other jobs stay what they were.
    if (!job.sluid.empty()) labels.push_back({"sluid", job.sluid});
    info.metric.push_back(b.series(job, 1.0, std::move(labels)));
  }
  b.per_job("jobs_cpus_allocated", "CPUs in the job's cpuset", jobs, [](const JobSample& j) {
    return j.cpus.empty() ? std::nullopt : std::optional<double>(static_cast<double>(j.cpus.size()));
  });
  b.per_job("jobs_memory_limit_mb", "Memory limit of the job's cgroup in MiB", jobs,
            [](const JobSample& j) { return j.memory_limit_mib; });
  b.per_job("jobs_memory_peak_mb", "Peak memory use of the job's cgroup in MiB, page cache included", jobs,
            [](const JobSample& j) { return j.memory_peak_mib; });
  b.per_job("jobs_memory_anon_mb", "Anonymous memory of the job in MiB (heap, stacks)", jobs,
            [](const JobSample& j) { return j.anon_mib; });
  b.per_job("jobs_memory_shmem_mb", "Shared memory and tmpfs of the job in MiB", jobs,
            [](const JobSample& j) { return j.shmem_mib; });
  b.per_job("jobs_memory_file_mb", "Page cache of the job in MiB (reclaimable; shmem not included)", jobs,
            [](const JobSample& j) { return j.file_mib; });
  b.per_job("jobs_memory_kernel_mb", "Kernel memory charged to the job in MiB", jobs,
            [](const JobSample& j) { return j.kernel_mib; });
  b.per_job("jobs_memory_swap_mb", "Memory of the job swapped out, MiB", jobs,
            [](const JobSample& j) { return j.swap_mib; });
  b.per_job("jobs_memory_usage_mb", "Memory the job's limit counts, MiB (v1 memory.usage_in_bytes, v2 memory.current)",
            jobs, [](const JobSample& j) { return j.usage_mib; });

  b.start("petricore_collect_duration_seconds", "Wall time of the last collection pass", MetricType::Gauge)
      .metric.push_back(b.instance_series(self.collect_duration_seconds));
  MetricFamily& errors =
      b.start("petricore_collect_errors_total",
              "Errors met while collecting, by source; the collector skips and goes on", MetricType::Counter);
  for (const auto& [source, n] : self.errors_by_source)
    errors.metric.push_back(b.instance_series(static_cast<double>(n), {{"source", source}}));
  b.start("petricore_jobs", "Jobs running on this node (ended jobs still exported not counted)", MetricType::Gauge)
      .metric.push_back(b.instance_series(static_cast<double>(self.running_jobs.value_or(jobs.size()))));
  // A family without series would only add HELP/TYPE noise to every scrape.
  Snapshot snapshot = b.take();
  snapshot.erase(
      std::remove_if(snapshot.begin(), snapshot.end(), [](const MetricFamily& f) { return f.metric.empty(); }),
      snapshot.end());
  return snapshot;
}

}  // namespace petricore::collect
