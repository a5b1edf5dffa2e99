// RocmGpus against the stand-in librocm_smi64.so.6 of test/standin (built
// with these tests; its file format is in rocm_standin.c): enumeration,
// readings, per-device failures, processes across devices, a device that
// goes, the retry of a library that cannot initialise, and a library that is
// missing or lacks a function.
#include "collect/gpu_rocm.hpp"

#include "catch.hpp"
#include "gpu_standin.hpp"

#include "collect/error_counter.hpp"

#include <cstdio>
#include <string>

using namespace petricore::collect;
using petricore::test::gpu_errors;

namespace {

std::string standin_library() {
  return petricore::test::standin_library("PETRICORE_ROCM_STANDIN_LIBRARY");
}

struct StandinFile : petricore::test::StandinFile {
  StandinFile() : petricore::test::StandinFile("PETRICORE_ROCM_STANDIN") {}
};

constexpr const char* kTwoGpus =
    "gpu name=\"AMD Instinct MI250X\" unique_id=0x5a1b2c3d4e5f6071 memory_total_mib=65536\n"
    "gpu name=\"AMD Instinct MI250X\" unique_id=0x00000000abcdef01 memory_total_mib=65536\n"
    "sample gpu=0 busy=95 memory_busy=40 memory_used_mib=2048 power_uw=250500000\n"
    "sample gpu=1 busy=0 memory_busy=0 memory_used_mib=0 power_uw=52000000\n"
    "process pid=4242 gpus=0,1\n"
    "process pid=4243 gpus=0\n";

}  // namespace

TEST_CASE("rocm: devices and their readings from the library", "[gpu]") {
  REQUIRE_FALSE(standin_library().empty());
  StandinFile file;
  file.write(kTwoGpus);
  ErrorCounter errors;
  RocmGpus gpus({standin_library()}, errors);
  CHECK(gpus.vendor() == std::string{"amd"});
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 2);
  REQUIRE(gpus.devices().size() == 2);
  const GpuDevice& first = gpus.devices()[0];
  CHECK(first.id == "0");
  CHECK(first.index == 0);
  CHECK(first.number == 0);
  CHECK_FALSE(first.instance);
  CHECK(first.uuid == "0x5a1b2c3d4e5f6071");
  CHECK(first.model == "AMD Instinct MI250X");
  CHECK(first.memory_total_mib == 65536.0);
  CHECK_FALSE(first.mig);
  CHECK(gpus.devices()[1].id == "1");
  CHECK(gpus.devices()[1].number == 1);
  CHECK(gpus.devices()[1].uuid == "0xabcdef01");

  CHECK(samples[0].device == 0);
  CHECK(samples[0].utilization_percent == 95.0);
  CHECK(samples[0].memory_utilization_percent == 40.0);
  CHECK(samples[0].memory_used_mib == 2048.0);
  CHECK(samples[0].power_watts == 250.5);
  CHECK(samples[1].utilization_percent == 0.0);
  CHECK(samples[1].power_watts == 52.0);
  CHECK(gpu_errors(errors) == 0);
  CHECK_FALSE(gpus.off_for_good());

  // The next read follows the readings.
  file.write(std::string(kTwoGpus) + "sample gpu=1 busy=60 memory_busy=10 memory_used_mib=512 power_uw=180000000\n");
  samples = gpus.read(1);
  REQUIRE(samples.size() == 2);
  CHECK(samples[1].utilization_percent == 60.0);
  CHECK(samples[1].memory_used_mib == 512.0);
  CHECK(samples[1].power_watts == 180.0);
}

TEST_CASE("rocm: a process is on each device it uses; one gone in between is left out", "[gpu]") {
  StandinFile file;
  file.write(std::string(kTwoGpus) +
             "process pid=4244 gpus=1 ended=1\n"
             "process pid=4245 gpus=7\n"
             "process pid=4243 gpus=0\n");  // listed twice
  ErrorCounter errors;
  RocmGpus gpus({standin_library()}, errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 2);
  CHECK(samples[0].pids_known);
  CHECK(samples[0].pids == std::vector<int>{4242, 4243});
  CHECK(samples[1].pids_known);
  CHECK(samples[1].pids == std::vector<int>{4242});  // 4244 ended, 4245 is on a device this enumeration lacks
  CHECK(gpu_errors(errors) == 0);

  // Nobody on the GPUs: known, and empty.
  file.write(
      "gpu name=x unique_id=1 memory_total_mib=1024\n"
      "gpu name=x unique_id=2 memory_total_mib=1024\n");
  samples = gpus.read(1);
  REQUIRE(samples.size() == 2);
  CHECK(samples[0].pids_known);
  CHECK(samples[0].pids.empty());
}

TEST_CASE("rocm: a process query that fails leaves every device's pids unknown and counts an error", "[gpu]") {
  StandinFile file;
  file.write(std::string(kTwoGpus) + "fail call=processes code=3\n");
  ErrorCounter errors;
  RocmGpus gpus({standin_library()}, errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 2);
  CHECK_FALSE(samples[0].pids_known);
  CHECK_FALSE(samples[1].pids_known);
  CHECK(samples[0].utilization_percent == 95.0);
  CHECK(gpu_errors(errors) == 1);

  // One process's devices unknown: no device's list would be whole.
  file.write(std::string(kTwoGpus) + "fail pid=4243 call=process_gpus code=4\n");
  samples = gpus.read(1);
  CHECK_FALSE(samples[0].pids_known);
  CHECK_FALSE(samples[1].pids_known);
  CHECK(gpu_errors(errors) == 2);
}

TEST_CASE("rocm: a call failing on one device leaves that value absent and counts an error", "[gpu]") {
  StandinFile file;
  file.write(std::string(kTwoGpus) +
             "fail gpu=0 call=power code=3\n"
             "fail gpu=1 call=busy code=4294967295\n"
             "fail gpu=1 call=memory_busy code=2\n");  // not supported: absent, no error
  ErrorCounter errors;
  RocmGpus gpus({standin_library()}, errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 2);
  CHECK_FALSE(samples[0].power_watts);
  CHECK(samples[0].utilization_percent == 95.0);
  CHECK(samples[0].pids_known);
  CHECK_FALSE(samples[1].utilization_percent);
  CHECK_FALSE(samples[1].memory_utilization_percent);
  CHECK(samples[1].power_watts == 52.0);
  CHECK(gpu_errors(errors) == 2);

  // The device count failing: nothing this read, an error counted.
  file.write(std::string(kTwoGpus) + "fail call=count code=4294967295\n");
  CHECK(gpus.read(1).empty());
  CHECK(gpu_errors(errors) == 3);
  file.write(kTwoGpus);
  CHECK(gpus.read(2).size() == 2);
}

TEST_CASE("rocm: a device that stops answering is lost, and ROCm SMI enumerates afresh", "[gpu]") {
  StandinFile file;
  file.write(kTwoGpus);
  ErrorCounter errors;
  RocmGpus gpus({standin_library()}, errors);
  REQUIRE(gpus.read(0).size() == 2);

  // GPU 1 gone: ROCm SMI still counts it until initialised again, and its
  // sysfs files answer ENOENT, "not supported": no error counted.
  file.write(
      "gpu name=\"AMD Instinct MI250X\" unique_id=0x5a1b2c3d4e5f6071 memory_total_mib=65536\n"
      "sample gpu=0 busy=10 memory_busy=1 memory_used_mib=100 power_uw=90000000\n");
  auto samples = gpus.read(1);
  REQUIRE(samples.size() == 2);
  CHECK(samples[0].utilization_percent == 10.0);
  CHECK_FALSE(samples[1].utilization_percent);
  CHECK_FALSE(samples[1].memory_used_mib);
  CHECK_FALSE(samples[1].power_watts);
  CHECK(gpu_errors(errors) == 0);
  samples = gpus.read(2);
  REQUIRE(samples.size() == 1);
  REQUIRE(gpus.devices().size() == 1);
  CHECK(gpus.devices()[0].uuid == "0x5a1b2c3d4e5f6071");

  // A GPU back in its place, another one: seen once the one that stayed stops answering too.
  file.write(
      "gpu name=y unique_id=0xcafe memory_total_mib=1024\n"
      "gpu name=y unique_id=0xbeef memory_total_mib=1024\n"
      "fail gpu=0 call=busy code=2\nfail gpu=0 call=memory_busy code=2\n"
      "fail gpu=0 call=memory_usage code=2\nfail gpu=0 call=power code=2\n");
  CHECK(gpus.read(3).size() == 1);
  file.write(
      "gpu name=y unique_id=0xcafe memory_total_mib=1024\n"
      "gpu name=y unique_id=0xbeef memory_total_mib=1024\n");
  samples = gpus.read(4);
  REQUIRE(samples.size() == 2);
  CHECK(gpus.devices()[0].uuid == "0xcafe");
  CHECK(gpus.devices()[1].uuid == "0xbeef");
  CHECK(gpus.devices()[1].id == "1");
  CHECK(gpu_errors(errors) == 0);
}

TEST_CASE("rocm: a device that never answered is not taken for lost", "[gpu]") {
  StandinFile file;
  file.write(
      "gpu name=z unique_id=0x1 memory_total_mib=1024\n"
      "fail gpu=0 call=busy code=2\nfail gpu=0 call=memory_busy code=2\n"
      "fail gpu=0 call=memory_usage code=2\nfail gpu=0 call=power code=2\n");
  ErrorCounter errors;
  RocmGpus gpus({standin_library()}, errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 1);
  CHECK_FALSE(samples[0].utilization_percent);
  // Enumerated once only: the device count the stand-in's file gains is not
  // seen without a fresh rsmi_init.
  file.write(
      "gpu name=z unique_id=0x1 memory_total_mib=1024\ngpu name=z unique_id=0x2 memory_total_mib=1024\n"
      "fail gpu=0 call=busy code=2\nfail gpu=0 call=memory_busy code=2\n"
      "fail gpu=0 call=memory_usage code=2\nfail gpu=0 call=power code=2\n");
  CHECK(gpus.read(1).size() == 1);
  CHECK(gpu_errors(errors) == 0);
}

TEST_CASE("rocm: more processes than the first room, and a process on more devices, are all read", "[gpu]") {
  StandinFile file;
  std::string text;
  std::string all_gpus;
  for (int gpu = 0; gpu < 20; ++gpu) {
    text += "gpu name=x unique_id=" + std::to_string(gpu + 1) + " memory_total_mib=1024\n";
    all_gpus += (gpu ? "," : "") + std::to_string(gpu);
  }
  for (int pid = 1000; pid < 1100; ++pid) text += "process pid=" + std::to_string(pid) + " gpus=0\n";
  text += "process pid=2000 gpus=" + all_gpus + "\n";
  file.write(text);
  ErrorCounter errors;
  RocmGpus gpus({standin_library()}, errors);
  auto samples = gpus.read(0);
  REQUIRE(samples.size() == 20);
  REQUIRE(samples[0].pids.size() == 101);
  CHECK(samples[0].pids.front() == 1000);
  CHECK(samples[0].pids[99] == 1099);
  CHECK(samples[0].pids.back() == 2000);
  CHECK(samples[19].pids == std::vector<int>{2000});
  CHECK(gpu_errors(errors) == 0);
}

TEST_CASE("rocm: when ROCm SMI cannot initialise the source waits 5 minutes before it tries again", "[gpu]") {
  ErrorCounter errors;
  {
    StandinFile file;
    file.write("init code=8\n");
    RocmGpus gpus({standin_library()}, errors);
    CHECK(gpus.read(1000).empty());
    file.write(kTwoGpus);
    CHECK(gpus.read(1100).empty());  // not asked again yet
    CHECK(gpus.read(1301).size() == 2);
    CHECK_FALSE(gpus.off_for_good());
  }
  {
    // No devices: the same wait.
    StandinFile none;
    none.write("# a driver, no GPU\n");
    RocmGpus empty({standin_library()}, errors);
    CHECK(empty.read(0).empty());
    none.write(kTwoGpus);
    CHECK(empty.read(10).empty());
    CHECK(empty.read(301).size() == 2);
    CHECK_FALSE(empty.off_for_good());
  }
  CHECK(gpu_errors(errors) == 0);
}

TEST_CASE("rocm: the first library of the list that loads is used", "[gpu]") {
  StandinFile file;
  file.write(kTwoGpus);
  ErrorCounter errors;
  RocmGpus gpus({"/nonexistent/librocm_smi64.so.7", standin_library()}, errors);
  CHECK(gpus.read(0).size() == 2);
  CHECK(default_rocm_libraries() ==
        std::vector<std::string>{"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5"});
}

TEST_CASE("rocm: no library, or one without a function petricore calls, is off for good", "[gpu]") {
  ErrorCounter errors;
  RocmGpus missing({"/nonexistent/librocm_smi64.so.7", "/nonexistent/librocm_smi64.so.6"}, errors);
  CHECK(missing.read(0).empty());
  CHECK(missing.off_for_good());
  CHECK(missing.read(1000).empty());
  // A real library, but not ROCm SMI: rsmi_init is not in it.
  RocmGpus other({"libz.so.1"}, errors);
  CHECK(other.read(0).empty());
  CHECK(other.off_for_good());
  CHECK(gpu_errors(errors) == 0);
}
