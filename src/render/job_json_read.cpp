// The job JSON read back (job_json.cpp writes it, by the same key names).
// The first key that is missing or of the wrong type refuses the document,
// named by its path: "cpu.time_total.time", "findings[2].severity".
#include "render/job_json_read.hpp"

#include "render/job_charts.hpp"
#include "render/json_writer.hpp"
#include "render/text_format.hpp"

#include <boost/json.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

namespace petricore::render {
namespace {

namespace json = boost::json;
using model::FigureSource;
using model::JobUsage;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A value of the document and the path that names it in a fault; no value
// where it was missing (the fault is said already).
struct Node {
  const json::value* value = nullptr;
  std::string path;
};

std::string path_to(const Node& of, std::string_view key) {
  return of.path.empty() ? std::string(key) : of.path + "." + std::string(key);
}

Node member_node(const Node& of, std::string_view key, const json::value& value) {
  return {&value, path_to(of, key)};
}

const char* kind_name(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return value.get_bool() ? "true" : "false";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return "a number";
    case json::kind::string:
      return "a string";
    case json::kind::array:
      return "an array";
    case json::kind::object:
      return "an object";
  }
  return "a value";
}

// Reads the document, keeping the first fault: after it every read answers
// a default, and the caller refuses the document with that fault.
class Reader {
 public:
  bool failed() const { return fault_.has_value(); }
  const std::string& fault() const { return *fault_; }

  void invalid(const Node& node, const std::string& why) {
    if (!fault_) fault_ = "\"" + node.path + "\" " + why;
  }

  // The member `key` of the object `of`, which must have it.
  Node at(const Node& of, const char* key) {
    Node node{nullptr, path_to(of, key)};
    const json::object* object = as_object(of);
    if (!object) return node;
    node.value = object->if_contains(key);
    if (!node.value) invalid(node, "is missing");
    return node;
  }

  Node element(const Node& of, const json::array& array, std::size_t i) {
    return {&array[i], of.path + "[" + std::to_string(i) + "]"};
  }

  const json::object* as_object(const Node& node) {
    if (!node.value) return nullptr;
    if (const json::object* object = node.value->if_object()) return object;
    wrong(node, "an object");
    return nullptr;
  }

  const json::array* as_array(const Node& node) {
    if (!node.value) return nullptr;
    if (const json::array* array = node.value->if_array()) return array;
    wrong(node, "an array");
    return nullptr;
  }

  // job_json writes an unknown figure, or one that was not finite, as null.
  std::optional<double> number_or_null(const Node& node) {
    if (!node.value) return std::nullopt;
    switch (node.value->kind()) {
      case json::kind::null:
        return std::nullopt;
      case json::kind::int64:
        return static_cast<double>(node.value->get_int64());
      case json::kind::uint64:
        return static_cast<double>(node.value->get_uint64());
      case json::kind::double_:
        return node.value->get_double();
      default:
        wrong(node, "a number or null");
        return std::nullopt;
    }
  }

  // A figure that is always there, null when it was not finite.
  double number_or_nan(const Node& node) { return number_or_null(node).value_or(kNaN); }

  std::optional<int> whole_or_null(const Node& node) {
    auto value = number_or_null(node);
    if (!value) return std::nullopt;
    if (std::trunc(*value) != *value || std::fabs(*value) > std::numeric_limits<int>::max()) {
      invalid(node, "is not a whole number");
      return std::nullopt;
    }
    return static_cast<int>(*value);
  }

  std::optional<std::string> string_or_null(const Node& node) {
    if (!node.value || node.value->is_null()) return std::nullopt;
    if (const json::string* text = node.value->if_string()) return std::string(*text);
    wrong(node, "a string or null");
    return std::nullopt;
  }

  std::string string(const Node& node) {
    if (!node.value) return {};
    if (const json::string* text = node.value->if_string()) return std::string(*text);
    wrong(node, "a string");
    return {};
  }

  bool boolean(const Node& node) {
    if (!node.value) return false;
    if (const bool* flag = node.value->if_bool()) return *flag;
    wrong(node, "true or false");
    return false;
  }

  void wrong(const Node& node, const char* expected) {
    invalid(node, std::string("is ") + kind_name(*node.value) + ", not " + expected);
  }

  std::optional<std::string> fault_;
};

// text::duration's "HH:MM:SS" (as many hour digits as it takes) in seconds.
std::optional<std::int64_t> duration_seconds(std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == 0 || colon == std::string_view::npos || text.size() != colon + 6 || text[colon + 3] != ':')
    return std::nullopt;
  auto two_digits = [&](std::size_t at) -> std::optional<int> {
    if (!std::isdigit(static_cast<unsigned char>(text[at])) || !std::isdigit(static_cast<unsigned char>(text[at + 1])))
      return std::nullopt;
    int value = (text[at] - '0') * 10 + (text[at + 1] - '0');
    return value < 60 ? std::optional<int>(value) : std::nullopt;
  };
  std::uint64_t hours = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + colon, hours);
  auto minutes = two_digits(colon + 1), seconds = two_digits(colon + 4);
  if (error != std::errc{} || end != text.data() + colon || !minutes || !seconds) return std::nullopt;
  if (hours > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / 3600 - 1)) return std::nullopt;
  return static_cast<std::int64_t>(hours) * 3600 + *minutes * 60 + *seconds;
}

std::optional<std::int64_t> runtime_of(Reader& r, const Node& node, const model::JobRecord& job) {
  auto text = r.string_or_null(node);
  if (!text) return std::nullopt;
  // end - start where it reads the same: a negative one (clock skew) reads 00:00:00.
  if (job.start && job.end && text::duration(*job.end - *job.start) == *text) return *job.end - *job.start;
  auto seconds = duration_seconds(*text);
  if (!seconds) r.invalid(node, "is \"" + *text + "\", not HH:MM:SS");
  return seconds;
}

std::optional<FigureSource> source_of(Reader& r, const Node& node) {
  auto name = r.string_or_null(node);
  if (!name) return std::nullopt;
  if (*name == "metrics") return FigureSource::Metrics;
  if (*name == "accounting") return FigureSource::Accounting;
  r.invalid(node, "is \"" + *name + "\", not \"metrics\", \"accounting\" or null");
  return std::nullopt;
}

model::Severity severity_of(Reader& r, const Node& node) {
  std::string name = r.string(node);
  for (auto severity : {model::Severity::Info, model::Severity::Warning, model::Severity::Critical})
    if (name == model::severity_name(severity)) return severity;
  r.invalid(node, "is \"" + name + "\", not \"info\", \"warning\" or \"critical\"");
  return model::Severity::Info;
}

// job_json writes GPU indexes that are plain numbers as numbers.
std::string gpu_id_of(Reader& r, const Node& node) {
  if (!node.value) return {};
  if (node.value->is_uint64()) return std::to_string(node.value->get_uint64());
  if (node.value->is_int64() && node.value->get_int64() >= 0) return std::to_string(node.value->get_int64());
  if (const json::string* text = node.value->if_string()) return std::string(*text);
  r.wrong(node, "a GPU index (a number or a string)");
  return {};
}

// A counter job_json writes as null without its metric (text::measured):
// summarize() leaves it 0 then; with the metric, null was not finite.
double counter_of(Reader& r, const Node& node, const JobUsage& usage, const char* metric) {
  if (auto value = r.number_or_null(node)) return *value;
  return text::has_metric(usage, metric) ? kNaN : 0;
}

void read_cpu(Reader& r, const Node& cpu, JobUsage& usage) {
  Node cores = r.at(cpu, "time_core");
  if (const json::array* list = r.as_array(cores)) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      Node core = r.element(cores, *list, i);
      // As job_json prints it (2 decimals): the shares it writes are worked
      // out from these, so a time with more places would shift them on the
      // next writing.
      json::value printed = json_number(r.number_or_nan(r.at(core, "time")), 2);
      usage.cpu_time_core.push_back(
          {r.string(r.at(core, "core")), printed.is_null() ? kNaN : printed.to_number<double>()});
    }
  }
  usage.cores_used = r.whole_or_null(r.at(r.at(cpu, "used"), "amount")).value_or(0);
  Node total = r.at(cpu, "time_total");
  Node avg = r.at(cpu, "avg_usage_job");
  usage.cpu_time_total = r.number_or_null(r.at(total, "time"));
  usage.cpu_avg_percent = r.number_or_null(r.at(avg, "usage"));
  // Both say where the CPU time came from (the mean divides it).
  auto from = source_of(r, r.at(total, "source"));
  auto avg_from = source_of(r, r.at(avg, "source"));
  usage.cpu_time_source = from ? *from : avg_from.value_or(FigureSource::Metrics);
  usage.cpu_max_percent = r.number_or_null(r.at(r.at(cpu, "max_usage_job"), "usage"));
  usage.user_time = r.number_or_null(r.at(r.at(cpu, "user_time"), "time"));
  usage.system_time = r.number_or_null(r.at(r.at(cpu, "system_time"), "time"));
}

// The cpu_efficiency warning level the findings were judged by: the JSON
// has it times the allocated CPUs. `thresholds` keeps its own where that
// reads the same (so a level like 80 comes back exactly, not as 2560 / 32).
void read_cpu_threshold(Reader& r, const Node& cpu, int alloc_cpus, model::RuleThresholds& thresholds) {
  auto lowest = r.number_or_null(r.at(r.at(cpu, "avg_usage_job"), "lowest_expected_usage"));
  if (!lowest || alloc_cpus <= 0) return;
  if (text::rounded(thresholds.cpu_efficiency_warning * alloc_cpus, 2) != *lowest)
    thresholds.cpu_efficiency_warning = *lowest / alloc_cpus;
}

void read_ram(Reader& r, const Node& ram, JobUsage& usage) {
  Node used = r.at(ram, "used");
  usage.memory_resident_mb = r.number_or_null(r.at(used, "amount"));
  usage.memory_fraction = r.number_or_null(r.at(used, "usage"));
  usage.memory_resident_source = source_of(r, r.at(used, "source")).value_or(FigureSource::Metrics);
  usage.memory_peak_mb = r.number_or_null(r.at(r.at(ram, "peak"), "amount"));
  Node parts = r.at(ram, "breakdown");
  model::MemoryBreakdown& at_peak = usage.memory_at_peak;
  at_peak.anon = r.number_or_null(r.at(parts, "anon"));
  at_peak.shmem = r.number_or_null(r.at(parts, "shmem"));
  at_peak.file = r.number_or_null(r.at(parts, "file"));
  at_peak.kernel = r.number_or_null(r.at(parts, "kernel"));
  at_peak.swap = r.number_or_null(r.at(parts, "swap"));
}

void read_gpu(Reader& r, const Node& gpu, JobUsage& usage) {
  Node alloc = r.at(gpu, "alloc_gpu");
  if (const json::object* nodes = r.as_object(alloc)) {
    for (const json::key_value_pair& entry : *nodes) {
      Node ids = member_node(alloc, entry.key(), entry.value());
      std::vector<std::string>& list = usage.gpus[std::string(entry.key())];
      if (const json::array* array = r.as_array(ids))
        for (std::size_t i = 0; i < array->size(); ++i) list.push_back(gpu_id_of(r, r.element(ids, *array, i)));
    }
  }
  Node utilization = r.at(gpu, "utilization");
  usage.gpu_utilization_mean = r.number_or_null(r.at(utilization, "mean"));
  usage.gpu_utilization_max = r.number_or_null(r.at(utilization, "max"));
  Node per_gpu = r.at(utilization, "per_gpu");
  if (const json::array* devices = r.as_array(per_gpu)) {
    for (std::size_t i = 0; i < devices->size(); ++i) {
      Node device = r.element(per_gpu, *devices, i);
      model::GpuUsage g;
      g.node = r.string(r.at(device, "node"));
      g.gpuid = gpu_id_of(r, r.at(device, "gpuid"));
      g.utilization_mean = r.number_or_null(r.at(device, "mean"));
      g.utilization_max = r.number_or_null(r.at(device, "max"));
      g.memory_peak_mb = r.number_or_null(r.at(device, "memory_peak_mb"));
      g.memory_total_mb = r.number_or_null(r.at(device, "memory_total_mb"));
      g.power_mean_w = r.number_or_null(r.at(device, "power_mean_w"));
      usage.gpu_devices.push_back(std::move(g));
    }
  }
  Node memory = r.at(gpu, "memory");
  usage.gpu_memory_peak_mb = r.number_or_null(r.at(memory, "peak_mb"));
  usage.gpu_memory_total_mb = r.number_or_null(r.at(memory, "total_mb"));
  Node power = r.at(gpu, "power");
  usage.gpu_power_mean_w = r.number_or_null(r.at(power, "mean_w"));
  usage.gpu_energy_wh = r.number_or_null(r.at(power, "energy_wh"));
}

void read_io(Reader& r, const Node& io, JobUsage& usage) {
  usage.opened_files_avg = r.number_or_null(r.at(io, "opened_files"));
  Node read = r.at(io, "read");
  Node write = r.at(io, "write");
  usage.read_mb = counter_of(r, r.at(read, "amount"), usage, "jobs_read_mb");
  usage.read_count = counter_of(r, r.at(read, "count"), usage, "jobs_read_count");
  usage.write_mb = counter_of(r, r.at(write, "amount"), usage, "jobs_write_mb");
  usage.write_count = counter_of(r, r.at(write, "count"), usage, "jobs_write_count");
}

// Everything but the identity and the allocation, in a job with any usage.
void read_usage(Reader& r, const Node& root, JobUsage& usage) {
  usage.uses_scratch = r.boolean(r.at(root, "uses_scratch"));
  Node threads = r.at(root, "threads");
  if (const json::object* names = r.as_object(threads))
    for (const json::key_value_pair& entry : *names)
      usage.threads_max[std::string(entry.key())] = r.number_or_nan(member_node(threads, entry.key(), entry.value()));
  read_cpu(r, r.at(root, "cpu"), usage);
  read_ram(r, r.at(root, "ram"), usage);
  read_gpu(r, r.at(root, "gpu"), usage);
  read_io(r, r.at(root, "io"), usage);
  Node missing = r.at(root, "missing");
  if (const json::array* list = r.as_array(missing))
    for (std::size_t i = 0; i < list->size(); ++i) usage.missing.push_back(r.string(r.element(missing, *list, i)));
}

std::vector<model::Finding> read_findings(Reader& r, const Node& node) {
  std::vector<model::Finding> out;
  const json::array* list = r.as_array(node);
  if (!list) return out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    Node f = r.element(node, *list, i);
    model::Finding finding;
    finding.rule = r.string(r.at(f, "rule"));
    finding.severity = severity_of(r, r.at(f, "severity"));
    finding.message = r.string(r.at(f, "message"));
    finding.advice = r.string(r.at(f, "advice"));
    finding.value = r.number_or_nan(r.at(f, "value"));
    finding.threshold = r.number_or_nan(r.at(f, "threshold"));
    finding.unit = r.string(r.at(f, "unit"));
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace

Result<model::JobReport> report_from_job_json(std::string_view document, model::JobRecord record,
                                              std::map<std::string, std::vector<model::Series>> series,
                                              model::RuleThresholds thresholds) {
  json::error_code error;
  json::value doc = json::parse(json::string_view(document.data(), document.size()), error);
  if (error) return bad_input("not a job JSON: " + error.message());
  if (!doc.is_object()) return bad_input(std::string("not a job JSON: the document is ") + kind_name(doc));

  model::JobReport report;
  JobUsage& usage = report.usage;
  usage.job = std::move(record);
  if (auto gpu = series.find(kGpuUtilization); gpu != series.end()) {
    usage.gpu_utilization_series = std::move(gpu->second);
    series.erase(gpu);
  }
  usage.series = std::move(series);
  report.thresholds = std::move(thresholds);

  Reader r;
  const Node root{&doc, ""};
  // The id is the record's (the JSON's is numeric only): the key says this is a job JSON.
  r.number_or_null(r.at(root, "jobid"));
  usage.runtime_seconds = runtime_of(r, r.at(root, "runtime"), usage.job);
  const Node tres = r.at(root, "alloc_tres");
  auto alloc_cpus = r.whole_or_null(r.at(tres, "alloc_cpu"));
  // The archive keeps the billing weight in the JSON alone, not in a column.
  if (auto billing = r.whole_or_null(r.at(tres, "billing")); billing && !usage.job.billing) usage.job.billing = billing;
  if (const json::value* why = doc.get_object().if_contains("no_usage")) {
    // The one sentence is the first thing missing, or says nothing was.
    std::string sentence = r.string({why, "no_usage"});
    if (sentence != text::no_usage_sentence(JobUsage{})) usage.missing.push_back(std::move(sentence));
  } else {
    read_usage(r, root, usage);
    read_cpu_threshold(r, r.at(root, "cpu"), alloc_cpus.value_or(0), report.thresholds);
  }
  report.findings = read_findings(r, r.at(root, "findings"));
  report.warning = r.boolean(r.at(root, "warning"));
  if (r.failed()) return bad_input("not a job JSON: " + r.fault());

  // The ratios as summarize() computes them, from the figures as the JSON
  // rounded them; but memory_fraction, which the JSON has itself.
  const std::optional<double> memory_fraction = usage.memory_fraction;
  model::compute_ratios(usage);
  usage.memory_fraction = memory_fraction;
  report.settled = true;
  return report;
}

}  // namespace petricore::render
