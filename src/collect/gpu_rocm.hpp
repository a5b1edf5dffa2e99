// The node's AMD GPUs through ROCm SMI: the first of librocm_smi64.so.7, .6,
// .5 that loads is dlopen()ed on the first read, never linked, so a node
// without ROCm pays nothing. The devices are enumerated once (index, unique
// id, model, memory) and again when the device count changes or a device that
// answered stops answering; each read() gives every device's utilisation,
// memory utilisation, memory in use, power and the pids of the processes on it.
//
// A device's id and number are its ROCm SMI index, which is the number Slurm
// gives it: AutoDetect=rsmi lists a node's GPUs in ROCm SMI's index order.
//
// Faults as gpu_source.hpp says: no library, off for good (one info line,
// nothing counted); a library without a function petricore calls, off for good
// (one warning naming it); rsmi_init failing or no device, off with one
// warning and tried again every 5 minutes; a call failing on one device, that
// value absent and a "gpu" error counted (not for RSMI_STATUS_NOT_SUPPORTED, a
// value the device does not give); a lost device logged once and ROCm SMI
// initialised afresh at the next read, as only rsmi_init enumerates.
// Not thread-safe: one sampler's.
#pragma once

#include "collect/gpu_source.hpp"

#include <memory>
#include <string>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

// The sonames tried by default, newest first. ROCm SMI's soname follows its
// own version, not ROCm's (ROCm 6.2 ships ROCm SMI 7.3, librocm_smi64.so.7).
std::vector<std::string> default_rocm_libraries();

class RocmGpus final : public GpuSource {
 public:
  // `libraries`: paths or sonames, the first that loads is used.
  RocmGpus(std::vector<std::string> libraries, ErrorCounter& errors);
  ~RocmGpus() override;
  RocmGpus(const RocmGpus&) = delete;
  RocmGpus& operator=(const RocmGpus&) = delete;

  const char* vendor() const override { return "amd"; }
  std::vector<GpuSample> read(double now) override;
  const std::vector<GpuDevice>& devices() const override { return devices_; }
  bool off_for_good() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<GpuDevice> devices_;
};

}  // namespace petricore::collect
