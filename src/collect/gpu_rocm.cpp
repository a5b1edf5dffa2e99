#include "collect/gpu_rocm.hpp"

#include "collect/error_counter.hpp"
#include "collect/rocm_smi_api.h"
#include "core/log.hpp"
#include "core/shared_library.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace petricore::collect {

std::vector<std::string> default_rocm_libraries() {
  return {"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5"};
}

namespace {

// A library whose rsmi_init fails or which finds no device is asked again after this.
constexpr double kRetrySeconds = 300;
// The processes read in one call (ROCm SMI says how many there are; a node
// with more is read with room for all), and the devices of one process.
constexpr std::size_t kProcessRoom = 64;
constexpr std::size_t kDeviceRoom = 16;
constexpr double kMiB = 1024.0 * 1024.0;

#define PETRICORE_ROCM_FUNCTIONS(X)                        \
  X(init, rsmi_init)                                       \
  X(shut_down, rsmi_shut_down)                             \
  X(status_string, rsmi_status_string)                     \
  X(device_count, rsmi_num_monitor_devices)                \
  X(name, rsmi_dev_name_get)                               \
  X(unique_id, rsmi_dev_unique_id_get)                     \
  X(busy_percent, rsmi_dev_busy_percent_get)               \
  X(memory_busy_percent, rsmi_dev_memory_busy_percent_get) \
  X(memory_total, rsmi_dev_memory_total_get)               \
  X(memory_usage, rsmi_dev_memory_usage_get)               \
  X(power_average, rsmi_dev_power_ave_get)                 \
  X(processes, rsmi_compute_process_info_get)              \
  X(process_gpus, rsmi_compute_process_gpus_get)

struct RocmLibrary {
  PETRICORE_ROCM_FUNCTIONS(PETRICORE_DLSYM_MEMBER)
  // ROCm 6.0 and later; preferred, as newer ASICs give the current socket
  // power only, no average (rocm_smi.h). Null in ROCm 5's library.
  decltype(&::rsmi_dev_power_get) power = nullptr;
};

// Throws std::runtime_error naming the first function missing.
RocmLibrary resolve_functions(const SharedLibrary& so) {
  RocmLibrary lib{};
  PETRICORE_ROCM_FUNCTIONS(PETRICORE_DLSYM_RESOLVE)
  so.resolve_optional("rsmi_dev_power_get", lib.power);
  return lib;
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

}  // namespace

struct RocmGpus::Impl {
  enum class State { NotLoaded, OffForGood, Waiting, Ready };

  std::vector<std::string> libraries;
  ErrorCounter& errors;
  State state = State::NotLoaded;
  std::optional<RocmLibrary> lib;
  std::string soname;  // the library loaded
  bool initialised = false;
  double retry_at = 0;
  bool enumerate_next = true;
  bool lost_logged = false;
  std::vector<bool> answered;  // by devices_ index: gave a reading since enumerated
  std::vector<rsmi_process_info_t> processes = std::vector<rsmi_process_info_t>(kProcessRoom);
  std::vector<std::uint32_t> indexes = std::vector<std::uint32_t>(kDeviceRoom);

  Impl(std::vector<std::string> libraries_, ErrorCounter& errors_)
      : libraries(std::move(libraries_)), errors(errors_) {}

  std::string describe(rsmi_status_t rc) const {
    const char* text = nullptr;
    if (lib && lib->status_string(rc, &text) != RSMI_STATUS_SUCCESS) text = nullptr;
    return std::string{text ? text : "unknown error"} + " (ROCm SMI " + std::to_string(static_cast<unsigned>(rc)) + ")";
  }

  // Loads the library and its functions once; false when off for good.
  bool load() {
    if (lib) return true;
    if (state == State::OffForGood) return false;
    lib = load_gpu_library<RocmLibrary>("rocm", libraries, resolve_functions, soname);
    if (!lib) state = State::OffForGood;
    return lib.has_value();
  }

  WaitingNotice notice;  // while there is no driver or no GPU

  // Initialises ROCm SMI, which enumerates the devices; false (and a retry
  // later) when it cannot.
  bool start(double now) {
    if (initialised) return true;
    if (now < retry_at) return false;
    rsmi_status_t rc = lib->init(0);
    if (rc != RSMI_STATUS_SUCCESS) {
      notice.waiting("GPU source rocm off: cannot initialise " + soname + ": " + describe(rc));
      retry_at = now + kRetrySeconds;
      state = State::Waiting;
      return false;
    }
    initialised = true;
    enumerate_next = true;
    return true;
  }

  void stop() {
    if (initialised) lib->shut_down();
    initialised = false;
  }

  void count_error(const char* call, const GpuDevice& device, rsmi_status_t rc) {
    errors.count(
        "gpu", std::string{"rocm "} + call,
        std::string{"ROCm SMI "} + call + " failed on GPU " + std::to_string(device.index) + ": " + describe(rc));
  }

  std::vector<GpuDevice> enumerate(std::uint32_t count) {
    std::vector<GpuDevice> devices;
    for (std::uint32_t i = 0; i < count; ++i) {
      GpuDevice device;
      device.index = device.number = i;
      device.id = std::to_string(i);
      char name[256] = {};
      if (lib->name(i, name, sizeof name) == RSMI_STATUS_SUCCESS) {
        name[sizeof name - 1] = '\0';
        device.model = name;
      }
      std::uint64_t id = 0;
      if (lib->unique_id(i, &id) == RSMI_STATUS_SUCCESS) device.uuid = hex(id);
      std::uint64_t total = 0;
      rsmi_status_t rc = lib->memory_total(i, RSMI_MEM_TYPE_VRAM, &total);
      if (rc == RSMI_STATUS_SUCCESS)
        device.memory_total_mib = static_cast<double>(total) / kMiB;
      else if (rc != RSMI_STATUS_NOT_SUPPORTED)
        count_error("memory total", device, rc);
      devices.push_back(std::move(device));
    }
    answered.assign(devices.size(), false);
    return devices;
  }

  // The devices `pid` uses, into `indexes`; their number, or the failure.
  rsmi_status_t process_devices(std::uint32_t pid, std::uint32_t& found) {
    found = static_cast<std::uint32_t>(indexes.size());
    rsmi_status_t rc = lib->process_gpus(pid, indexes.data(), &found);
    if (rc == RSMI_STATUS_INSUFFICIENT_SIZE) {  // more than the room: asked how many, then read with room for all
      found = 0;
      if ((rc = lib->process_gpus(pid, nullptr, &found)) != RSMI_STATUS_SUCCESS) return rc;
      indexes.resize(found + 8);
      found = static_cast<std::uint32_t>(indexes.size());
      rc = lib->process_gpus(pid, indexes.data(), &found);
    }
    if (found > indexes.size()) found = static_cast<std::uint32_t>(indexes.size());
    return rc;
  }

  // The pids on each of `device_count` devices; nothing when the list or one
  // process's devices cannot be read (no device's list would be whole).
  std::optional<std::vector<std::vector<int>>> pids_by_device(std::size_t device_count) {
    std::uint32_t count = static_cast<std::uint32_t>(processes.size());
    rsmi_status_t rc = lib->processes(processes.data(), &count);
    if (rc == RSMI_STATUS_INSUFFICIENT_SIZE) {  // more than the room: asked how many, then read with room for all
      count = 0;
      if ((rc = lib->processes(nullptr, &count)) == RSMI_STATUS_SUCCESS) {
        processes.resize(count + 8);
        count = static_cast<std::uint32_t>(processes.size());
        rc = lib->processes(processes.data(), &count);
      }
    }
    if (rc != RSMI_STATUS_SUCCESS) {
      errors.count("gpu", "rocm processes", "ROCm SMI process list failed: " + describe(rc));
      return std::nullopt;
    }
    std::vector<std::vector<int>> pids(device_count);
    for (std::uint32_t p = 0; p < count && p < processes.size(); ++p) {
      std::uint32_t pid = processes[p].process_id, found = 0;
      rc = process_devices(pid, found);
      if (rc == RSMI_STATUS_NOT_FOUND) continue;  // ended since the list was read
      if (rc != RSMI_STATUS_SUCCESS) {
        errors.count("gpu", "rocm process gpus",
                     "ROCm SMI devices of process " + std::to_string(pid) + " failed: " + describe(rc));
        return std::nullopt;
      }
      for (std::uint32_t k = 0; k < found; ++k) {
        if (indexes[k] >= device_count) continue;  // a device this enumeration lacks
        std::vector<int>& on = pids[indexes[k]];
        // A pid the list gives twice is on the device once.
        if (std::find(on.begin(), on.end(), static_cast<int>(pid)) == on.end()) on.push_back(static_cast<int>(pid));
      }
    }
    return pids;
  }
};

RocmGpus::RocmGpus(std::vector<std::string> libraries, ErrorCounter& errors)
    : impl_(std::make_unique<Impl>(std::move(libraries), errors)) {}

RocmGpus::~RocmGpus() {
  impl_->stop();
}

bool RocmGpus::off_for_good() const {
  return impl_->state == Impl::State::OffForGood;
}

std::vector<GpuSample> RocmGpus::read(double now) {
  Impl& s = *impl_;
  std::vector<GpuSample> samples;
  if (!s.load() || !s.start(now)) return samples;
  const RocmLibrary& rsmi = *s.lib;

  std::uint32_t count = 0;
  rsmi_status_t rc = rsmi.device_count(&count);
  if (rc != RSMI_STATUS_SUCCESS) {
    s.errors.count("gpu", "rocm device count", "ROCm SMI device count failed: " + s.describe(rc));
    return samples;
  }
  // rsmi_init fixes the count, so a GPU gone shows as a device that stops
  // answering (below); the count is compared all the same.
  if (count != devices_.size()) s.enumerate_next = true;
  if (s.enumerate_next) {
    devices_ = s.enumerate(count);
    s.enumerate_next = false;
    if (devices_.empty()) {
      s.notice.waiting("GPU source rocm off: " + s.soname + " finds no GPU");
      s.stop();
      s.retry_at = now + kRetrySeconds;
      s.state = Impl::State::Waiting;
      return samples;
    }
    s.state = Impl::State::Ready;
    s.notice.working();
  }

  auto pids = s.pids_by_device(devices_.size());
  bool lost = false;
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const GpuDevice& device = devices_[i];
    const std::uint32_t index = device.index;
    GpuSample sample;
    sample.device = i;
    bool answered = false;
    auto note = [&](const char* call, rsmi_status_t result) {
      if (result == RSMI_STATUS_SUCCESS) {
        answered = true;
        return true;
      }
      if (result != RSMI_STATUS_NOT_SUPPORTED) s.count_error(call, device, result);
      return false;
    };
    std::uint32_t percent = 0;
    if (note("busy percent", rsmi.busy_percent(index, &percent))) sample.utilization_percent = percent;
    if (note("memory busy percent", rsmi.memory_busy_percent(index, &percent)))
      sample.memory_utilization_percent = percent;
    std::uint64_t bytes = 0;
    if (note("memory usage", rsmi.memory_usage(index, RSMI_MEM_TYPE_VRAM, &bytes)))
      sample.memory_used_mib = static_cast<double>(bytes) / kMiB;
    std::uint64_t microwatts = 0;
    RSMI_POWER_TYPE type = RSMI_INVALID_POWER;
    rc = rsmi.power ? rsmi.power(index, &microwatts, &type) : rsmi.power_average(index, 0, &microwatts);
    if (note("power", rc)) sample.power_watts = static_cast<double>(microwatts) / 1e6;
    if (pids) {
      sample.pids = std::move((*pids)[i]);
      sample.pids_known = true;
    }
    // A device that answered and now answers nothing has gone (its sysfs
    // files answer ENOENT, which ROCm SMI reports as not supported).
    if (answered) {
      s.answered[i] = true;
    } else if (s.answered[i]) {
      lost = true;
      if (!s.lost_logged)
        log::warning("GPU " + device.id + " (" + device.uuid +
                     ") is lost: ROCm SMI is initialised afresh at the next read");
      s.lost_logged = true;
    }
    samples.push_back(std::move(sample));
  }
  if (lost) {
    s.stop();  // rsmi_init alone enumerates; start() calls it at the next read
  } else {
    s.lost_logged = false;
  }
  return samples;
}

}  // namespace petricore::collect
