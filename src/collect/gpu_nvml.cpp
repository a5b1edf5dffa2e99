#include "collect/gpu_nvml.hpp"

#include "collect/error_counter.hpp"
#include "collect/nvml_api.h"
#include "core/log.hpp"
#include "core/shared_library.hpp"

#include <algorithm>
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
  X(mig_mode, nvmlDeviceGetMigMode)                             \
  X(max_mig_devices, nvmlDeviceGetMaxMigDeviceCount)            \
  X(mig_handle, nvmlDeviceGetMigDeviceHandleByIndex)            \
  X(gpu_instance_id, nvmlDeviceGetGpuInstanceId)

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
  bool enumerate_next = true;         // a lost GPU, a count change, a MIG change: enumerate at the next read
  bool lost_logged = false;
  unsigned known_count = 0;  // the device count of the last enumeration (MIG instances not counted)
  std::vector<nvmlProcessInfo_t> infos = std::vector<nvmlProcessInfo_t>(kProcessRoom);  // reused
  std::size_t process_count = 0;                                                        // in infos

  Impl(std::string library_, ErrorCounter& errors_) : library(std::move(library_)), errors(errors_) {}

  std::string describe(nvmlReturn_t rc) const {
    const char* text = lib ? lib->error_string(rc) : nullptr;
    return std::string{text ? text : "unknown error"} + " (NVML " + std::to_string(static_cast<int>(rc)) + ")";
  }

  // Loads the library and its functions once; false when off for good.
  bool load() {
    if (lib) return true;
    if (state == State::OffForGood) return false;
    std::string soname;
    lib = load_gpu_library<NvmlLibrary>("nvml", {library}, resolve_functions, soname);
    if (!lib) state = State::OffForGood;
    return lib.has_value();
  }

  WaitingNotice notice;  // while there is no driver or no GPU

  // Initialises NVML; false (and a retry later) when the driver is not there.
  bool start(double now) {
    if (initialised) return true;
    if (now < retry_at) return false;
    nvmlReturn_t rc = lib->init();
    if (rc != NVML_SUCCESS) {
      notice.waiting("GPU source nvml off: cannot initialise " + library + ": " + describe(rc));
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
                 std::string{"NVML "} + call + " failed on GPU " + device_name(device) + ": " + describe(rc));
  }
  static std::string device_name(const GpuDevice& device) {
    std::string name = std::to_string(device.index);
    if (device.instance) name += " MIG instance " + std::to_string(*device.instance);
    return name;
  }

  void enumerate(std::vector<GpuDevice>& devices, unsigned count);
  void enumerate_instances(nvmlDevice_t parent_handle, const GpuDevice& parent, std::vector<GpuDevice>& devices);
  // The compute processes on `handle` (all instances' on a MIG GPU, which
  // root may ask of the whole GPU): false when the query failed.
  bool processes(nvmlDevice_t handle, nvmlReturn_t& rc);
};

void NvmlGpus::Impl::enumerate(std::vector<GpuDevice>& devices, unsigned count) {
  const NvmlLibrary& nvml = *lib;
  devices.clear();
  handles.clear();
  nvmlReturn_t rc;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t handle = nullptr;
    GpuDevice device;
    device.index = i;
    if ((rc = nvml.handle_by_index(i, &handle)) != NVML_SUCCESS) {
      count_error("handle", device, rc);
      continue;
    }
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    if ((rc = nvml.minor_number(handle, &device.number)) != NVML_SUCCESS) {
      // Without its minor number the device cannot be matched to a job.
      count_error("minor number", device, rc);
      continue;
    }
    device.id = std::to_string(device.number);
    if (nvml.uuid(handle, text, sizeof text) == NVML_SUCCESS) device.uuid = text;
    if (nvml.name(handle, text, sizeof text) == NVML_SUCCESS) device.model = text;
    unsigned current = 0, pending = 0;
    device.mig = nvml.mig_mode(handle, &current, &pending) == NVML_SUCCESS && current == NVML_DEVICE_MIG_ENABLE;
    devices.push_back(device);
    handles.push_back(handle);
    if (device.mig) enumerate_instances(handle, device, devices);
  }
}

// A MIG GPU's instances, right after the GPU itself in `devices`.
void NvmlGpus::Impl::enumerate_instances(nvmlDevice_t parent_handle, const GpuDevice& parent,
                                         std::vector<GpuDevice>& devices) {
  const NvmlLibrary& nvml = *lib;
  unsigned room = 0;
  nvmlReturn_t rc = nvml.max_mig_devices(parent_handle, &room);
  if (rc != NVML_SUCCESS) {
    count_error("MIG device count", parent, rc);
    return;
  }
  for (unsigned m = 0; m < room; ++m) {
    nvmlDevice_t handle = nullptr;
    rc = nvml.mig_handle(parent_handle, m, &handle);
    if (rc == NVML_ERROR_NOT_FOUND) continue;  // no instance at this index
    if (rc != NVML_SUCCESS) {
      count_error("MIG device handle", parent, rc);
      continue;
    }
    unsigned instance = 0;
    if ((rc = nvml.gpu_instance_id(handle, &instance)) != NVML_SUCCESS) {
      count_error("GPU instance id", parent, rc);
      continue;
    }
    GpuDevice device;
    device.index = parent.index;
    device.number = parent.number;
    device.instance = instance;
    device.id = parent.id + "/" + std::to_string(instance);
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    if (nvml.uuid(handle, text, sizeof text) == NVML_SUCCESS) device.uuid = text;
    if (nvml.name(handle, text, sizeof text) == NVML_SUCCESS) device.model = text;
    devices.push_back(std::move(device));
    handles.push_back(handle);
  }
}

bool NvmlGpus::Impl::processes(nvmlDevice_t handle, nvmlReturn_t& rc) {
  unsigned room = static_cast<unsigned>(infos.size());
  rc = lib->compute_processes(handle, &room, infos.data());
  if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {  // more than the room: once more with room for all
    infos.resize(room + 8);
    room = static_cast<unsigned>(infos.size());
    rc = lib->compute_processes(handle, &room, infos.data());
  }
  if (rc != NVML_SUCCESS) return false;
  infos.resize(std::max<std::size_t>(room, kProcessRoom));
  process_count = std::min<std::size_t>(room, infos.size());
  return true;
}

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
  if (count != s.known_count) s.enumerate_next = true;
  if (s.enumerate_next) {
    s.enumerate(devices_, count);
    s.known_count = count;
    s.enumerate_next = false;
    if (devices_.empty()) {
      s.notice.waiting("GPU source nvml off: " + s.library + " finds no GPU");
      s.lib->shutdown();
      s.initialised = false;
      s.retry_at = now + kRetrySeconds;
      s.state = Impl::State::Waiting;
      return samples;
    }
    s.state = Impl::State::Ready;
    s.notice.working();
  }

  bool lost = false;
  // A call failing on a MIG instance: the instance may have been destroyed.
  bool instances_changed = false;
  auto note = [&](const char* call, std::size_t i, nvmlReturn_t result) {
    if (result == NVML_ERROR_GPU_IS_LOST) {
      lost = true;
      if (!s.lost_logged)
        log::warning("GPU " + std::to_string(devices_[i].index) + " (" + devices_[i].uuid +
                     ") is lost: the GPUs are enumerated again");
      s.lost_logged = true;
    }
    if (devices_[i].instance && result != NVML_ERROR_NOT_SUPPORTED) instances_changed = true;
    if (result != NVML_ERROR_NOT_SUPPORTED) s.count_error(call, devices_[i], result);
  };
  // The processes of the last MIG GPU read, by instance, for its instances
  // (which follow it in devices_).
  std::vector<std::pair<unsigned, int>> instance_pids;
  bool instance_pids_known = false;
  samples.reserve(devices_.size());
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const GpuDevice& device = devices_[i];
    nvmlDevice_t handle = s.handles[i];
    GpuSample sample;
    sample.device = i;
    if (!device.instance) {
      nvmlUtilization_t utilization{};
      if ((rc = nvml.utilization(handle, &utilization)) == NVML_SUCCESS) {
        sample.utilization_percent = utilization.gpu;
        sample.memory_utilization_percent = utilization.memory;
      } else if (!(rc == NVML_ERROR_NOT_SUPPORTED && device.mig)) {
        note("utilization", i, rc);
      }
    }
    nvmlMemory_t memory{};
    if ((rc = nvml.memory_info(handle, &memory)) == NVML_SUCCESS) {
      sample.memory_used_mib = static_cast<double>(memory.used) / kMiB;
      devices_[i].memory_total_mib = static_cast<double>(memory.total) / kMiB;
    } else {
      note("memory", i, rc);
    }
    if (device.instance) {
      // Its processes are among its GPU's.
      sample.pids_known = instance_pids_known;
      for (const auto& [instance, pid] : instance_pids)
        if (instance == *device.instance) sample.pids.push_back(pid);
      samples.push_back(std::move(sample));
      continue;
    }
    unsigned milliwatts = 0;
    if ((rc = nvml.power_usage(handle, &milliwatts)) == NVML_SUCCESS)
      sample.power_watts = milliwatts / 1000.0;
    else
      note("power", i, rc);
    instance_pids.clear();
    instance_pids_known = false;
    if (s.processes(handle, rc)) {
      sample.pids_known = true;
      instance_pids_known = device.mig;
      for (std::size_t p = 0; p < s.process_count; ++p) {
        const nvmlProcessInfo_t& info = s.infos[p];
        if (device.mig && info.gpuInstanceId != PETRICORE_NVML_NO_INSTANCE)
          instance_pids.emplace_back(info.gpuInstanceId, static_cast<int>(info.pid));
        else
          sample.pids.push_back(static_cast<int>(info.pid));
      }
      // A process on an instance not enumerated: one made since.
      for (const auto& [instance, pid] : instance_pids) {
        bool known = false;
        for (std::size_t j = i + 1; j < devices_.size() && devices_[j].instance; ++j)
          known = known || *devices_[j].instance == instance;
        if (!known) instances_changed = true;
      }
    } else {
      note("processes", i, rc);
    }
    samples.push_back(std::move(sample));
  }
  if (lost || instances_changed) s.enumerate_next = true;
  if (!lost) s.lost_logged = false;
  return samples;
}

}  // namespace petricore::collect
