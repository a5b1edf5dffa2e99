// `petricore report JOBID` on a terminal: a compact table of the job's
// figures, then its findings with their advice. On a tty, efficiency bars and
// colour help the eye; piped into a file or a mail, the same text comes
// without a single escape code.
#include "render/job_render.hpp"
#include "render/text_format.hpp"

#include <optional>
#include <sstream>

namespace petricore::render {
namespace {

using model::Finding;
using model::JobUsage;
using model::Severity;

// Findings wrap here: terminals are rarely narrower, and a hanging indent
// keeps each finding one block.
constexpr std::size_t kTerminalWidth = 100;

const char* colour_of(std::optional<Severity> severity) {
  if (!severity) return text::kGreen;  // no finding about it
  switch (*severity) {
    case Severity::Critical:
      return text::kRed;
    case Severity::Warning:
      return text::kYellow;
    case Severity::Info:
      return text::kCyan;
  }
  return "";
}

// The most severe finding among `rules`, which colours that figure's bar.
std::optional<Severity> worst_of(const std::vector<Finding>& findings, std::initializer_list<const char*> rules) {
  std::optional<Severity> worst;
  for (const Finding& f : findings)
    for (const char* rule : rules)
      if (f.rule == rule && (!worst || f.severity > *worst)) worst = f.severity;
  return worst;
}

void row(std::ostream& out, const char* label, const std::string& value) {
  std::string padded = label;
  padded.resize(10, ' ');
  out << "  " << padded << value << '\n';
}

// "CPU   ███████░░░  70 %": the bar saturates at 100 %, the number does not.
void bar(std::ostream& out, const char* label, double percent, std::optional<Severity> severity) {
  std::string padded = label;
  padded.resize(6, ' ');
  std::string number = text::number(percent, 0);
  number.insert(0, number.size() < 3 ? 3 - number.size() : 0, ' ');
  out << "  " << padded << colour_of(severity) << text::bar_cells(percent) << text::kReset << ' ' << number << " %\n";
}

std::string heading(const model::JobRecord& job) {
  std::string line = "Job " + job.job_id;
  if (!job.name.empty()) line += " (" + job.name + ")";
  line += ": " + job.user;
  if (!job.account.empty()) line += " (" + job.account + ")";
  return line + ", " + job.state;
}

// The figures only samples have.
void sampled_figures(std::ostream& out, const JobUsage& usage) {
  row(out, "I/O",
      "read " + text::amount(text::measured(usage, "jobs_read_mb", usage.read_mb), "MB") + ", written " +
          text::amount(text::measured(usage, "jobs_write_mb", usage.write_mb), "MB") + "; " +
          (usage.opened_files_avg ? text::number(*usage.opened_files_avg) + " files open on average"
                                  : "open files unknown") +
          "; scratch " +
          (!text::has_metric(usage, "jobs_uses_scratch") ? "unknown"
           : usage.uses_scratch                          ? "used"
                                                         : "not used"));
  if (!usage.gpus.empty()) {
    std::string gpus;
    for (const auto& [node, ids] : usage.gpus) {
      gpus += (gpus.empty() ? "" : "; ") + node + ":";
      for (const auto& id : ids) gpus += " " + id;
    }
    if (usage.gpu_utilization_mean)
      gpus += ", utilisation " + text::number(*usage.gpu_utilization_mean) + " % mean per GPU" +
              (usage.gpu_utilization_max ? ", " + text::number(*usage.gpu_utilization_max) + " % max" : "");
    else
      gpus += usage.gpu_utilization_max ? ", utilisation max " + text::number(*usage.gpu_utilization_max) + " %"
                                        : ", utilisation not measured";
    row(out, "GPUs", gpus);
  }
  if (std::string memory = text::gpu_memory(usage); !memory.empty()) row(out, "GPU mem", memory);
  if (std::string power = text::gpu_power(usage); !power.empty()) row(out, "GPU power", power);
  if (usage.gpu_devices.size() > 1)
    for (const model::GpuUsage& gpu : usage.gpu_devices)
      row(out, "", text::gpu_name(gpu) + ": " + text::gpu_figures(gpu));
  if (!usage.threads_max.empty()) {
    std::string threads;
    for (const auto& [name, count] : usage.threads_max)
      threads += (threads.empty() ? "" : ", ") + name + " " + text::number(count, 0);
    row(out, "Threads", threads);
  }
}

void figures(std::ostream& out, const JobUsage& usage) {
  const model::JobRecord& job = usage.job;
  std::string runtime = usage.runtime_seconds ? text::duration(*usage.runtime_seconds) : "unknown";
  if (job.time_limit_seconds) runtime += " of " + text::duration(*job.time_limit_seconds);
  if (auto fraction = usage.time_limit_fraction) runtime += " (" + text::number(100 * *fraction) + " %)";
  row(out, "Runtime", runtime);
  if (job.start)
    row(out, "Window", text::iso8601_utc(*job.start) + " to " + (job.end ? text::iso8601_utc(*job.end) : "now"));
  std::string nodes = job.node_list.empty() ? "unknown" : job.node_list;
  nodes += ": " + std::to_string(job.alloc_cpus) + (job.alloc_cpus == 1 ? " CPU" : " CPUs");
  if (job.alloc_mem_mb) nodes += ", " + text::number(*job.alloc_mem_mb) + " MB";
  if (job.alloc_gpus > 0) nodes += ", " + std::to_string(job.alloc_gpus) + (job.alloc_gpus == 1 ? " GPU" : " GPUs");
  row(out, "Allocated", nodes);
  if (usage.no_usage()) {
    // One line, the reason, instead of a table of unknowns.
    row(out, "Usage", text::no_usage_sentence(usage));
    return;
  }
  if (usage.no_metrics()) row(out, "Metrics", text::kNoSamples);

  std::string cpu = "unknown";
  if (usage.cpu_avg_percent) {
    cpu = text::number(*usage.cpu_avg_percent) + " % mean";
    if (usage.cpu_max_percent) cpu += ", " + text::number(*usage.cpu_max_percent) + " % max";
    if (auto efficiency = usage.cpu_efficiency_percent) cpu += " (" + text::number(*efficiency) + " % per core)";
    cpu += text::source_note(usage.cpu_time_source);
  } else if (usage.cpu_max_percent) {
    cpu = text::number(*usage.cpu_max_percent) + " % max (mean unknown)";
  }
  if (!usage.cpu_time_core.empty())
    cpu +=
        ", " + std::to_string(usage.cores_used) + " of " + std::to_string(usage.cpu_time_core.size()) + " cores used";
  row(out, "CPU", cpu);
  row(out, "CPU time", text::cpu_time(usage));
  // "102 MB resident at peak (5 % of 2048 MB); with page cache 140 MB (reclaimable)"
  std::string memory = usage.memory_resident_mb ? text::amount(usage.memory_resident_mb, "MB") + " resident at peak"
                                                : std::string("resident unknown");
  if (auto fraction = usage.memory_fraction)
    memory += " (" + text::number(100 * *fraction) + " % of " + text::number(*usage.job.alloc_mem_mb) + " MB)";
  if (usage.memory_resident_mb) memory += text::source_note(usage.memory_resident_source);
  memory += text::page_cache_note(usage);
  row(out, "Memory", memory);
  // Without samples there is no I/O, GPU use or thread count to show.
  if (!usage.no_metrics()) sampled_figures(out, usage);
  for (const std::string& why : usage.missing) row(out, "Missing", why);
}

void bars(std::ostream& out, const model::JobReport& report) {
  const JobUsage& usage = report.usage;
  auto cpu = usage.cpu_efficiency_percent;
  auto memory = usage.memory_fraction;
  auto time = usage.time_limit_fraction;
  auto gpu = usage.gpu_utilization_mean;
  if (!cpu && !memory && !time && !gpu) return;
  out << '\n';
  if (cpu) bar(out, "CPU", *cpu, worst_of(report.findings, {"cpu_efficiency", "serial_on_many_cores"}));
  if (memory) bar(out, "Mem", 100 * *memory, worst_of(report.findings, {"memory_overallocated", "memory_near_limit"}));
  if (gpu) bar(out, "GPU", *gpu, worst_of(report.findings, {"gpu_unused", "gpu_efficiency"}));
  if (time) bar(out, "Time", 100 * *time, worst_of(report.findings, {"time_overrequested"}));
}

void findings(std::ostream& out, const std::vector<Finding>& list, bool tty) {
  out << '\n';
  if (list.empty()) {
    out << "No findings.\n";
    return;
  }
  out << "Findings\n";
  for (const Finding& f : list) {
    std::string severity = model::severity_name(f.severity);
    severity.resize(9, ' ');
    if (tty) severity = colour_of(f.severity) + severity + text::kReset;
    // Wrapped on the uncoloured text, so escape codes do not count as columns.
    std::string first = text::wrapped(f.rule + ": " + f.message, kTerminalWidth, "           ", "           ");
    out << "  " << severity << first.substr(11);
    out << text::wrapped(f.advice, kTerminalWidth, "           -> ", "              ");
  }
}

}  // namespace

std::string terminal_text(const model::JobReport& report, bool tty) {
  std::ostringstream out;
  out << heading(report.usage.job) << '\n';
  figures(out, report.usage);
  if (tty) bars(out, report);
  findings(out, report.findings, tty);
  return out.str();
}

}  // namespace petricore::render
