// The job-end mail in the original's layout: dashed section headers
// (General, I/O, Usage, Thread data), each section's findings right under its
// figures with their advice, the PDF link, and a last line WARNING=true|false
// that the mail wrappers (Slurm's MailProg scripts) read. A job of which
// nothing is known gets the General section and one paragraph saying why.
#include "render/job_render.hpp"
#include "render/text_format.hpp"

#include <cctype>
#include <sstream>

namespace petricore::render {
namespace {

using model::Finding;
using model::JobUsage;

// Plain-text mail convention: lines that fit in 76 columns.
constexpr std::size_t kMailWidth = 76;

enum class Section { General, Io, Usage, Threads };

Section section_of(const Finding& finding) {
  if (finding.rule == "job_state") return Section::General;
  if (finding.rule == "scratch_unused" || finding.rule == "small_io_many_files") return Section::Io;
  if (finding.rule == "too_many_threads") return Section::Threads;
  return Section::Usage;
}

void wrap(std::ostream& out, const std::string& text, const std::string& first, const std::string& rest) {
  out << text::wrapped(text, kMailWidth, first, rest);
}

void header(std::ostream& out, const char* title) {
  out << "----------" << title << "----------\n";
}

void findings_of(std::ostream& out, const std::vector<Finding>& findings, Section section) {
  for (const Finding& f : findings) {
    if (section_of(f) != section) continue;
    std::string label = model::severity_name(f.severity);
    for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    wrap(out, f.message, "-- " + label + ": ", "   ");
    wrap(out, f.advice, "   Advice: ", "   ");
  }
}

// Slurm's AllocTRES spelling, from the parts the accounting record keeps.
std::string alloc_tres(const model::JobRecord& job) {
  std::string tres;
  auto add = [&](const std::string& item) { tres += (tres.empty() ? "" : ",") + item; };
  if (job.billing) add("billing=" + std::to_string(*job.billing));
  add("cpu=" + std::to_string(job.alloc_cpus));
  if (job.alloc_mem_mb) add("mem=" + text::number(*job.alloc_mem_mb, 0) + "M");
  if (job.alloc_nodes > 0) add("node=" + std::to_string(job.alloc_nodes));
  if (job.alloc_gpus > 0) add("gres/gpu=" + std::to_string(job.alloc_gpus));
  return tres;
}

void general(std::ostream& out, const JobUsage& usage) {
  const model::JobRecord& job = usage.job;
  header(out, "General Data");
  out << "Job ID: " << job.job_id << '\n';
  if (!job.name.empty()) out << "Job Name: " << job.name << '\n';
  out << "Sponsor: " << job.account << '\n';
  out << "User: " << job.user << '\n';
  out << "State: " << job.state << '\n';
  out << "Allocated CPUS: " << job.alloc_cpus << '\n';
  out << "Allocated TRES: " << alloc_tres(job) << '\n';
  out << "Node(s): " << job.node_list << '\n';
  out << "Elapsed Time: " << (usage.runtime_seconds ? text::duration(*usage.runtime_seconds) : "unknown");
  if (job.time_limit_seconds) out << " (time limit " << text::duration(*job.time_limit_seconds) << ")";
  out << '\n';
}

void io(std::ostream& out, const JobUsage& usage) {
  header(out, "I/O Data");
  if (usage.no_metrics()) {
    out << "No I/O metrics were recorded for this job.\n";
    return;
  }
  auto transfers = [&](const char* what, const char* mb_metric, double mb, const char* count_metric, double count,
                       const char* operations) {
    out << what << ": " << text::amount(text::measured(usage, mb_metric, mb), "MB");
    if (text::has_metric(usage, count_metric)) out << " in " << text::number(count, 0) << " " << operations;
    out << '\n';
  };
  transfers("Data read", "jobs_read_mb", usage.read_mb, "jobs_read_count", usage.read_count, "reads");
  transfers("Data written", "jobs_write_mb", usage.write_mb, "jobs_write_count", usage.write_count, "writes");
  out << "Opened files: "
      << (usage.opened_files_avg ? text::number(*usage.opened_files_avg) + " on average" : "unknown") << '\n';
  out << "Scratch filesystem: "
      << (!text::has_metric(usage, "jobs_uses_scratch") ? "unknown"
          : usage.uses_scratch                          ? "used"
                                                        : "not used")
      << '\n';
}

void cpu_and_memory(std::ostream& out, const JobUsage& usage) {
  header(out, "Usage Data");
  if (usage.no_metrics()) out << "No samples were recorded; the figures below are from Slurm accounting.\n";
  std::string efficiency;
  if (auto share = usage.cpu_efficiency_percent)
    efficiency = " (" + text::number(*share) + " % of the " + std::to_string(usage.job.alloc_cpus) + " allocated CPUs)";
  out << "CPU usage: " << text::cpu_usage(usage, efficiency) << '\n';
  if (!usage.cpu_time_core.empty())
    out << "Cores used: " << usage.cores_used << " of " << usage.cpu_time_core.size() << '\n';
  out << "CPU time: " << text::cpu_time(usage) << '\n';
  out << "Memory: " << text::resident_memory(usage) << '\n';
  if (auto with_cache = text::peak_with_cache(usage))
    out << "With page cache: " << text::number(*with_cache) << " MB at peak (the cache is reclaimable)\n";
  for (const auto& [node, ids] : usage.gpus) {
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : ", ") + id;
    out << "GPUs on " << node << ": " << list << '\n';
  }
  if (text::has_gpus(usage)) {
    out << "GPU utilisation: " << text::gpu_utilization(usage) << '\n';
    if (std::string memory = text::gpu_memory(usage); !memory.empty()) out << "GPU memory: " << memory << '\n';
    if (std::string power = text::gpu_power(usage); !power.empty()) out << "GPU power: " << power << '\n';
    // One GPU's figures are the job's: listed only when there are several.
    if (usage.gpu_devices.size() > 1)
      for (const model::GpuUsage& gpu : usage.gpu_devices)
        wrap(out, text::gpu_name(gpu) + ": " + text::gpu_figures(gpu), "  ", "    ");
  }
  for (const std::string& why : usage.missing) wrap(out, "Missing: " + why, "", "   ");
}

void threads(std::ostream& out, const JobUsage& usage) {
  header(out, "Thread Data");
  if (usage.threads_max.empty()) out << "No thread counts were recorded for this job.\n";
  for (const auto& [name, count] : usage.threads_max) out << name << ": " << text::number(count, 0) << " thread(s)\n";
}

// The I/O, usage and thread sections, each with its findings.
void body(std::ostream& out, const model::JobReport& report) {
  io(out, report.usage);
  findings_of(out, report.findings, Section::Io);
  cpu_and_memory(out, report.usage);
  findings_of(out, report.findings, Section::Usage);
  threads(out, report.usage);
  findings_of(out, report.findings, Section::Threads);
}

}  // namespace

std::string mail_text(const model::JobReport& report, const std::string& pdf_url) {
  std::ostringstream out;
  general(out, report.usage);
  findings_of(out, report.findings, Section::General);
  if (report.usage.no_usage()) {
    // Nothing was measured: the reason in one paragraph instead of three
    // sections of unknowns, then the findings there are.
    wrap(out, text::no_usage_sentence(report.usage), "", "");
    for (Section section : {Section::Io, Section::Usage, Section::Threads}) findings_of(out, report.findings, section);
  } else {
    body(out, report);
  }
  if (!pdf_url.empty()) out << "\nFor more information on the job, plots are available at " << pdf_url << '\n';
  out << (report.warning ? "WARNING=true" : "WARNING=false") << '\n';
  return out.str();
}

}  // namespace petricore::render
