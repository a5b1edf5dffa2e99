// What one collection pass knows about one job: the values behind the jobs_*
// metrics, in the units of the metric contract (ARCHITECTURE.md §4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace petricore::collect {

// One GPU the job holds, as its vendor's library read it this pass
// (gpu_collector.hpp); a value is absent when the library did not give it.
struct JobGpuReading {
  std::string gpuid;   // the node's GPU number as Slurm gives it, "<gpu>/<gi>" for a MIG instance
  std::string uuid;    // GPU-..., MIG-..., or AMD's unique id
  std::string model;   // "NVIDIA A100-SXM4-40GB"
  std::string vendor;  // "nvidia", "amd"
  std::optional<double> utilization_percent;         // of the last sample period
  std::optional<double> memory_utilization_percent;  // the memory controller's
  std::optional<double> memory_used_mib;             // the whole device's, not the job's share
  std::optional<double> memory_total_mib;
  std::optional<double> power_watts;
};

struct JobSample {
  // The label slurm_job: the numeric id; for a job whose cgroup is named by
  // its SLUID, the SLUID itself until a process environment gives the id.
  std::string job_id;
  std::string sluid;  // Slurm 26.05's SLUID when the job's cgroup is named by it, else empty

  // Static facts, read once per job and cached.
  std::optional<unsigned> uid;
  std::string user;               // login name, or the uid as text when it has none
  std::string account;            // SLURM_JOB_ACCOUNT, empty when unknown
  std::vector<std::string> gpus;  // SLURM_JOB_GPUS (else SLURM_STEP_GPUS), split on commas
  std::vector<int> cpus;          // the job's cpuset

  // CPU, from the cgroup.
  std::optional<double> cpu_percent;                  // % of one CPU; absent on the job's first pass
  std::optional<double> cpu_time_total;               // seconds
  std::optional<double> user_time;                    // seconds
  std::optional<double> system_time;                  // seconds
  std::vector<std::pair<int, double>> cpu_time_core;  // (cpu id, seconds)

  // Memory, MiB. Resident = anon + shmem; the page cache (file) is not
  // resident use: the kernel reclaims it when the job needs the room.
  std::optional<double> rss_mib;           // anon + shmem
  std::optional<double> anon_mib;          // anonymous memory (heap, stacks)
  std::optional<double> shmem_mib;         // tmpfs and shared memory
  std::optional<double> file_mib;          // page cache, shmem not included
  std::optional<double> kernel_mib;        // kernel memory charged to the job
  std::optional<double> swap_mib;          // swapped out
  std::optional<double> usage_mib;         // what the limit counts (memory.usage_in_bytes, memory.current)
  std::optional<double> memory_limit_mib;  // absent when unlimited
  std::optional<double> memory_peak_mib;   // the cgroup's high-water mark, page cache included

  // Processes, from /proc.
  std::int64_t processes = 0;
  std::int64_t opened_files = 0;
  std::vector<std::pair<std::string, std::int64_t>> threads_by_name;  // capped, plus "other"
  bool uses_scratch = false;
  double read_mib = 0;   // MiB, exited processes included
  double write_mib = 0;  // MiB, exited processes included
  std::uint64_t read_count = 0;
  std::uint64_t write_count = 0;

  // GPUs, from NVML and ROCm SMI: those the job holds, and how many of its
  // processes run on a GPU it does not hold (by that GPU's gpuid).
  std::vector<JobGpuReading> gpu_readings;
  std::vector<std::pair<std::string, std::int64_t>> gpu_foreign_processes;
};

}  // namespace petricore::collect
