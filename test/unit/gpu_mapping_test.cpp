// gpu_mapping.hpp's rule (which GPUs a job holds, which it uses without
// holding them) on literal devices, and GpuCollector over the stand-in NVML
// (test/standin): readings into the job's sample, read once per pass.
#include "collect/gpu_mapping.hpp"

#include "catch.hpp"
#include "gpu_standin.hpp"

#include "collect/error_counter.hpp"
#include "collect/gpu_collector.hpp"
#include "collect/gpu_nvml.hpp"
#include "collect/layout.hpp"

#include <string>
#include <vector>

using namespace petricore::collect;

namespace {

GpuDevice whole(unsigned number, const std::string& uuid) {
  GpuDevice d;
  d.id = std::to_string(number);
  d.number = number;
  d.uuid = uuid;
  return d;
}

GpuDevice mig_instance(unsigned number, unsigned gi, const std::string& uuid) {
  GpuDevice d = whole(number, uuid);
  d.id += "/" + std::to_string(gi);
  d.instance = gi;
  return d;
}

GpuSample on(std::size_t device, std::vector<int> pids) {
  GpuSample s;
  s.device = device;
  s.pids = std::move(pids);
  s.pids_known = true;
  return s;
}

std::vector<std::string> held_ids(const JobGpuMatch& match, const std::vector<GpuDevice>& devices,
                                  const std::vector<GpuSample>& samples) {
  std::vector<std::string> ids;
  for (std::size_t i : match.held) ids.push_back(devices[samples[i].device].id);
  return ids;
}

}  // namespace

TEST_CASE("gpu mapping: a job holds the GPUs whose numbers its GPU ids name, not the enumeration order", "[gpu]") {
  // NVML enumerates by PCI bus; the minor numbers Slurm uses need not follow.
  std::vector<GpuDevice> devices{whole(1, "GPU-b"), whole(0, "GPU-a"), whole(2, "GPU-c"), whole(3, "GPU-d")};
  std::vector<GpuSample> samples{on(0, {}), on(1, {}), on(2, {}), on(3, {})};
  JobGpuMatch match = match_job_gpus({"0", "1"}, {}, devices, samples);
  CHECK(held_ids(match, devices, samples) == std::vector<std::string>{"1", "0"});
  CHECK(match.foreign.empty());
  CHECK(match_job_gpus({"3"}, {}, devices, samples).held == std::vector<std::size_t>{3});
  // A GPU id the node has no device for matches nothing.
  CHECK(match_job_gpus({"7"}, {}, devices, samples).held.empty());
  CHECK(match_job_gpus({}, {}, devices, samples).held.empty());
}

TEST_CASE("gpu mapping: a GPU named by its UUID is held", "[gpu]") {
  std::vector<GpuDevice> devices{whole(0, "GPU-a"), whole(1, "GPU-b")};
  std::vector<GpuSample> samples{on(0, {}), on(1, {})};
  CHECK(match_job_gpus({"GPU-b"}, {}, devices, samples).held == std::vector<std::size_t>{1});
}

TEST_CASE("gpu mapping: the job's processes on a GPU it does not hold are counted there", "[gpu]") {
  std::vector<GpuDevice> devices{whole(0, "GPU-a"), whole(1, "GPU-b"), whole(2, "GPU-c")};
  std::vector<GpuSample> samples{on(0, {100, 101, 900}), on(1, {101, 102, 103}), on(2, {900})};
  JobGpuMatch match = match_job_gpus({"0"}, {100, 101, 102}, devices, samples);
  CHECK(match.held == std::vector<std::size_t>{0});
  REQUIRE(match.foreign.size() == 1);
  CHECK(match.foreign[0].first == 1);
  CHECK(match.foreign[0].second == 2);  // 101 and 102; 103 is not the job's
}

TEST_CASE("gpu mapping: two jobs holding one GPU both see it", "[gpu]") {
  std::vector<GpuDevice> devices{whole(0, "GPU-a")};
  std::vector<GpuSample> samples{on(0, {10, 20})};
  CHECK(match_job_gpus({"0"}, {10}, devices, samples).held.size() == 1);
  CHECK(match_job_gpus({"0"}, {20}, devices, samples).held.size() == 1);
}

TEST_CASE("gpu mapping: a MIG instance is held by its id or by the job's processes; its GPU never whole", "[gpu]") {
  GpuDevice parent = whole(0, "GPU-a");
  parent.mig = true;
  std::vector<GpuDevice> devices{parent, mig_instance(0, 1, "MIG-1"), mig_instance(0, 2, "MIG-2"),
                                 mig_instance(0, 3, "MIG-3")};
  std::vector<GpuSample> samples{on(0, {}), on(1, {50}), on(2, {}), on(3, {60})};
  // Slurm's "0" is its first MIG slice, not the whole GPU: the processes tell.
  JobGpuMatch match = match_job_gpus({"0"}, {50}, devices, samples);
  CHECK(held_ids(match, devices, samples) == std::vector<std::string>{"0/1"});
  CHECK(match.foreign.empty());
  CHECK(held_ids(match_job_gpus({"0/2"}, {}, devices, samples), devices, samples) == std::vector<std::string>{"0/2"});
  CHECK(held_ids(match_job_gpus({"MIG-3"}, {}, devices, samples), devices, samples) == std::vector<std::string>{"0/3"});
}

namespace {

std::string standin_library() {
  return petricore::test::standin_library("PETRICORE_NVML_STANDIN_LIBRARY");
}

struct StandinFile : petricore::test::StandinFile {
  StandinFile() : petricore::test::StandinFile("PETRICORE_NVML_STANDIN") {}
};

}  // namespace

TEST_CASE("gpu collector: a job's sample gets its GPUs' readings and its foreign processes", "[gpu]") {
  REQUIRE_FALSE(standin_library().empty());
  StandinFile file;
  file.write(
      "gpu minor=0 uuid=GPU-a name=\"NVIDIA A100-SXM4-40GB\" memory_total_mib=40960\n"
      "gpu minor=1 uuid=GPU-b name=\"NVIDIA A100-SXM4-40GB\" memory_total_mib=40960\n"
      "sample gpu=0 util=80 memory_util=30 memory_used_mib=1024 power_mw=200000\n"
      "sample gpu=1 util=5 memory_util=1 memory_used_mib=300 power_mw=60000\n"
      "process gpu=0 pid=11\n"
      "process gpu=1 pid=12\n");
  ErrorCounter errors;
  GpuCollector collector(std::make_unique<NvmlGpus>(standin_library(), errors));

  JobCgroups cgroups;
  cgroups.job_id = "7";
  JobFacts facts;
  facts.gpus = {"GPU-a"};  // named by UUID: jobs_gpus_used then shows its number
  CpuRate rate;
  ProcessFindings processes;
  processes.pids = {12, 11, 13};
  JobContext job{cgroups, 100.0, facts, rate, false, nullptr, &processes};
  JobSample out;
  collector.collect(job, nullptr, out);
  REQUIRE(out.gpu_readings.size() == 1);
  const JobGpuReading& gpu = out.gpu_readings[0];
  CHECK(gpu.gpuid == "0");
  CHECK(gpu.uuid == "GPU-a");
  CHECK(gpu.model == "NVIDIA A100-SXM4-40GB");
  CHECK(gpu.vendor == "nvidia");
  CHECK(gpu.utilization_percent == 80.0);
  CHECK(gpu.memory_utilization_percent == 30.0);
  CHECK(gpu.memory_used_mib == 1024.0);
  CHECK(gpu.memory_total_mib == 40960.0);
  CHECK(gpu.power_watts == 200.0);
  CHECK(facts.gpus == std::vector<std::string>{"0"});
  REQUIRE(out.gpu_foreign_processes.size() == 1);
  CHECK(out.gpu_foreign_processes[0] == std::pair<std::string, std::int64_t>{"1", 1});

  // The same pass's next job reads no GPU again: the file's change is not seen.
  file.write(
      "gpu minor=0 uuid=GPU-a name=x memory_total_mib=40960\n"
      "sample gpu=0 util=10 memory_used_mib=1 power_mw=1000\n");
  JobFacts other_facts;
  other_facts.gpus = {"0"};
  JobContext other{cgroups, 100.0, other_facts, rate, false, nullptr, &processes};
  JobSample other_out;
  collector.collect(other, nullptr, other_out);
  REQUIRE(other_out.gpu_readings.size() == 1);
  CHECK(other_out.gpu_readings[0].utilization_percent == 80.0);
  // The next pass does.
  JobContext next{cgroups, 115.0, other_facts, rate, false, nullptr, &processes};
  JobSample next_out;
  collector.collect(next, nullptr, next_out);
  REQUIRE(next_out.gpu_readings.size() == 1);
  CHECK(next_out.gpu_readings[0].utilization_percent == 10.0);
  CHECK(errors.totals().count("gpu") == 0);
}

TEST_CASE("gpu collector: without a library a job gets no GPU series and nothing is counted", "[gpu]") {
  ErrorCounter errors;
  GpuCollector collector(std::make_unique<NvmlGpus>("/nonexistent/libnvidia-ml.so.1", errors));
  JobCgroups cgroups;
  JobFacts facts;
  facts.gpus = {"0"};
  CpuRate rate;
  ProcessFindings processes;
  for (double now : {1.0, 2.0}) {
    JobContext job{cgroups, now, facts, rate, false, nullptr, &processes};
    JobSample out;
    collector.collect(job, nullptr, out);
    CHECK(out.gpu_readings.empty());
    CHECK(out.gpu_foreign_processes.empty());
  }
  CHECK(errors.totals().count("gpu") == 0);
}
