// The job JSON of ARCHITECTURE.md §5, built as a boost::json::value
// (insertion-ordered objects) and written pretty by render::json_text.
//
// Numbers: rounded where they are built — 2 decimals for amounts (%, MB,
// seconds, files), 4 for fractions and ratios, whole numbers for counts — and
// stored as integers when the rounded value is whole, so 3000.0 reads 3000.
// Anything unknown or non-finite is null, never NaN.
//
// A figure Slurm's accounting stood in for says so in its "source"
// ("metrics" or "accounting"; null with the figure). `missing` lists why
// figures are unknown; a job of which nothing at all is known keeps its
// identity and allocation and says why in one "no_usage" key instead of the
// usage keys.
#include "model/job_id.hpp"
#include "render/job_render.hpp"
#include "render/json_writer.hpp"
#include "render/text_format.hpp"

#include <boost/json.hpp>

#include <charconv>

namespace petricore::render {
namespace {

namespace json = boost::json;
using model::JobUsage;

constexpr int kAmountDecimals = 2;
constexpr int kFractionDecimals = 4;

json::value number(const std::optional<double>& value, int decimals = kAmountDecimals) {
  return json_number(value, decimals);
}

json::value count(double value) {
  return number(value, 0);
}

json::value instant(const std::optional<std::int64_t>& epoch) {
  return epoch ? json::value(text::iso8601_utc(*epoch)) : json::value(nullptr);
}

// The numeric job id: JobIDRaw (what slurm_job labels carry), else the
// leading number of the id as Slurm prints it.
json::value job_number(const model::JobRecord& job) {
  std::uint64_t raw = 0;
  const std::string& r = job.raw_id;
  auto [end, error] = std::from_chars(r.data(), r.data() + r.size(), raw);
  if (!r.empty() && error == std::errc{} && end == r.data() + r.size()) return raw;
  if (auto id = model::parse_job_id(job.job_id)) return id->job;
  return nullptr;
}

// GPU indexes are numbers on every node we know; anything else stays text.
json::value gpu_index(const std::string& id) {
  std::uint64_t index = 0;
  auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), index);
  if (!id.empty() && error == std::errc{} && end == id.data() + id.size()) return index;
  return json::value(id);
}

json::object amount(json::value value, const char* unit) {
  return {{"amount", std::move(value)}, {"unit", unit}};
}
json::object seconds(const std::optional<double>& value) {
  return {{"time", number(value)}, {"unit", "s"}};
}

// Where a known figure came from; null with the figure.
json::value source(bool known, model::FigureSource from) {
  if (!known) return nullptr;
  return from == model::FigureSource::Accounting ? "accounting" : "metrics";
}

json::object alloc_tres(const model::JobRecord& job) {
  return {
      {"billing", job.billing ? json::value(*job.billing) : json::value(nullptr)},
      {"alloc_cpu", job.alloc_cpus},
      {"alloc_mem", number(job.alloc_mem_mb)},
      {"alloc_nodes", job.node_list},
      {"alloc_gpu", job.alloc_gpus},
  };
}

json::object cpu(const JobUsage& usage, double cpu_efficiency_warning) {
  double core_total = 0;
  for (const auto& core : usage.cpu_time_core) core_total += core.seconds;
  json::array time_core;
  for (const auto& core : usage.cpu_time_core) {
    // Shares of the per-core sum, so they add up to 100 over the job.
    json::value share = core_total > 0 ? number(100 * core.seconds / core_total) : json::value(nullptr);
    time_core.push_back(json::object{
        {"core", core.core}, {"time", number(core.seconds)}, {"unit", "s"}, {"percent_of_total", std::move(share)}});
  }
  // The cpu_efficiency warning level, in % of one CPU for the whole job.
  double lowest_expected = cpu_efficiency_warning * usage.job.alloc_cpus;
  json::object time_total = seconds(usage.cpu_time_total);
  time_total["source"] = source(usage.cpu_time_total.has_value(), usage.cpu_time_source);
  // The mean is the CPU time over the runtime: it comes from where that came.
  json::value avg_source = source(usage.cpu_avg_percent.has_value(), usage.cpu_time_source);
  return {
      {"available", amount(usage.job.alloc_cpus, "cores")},
      {"used", amount(usage.cpu_time_core.empty() ? json::value(nullptr) : json::value(usage.cores_used), "cores")},
      {"time_core", std::move(time_core)},
      {"time_total", std::move(time_total)},
      {"avg_usage_job",
       {{"usage", number(usage.cpu_avg_percent)},
        {"lowest_expected_usage", number(lowest_expected)},
        {"unit", "%"},
        {"source", std::move(avg_source)}}},
      {"max_usage_job", {{"usage", number(usage.cpu_max_percent)}, {"unit", "%"}}},
      {"user_time", seconds(usage.user_time)},
      {"system_time", seconds(usage.system_time)},
  };
}

// used: the peak resident memory; peak: the cgroup's high-water mark, page
// cache included; breakdown: the parts at the resident peak.
json::object ram(const JobUsage& usage) {
  json::object used = amount(number(usage.memory_resident_mb), "MB");
  used["usage"] = number(usage.memory_fraction, kFractionDecimals);
  used["source"] = source(usage.memory_resident_mb.has_value(), usage.memory_resident_source);
  const model::MemoryBreakdown& parts = usage.memory_at_peak;
  return {
      {"used", std::move(used)},
      {"available", amount(number(usage.job.alloc_mem_mb), "MB")},
      {"peak", amount(number(usage.memory_peak_mb), "MB")},
      {"breakdown",
       {{"anon", number(parts.anon)},
        {"shmem", number(parts.shmem)},
        {"file", number(parts.file)},
        {"kernel", number(parts.kernel)},
        {"swap", number(parts.swap)},
        {"unit", "MB"}}},
  };
}

json::object io(const JobUsage& usage) {
  // Without the metric the amount is unknown (null), not zero.
  return {
      {"opened_files", number(usage.opened_files_avg)},
      {"read",
       {{"amount", number(text::measured(usage, "jobs_read_mb", usage.read_mb))},
        {"unit", "MB"},
        {"count", number(text::measured(usage, "jobs_read_count", usage.read_count), 0)}}},
      {"write",
       {{"amount", number(text::measured(usage, "jobs_write_mb", usage.write_mb))},
        {"unit", "MB"},
        {"count", number(text::measured(usage, "jobs_write_count", usage.write_count), 0)}}},
  };
}

// alloc_gpu as it always was; then the utilisation (%: the mean per GPU,
// the max of any sample), each GPU's figures, device memory (MB: the peak of
// the GPUs' sum over time, and the devices' total) and power (the mean of
// the GPUs' summed power, and its energy). A job without GPUs has the keys
// with null and an empty per_gpu.
json::object gpu(const JobUsage& usage) {
  json::object alloc;
  for (const auto& [node, ids] : usage.gpus) {
    json::array list;
    for (const auto& id : ids) list.push_back(gpu_index(id));
    alloc[node] = std::move(list);
  }
  json::array per_gpu;
  for (const model::GpuUsage& g : usage.gpu_devices) {
    per_gpu.push_back(json::object{
        {"node", g.node},
        {"gpuid", gpu_index(g.gpuid)},
        {"mean", number(g.utilization_mean)},
        {"max", number(g.utilization_max)},
        {"memory_peak_mb", number(g.memory_peak_mb)},
        {"memory_total_mb", number(g.memory_total_mb)},
        {"power_mean_w", number(g.power_mean_w)},
    });
  }
  return {
      {"alloc_gpu", std::move(alloc)},
      {"utilization",
       {{"mean", number(usage.gpu_utilization_mean)},
        {"max", number(usage.gpu_utilization_max)},
        {"per_gpu", std::move(per_gpu)}}},
      {"memory", {{"peak_mb", number(usage.gpu_memory_peak_mb)}, {"total_mb", number(usage.gpu_memory_total_mb)}}},
      {"power", {{"mean_w", number(usage.gpu_power_mean_w)}, {"energy_wh", number(usage.gpu_energy_wh)}}},
  };
}

json::array findings(const std::vector<model::Finding>& list) {
  json::array out;
  for (const auto& f : list) {
    int decimals = f.unit == "ratio" ? kFractionDecimals : kAmountDecimals;
    out.push_back(json::object{
        {"rule", f.rule},
        {"severity", model::severity_name(f.severity)},
        {"message", f.message},
        {"advice", f.advice},
        {"value", number(f.value, decimals)},
        {"threshold", number(f.threshold, decimals)},
        {"unit", f.unit},
    });
  }
  return out;
}

json::array missing(const JobUsage& usage) {
  json::array out;
  for (const std::string& why : usage.missing) out.push_back(json::value(why));
  return out;
}

json::object document(const model::JobReport& report) {
  const JobUsage& usage = report.usage;
  const model::JobRecord& job = usage.job;

  json::object doc{
      {"jobid", job_number(job)},
      {"sponsor", job.account},
      {"username", job.user},
      {"runtime", usage.runtime_seconds ? json::value(text::duration(*usage.runtime_seconds)) : json::value(nullptr)},
      {"state", job.state},
      {"start", instant(job.start)},
      {"end", instant(job.end)},
  };
  if (usage.no_usage()) {
    // Nothing measured, nothing from accounting: one key says why instead of
    // a page of nulls; the identity and the allocation stay.
    doc["alloc_tres"] = alloc_tres(job);
    doc["no_usage"] = text::no_usage_sentence(usage);
  } else {
    json::object threads;
    for (const auto& [name, max] : usage.threads_max) threads[name] = count(max);
    doc["uses_scratch"] = usage.uses_scratch;
    doc["alloc_tres"] = alloc_tres(job);
    doc["threads"] = std::move(threads);
    doc["cpu"] = cpu(usage, report.thresholds.cpu_efficiency_warning);
    doc["ram"] = ram(usage);
    doc["gpu"] = gpu(usage);
    doc["io"] = io(usage);
    doc["missing"] = missing(usage);
  }
  doc["findings"] = findings(report.findings);
  doc["warning"] = report.warning;
  return doc;
}

}  // namespace

std::string job_json(const model::JobReport& report) {
  return json_text(document(report), JsonLayout::Pretty) + "\n";
}

}  // namespace petricore::render
