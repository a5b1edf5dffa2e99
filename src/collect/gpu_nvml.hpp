// The node's NVIDIA GPUs through NVML: libnvidia-ml.so.1 is dlopen()ed on the
// first read, never linked, so a node without it pays nothing. The devices are
// enumerated once (index, minor number, UUID, model, memory, MIG mode) and
// again when the device count changes or a GPU is lost; each read() gives every
// device's utilisation, memory, power and the pids of its compute processes.
//
// Faults, as the collector's other sources: no library, the source is off for
// good (one info line, nothing counted); a library without a function
// petricore calls, off for good (one warning naming it); a library without a
// driver or without devices, off with one warning and tried again every
// 5 minutes; a call that fails on one device leaves that value absent this
// read and counts a "gpu" error; a lost GPU is logged once and the devices
// enumerated afresh at the next read. Not thread-safe: one sampler's.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

struct GpuDevice {
  unsigned index = 0;  // NVML's enumeration order (PCI bus order)
  unsigned minor = 0;  // of /dev/nvidia<minor>, the number Slurm's GPU ids are
  std::string uuid;    // GPU-<...>
  std::string model;   // "NVIDIA A100-SXM4-40GB"
  std::optional<double> memory_total_mib;
  bool mig = false;  // MIG mode on: the device gives no utilisation of its own
};

// One device in one read; a value is absent when its call failed or the
// device does not give it (utilisation with MIG on).
struct GpuSample {
  std::size_t device = 0;  // index into devices()
  std::optional<double> utilization_percent;
  std::optional<double> memory_utilization_percent;
  std::optional<double> memory_used_mib;
  std::optional<double> power_watts;
  std::vector<int> pids;    // compute processes on it
  bool pids_known = false;  // false when the process query failed
};

class NvmlGpus {
 public:
  // `library`: a path or a soname.
  NvmlGpus(std::string library, ErrorCounter& errors);
  ~NvmlGpus();
  NvmlGpus(const NvmlGpus&) = delete;
  NvmlGpus& operator=(const NvmlGpus&) = delete;

  // Every device's readings at monotonic time `now` (which paces the retries);
  // empty while the source is off.
  std::vector<GpuSample> read(double now);
  // The devices of the last enumeration.
  const std::vector<GpuDevice>& devices() const { return devices_; }
  // Whether the source is off for good (no library, a missing function).
  bool off_for_good() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<GpuDevice> devices_;
};

}  // namespace petricore::collect
