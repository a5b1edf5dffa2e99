// The index and job pages of serve. Both are one self-contained document:
// the only <style> is inline, there is no script, and the charts travel
// inside the page as data: URIs (no request leaves the page).
//
// Why <img src="data:image/svg+xml;base64,..."> rather than <svg> inline:
// cairo names its glyphs and clips "glyph0-1", "clip1", ... in every SVG it
// writes, so two SVGs inline in one document would point at each other's
// definitions. An <img> keeps each chart a document of its own (no id
// clash, no CSS leaking in either direction), takes an alt text, and needs
// no rewriting of cairo's output.
#include "render/job_html.hpp"

#include "core/encoding.hpp"
#include "core/utf8.hpp"

#include "render/html_page.hpp"
#include "render/job_charts.hpp"
#include "render/text_format.hpp"

#include <cstdint>
#include <sstream>

namespace petricore::render {
namespace {

using model::Finding;
using model::JobRecord;
using model::JobUsage;

// Chart sizes in CSS pixels; the page scales them down on narrow screens.
constexpr int kLineWidth = 880;
constexpr int kLineHeight = 380;
constexpr int kPieWidth = 440;
constexpr int kPieHeight = 300;
// The line charts shown on the page; the other metrics are linked as PNGs.
constexpr std::size_t kInlineLineCharts = 4;

// The page's own rules, around html::kPalette and html::kFigures; severity
// badges carry their word, so the colours only help.
constexpr const char* kStyle = R"(main,header.page,footer{max-width:60rem;margin:0 auto}
header.page{padding-top:1.25rem;padding-bottom:.5rem;border-bottom:1px solid var(--line)}
h1{font-size:1.6rem;margin:.2rem 0}
h1 .name{font-weight:400;color:var(--muted)}
h2{font-size:1.25rem;margin:1.75rem 0 .6rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}
a{color:var(--link)}
code{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono",monospace;font-size:.9em}
.facts{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;margin:.4rem 0;padding:0;list-style:none;color:var(--muted)}
.facts b{color:var(--fg);font-weight:600}
nav.links{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0 .5rem}
nav.links a{display:inline-block;padding:.25rem .7rem;border:1px solid var(--line);border-radius:.4rem;background:var(--soft);text-decoration:none}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.4rem .6rem;border-bottom:1px solid var(--line)}
table.summary th{width:9.5rem;font-weight:600;white-space:nowrap}
table.routes td:first-child{white-space:nowrap}
table.routes a{overflow-wrap:break-word}
ul.findings{list-style:none;margin:0;padding:0}
ul.findings li{margin:0 0 .8rem;padding:.6rem .8rem;border:1px solid var(--line);border-left-width:.4rem;border-radius:.3rem}
ul.findings p{margin:.25rem 0 0}
.advice{color:var(--muted)}
ul.missing{margin:.2rem 0 0;padding-left:1.25rem;color:var(--muted)}
.badge{display:inline-block;min-width:4.8rem;margin-right:.5rem;padding:0 .45rem;border-radius:.25rem;font-size:.8rem;font-weight:700;text-align:center;text-transform:uppercase;letter-spacing:.03em}
.sev-critical{border-left-color:#b3261e}.sev-critical .badge{background:#b3261e;color:#fff}
.sev-warning{border-left-color:#c77700}.sev-warning .badge{background:#ffd27a;color:#3b2600}
.sev-info{border-left-color:#2f6fb3}.sev-info .badge{background:#d6e6f8;color:#0d3a66}
.rule{color:var(--muted);font-size:.85em}
.verdict{font-weight:600}
)";
constexpr const char* kStyleEnd =
    R"(.pies{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
form.job{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0;padding:.8rem;background:var(--soft);border:1px solid var(--line);border-radius:.4rem}
form.job input{font:inherit;padding:.3rem .5rem;width:12rem;border:1px solid #9aa3b2;border-radius:.3rem}
form.job button{font:inherit;padding:.3rem .9rem;border:1px solid #0b57d0;border-radius:.3rem;background:#0b57d0;color:#fff;cursor:pointer}
footer{margin-top:2rem;padding-top:.75rem;padding-bottom:1.5rem;border-top:1px solid var(--line);color:var(--muted);font-size:.85rem}
@media (max-width:40rem){table.summary th{width:auto;white-space:normal}body{font-size:15px;padding:0 .75rem}}
@media print{body{font-size:11pt}nav.links,form.job{display:none}a{color:inherit;text-decoration:none}figure,ul.findings li,table.summary tr{break-inside:avoid}.badge{border:1px solid currentColor}}
)";

// A job id as one path segment: Slurm's "123_4" and "123+1" stay readable,
// anything else is percent-encoded.
std::string path_segment(std::string_view text) {
  return percent_encode(text, "+");
}

std::string h(std::string_view text) {
  return html_escape(text);
}

const char* plural(long long n, const char* one, const char* many) {
  return n == 1 ? one : many;
}

std::string title_of(const JobRecord& job) {
  std::string title = "Job " + job.job_id;
  if (!job.name.empty()) title += " (" + job.name + ")";
  return title;
}

void fact(std::ostream& out, const char* label, const std::string& value) {
  if (value.empty()) return;
  out << "<li>" << label << " <b>" << h(value) << "</b></li>";
}

void header(std::ostream& out, const model::JobReport& report, const std::string& base) {
  const JobRecord& job = report.usage.job;
  const std::string id = path_segment(job.job_id);
  out << "<header class=\"page\">\n<h1>Job " << h(job.job_id);
  if (!job.name.empty()) out << " <span class=\"name\">" << h(job.name) << "</span>";
  out << "</h1>\n<ul class=\"facts\">";
  fact(out, "user", job.user);
  fact(out, "account", job.account);
  fact(out, "partition", job.partition);
  fact(out, "state", job.state);
  const char* verdict = report.warning             ? "This job has findings worth acting on (see below)."
                        : !report.findings.empty() ? "Nothing to act on; see the notes below."
                        : report.usage.no_usage()  ? "Nothing was measured, so little could be checked."
                        : report.usage.no_metrics()
                            ? "No findings in the figures from Slurm accounting (no samples were recorded)."
                            : "No findings: this job used what it asked for.";
  out << "</ul>\n<p class=\"verdict\">" << verdict << "</p>\n<nav class=\"links\"><a href=\"" << h(base + "/pdf/" + id)
      << "\">PDF report</a><a href=\"" << h(base + "/api/v1/jobs/" + id + "/usage") << "\">JSON</a>";
  // The mail exists once the job has ended (409 before).
  if (job.finished()) out << "<a href=\"" << h(base + "/mail/" + id) << "\">Job-end mail</a>";
  out << "<a href=\"" << h(base + "/") << "\">All routes</a></nav>\n</header>\n";
}

// `label` is markup (escaped by the caller where it holds names).
void row(std::ostream& out, const std::string& label, const std::string& value) {
  out << "<tr><th scope=\"row\">" << label << "</th><td>" << h(value) << "</td></tr>\n";
}

std::string allocation(const JobRecord& job) {
  std::string text = job.node_list.empty() ? "unknown nodes" : job.node_list;
  if (job.alloc_nodes > 0)
    text += " (" + std::to_string(job.alloc_nodes) + plural(job.alloc_nodes, " node", " nodes") + ")";
  text += ": " + std::to_string(job.alloc_cpus) + plural(job.alloc_cpus, " CPU", " CPUs");
  if (job.alloc_mem_mb) text += ", " + text::number(*job.alloc_mem_mb) + " MB";
  if (job.alloc_gpus > 0) text += ", " + std::to_string(job.alloc_gpus) + plural(job.alloc_gpus, " GPU", " GPUs");
  if (job.billing) text += "; billing " + std::to_string(*job.billing);
  return text;
}

std::string runtime(const JobUsage& usage) {
  std::string text = usage.runtime_seconds ? text::duration(*usage.runtime_seconds) : "unknown";
  if (usage.job.time_limit_seconds) text += " of " + text::duration(*usage.job.time_limit_seconds) + " asked for";
  if (auto fraction = usage.time_limit_fraction) text += " (" + text::number(100 * *fraction) + " %)";
  return text;
}

std::string cpu(const JobUsage& usage) {
  std::string efficiency;
  if (auto share = usage.cpu_efficiency_percent)
    efficiency = " (" + text::number(*share) + " % of the " + std::to_string(usage.job.alloc_cpus) + " allocated " +
                 plural(usage.job.alloc_cpus, "CPU", "CPUs") + ")";
  return text::cpu_usage(usage, efficiency);
}

// "102 MB resident at peak of 2048 MB allocated (5 %); with page cache 140 MB (reclaimable)"
std::string memory(const JobUsage& usage) {
  return text::resident_memory(usage) + text::page_cache_note(usage);
}

std::string transfers(const JobUsage& usage, const char* mb_metric, double mb, const char* count_metric, double count,
                      const char* operations) {
  std::string text = text::amount(text::measured(usage, mb_metric, mb), "MB");
  if (text::has_metric(usage, count_metric)) text += " in " + text::number(count, 0) + " " + operations;
  return text;
}

std::string threads(const JobUsage& usage) {
  std::string text;
  for (const auto& [name, count] : usage.threads_max)
    text += (text.empty() ? "" : ", ") + name + " " + text::number(count, 0);
  return text;
}

std::string gpus(const JobUsage& usage) {
  std::string text;
  for (const auto& [node, ids] : usage.gpus) {
    text += (text.empty() ? "" : "; ") + node + ":";
    for (const auto& id : ids) text += " " + id;
  }
  if (text.empty()) text = std::to_string(usage.job.alloc_gpus) + " allocated";
  return text + ", utilisation " + text::gpu_utilization(usage);
}

// The rows only samples have.
void sampled_rows(std::ostream& out, const JobUsage& usage) {
  row(out, "Data read", transfers(usage, "jobs_read_mb", usage.read_mb, "jobs_read_count", usage.read_count, "reads"));
  row(out, "Data written",
      transfers(usage, "jobs_write_mb", usage.write_mb, "jobs_write_count", usage.write_count, "writes"));
  row(out, "Open files", usage.opened_files_avg ? text::number(*usage.opened_files_avg) + " on average" : "unknown");
  row(out, "Scratch",
      !text::has_metric(usage, "jobs_uses_scratch") ? "unknown"
      : usage.uses_scratch                          ? "used"
                                                    : "not used");
  if (!usage.threads_max.empty()) row(out, "Threads (max)", threads(usage));
  if (!text::has_gpus(usage)) return;
  row(out, "GPUs", gpus(usage));
  if (std::string memory = text::gpu_memory(usage); !memory.empty()) row(out, "GPU memory", memory);
  if (std::string power = text::gpu_power(usage); !power.empty()) row(out, "GPU power", power);
  // One GPU's figures are the job's: a row each only when there are several.
  if (usage.gpu_devices.size() > 1)
    for (const model::GpuUsage& gpu : usage.gpu_devices) row(out, h(text::gpu_name(gpu)), text::gpu_figures(gpu));
}

void summary(std::ostream& out, const JobUsage& usage) {
  const JobRecord& job = usage.job;
  out << "<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"summary\">\n";
  row(out, "Allocated", allocation(job));
  row(out, "Runtime", runtime(usage));
  if (job.start)
    row(out, "Window", text::iso8601_utc(*job.start) + " to " + (job.end ? text::iso8601_utc(*job.end) : "now"));
  if (usage.no_usage()) {
    out << "</table>\n<p class=\"no-usage\">" << h(text::no_usage_sentence(usage)) << "</p>\n</section>\n";
    return;
  }
  if (usage.no_metrics()) row(out, "Metrics", text::kNoSamples);
  row(out, "CPU", cpu(usage));
  if (!usage.cpu_time_core.empty())
    row(out, "Cores used",
        std::to_string(usage.cores_used) + " of " + std::to_string(usage.cpu_time_core.size()) +
            " (a core counts when it got at least 0.8 × the mean CPU time per core)");
  row(out, "CPU time", text::cpu_time(usage));
  row(out, "Memory", memory(usage));
  if (std::string parts = text::memory_parts(usage); !parts.empty()) row(out, "Memory at peak", parts);
  if (!usage.no_metrics()) sampled_rows(out, usage);
  out << "</table>\n";
  if (!usage.missing.empty()) {
    out << "<p>Missing figures:</p>\n<ul class=\"missing\">\n";
    for (const std::string& why : usage.missing) out << "<li>" << h(why) << "</li>\n";
    out << "</ul>\n";
  }
  out << "</section>\n";
}

void findings(std::ostream& out, const std::vector<Finding>& list) {
  out << "<section id=\"findings\">\n<h2>Findings</h2>\n";
  if (list.empty()) {
    out << "<p>No findings.</p>\n</section>\n";
    return;
  }
  out << "<ul class=\"findings\">\n";
  for (const Finding& f : list) {
    const char* severity = model::severity_name(f.severity);
    out << "<li class=\"sev-" << severity << "\"><span class=\"badge\">" << severity << "</span>" << h(f.message)
        << " <span class=\"rule\">(" << h(f.rule) << ")</span>";
    if (!f.advice.empty()) out << "\n<p class=\"advice\">Advice: " << h(f.advice) << "</p>";
    out << "</li>\n";
  }
  out << "</ul>\n</section>\n";
}

// One chart: the SVG as a data: image (cairo's XML prolog stays: the image
// is a document of its own), its caption, and links to the same chart from
// its route, as PNG and as SVG. `png_url` may hold a query already.
void figure(std::ostream& out, const std::string& svg, int width, int height, const std::string& alt,
            const std::string& caption, const std::string& png_url) {
  const std::string svg_url = png_url + (png_url.find('?') == std::string::npos ? "?" : "&") + "format=svg";
  out << "<figure><img src=\"data:image/svg+xml;base64," << base64(svg) << "\" width=\"" << width << "\" height=\""
      << height << "\" alt=\"" << h(alt) << "\">\n<figcaption>" << caption << ": <a href=\"" << h(png_url)
      << "\">PNG</a>, <a href=\"" << h(svg_url) << "\">SVG</a></figcaption></figure>\n";
}

void charts(std::ostream& out, const model::JobReport& report, const std::string& base) {
  const std::string id = path_segment(report.usage.job.job_id);
  std::ostringstream lines, more;
  std::size_t shown = 0;
  for (const ChartMetric& metric : chart_metrics()) {
    const bool external_gpu = metric.metric == kGpuUtilization;
    if (external_gpu ? report.usage.gpu_utilization_series.empty() : report.usage.series.count(metric.metric) == 0)
      continue;
    const std::string png = base + "/plot/" + id + "/" + path_segment(metric.metric);
    // GPU utilisation and memory, when measured, are shown with the first four.
    const bool gpu =
        external_gpu || metric.metric == "jobs_gpu_utilization_percent" || metric.metric == "jobs_gpu_memory_used_mb";
    if (shown >= kInlineLineCharts && !gpu) {
      more << (more.tellp() > 0 ? ", " : "") << "<a href=\"" << h(png) << "\">" << h(metric.title) << "</a>";
      continue;
    }
    Result<LineChart> chart = metric_chart(report, metric.metric);
    if (!chart) continue;
    ++shown;
    figure(lines, line_chart_image(*chart, ImageFormat::Svg, kLineWidth, kLineHeight), kLineWidth, kLineHeight,
           chart->title.empty() ? metric.title : chart->title,
           h(metric.title) + " (<code>" + h(metric.metric) + "</code>)", png);
  }
  std::ostringstream pies;
  const std::string pie_url = base + "/pie/" + id + "/";
  if (Result<PieChart> pie = cpu_mode_pie(report))
    figure(pies, pie_chart_image(*pie, ImageFormat::Svg, kPieWidth, kPieHeight), kPieWidth, kPieHeight, pie->title,
           "User vs system CPU time", pie_url);
  if (Result<PieChart> pie = cpu_core_pie(report))
    figure(pies, pie_chart_image(*pie, ImageFormat::Svg, kPieWidth, kPieHeight), kPieWidth, kPieHeight, pie->title,
           "CPU time per allocated core", pie_url + "?of=cores");
  out << "<section id=\"charts\">\n<h2>Charts</h2>\n";
  if (shown == 0 && pies.tellp() <= 0) {
    out << "<p>No samples were recorded for this job, so there is nothing to chart.</p>\n</section>\n";
    return;
  }
  out << lines.str();
  if (pies.tellp() > 0) out << "<div class=\"pies\">\n" << pies.str() << "</div>\n";
  if (more.tellp() > 0) out << "<p>More charts (PNG): " << more.str() << ".</p>\n";
  out << "</section>\n";
}

void document_start(std::ostream& out, const std::string& title) {
  html::document_start(out, title, {html::kPalette, kStyle, html::kFigures, kStyleEnd});
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
      ++i;
      continue;
    }
    char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // C0 controls other than tab and line ends are not allowed in HTML text.
        if (n == 1 && ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F))
          out += "\xEF\xBF\xBD";
        else
          out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string index_html(const IndexPage& page) {
  std::ostringstream out;
  document_start(out, "petricore");
  out << "<header class=\"page\">\n<h1>petricore</h1>\n</header>\n<main>\n"
         "<p>petricore watches Slurm jobs while they run: a collector on every compute node samples each job's "
         "CPU, memory, I/O, threads and GPUs into Prometheus, and this server turns those samples and the "
         "accounting record into a report per job: how much of what it asked for it used, what looks wrong, "
         "and what to change next time. The same report is a web page, JSON, charts, a PDF and the "
         "job-end mail.</p>\n"
         "<form class=\"job\" method=\"get\" action=\""
      << h(page.base_url + "/jobs/")
      << "\">\n<label for=\"job-id\">Job id</label>\n"
         "<input id=\"job-id\" name=\"id\" type=\"text\" inputmode=\"numeric\" required placeholder=\"12345\" "
         "autocomplete=\"off\">\n<button type=\"submit\">Show the job</button>\n</form>\n"
         "<h2>Routes</h2>\n<p>All routes answer GET. Errors are JSON <code>{\"error\": \"...\"}</code> with "
         "their HTTP status.</p>\n<table class=\"routes\">\n<thead><tr><th>route</th><th>answer</th>"
         "<th>example</th></tr></thead>\n<tbody>\n";
  for (const IndexRoute& route : page.routes) {
    out << "<tr><td><code>" << h(route.pattern) << "</code></td><td>" << h(route.description) << "</td><td>";
    if (!route.example_url.empty()) {
      // The path is what differs between routes; the server is the same.
      std::string_view shown = route.example_url;
      if (!page.base_url.empty() && shown.size() > page.base_url.size() && shown.rfind(page.base_url, 0) == 0 &&
          shown[page.base_url.size()] == '/')
        shown.remove_prefix(page.base_url.size());
      // A long path breaks after a slash, not inside a number.
      std::string text = h(shown);
      for (std::size_t at = text.find('/', 1); at != std::string::npos; at = text.find('/', at + 6))
        text.insert(at + 1, "<wbr>");
      out << "<a href=\"" << h(route.example_url) << "\">" << text << "</a>";
    }
    out << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  html::document_end(out);
  return out.str();
}

std::string job_page_html(const model::JobReport& report, const JobPageLinks& links) {
  std::ostringstream out;
  document_start(out, title_of(report.usage.job) + ": petricore");
  header(out, report, links.base_url);
  out << "<main>\n";
  summary(out, report.usage);
  findings(out, report.findings);
  // Nothing measured: the summary's sentence says so, no empty chart section.
  if (!report.usage.no_usage()) charts(out, report, links.base_url);
  html::document_end(out);
  return out.str();
}

}  // namespace petricore::render
