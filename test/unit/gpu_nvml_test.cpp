// NvmlGpus against the stand-in libnvidia-ml.so.1 of test/standin (built
// with these tests; its file format is in nvml_standin.c): enumeration,
// readings, per-device failures, lost GPUs, MIG, the retry of a library
// without a driver, and a library that is missing or lacks a function.
#include "collect/gpu_nvml.hpp"

#include "catch.hpp"
#include "gpu_standin.hpp"

#include "collect/error_counter.hpp"

#include <cstdio>
#include <string>

using namespace petricore::collect;
using petricore::test::gpu_errors;

namespace {

std::string standin_library() {
  return petricore::test::standin_library("PETRICORE_NVML_STANDIN_LIBRARY");
}

struct StandinFile : petricore::test::StandinFile {
  StandinFile() : petricore::test::StandinFile("PETRICORE_NVML_STANDIN") {}
};

constexpr const char* kTwoGpus =
    "gpu minor=0 uuid=GPU-aaaa name=\"NVIDIA A100-SXM4-40GB\" memory_total_mib=40960\n"
    "gpu minor=1 uuid=GPU-bbbb name=\"NVIDIA A100-SXM4-40GB\" memory_total_mib=40960\n"
    "sample gpu=0 util=95 memory_util=40 memory_used_mib=2048 power_mw=250500\n"
    "sample gpu=1 util=0 memory_util=0 memory_used_mib=0 power_mw=52000\n"
    "process gpu=0 pid=4242 used_mib=2000\n"
    "process gpu=0 pid=4243 used_mib=40\n";

}  // namespace

TEST_CASE("nvml: devices and their readings from the library", "[gpu]") {
  REQUIRE_FALSE(standin_library().empty());
  StandinFile file;
  file.write(kTwoGpus);
  ErrorCounter errors;
  NvmlGpus gpus(standin_library(), errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 2);
  REQUIRE(gpus.devices().size() == 2);
  const GpuDevice& first = gpus.devices()[0];
  CHECK(first.index == 0);
  CHECK(first.number == 0);
  CHECK(first.id == "0");
  CHECK_FALSE(first.instance);
  CHECK(first.uuid == "GPU-aaaa");
  CHECK(first.model == "NVIDIA A100-SXM4-40GB");
  CHECK(first.memory_total_mib == 40960.0);
  CHECK_FALSE(first.mig);
  CHECK(gpus.devices()[1].number == 1);
  CHECK(gpus.vendor() == std::string{"nvidia"});

  CHECK(samples[0].device == 0);
  CHECK(samples[0].utilization_percent == 95.0);
  CHECK(samples[0].memory_utilization_percent == 40.0);
  CHECK(samples[0].memory_used_mib == 2048.0);
  CHECK(samples[0].power_watts == 250.5);
  CHECK(samples[0].pids_known);
  CHECK(samples[0].pids == std::vector<int>{4242, 4243});
  CHECK(samples[1].utilization_percent == 0.0);
  CHECK(samples[1].power_watts == 52.0);
  CHECK(samples[1].pids.empty());
  CHECK(gpu_errors(errors) == 0);
  CHECK_FALSE(gpus.off_for_good());

  // The next read follows the readings.
  file.write(std::string(kTwoGpus) + "sample gpu=1 util=60 memory_util=10 memory_used_mib=512 power_mw=180000\n");
  samples = gpus.read(1);
  REQUIRE(samples.size() == 2);
  CHECK(samples[1].utilization_percent == 60.0);
  CHECK(samples[1].memory_used_mib == 512.0);
}

TEST_CASE("nvml: a call failing on one device leaves that value absent and counts an error", "[gpu]") {
  StandinFile file;
  file.write(std::string(kTwoGpus) + "fail gpu=0 call=power code=999\nfail gpu=1 call=processes code=999\n");
  ErrorCounter errors;
  NvmlGpus gpus(standin_library(), errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 2);
  CHECK_FALSE(samples[0].power_watts);
  CHECK(samples[0].utilization_percent == 95.0);
  CHECK(samples[0].pids_known);
  CHECK_FALSE(samples[1].pids_known);
  CHECK(samples[1].power_watts == 52.0);
  CHECK(gpu_errors(errors) == 2);
}

TEST_CASE("nvml: a lost GPU is enumerated afresh at the next read; a device count change too", "[gpu]") {
  StandinFile file;
  file.write(kTwoGpus);
  ErrorCounter errors;
  NvmlGpus gpus(standin_library(), errors);
  REQUIRE(gpus.read(0).size() == 2);
  file.write(std::string(kTwoGpus) + "fail gpu=1 call=utilization code=15\n");
  auto samples = gpus.read(1);
  REQUIRE(samples.size() == 2);
  CHECK_FALSE(samples[1].utilization_percent);
  CHECK(gpu_errors(errors) == 1);
  // Replaced in the meantime: the new device's UUID is read.
  std::string replaced = kTwoGpus;
  replaced.replace(replaced.find("GPU-bbbb"), 8, "GPU-cccc");
  file.write(replaced);
  REQUIRE(gpus.read(2).size() == 2);
  CHECK(gpus.devices()[1].uuid == "GPU-cccc");

  // One GPU fewer: the count tells.
  file.write("gpu minor=3 uuid=GPU-dddd name=x memory_total_mib=1024\n");
  samples = gpus.read(3);
  REQUIRE(samples.size() == 1);
  CHECK(gpus.devices()[0].number == 3);
  CHECK(gpus.devices()[0].id == "3");
}

TEST_CASE("nvml: with MIG on the device gives no utilisation, and that is no error", "[gpu]") {
  StandinFile file;
  file.write(
      "gpu minor=0 uuid=GPU-mig name=\"NVIDIA H100 80GB HBM3\" memory_total_mib=81559 mig=1\n"
      "sample gpu=0 util=50 memory_used_mib=100 power_mw=90000\n");
  ErrorCounter errors;
  NvmlGpus gpus(standin_library(), errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 1);
  CHECK(gpus.devices()[0].mig);
  CHECK_FALSE(samples[0].utilization_percent);
  CHECK(samples[0].memory_used_mib == 100.0);
  CHECK(gpu_errors(errors) == 0);
}

TEST_CASE("nvml: a MIG instance is a device of its own, with memory and its processes", "[gpu]") {
  StandinFile file;
  const std::string gpus_text =
      "gpu minor=2 uuid=GPU-mig name=\"NVIDIA A100-SXM4-40GB\" memory_total_mib=40960 mig=1\n"
      "sample gpu=0 memory_used_mib=1500 power_mw=90000\n"
      "instance gpu=0 gi=1 uuid=MIG-one name=\"NVIDIA A100-SXM4-40GB MIG 3g.20gb\" memory_total_mib=19968 "
      "memory_used_mib=1000\n"
      "instance gpu=0 gi=2 uuid=MIG-two name=\"NVIDIA A100-SXM4-40GB MIG 3g.20gb\" memory_total_mib=19968 "
      "memory_used_mib=500\n"
      "process gpu=0 gi=1 pid=500\n"
      "process gpu=0 gi=2 pid=600\n"
      "process gpu=0 gi=2 pid=601\n";
  file.write(gpus_text);
  ErrorCounter errors;
  NvmlGpus gpus(standin_library(), errors);
  auto samples = gpus.read(0);
  REQUIRE(gpus.devices().size() == 3);
  REQUIRE(samples.size() == 3);
  const GpuDevice& whole = gpus.devices()[0];
  CHECK(whole.id == "2");
  CHECK(whole.mig);
  CHECK(samples[0].pids.empty());  // every process is on an instance
  CHECK(samples[0].power_watts == 90.0);
  const GpuDevice& first = gpus.devices()[1];
  CHECK(first.id == "2/1");
  CHECK(first.number == 2);
  CHECK(first.instance == 1u);
  CHECK(first.uuid == "MIG-one");
  CHECK(first.model == "NVIDIA A100-SXM4-40GB MIG 3g.20gb");
  CHECK(first.memory_total_mib == 19968.0);
  CHECK(samples[1].memory_used_mib == 1000.0);
  CHECK_FALSE(samples[1].utilization_percent);
  CHECK_FALSE(samples[1].power_watts);
  CHECK(samples[1].pids == std::vector<int>{500});
  CHECK(gpus.devices()[2].id == "2/2");
  CHECK(samples[2].pids == std::vector<int>{600, 601});
  CHECK(gpu_errors(errors) == 0);

  // An instance destroyed and another made: found at the next read.
  file.write(
      "gpu minor=2 uuid=GPU-mig name=\"NVIDIA A100-SXM4-40GB\" memory_total_mib=40960 mig=1\n"
      "instance gpu=0 gi=5 uuid=MIG-five name=x memory_total_mib=9856 memory_used_mib=10\n"
      "process gpu=0 gi=5 pid=700\n");
  gpus.read(1);  // the instances changed: counted, enumerated again
  samples = gpus.read(2);
  REQUIRE(gpus.devices().size() == 2);
  CHECK(gpus.devices()[1].id == "2/5");
  CHECK(samples[1].pids == std::vector<int>{700});
}

TEST_CASE("nvml: more compute processes than the first room are all read", "[gpu]") {
  StandinFile file;
  std::string text = "gpu minor=0 uuid=GPU-busy name=x memory_total_mib=1024\n";
  for (int pid = 1000; pid < 1100; ++pid) text += "process gpu=0 pid=" + std::to_string(pid) + " used_mib=1\n";
  file.write(text);
  ErrorCounter errors;
  NvmlGpus gpus(standin_library(), errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 1);
  REQUIRE(samples[0].pids.size() == 100);
  CHECK(samples[0].pids.front() == 1000);
  CHECK(samples[0].pids.back() == 1099);
}

TEST_CASE("nvml: without a driver the source waits 5 minutes before it tries again", "[gpu]") {
  StandinFile file;
  file.write("init code=9\n");
  ErrorCounter errors;
  NvmlGpus gpus(standin_library(), errors);
  CHECK(gpus.read(1000).empty());
  file.write(kTwoGpus);
  CHECK(gpus.read(1100).empty());  // not asked again yet
  CHECK(gpus.read(1301).size() == 2);
  CHECK_FALSE(gpus.off_for_good());
  CHECK(gpu_errors(errors) == 0);

  // No devices: the same wait.
  StandinFile none;
  none.write("# a driver, no GPU\n");
  NvmlGpus empty(standin_library(), errors);
  CHECK(empty.read(0).empty());
  none.write(kTwoGpus);
  CHECK(empty.read(10).empty());
  CHECK(empty.read(301).size() == 2);
}

TEST_CASE("nvml: no library, or one without a function petricore calls, is off for good", "[gpu]") {
  ErrorCounter errors;
  NvmlGpus missing("/nonexistent/libnvidia-ml.so.1", errors);
  CHECK(missing.read(0).empty());
  CHECK(missing.off_for_good());
  // A real library, but not NVML: nvmlInit_v2 is not in it.
  NvmlGpus other("libz.so.1", errors);
  CHECK(other.read(0).empty());
  CHECK(other.off_for_good());
  CHECK(gpu_errors(errors) == 0);
}
