// Which of the node's GPUs a job holds, and which it uses without holding
// them: the rule, said once (the README's "GPUs" section says it for users).
//
// * A whole GPU is the job's when its number or UUID is among the job's GPU
//   ids (SLURM_JOB_GPUS, else SLURM_STEP_GPUS: Slurm's numbers of the node's
//   GPUs, which are NVML's minor numbers when gres.conf lists /dev/nvidia<N>
//   in order, as AutoDetect=nvml does, and ROCm SMI's indexes with
//   AutoDetect=rsmi).
// * A MIG instance is the job's when its "<gpu>/<gi>" id or its UUID is among
//   them, or when a process of the job runs on it: Slurm numbers MIG slices
//   in an order of its own, so the processes are the reliable sign. A MIG
//   slice the job holds but never uses is therefore not seen. A GPU with MIG
//   on is never held whole.
// * A GPU the job does not hold but runs processes on is a foreign GPU: the
//   count of the job's processes there is reported, not its readings.
//
// Several jobs holding one GPU (shared GPUs, MPS) each see the whole
// device's readings: NVML and ROCm SMI give no per-process utilisation.
#pragma once

#include "collect/gpu_source.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace petricore::collect {

struct JobGpuMatch {
  std::vector<std::size_t> held;                              // indexes into the samples, in device order
  std::vector<std::pair<std::size_t, std::int64_t>> foreign;  // (sample index, the job's processes on it)
};

// `job_pids` sorted ascending; `samples` as GpuSource::read() gave them for
// `devices`.
JobGpuMatch match_job_gpus(const std::vector<std::string>& job_gpu_ids, const std::vector<int>& job_pids,
                           const std::vector<GpuDevice>& devices, const std::vector<GpuSample>& samples);

}  // namespace petricore::collect
