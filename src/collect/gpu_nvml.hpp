// The node's NVIDIA GPUs through NVML (gpu_source.hpp says what every GPU
// source promises): libnvidia-ml.so.1 is dlopen()ed on the first read. The
// devices are enumerated once (index, minor number, UUID, model, memory, MIG
// mode, and a GPU's MIG instances as devices of their own, "<minor>/<gi>")
// and again when the device count changes, a GPU is lost or a MIG instance
// fails or appears; each read gives every device's utilisation, memory,
// power and the pids of its compute processes. A MIG instance gives memory
// and processes only: NVML has no utilisation or power per instance.
#pragma once

#include "collect/gpu_source.hpp"

#include <memory>
#include <string>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

// The library's soname, the default of --nvml-library.
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

class NvmlGpus final : public GpuSource {
 public:
  // `library`: a path or a soname.
  NvmlGpus(std::string library, ErrorCounter& errors);
  ~NvmlGpus() override;
  NvmlGpus(const NvmlGpus&) = delete;
  NvmlGpus& operator=(const NvmlGpus&) = delete;

  const char* vendor() const override { return "nvidia"; }
  std::vector<GpuSample> read(double now) override;
  const std::vector<GpuDevice>& devices() const override { return devices_; }
  bool off_for_good() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<GpuDevice> devices_;
};

}  // namespace petricore::collect
