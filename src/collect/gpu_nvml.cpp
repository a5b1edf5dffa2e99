#include "collect/gpu_nvml.hpp"

#include "collect/error_counter.hpp"
#include "collect/nvml_api.h"
#include "core/log.hpp"
#include "core/shared_library.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace petricore::collect {
namespace {

// A library without a driver or without devices is asked again after this.
constexpr double kRetrySeconds = 300;
// The most compute processes read per device and pass (NVML says how many
// there are; a device with more is read with room for all).
constexpr unsigned kProcessRoom = 64;
constexpr double kMiB = 1024.0 * 1024.0;

#define PETRICORE_NVML_FUNCTIONS(X)                             \
  X(init, nvmlInit_v2)                                          \
  X(shutdown, nvmlShutdown)                                     \
  X(error_string, nvmlErrorString)                              \
  X(device_count, nvmlDeviceGetCount_v2)                        \
  X(handle_by_index, nvmlDeviceGetHandleByIndex_v2)             \
  X(minor_number, nvmlDeviceGetMinorNumber)                     \
  X(uuid, nvmlDeviceGetUUID)                                    \
  X(name, nvmlDeviceGetName)                                    \
  X(memory_info, nvmlDeviceGetMemoryInfo)                       \
  X(utilization, nvmlDeviceGetUtilizationRates)                 \
  X(power_usage, nvmlDeviceGetPowerUsage)                       \
  X(compute_processes, nvmlDeviceGetComputeRunningProcesses_v3) \
  X(mig_mode, nvmlDeviceGetMigMode)

struct NvmlLibrary {
  PETRICORE_NVML_FUNCTIONS(PETRICORE_DLSYM_MEMBER)
};

// Throws std::runtime_error naming the first function missing.
NvmlLibrary resolve_functions(const SharedLibrary& so) {
  NvmlLibrary lib{};
  PETRICORE_NVML_FUNCTIONS(PETRICORE_DLSYM_RESOLVE)
  return lib;
}

}  // namespace

struct NvmlGpus::Impl {
  enum class State { NotLoaded, OffForGood, Waiting, Ready };

  std::string library;
  ErrorCounter& errors;
  State state = State::NotLoaded;
  std::optional<NvmlLibrary> lib;
  bool initialised = false;
  double retry_at = 0;
  std::vector<nvmlDevice_t> handles;  // by devices_ index
  bool enumerate_next = true;         // a lost GPU or a count change: enumerate at the next read
  bool lost_logged = false;

  Impl(std::string library_, ErrorCounter& errors_) : library(std::move(library_)), errors(errors_) {}

  std::string describe(nvmlReturn_t rc) const {
    const char* text = lib ? lib->error_string(rc) : nullptr;
    return std::string{text ? text : "unknown error"} + " (NVML " + std::to_string(static_cast<int>(rc)) + ")";
  }

  // Loads the library and its functions once; false when off for good.
  bool load() {
    if (lib) return true;
    if (state == State::OffForGood) return false;
    std::optional<SharedLibrary> so;
    try {
      so.emplace(library.c_str());
    } catch (const std::runtime_error& e) {
      log::info(std::string{"GPU source nvml off: "} + e.what());
      state = State::OffForGood;
      return false;
    }
    try {
      lib = resolve_functions(*so);
    } catch (const std::runtime_error& e) {
      log::warning(std::string{"GPU source nvml off: "} + e.what());
      state = State::OffForGood;
      return false;
    }
    return true;
  }

  // Initialises NVML; false (and a retry later) when the driver is not there.
  bool start(double now) {
    if (initialised) return true;
    if (now < retry_at) return false;
    nvmlReturn_t rc = lib->init();
    if (rc != NVML_SUCCESS) {
      log::warning("GPU source nvml off: cannot initialise " + library + ": " + describe(rc) +
                   "; trying again in 5 minutes");
      retry_at = now + kRetrySeconds;
      state = State::Waiting;
      return false;
    }
    initialised = true;
    enumerate_next = true;
    return true;
  }

  void count_error(const char* call, const GpuDevice& device, nvmlReturn_t rc) {
    errors.count("gpu", std::string{"nvml "} + call,
                 std::string{"NVML "} + call + " failed on GPU " + std::to_string(device.index) + ": " + describe(rc));
  }
};

NvmlGpus::NvmlGpus(std::string library, ErrorCounter& errors)
    : impl_(std::make_unique<Impl>(std::move(library), errors)) {}

NvmlGpus::~NvmlGpus() {
  if (impl_->initialised) impl_->lib->shutdown();
}

bool NvmlGpus::off_for_good() const {
  return impl_->state == Impl::State::OffForGood;
}

std::vector<GpuSample> NvmlGpus::read(double now) {
  Impl& s = *impl_;
  std::vector<GpuSample> samples;
  if (!s.load() || !s.start(now)) return samples;
  const NvmlLibrary& nvml = *s.lib;

  unsigned count = 0;
  nvmlReturn_t rc = nvml.device_count(&count);
  if (rc != NVML_SUCCESS) {
    s.errors.count("gpu", "nvml device count", "NVML device count failed: " + s.describe(rc));
    return samples;
  }
  if (count != devices_.size()) s.enumerate_next = true;
  if (s.enumerate_next) {
    devices_.clear();
    s.handles.clear();
    for (unsigned i = 0; i < count; ++i) {
      nvmlDevice_t handle = nullptr;
      GpuDevice device;
      device.index = i;
      if ((rc = nvml.handle_by_index(i, &handle)) != NVML_SUCCESS) {
        s.count_error("handle", device, rc);
        continue;
      }
      char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
      if ((rc = nvml.minor_number(handle, &device.minor)) != NVML_SUCCESS) {
        // Without its minor number the device cannot be matched to a job.
        s.count_error("minor number", device, rc);
        continue;
      }
      if (nvml.uuid(handle, text, sizeof text) == NVML_SUCCESS) device.uuid = text;
      if (nvml.name(handle, text, sizeof text) == NVML_SUCCESS) device.model = text;
      unsigned current = 0, pending = 0;
      device.mig = nvml.mig_mode(handle, &current, &pending) == NVML_SUCCESS && current == NVML_DEVICE_MIG_ENABLE;
      devices_.push_back(std::move(device));
      s.handles.push_back(handle);
    }
    s.enumerate_next = false;
    if (devices_.empty()) {
      log::warning("GPU source nvml off: " + s.library + " finds no GPU; trying again in 5 minutes");
      s.lib->shutdown();
      s.initialised = false;
      s.retry_at = now + kRetrySeconds;
      s.state = Impl::State::Waiting;
      return samples;
    }
    s.state = Impl::State::Ready;
  }

  bool lost = false;
  auto note = [&](const char* call, std::size_t i, nvmlReturn_t result) {
    if (result == NVML_ERROR_GPU_IS_LOST) {
      lost = true;
      if (!s.lost_logged)
        log::warning("GPU " + std::to_string(devices_[i].index) + " (" + devices_[i].uuid +
                     ") is lost: the GPUs are enumerated again");
      s.lost_logged = true;
    }
    if (result != NVML_ERROR_NOT_SUPPORTED) s.count_error(call, devices_[i], result);
  };
  std::vector<nvmlProcessInfo_t> infos(kProcessRoom);
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    nvmlDevice_t handle = s.handles[i];
    GpuSample sample;
    sample.device = i;
    nvmlUtilization_t utilization{};
    if ((rc = nvml.utilization(handle, &utilization)) == NVML_SUCCESS) {
      sample.utilization_percent = utilization.gpu;
      sample.memory_utilization_percent = utilization.memory;
    } else if (!(rc == NVML_ERROR_NOT_SUPPORTED && devices_[i].mig)) {
      note("utilization", i, rc);
    }
    nvmlMemory_t memory{};
    if ((rc = nvml.memory_info(handle, &memory)) == NVML_SUCCESS) {
      sample.memory_used_mib = static_cast<double>(memory.used) / kMiB;
      devices_[i].memory_total_mib = static_cast<double>(memory.total) / kMiB;
    } else {
      note("memory", i, rc);
    }
    unsigned milliwatts = 0;
    if ((rc = nvml.power_usage(handle, &milliwatts)) == NVML_SUCCESS)
      sample.power_watts = milliwatts / 1000.0;
    else
      note("power", i, rc);
    unsigned room = static_cast<unsigned>(infos.size());
    rc = nvml.compute_processes(handle, &room, infos.data());
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {  // more than the room: once more with room for all
      infos.resize(room + 8);
      room = static_cast<unsigned>(infos.size());
      rc = nvml.compute_processes(handle, &room, infos.data());
    }
    if (rc == NVML_SUCCESS) {
      sample.pids_known = true;
      for (unsigned p = 0; p < room && p < infos.size(); ++p) sample.pids.push_back(static_cast<int>(infos[p].pid));
    } else {
      note("processes", i, rc);
    }
    samples.push_back(std::move(sample));
  }
  if (lost) {
    s.enumerate_next = true;
  } else {
    s.lost_logged = false;
  }
  return samples;
}

}  // namespace petricore::collect
