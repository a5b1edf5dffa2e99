// The report is laid out in two passes: first a flat list of blocks (a title
// line, a table row, one line of a finding, a chart) with their heights is
// cut into pages, then each page is drawn knowing how many pages there are,
// so every footer can say "page N of M". Text goes through cairo's toy text
// API, which a PDF surface writes as real (searchable, copyable) text with
// embedded font subsets.
#include "render/pdf_report.hpp"

#include "render/cairo_library.hpp"
#include "render/canvas.hpp"
#include "render/chart.hpp"
#include "render/job_charts.hpp"
#include "render/pdf_layout.hpp"
#include "render/text_format.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace petricore::render {
namespace {

using namespace pdf;
using model::Finding;
using model::JobUsage;
using model::Severity;

// Two charts share a page; the heading, caption and gap fit around each.
constexpr double kChartHeight = 268;
// The pie page: user vs system needs little room, the per-core legend much.
constexpr double kModePieHeight = 230;
constexpr double kCorePieHeight = 350;
// A finding's severity tag column.
constexpr double kTagWidth = 62;

// Dark enough that the white word on the tag stays legible in grey-scale.
Rgb severity_colour(Severity severity) {
  switch (severity) {
    case Severity::Critical:
      return {0.72, 0.11, 0.11};
    case Severity::Warning:
      return {0.80, 0.36, 0.00};
    case Severity::Info:
      return {0.08, 0.40, 0.75};
  }
  return kMuted;
}

// A finding: its severity tag, message and advice, kept together.
void finding(Layout& layout, const Finding& f) {
  const double indent = kTagWidth + 10;
  auto message = layout.pen().wrap(f.message, kMessage, kWidth - indent);
  auto advice = layout.pen().wrap("Advice: " + f.advice, kAdvice, kWidth - indent);
  std::string word = model::severity_name(f.severity);
  for (char& ch : word) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (std::size_t i = 0; i < message.size(); ++i) {
    Block b;
    b.height = kMessage.line_height();
    b.keep_with_next = true;
    b.draw = [line = message[i], tag = i == 0, word, colour = severity_colour(f.severity), indent](const Pen& pen,
                                                                                                   double top) {
      if (tag) {
        pen.box(kLeft, top + 0.5, kTagWidth, kMessage.line_height() - 1, colour);
        pen.font(kTag);
        pen.show(kLeft + (kTagWidth - pen.width(word)) / 2, top + kMessage.line_height() / 2 + kTag.size * 0.36, word);
      }
      pen.font(kMessage);
      pen.show(kLeft + indent, baseline(top, kMessage), line);
    };
    layout.blocks().push_back(std::move(b));
  }
  for (std::size_t i = 0; i < advice.size(); ++i) {
    Block b;
    b.height = kAdvice.line_height();
    b.keep_with_next = i + 1 < advice.size();
    b.draw = [line = advice[i], indent](const Pen& pen, double top) {
      pen.font(kAdvice);
      pen.show(kLeft + indent, baseline(top, kAdvice), line);
    };
    layout.blocks().push_back(std::move(b));
  }
  layout.space(7);
}

std::string lower_first(std::string s) {
  // "Resident memory" -> "resident memory", but "CPU use" stays.
  if (s.size() > 1 && std::isupper(static_cast<unsigned char>(s[0])) && std::islower(static_cast<unsigned char>(s[1])))
    s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string plural(double n, const char* one, const char* many) {
  return text::number(n) + " " + (n == 1 ? one : many);
}

void title_block(Layout& layout, const JobUsage& usage, const PdfOptions& options) {
  const model::JobRecord& job = usage.job;
  std::string title = "Job " + job.job_id;
  if (!job.name.empty()) title += " \u2014 " + job.name;
  layout.paragraph(title, kTitle);
  std::int64_t when = options.generated_at != 0 ? options.generated_at : static_cast<std::int64_t>(std::time(nullptr));
  layout.paragraph("petricore report, generated " + text::iso8601_utc(when), kSubtitle);
  if (!options.job_url.empty()) {
    std::string url = options.job_url;
    Block b;
    b.height = kSubtitle.line_height();
    b.draw = [url](const Pen& pen, double top) {
      const CairoLibrary& c = pen.lib();
      pen.font(kSubtitle);
      pen.show(kLeft, baseline(top, kSubtitle), "Job page: ");
      double x = kLeft + pen.width("Job page: ");
      // cairo's tag attributes quote with single quotes, escaped by '\'.
      std::string quoted;
      for (char ch : clean_text(url)) {
        if (ch == '\'' || ch == '\\') quoted += '\\';
        quoted += ch;
      }
      std::string attributes = "uri='" + quoted + "'";
      c.tag_begin(pen.cr(), CAIRO_TAG_LINK, attributes.c_str());
      pen.colour({0.08, 0.33, 0.70});
      pen.show(x, baseline(top, kSubtitle), url);
      c.tag_end(pen.cr(), CAIRO_TAG_LINK);
    };
    layout.blocks().push_back(std::move(b));
  }
}

// Two cells a row: the allocation is short facts.
void job_table(Layout& layout, const JobUsage& usage) {
  const model::JobRecord& job = usage.job;
  std::vector<std::pair<std::string, std::string>> cells;
  auto cell = [&](const char* label, const std::string& value) { cells.emplace_back(label, value); };
  cell("User", job.user.empty() ? "unknown" : job.user + (job.uid ? " (uid " + std::to_string(*job.uid) + ")" : ""));
  cell("Account", job.account.empty() ? "unknown" : job.account);
  cell("Partition", job.partition.empty() ? "unknown" : job.partition);
  cell("State", job.state.empty() ? "unknown" : job.state);
  if (job.submit) cell("Submitted", text::iso8601_utc(*job.submit));
  cell("Started", job.start ? text::iso8601_utc(*job.start) : "not yet");
  cell("Ended", job.end ? text::iso8601_utc(*job.end) : job.start ? "still running" : "not yet");
  std::string runtime = usage.runtime_seconds ? text::duration(*usage.runtime_seconds) : "unknown";
  if (job.time_limit_seconds) runtime += " of " + text::duration(*job.time_limit_seconds);
  if (auto fraction = usage.time_limit_fraction) runtime += " (" + text::number(100 * *fraction) + " %)";
  cell("Runtime", runtime);
  std::string nodes = job.alloc_nodes > 0 ? std::to_string(job.alloc_nodes) : "unknown";
  if (!job.node_list.empty()) nodes += ": " + job.node_list;
  cell("Nodes", nodes);
  cell("CPUs", std::to_string(job.alloc_cpus));
  cell("Memory", job.alloc_mem_mb ? text::number(*job.alloc_mem_mb) + " MB" : "unknown");
  std::string gpus = job.alloc_gpus > 0 ? std::to_string(job.alloc_gpus) : "none";
  for (const auto& [node, ids] : usage.gpus) {
    gpus += (gpus == "none" ? "" : "; ") + node + ":";
    for (const auto& id : ids) gpus += " " + id;
  }
  cell("GPUs", gpus);

  layout.heading("Job");
  layout.table_start();
  for (std::size_t i = 0; i < cells.size(); i += 2) {
    if (i + 1 < cells.size())
      layout.row({cells[i], cells[i + 1]});
    else
      layout.row({cells[i], {"", ""}});
  }
}

// The rows only samples have.
void sampled_rows(Layout& layout, const JobUsage& usage) {
  auto transfers = [&](const char* mb_metric, double mb, const char* count_metric, double count, const char* ops) {
    std::string s = text::amount(text::measured(usage, mb_metric, mb), "MB");
    if (text::has_metric(usage, count_metric)) s += " in " + text::number(count, 0) + " " + ops;
    return s;
  };
  layout.row("Data read", transfers("jobs_read_mb", usage.read_mb, "jobs_read_count", usage.read_count, "reads"));
  layout.row("Data written",
             transfers("jobs_write_mb", usage.write_mb, "jobs_write_count", usage.write_count, "writes"));
  layout.row("Opened files",
             usage.opened_files_avg ? text::number(*usage.opened_files_avg) + " on average" : "unknown");
  layout.row("Scratch", !text::has_metric(usage, "jobs_uses_scratch") ? "unknown"
                        : usage.uses_scratch                          ? "used"
                                                                      : "not used");
  std::string threads;
  for (const auto& [name, count] : usage.threads_max)
    threads += (threads.empty() ? "" : ", ") + name + ": " + plural(count, "thread", "threads");
  layout.row("Threads", threads.empty() ? "unknown" : threads + " (at most, over all nodes)");
  if (!text::has_gpus(usage)) return;
  layout.row("GPU utilisation", text::gpu_utilization(usage));
  if (std::string memory = text::gpu_memory(usage); !memory.empty()) layout.row("GPU memory", memory);
  if (std::string power = text::gpu_power(usage); !power.empty()) layout.row("GPU power", power);
  // One GPU's figures are the job's: a row each only when there are several.
  if (usage.gpu_devices.size() > 1)
    for (const model::GpuUsage& gpu : usage.gpu_devices) layout.row(text::gpu_name(gpu), text::gpu_figures(gpu));
}

void usage_table(Layout& layout, const JobUsage& usage) {
  layout.heading("Usage");
  layout.table_start();
  if (usage.no_usage()) {
    layout.row("Usage", text::no_usage_sentence(usage));
    return;
  }
  if (usage.no_metrics()) layout.row("Metrics", text::kNoSamples);
  const model::JobRecord& job = usage.job;
  std::string efficiency;
  if (auto share = usage.cpu_efficiency_percent)
    efficiency =
        " (" + text::number(*share) + " % of the " + plural(job.alloc_cpus, "allocated CPU", "allocated CPUs") + ")";
  layout.row("CPU efficiency", text::cpu_usage(usage, efficiency));
  if (!usage.cpu_time_core.empty())
    layout.row("Cores used", std::to_string(usage.cores_used) + " of " + std::to_string(usage.cpu_time_core.size()) +
                                 " (cores with at least 0.8 \u00d7 the mean CPU time per core)");
  layout.row("CPU time", text::cpu_time(usage));
  layout.row("Memory", text::resident_memory(usage) + text::page_cache_note(usage));
  if (std::string parts = text::memory_parts(usage); !parts.empty()) layout.row("Memory at peak", parts);
  if (!usage.no_metrics()) sampled_rows(layout, usage);
  for (const std::string& why : usage.missing) layout.row("Missing", why);
}

void findings_section(Layout& layout, const std::vector<Finding>& findings) {
  layout.heading("Findings");
  if (findings.empty()) {
    layout.paragraph("No problems found.", kMessage);
    return;
  }
  for (const Finding& f : findings) finding(layout, f);
}

const ChartMetric& metric_info(const std::string& metric) {
  for (const ChartMetric& m : chart_metrics())
    if (m.metric == metric) return m;
  throw std::logic_error("pdf_report: " + metric + " is not in chart_metrics()");
}

void line_chart_section(Layout& layout, const model::JobReport& report, const std::string& metric, bool new_page,
                        int& figure) {
  const ChartMetric& info = metric_info(metric);
  layout.heading(info.title, new_page);
  Result<LineChart> chart = metric_chart(report, metric);
  if (!chart) {
    layout.paragraph("No " + lower_first(info.title) + " samples were recorded.", kBody);
    return;
  }
  auto shared = std::make_shared<LineChart>(std::move(chart.value()));
  layout.chart(kChartHeight, [shared](cairo_t* cr) { draw_line_chart(cr, *shared, kWidth, kChartHeight); });
  std::string caption = "Figure " + std::to_string(++figure) + ". " + shared->title + " over time, one line per " +
                        (metric == "jobs_thread_count"                                    ? "process name"
                         : metric == kGpuUtilization || metric.rfind("jobs_gpu_", 0) == 0 ? "GPU"
                                                                                          : "node") +
                        ".";
  if (shared->reference) {
    const double threshold = report.thresholds.cpu_efficiency_warning;
    const double per_node = *shared->reference / threshold;
    const bool one_node = per_node >= report.usage.job.alloc_cpus;
    caption += std::string(" The dashed line marks the lowest expected use of ") + (one_node ? "the" : "each") +
               " node, " + text::number(*shared->reference) + " % of one CPU (" + text::number(threshold) +
               " % of its " + plural(per_node, "allocated CPU", "allocated CPUs") +
               "): below it, allocated CPUs stand idle.";
  }
  layout.paragraph(caption, kCaption);
}

void pie_section(Layout& layout, Result<PieChart> pie, double height, const std::string& heading,
                 const std::string& missing, const std::string& caption, bool new_page, int& figure) {
  layout.heading(heading, new_page);
  if (!pie) {
    layout.paragraph(missing, kBody);
    return;
  }
  auto shared = std::make_shared<PieChart>(std::move(pie.value()));
  layout.chart(height, [shared, height](cairo_t* cr) { draw_pie_chart(cr, *shared, kWidth, height); });
  layout.paragraph("Figure " + std::to_string(++figure) + ". " + caption, kCaption);
}

std::string mode_caption(const JobUsage& usage) {
  std::string caption = "User vs system CPU time of job " + usage.job.job_id;
  double user = usage.user_time.value_or(0), system = usage.system_time.value_or(0);
  if (user + system > 0)
    caption += ": " + text::number(100 * user / (user + system)) + " % in user mode (the program's own work), " +
               text::number(100 * system / (user + system)) + " % in system mode (the kernel, mostly I/O)";
  return caption + ".";
}

std::string core_caption(const JobUsage& usage) {
  std::string caption = "CPU time per allocated core of job " + usage.job.job_id;
  if (!usage.cpu_time_core.empty())
    caption += ": " + std::to_string(usage.cores_used) + " of " + std::to_string(usage.cpu_time_core.size()) +
               " cores got at least 0.8 \u00d7 the mean CPU time per core";
  return caption + ".";
}

void chart_sections(Layout& layout, const model::JobReport& report) {
  int figure = 0;
  line_chart_section(layout, report, "jobs_cpu_percent", true, figure);
  layout.space(14);
  line_chart_section(layout, report, "jobs_rss", false, figure);
  line_chart_section(layout, report, "jobs_read_mb", true, figure);
  layout.space(14);
  line_chart_section(layout, report, "jobs_write_mb", false, figure);
  const JobUsage& usage = report.usage;
  if (!usage.gpu_utilization_series.empty()) line_chart_section(layout, report, kGpuUtilization, true, figure);
  // petricore's own GPU series: utilisation and memory per GPU on one page.
  const bool gpu_busy = usage.series.count("jobs_gpu_utilization_percent") != 0;
  const bool gpu_memory = usage.series.count("jobs_gpu_memory_used_mb") != 0;
  if (gpu_busy) line_chart_section(layout, report, "jobs_gpu_utilization_percent", true, figure);
  if (gpu_busy && gpu_memory) layout.space(14);
  if (gpu_memory) line_chart_section(layout, report, "jobs_gpu_memory_used_mb", !gpu_busy, figure);
  pie_section(layout, cpu_mode_pie(report), kModePieHeight, "CPU time by mode",
              "No user and system CPU time samples were recorded.", mode_caption(usage), true, figure);
  layout.space(14);
  pie_section(layout, cpu_core_pie(report), kCorePieHeight, "CPU time per core",
              "No CPU time per core samples were recorded.", core_caption(usage), false, figure);
}

}  // namespace

std::string pdf_report(const model::JobReport& report, const PdfOptions& options) {
  const JobUsage& usage = report.usage;
  const DocumentText text{"petricore report for job " + usage.job.job_id, "petricore \u00b7 job " + usage.job.job_id,
                          "cairo PDF report"};
  return render_pdf(text, [&](Layout& layout) {
    title_block(layout, usage, options);
    job_table(layout, usage);
    usage_table(layout, usage);
    findings_section(layout, report.findings);
    if (!usage.no_metrics()) chart_sections(layout, report);
  });
}

}  // namespace petricore::render
