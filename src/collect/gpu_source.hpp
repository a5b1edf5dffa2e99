// A node's GPUs as one vendor's library sees them: NVIDIA's NVML
// (gpu_nvml.hpp) or AMD's ROCm SMI (gpu_rocm.hpp). Each source dlopen()s its
// library on the first read, never links it, so a node without it pays
// nothing; gpu_collector.hpp maps what a source reads to the jobs.
//
// The faults every source handles the same way: no library, the source is
// off for good (one info line, nothing counted); a library without a function
// petricore calls, off for good (one warning naming it); a library without a
// driver or without devices, off with one warning and tried again every
// 5 minutes; a call that fails on one device leaves that value absent this
// read and counts a "gpu" error; a lost GPU is logged once and the devices
// enumerated afresh at the next read. Not thread-safe: one sampler's.
#pragma once

#include "core/log.hpp"
#include "core/shared_library.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace petricore::collect {

struct GpuDevice {
  // The gpuid label: the number Slurm gives the GPU on this node (NVML's
  // minor number of /dev/nvidia<minor>, ROCm SMI's device index), or
  // "<number>/<gi>" for a MIG instance (its GPU instance id).
  std::string id;
  unsigned index = 0;                // the library's enumeration order (PCI bus order), for messages
  unsigned number = 0;               // the GPU's number as in `id` (the whole GPU's, for a MIG instance)
  std::optional<unsigned> instance;  // a MIG instance's GPU instance id
  std::string uuid;                  // "GPU-<...>", "MIG-<...>", or AMD's unique id in hex
  std::string model;                 // "NVIDIA A100-SXM4-40GB"
  std::optional<double> memory_total_mib;
  bool mig = false;  // a whole GPU with MIG on: it gives no utilisation, its instances are devices of their own
};

// One device in one read; a value is absent when its call failed or the
// device does not give it (utilisation of a MIG instance).
struct GpuSample {
  std::size_t device = 0;  // index into devices()
  std::optional<double> utilization_percent;
  std::optional<double> memory_utilization_percent;
  std::optional<double> memory_used_mib;
  std::optional<double> power_watts;
  std::vector<int> pids;    // compute processes on it (host pids)
  bool pids_known = false;  // false when the process query failed
};

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // The vendor label of jobs_gpu_info: "nvidia", "amd".
  virtual const char* vendor() const = 0;
  // Every device's readings at monotonic time `now` (which paces the
  // retries); empty while the source is off.
  virtual std::vector<GpuSample> read(double now) = 0;
  // The devices of the last enumeration.
  virtual const std::vector<GpuDevice>& devices() const = 0;
  // Whether the source is off for good (no library, a missing function).
  virtual bool off_for_good() const = 0;
};

// A vendor library's functions, from the first of `libraries` that loads,
// looked up by `resolve` (which throws std::runtime_error naming a missing
// one); empty when the source `name` ("nvml") must stay off, with the one
// line that calls for: info for no library (a node without GPUs), a warning
// for a missing function. `soname` gets the library loaded.
template <typename Functions, typename Resolve>
std::optional<Functions> load_gpu_library(const char* name, const std::vector<std::string>& libraries, Resolve resolve,
                                          std::string& soname) {
  std::string why;
  std::optional<SharedLibrary> so = SharedLibrary::try_open(libraries, why);
  if (!so) {
    log::info(std::string{"GPU source "} + name + " off: " + why);
    return std::nullopt;
  }
  try {
    Functions functions = resolve(*so);
    soname = so->soname();
    return functions;
  } catch (const std::runtime_error& e) {
    log::warning(std::string{"GPU source "} + name + " off: " + e.what());
    return std::nullopt;
  }
}

// A source waiting for a driver or a GPU warns once, then logs its retries
// at debug level, until it works again.
class WaitingNotice {
 public:
  void waiting(const std::string& why) {
    if (warned_) {
      log::debug(why + "; trying again in 5 minutes");
    } else {
      log::warning(why + "; trying again every 5 minutes");
      warned_ = true;
    }
  }
  void working() { warned_ = false; }

 private:
  bool warned_ = false;
};

}  // namespace petricore::collect
