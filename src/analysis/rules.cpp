#include "analysis/rules.hpp"

#include "core/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace petricore::analysis {

using model::CoreTime;
using model::FigureSource;
using model::Finding;
using model::GpuUsage;
using model::JobRecord;
using model::JobUsage;
using model::RuleThresholds;
using model::Severity;
namespace {

using Findings = std::vector<Finding>;

// Slurm's --time accepts hours:minutes:seconds with hours above 24.
std::string duration_text(std::int64_t seconds) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
  return buffer;
}

std::string plural(double count, const char* one, const char* many) {
  return number_text(count, 0) + " " + (count == 1 ? one : many);
}

// A memory request for `per_node_mb` on every node, in the form the job
// used: --mem-per-cpu when the record says it asked per CPU (the node's
// amount over the CPUs each node had), else --mem, which is per node.
std::string memory_request(const JobRecord& job, double per_node_mb, double minimum_mb = 0) {
  per_node_mb = std::max(per_node_mb, minimum_mb);
  int nodes = std::max(1, job.alloc_nodes);
  bool per_cpu = job.mem_per_cpu.value_or(false) && job.alloc_cpus > 0;
  double amount = per_cpu ? per_node_mb * nodes / job.alloc_cpus : per_node_mb;
  // --mem=0 asks Slurm for all of a node's memory: never suggest it.
  auto megabytes = std::max<long long>(1, static_cast<long long>(std::ceil(amount)));
  return std::string(per_cpu ? "--mem-per-cpu=" : "--mem=") + std::to_string(megabytes) + "M";
}

// The largest node's resident peak: a request must fit the fullest node.
double largest_node_resident(const JobUsage& usage) {
  double largest = 0;
  for (const auto& [node, peak] : usage.resident_peak_by_node) largest = std::max(largest, peak);
  if (largest > 0 || !usage.memory_resident_mb) return largest;
  // From accounting (MaxRSS) there are no per-node figures: an even share.
  return *usage.memory_resident_mb / std::max(1, usage.job.alloc_nodes);
}

std::string resident_source_note(const JobUsage& usage) {
  return usage.memory_resident_source == FigureSource::Accounting ? " (from Slurm accounting, MaxRSS)" : "";
}

Finding finding(const char* rule, Severity severity, std::string message, std::string advice, double value,
                double threshold, const char* unit) {
  return {rule, severity, std::move(message), std::move(advice), value, threshold, unit};
}

void check_job_state(const JobUsage& usage, const RuleThresholds&, Findings& out) {
  const JobRecord& job = usage.job;
  double runtime = static_cast<double>(usage.runtime_seconds.value_or(0));
  if (job.state == "OUT_OF_MEMORY") {
    std::string advice = "Request more memory than the job had";
    if (job.alloc_mem_mb && *job.alloc_mem_mb > 0) {
      // Half as much again as the limit it hit: its peak, ≈ the limit, says no more.
      double per_node = *job.alloc_mem_mb / std::max(1, job.alloc_nodes);
      advice += " (e.g. " + memory_request(job, 1.5 * per_node) + ", 1.5 × the " + number_text(per_node, 0) +
                " MB it had" + (job.alloc_nodes > 1 ? " per node)" : ")");
    }
    advice +=
        ", or lower the program's memory use (smaller batches or chunks of input); the job's output file names "
        "the step that was killed.";
    out.push_back(finding("job_state", Severity::Critical, "The job ran out of memory (OUT_OF_MEMORY).",
                          // Without a measured peak, the limit it hit is the best value there is.
                          std::move(advice), usage.memory_peak_mb.value_or(job.alloc_mem_mb.value_or(0)),
                          job.alloc_mem_mb.value_or(0), "MB"));
  } else if (job.state == "TIMEOUT") {
    std::string limit = job.time_limit_seconds ? " of " + duration_text(*job.time_limit_seconds) : "";
    out.push_back(finding("job_state", Severity::Critical, "The job reached its time limit" + limit + " (TIMEOUT).",
                          "Request more time with --time, or make the program write checkpoints so that a "
                          "resubmitted job continues where this one stopped.",
                          runtime, static_cast<double>(job.time_limit_seconds.value_or(0)), "s"));
  } else if (job.state == "NODE_FAIL") {
    out.push_back(finding("job_state", Severity::Critical, "A node of the job failed (NODE_FAIL).",
                          "This was not caused by the job: resubmit it. If it happens again, tell the cluster's "
                          "support team and give them the job id.",
                          runtime, 0, "s"));
  } else if (job.state == "FAILED") {
    out.push_back(finding("job_state", Severity::Critical,
                          "The job failed (FAILED): a command in it ended with an error.",
                          "Read the end of the job's output and error files for the failing command; test the "
                          "script on a small case (or in an interactive salloc session) before resubmitting.",
                          runtime, 0, "s"));
  }
}

void check_cpu_efficiency(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  const auto& efficiency = usage.cpu_efficiency_percent;
  if (!efficiency || *efficiency >= t.cpu_efficiency_warning) return;
  bool critical = *efficiency < t.cpu_efficiency_critical;
  int cores = usage.job.alloc_cpus;
  double busy_cores = *usage.cpu_avg_percent / 100;
  // The cores' worth it kept busy, rounded: "about" is all a mean can say.
  int enough = std::max(1, static_cast<int>(std::lround(busy_cores)));
  std::string advice;
  if (cores <= 1) {
    // One core cannot be "too many": the program waited instead of computing.
    advice =
        "The program spent much of its time waiting rather than computing: on file I/O (work in node-local "
        "scratch, $SLURM_TMPDIR, with fewer and larger reads and writes), on the network or other programs, or "
        "in sleeps; overlap the waiting with computation where it can be.";
  } else {
    advice = enough < cores ? "Request fewer cores (about " + std::to_string(enough) +
                                  " would have been enough), or make sure the program really runs in parallel"
                            : "Make sure the program really runs in parallel";
    advice += " (its thread or MPI options, srun for MPI programs); a short scaling test shows how many cores pay off.";
  }
  out.push_back(finding("cpu_efficiency", critical ? Severity::Critical : Severity::Warning,
                        "The job kept its " + plural(cores, "allocated core", "allocated cores") + " " +
                            number_text(*efficiency) + " % busy on average (about " + number_text(busy_cores) +
                            (number_text(busy_cores) == "1" ? " core's worth)." : " cores' worth)."),
                        std::move(advice), *efficiency, critical ? t.cpu_efficiency_critical : t.cpu_efficiency_warning,
                        "%"));
}

void check_cpu_stability(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  if (!usage.cpu_avg_percent || !usage.cpu_max_percent || !(*usage.cpu_max_percent > 0)) return;
  double ratio = *usage.cpu_avg_percent / *usage.cpu_max_percent;
  if (ratio >= t.cpu_stability_ratio) return;
  out.push_back(
      finding("cpu_stability", Severity::Info,
              "CPU use varied over the job: " + number_text(*usage.cpu_avg_percent) + " % on average, up to " +
                  number_text(*usage.cpu_max_percent) + " % (of one CPU).",
              "Look for phases that leave the cores idle (serial setup, I/O, waiting for files); overlap them "
              "with computation or move them to a separate, smaller job.",
              ratio, t.cpu_stability_ratio, "ratio"));
}

void check_core_imbalance(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  const auto& cores = usage.cpu_time_core;
  if (cores.size() < 2) return;
  double total = 0;
  for (const CoreTime& core : cores) total += core.seconds;
  double mean = total / static_cast<double>(cores.size());
  if (!(mean > 0)) return;
  auto least = std::min_element(cores.begin(), cores.end(),
                                [](const CoreTime& a, const CoreTime& b) { return a.seconds < b.seconds; });
  double ratio = least->seconds / mean;
  if (ratio >= t.core_imbalance_ratio) return;
  auto below = std::count_if(cores.begin(), cores.end(),
                             [&](const CoreTime& core) { return core.seconds < t.core_imbalance_ratio * mean; });
  out.push_back(
      finding("core_imbalance", Severity::Warning,
              std::to_string(below) + " of " + std::to_string(cores.size()) + " allocated cores got less than " +
                  number_text(100 * t.core_imbalance_ratio) + " % of the mean CPU time per core; the least used, " +
                  least->core + ", got " + number_text(100 * ratio) + " %.",
              "Spread the work evenly over the threads or ranks (e.g. OpenMP schedule(dynamic), smaller work "
              "chunks, a better domain decomposition), or request only as many cores as the program keeps busy.",
              ratio, t.core_imbalance_ratio, "ratio"));
}

// The options that ask for one core, from the layout the job had: fewer
// tasks (-n) where it ran several, one core per task (-c) where it had more,
// both where the record does not tell (a batch script alone looks the same
// under -n 2 and -c 2).
std::string one_core_request(const JobRecord& job) {
  std::string nodes = job.alloc_nodes > 1 ? "--nodes=1 " : "";
  bool known = job.tasks.has_value();
  bool many_tasks = known && *job.tasks > 1;
  bool many_cpus_per_task = known && job.cpus_per_task.value_or(1) > 1;
  if (many_tasks && !many_cpus_per_task) return nodes + "--ntasks=1";
  if (many_cpus_per_task && !many_tasks) return nodes + "--cpus-per-task=1";
  return nodes + "--ntasks=1 --cpus-per-task=1";
}

void check_serial_on_many_cores(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  const auto& efficiency = usage.cpu_efficiency_percent;
  int cores = usage.job.alloc_cpus;
  if (!efficiency || cores <= 1) return;
  // efficiency ÷ (1/cores): how many cores' worth the job kept busy.
  double busy_cores = *efficiency / 100 * cores;
  if (!(busy_cores > t.serial_low && busy_cores < t.serial_high)) return;
  const JobRecord& job = usage.job;
  std::string layout;
  if (job.tasks)
    layout = " (" + plural(*job.tasks, "task", "tasks") + " of " +
             plural(job.cpus_per_task.value_or(1), "core", "cores") + ")";
  std::string parallel_hint = job.tasks && *job.tasks > 1
                                  ? "check that each task does its share (an MPI program started with srun, its "
                                    "input split over the ranks)"
                                  : "check that it is started with its threads or MPI options (e.g. "
                                    "OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK, srun)";
  out.push_back(finding("serial_on_many_cores", Severity::Warning,
                        "The job had " + std::to_string(cores) + " cores" + layout + " but kept only about one busy (" +
                            number_text(busy_cores, 2) + " cores' worth on average): the program looks serial.",
                        "Use " + one_core_request(job) + " unless the program is meant to run in parallel; if it is, " +
                            parallel_hint + ".",
                        busy_cores, t.serial_low, "ratio"));
}

void check_memory_overallocated(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  // While the job runs its peak may still come: "request less next time"
  // waits for the end, like the time limit's advice. A job that ran out of
  // memory has one memory advice only: its state's, to ask for more.
  if (usage.job.running() || usage.job.state == "OUT_OF_MEMORY") return;
  const auto& ratio = usage.memory_fraction;
  if (!ratio || *ratio >= t.memory_overallocated_ratio) return;
  double wanted = t.memory_request_factor * largest_node_resident(usage);  // per node
  std::string cache;
  if (usage.memory_peak_mb && *usage.memory_peak_mb > *usage.memory_resident_mb + 1)
    cache = " With the page cache, which the kernel gives back when the job needs room, the memory cgroup peaked at " +
            number_text(*usage.memory_peak_mb) + " MB.";
  out.push_back(
      finding("memory_overallocated", Severity::Warning,
              "The job's resident memory peaked at " + number_text(*usage.memory_resident_mb) + " MB" +
                  resident_source_note(usage) + " of the " + number_text(*usage.job.alloc_mem_mb) + " MB allocated (" +
                  number_text(100 * *ratio) + " %)." + cache,
              "Request " + memory_request(usage.job, wanted, t.memory_request_min_mb) +
                  (wanted < t.memory_request_min_mb
                       ? " (the least worth asking for: " + number_text(t.memory_request_min_mb, 0) + " MB per node)"
                       : " (" + number_text(t.memory_request_factor) + " × the peak)") +
                  " next time: memory asked for but unused stays reserved, and smaller requests start "
                  "sooner.",
              100 * *ratio, 100 * t.memory_overallocated_ratio, "%"));
}

void check_memory_near_limit(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  // An OUT_OF_MEMORY job already has its critical state finding.
  if (usage.job.state == "OUT_OF_MEMORY") return;
  if (!usage.memory_resident_mb || !usage.job.alloc_mem_mb || !(*usage.job.alloc_mem_mb > 0)) return;
  // What the limit cannot reclaim: resident memory and the kernel's share.
  double kernel = usage.memory_at_peak.kernel.value_or(0);
  double held = *usage.memory_resident_mb + kernel;
  double ratio = held / *usage.job.alloc_mem_mb;
  if (ratio <= t.memory_near_limit_ratio) return;
  std::string what = kernel > 0 ? "resident memory and kernel memory" : "resident memory";
  double largest_node = largest_node_resident(usage);
  if (!usage.resident_peak_by_node.empty())
    largest_node += kernel / std::max<std::size_t>(1, usage.resident_peak_by_node.size());
  out.push_back(finding("memory_near_limit", Severity::Info,
                        "The job's " + what + " peaked at " + number_text(held) + " MB" + resident_source_note(usage) +
                            ", " + number_text(100 * ratio) + " % of the " + number_text(*usage.job.alloc_mem_mb) +
                            " MB allocated.",
                        "Leave some headroom, e.g. " +
                            memory_request(usage.job, t.memory_request_factor * largest_node, t.memory_request_min_mb) +
                            ", so that a slightly larger input does not end in OUT_OF_MEMORY.",
                        100 * ratio, 100 * t.memory_near_limit_ratio, "%"));
}

void check_scratch_unused(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  double moved = usage.read_mb + usage.write_mb;
  if (usage.uses_scratch || moved <= t.scratch_min_io_mb) return;
  out.push_back(finding("scratch_unused", Severity::Info,
                        "The job read and wrote " + number_text(moved) + " MB but never used a scratch filesystem.",
                        "Run I/O-heavy work in scratch space: keep the job's working files under /scratch (or on the "
                        "node-local /localscratch, $SLURM_TMPDIR) while it runs, then copy the results to home or "
                        "project storage.",
                        moved, t.scratch_min_io_mb, "MB"));
}

void check_small_io_many_files(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  if (!usage.opened_files_avg || !(*usage.opened_files_avg > 0) || *usage.opened_files_avg < t.small_io_min_files)
    return;
  double per_file = (usage.read_mb + usage.write_mb) / *usage.opened_files_avg;
  if (per_file >= t.small_io_mb_per_file) return;
  out.push_back(finding("small_io_many_files", Severity::Warning,
                        "The job kept about " + number_text(*usage.opened_files_avg, 0) +
                            " files open on average but moved only " + number_text(per_file, 2) + " MB per file.",
                        "Many small files are slow on shared filesystems: bundle them (tar, HDF5, a database), or copy "
                        "them to node-local scratch ($SLURM_TMPDIR) at the start of the job and work there.",
                        per_file, t.small_io_mb_per_file, "MB"));
}

void check_too_many_threads(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  int cpus = usage.job.alloc_cpus;
  if (cpus <= 0) return;
  double limit = t.threads_per_cpu * cpus;
  for (const auto& [name, threads] : usage.threads_max) {
    // The collector's "other" bucket sums many different programs: not one
    // process name's threads. Slurm's own launchers (srun, slurmstepd, the
    // extern step's sleep) run their threads, not the job's.
    if (name == "other" || threads <= limit) continue;
    if (std::find(t.threads_ignore.begin(), t.threads_ignore.end(), name) != t.threads_ignore.end()) continue;
    out.push_back(finding("too_many_threads", Severity::Warning,
                          "Processes named '" + name + "' ran up to " + number_text(threads, 0) + " threads on " +
                              plural(cpus, "allocated core", "allocated cores") + ".",
                          "Match the thread count to the cores asked for: OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK "
                          "(likewise MKL_NUM_THREADS, OPENBLAS_NUM_THREADS, or the program's own threads option); "
                          "more threads than cores only add switching overhead.",
                          threads, limit, "count"));
  }
}

// "gpu01 GPU 3", as the charts label a GPU's line.
std::string gpu_name(const GpuUsage& gpu) {
  return gpu.node + " GPU " + gpu.gpuid;
}

// "gpu01 GPU 0, gpu01 GPU 1 and 3 more": at most `shown` names.
std::string gpu_names(const std::vector<const GpuUsage*>& gpus, std::size_t shown = 8) {
  std::string out;
  for (std::size_t i = 0; i < gpus.size() && i < shown; ++i) out += (i == 0 ? "" : ", ") + gpu_name(*gpus[i]);
  if (gpus.size() > shown) out += " and " + std::to_string(gpus.size() - shown) + " more";
  return out;
}

// How many GPUs the job had: those jobs_gpus_used lists, those with a
// per-GPU series, or accounting's count, whichever is most.
std::size_t gpu_count(const JobUsage& usage) {
  std::size_t listed = 0;
  for (const auto& [node, ids] : usage.gpus) listed += ids.size();
  return std::max({listed, usage.gpu_devices.size(), static_cast<std::size_t>(std::max(0, usage.job.alloc_gpus))});
}

// The GPUs with utilisation samples.
std::vector<const GpuUsage*> measured_gpus(const JobUsage& usage) {
  std::vector<const GpuUsage*> out;
  for (const GpuUsage& gpu : usage.gpu_devices)
    if (gpu.utilization_max) out.push_back(&gpu);
  return out;
}

bool idle(const GpuUsage* gpu) {
  return !(*gpu->utilization_max > 0);
}

void check_gpu_unused(const JobUsage& usage, const RuleThresholds&, Findings& out) {
  // Without utilisation series nothing is known: silence, not a guess.
  std::vector<const GpuUsage*> unused;
  for (const GpuUsage* gpu : measured_gpus(usage))
    if (idle(gpu)) unused.push_back(gpu);
  if (unused.empty()) return;
  const std::size_t gpus = gpu_count(usage);
  if (unused.size() >= gpus) {
    out.push_back(finding("gpu_unused", Severity::Critical,
                          "The job had " + plural(static_cast<double>(gpus), "GPU", "GPUs") +
                              (gpus == 1 ? " but its" : " but their") + " utilisation stayed at 0 % for the whole job.",
                          "Check that the program was built with GPU support and sees the GPU (run nvidia-smi inside "
                          "the job; in Python e.g. torch.cuda.is_available()); if the job needs no GPU, submit it "
                          "without --gres=gpu or --gpus.",
                          0, 0, "%"));
    return;
  }
  out.push_back(finding("gpu_unused", Severity::Critical,
                        std::to_string(unused.size()) + " of the job's " + std::to_string(gpus) +
                            " GPUs stayed at 0 % utilisation for the whole job: " + gpu_names(unused) + ".",
                        "Check that the program spreads its work over every GPU it asks for (e.g. one process per GPU "
                        "with torch.distributed / DistributedDataParallel, or the framework's list of devices); "
                        "otherwise request only as many GPUs as it uses.",
                        0, 0, "%"));
}

void check_gpu_efficiency(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  const auto& mean = usage.gpu_utilization_mean;
  if (!mean || *mean >= t.gpu_efficiency_warning) return;
  std::vector<const GpuUsage*> measured = measured_gpus(usage);
  // Every GPU idle: gpu_unused has said it.
  if (measured.empty() || std::all_of(measured.begin(), measured.end(), idle)) return;
  const bool critical = *mean < t.gpu_efficiency_critical;
  const double n = static_cast<double>(measured.size());
  std::string message =
      "The job kept its " + plural(n, "GPU", "GPUs") + " busy " + number_text(*mean) + " % of the time on average";
  if (measured.size() > 1 && measured.size() <= 8) {
    std::string each;
    for (const GpuUsage* gpu : measured)
      each += (each.empty() ? "" : ", ") + gpu_name(*gpu) + " " + number_text(*gpu->utilization_mean) + " %";
    message += " (" + each + ")";
  }
  message += ".";
  std::string advice =
      std::string(measured.size() > 1 ? "Keep the GPUs fed" : "Keep the GPU fed") +
      ": load and prepare data in parallel CPU workers (e.g. PyTorch DataLoader num_workers, "
      "pin_memory=True) from fast storage (node-local scratch, $SLURM_TMPDIR); use a larger batch size; request "
      "enough CPU cores per GPU for the data loading";
  const std::size_t gpus = gpu_count(usage);
  if (usage.job.alloc_cpus > 0 && gpus > 0)
    advice += " (the job had " + number_text(static_cast<double>(usage.job.alloc_cpus) / static_cast<double>(gpus)) +
              " per GPU)";
  // The GPUs' worth it kept busy, rounded up: "about" is all a mean can say.
  const int enough = std::max(1, static_cast<int>(std::ceil(n * *mean / 100)));
  if (static_cast<double>(enough) < n)
    advice += "; or ask for fewer GPUs: at this use " + plural(enough, "GPU", "GPUs") + " would have been enough";
  advice += ".";
  out.push_back(finding("gpu_efficiency", critical ? Severity::Critical : Severity::Warning, std::move(message),
                        std::move(advice), *mean, critical ? t.gpu_efficiency_critical : t.gpu_efficiency_warning,
                        "%"));
}

void check_gpu_memory_low(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  // While the job runs its peak may still come, as with memory_overallocated.
  if (usage.job.running()) return;
  const GpuUsage* fullest = nullptr;
  double highest = 0;
  std::size_t judged = 0;
  for (const GpuUsage& gpu : usage.gpu_devices) {
    if (!gpu.memory_peak_mb || !gpu.memory_total_mb || !(*gpu.memory_total_mb > 0)) continue;
    double ratio = *gpu.memory_peak_mb / *gpu.memory_total_mb;
    ++judged;
    if (!fullest || ratio > highest) {
      fullest = &gpu;
      highest = ratio;
    }
  }
  if (!fullest || highest >= t.gpu_memory_low_ratio) return;
  const std::string peak = number_text(*fullest->memory_peak_mb, 0);
  const std::string total = number_text(*fullest->memory_total_mb, 0);
  std::string message = judged == 1
                            ? "The job used at most " + peak + " MB of its GPU's " + total + " MB of memory (" +
                                  number_text(100 * highest) + " %)."
                            : "The job used at most " + number_text(100 * highest) +
                                  " % of the memory of each of its " + std::to_string(judged) + " GPUs (the fullest, " +
                                  gpu_name(*fullest) + ", " + peak + " of " + total + " MB).";
  out.push_back(finding("gpu_memory_low", Severity::Info, std::move(message),
                        "A GPU with less memory, or a MIG slice of one, would do for jobs like this one where the "
                        "cluster offers them (e.g. --gres=gpu:<smaller type>): they are easier to get, and the large "
                        "GPUs stay free for jobs that need their memory.",
                        100 * highest, 100 * t.gpu_memory_low_ratio, "%"));
}

void check_time_overrequested(const JobUsage& usage, const RuleThresholds& t, Findings& out) {
  const JobRecord& job = usage.job;
  if (job.state != "COMPLETED" || !usage.time_limit_fraction) return;
  double ratio = *usage.time_limit_fraction;
  if (ratio >= t.time_warning_ratio) return;
  bool critical = ratio < t.time_critical_ratio;
  // The runtime plus half again, in whole minutes: margin for slower runs.
  std::int64_t suggested = std::max<std::int64_t>(60, (*usage.runtime_seconds * 3 / 2 + 59) / 60 * 60);
  out.push_back(finding("time_overrequested", critical ? Severity::Critical : Severity::Warning,
                        "The job ran " + duration_text(*usage.runtime_seconds) + ", " + number_text(100 * ratio) +
                            " % of its " + duration_text(*job.time_limit_seconds) + " time limit.",
                        "Request --time=" + duration_text(suggested) +
                            " (the runtime plus 50 %) for similar jobs: shorter limits start sooner, since the "
                            "scheduler can fit them into gaps (backfill).",
                        100 * ratio, 100 * (critical ? t.time_critical_ratio : t.time_warning_ratio), "%"));
}

using Rule = void (*)(const JobUsage&, const RuleThresholds&, Findings&);

// In ARCHITECTURE.md §6 order; job_state is separate because it alone also
// judges short jobs and jobs without metrics.
constexpr Rule kUsageRules[] = {
    check_cpu_efficiency,       check_cpu_stability,     check_core_imbalance, check_serial_on_many_cores,
    check_memory_overallocated, check_memory_near_limit, check_scratch_unused, check_small_io_many_files,
    check_too_many_threads,     check_gpu_unused,        check_gpu_efficiency, check_gpu_memory_low,
    check_time_overrequested,
};

}  // namespace

std::vector<Finding> evaluate_rules(const JobUsage& usage, const RuleThresholds& thresholds) {
  Findings findings;
  check_job_state(usage, thresholds, findings);
  // Too short a job or nothing measured at all (no samples, no stand-in
  // from accounting): the aggregates say nothing yet, so only the state
  // speaks. A job with an unknown runtime is not known to be short. Figures
  // from accounting (TotalCPU, MaxRSS) are judged like measured ones.
  bool too_short =
      usage.runtime_seconds && static_cast<double>(*usage.runtime_seconds) < thresholds.min_runtime_seconds;
  if (!usage.no_usage() && !too_short)
    for (Rule rule : kUsageRules) rule(usage, thresholds, findings);
  // Most severe first; within a severity, the table's order.
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  return findings;
}

}  // namespace petricore::analysis
