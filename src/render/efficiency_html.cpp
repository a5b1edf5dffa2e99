// The /efficiency page: one self-contained document in the job page's look
// (job_html.cpp): one inline <style>, no script, the charts as <img>
// data:image/svg+xml URIs (why not inline <svg>: job_html.cpp). The CPU
// efficiency bars are <meter> elements: drawn by the browser, coloured by
// their low/high levels, readable as text where meters are not drawn.
#include "core/encoding.hpp"
#include "model/rule_thresholds.hpp"
#include "render/efficiency_render.hpp"
#include "render/html_page.hpp"
#include "render/job_html.hpp"
#include "render/text_format.hpp"

#include <sstream>

namespace petricore::render {
namespace {

using model::EfficiencyTotals;

constexpr int kChartWidth = 880;
constexpr int kChartHeight = 320;
constexpr std::size_t kGroupFindings = 3;

// The page's own rules, around the job page's palette and figures
// (html_page.hpp): tables of figures.
constexpr const char* kStyle = R"(header.page,main,footer{max-width:72rem;margin:0 auto}
header.page{padding:1.25rem 0 .5rem;border-bottom:1px solid var(--line)}
h1{font-size:1.6rem;margin:.2rem 0}
h1 .by{font-weight:400;color:var(--muted)}
h2{font-size:1.25rem;margin:1.75rem 0 .6rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}
a{color:var(--link)}
.facts{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;margin:.4rem 0;padding:0;list-style:none;color:var(--muted)}
.facts b{color:var(--fg);font-weight:600}
nav.links{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0 .5rem}
nav.links a{padding:.25rem .7rem;border:1px solid var(--line);border-radius:.4rem;background:var(--soft);text-decoration:none}
form.period{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin:.75rem 0;padding:.8rem;background:var(--soft);border:1px solid var(--line);border-radius:.4rem}
form.period label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted)}
form.period input,form.period select{font:inherit;color:var(--fg);padding:.25rem .45rem;width:11rem;border:1px solid #9aa3b2;border-radius:.3rem;background:#fff}
form.period button{font:inherit;padding:.3rem .9rem;border:1px solid var(--link);border-radius:.3rem;background:var(--link);color:#fff;cursor:pointer}
.wide{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.35rem .55rem;border-bottom:1px solid var(--line)}
thead th{font-size:.85rem;color:var(--muted);font-weight:600;vertical-align:bottom}
table.summary th{width:10rem;font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.n,time{white-space:nowrap}
td.findings{min-width:13rem;font-size:.9rem}
td.eff{white-space:nowrap}
meter{width:4rem;height:.8rem;margin-right:.4rem;vertical-align:middle}
.muted,.note{color:var(--muted)}
.note{font-size:.9rem}
ul.plain{margin:0;padding-left:1.1rem}
)";
constexpr const char* kStyleEnd =
    R"(footer{margin-top:2rem;padding:.75rem 0 1.5rem;border-top:1px solid var(--line);color:var(--muted);font-size:.85rem}
@media (max-width:40rem){body{font-size:15px;padding:0 .75rem}table.summary th{width:auto}}
@media print{nav.links,form.period{display:none}a{color:inherit;text-decoration:none}figure,tr{break-inside:avoid}}
)";

std::string h(std::string_view text) {
  return html_escape(text);
}

// The CPU efficiency as a meter and its number (the meter has no fallback
// text: the number follows it); "unknown" alone without one.
std::string efficiency_cell(const std::optional<double>& percent_value) {
  if (!percent_value) return "<span class=\"muted\">unknown</span>";
  const model::RuleThresholds levels;
  const std::string value = text::number(*percent_value);
  return "<meter min=\"0\" max=\"100\" low=\"" + text::number(levels.cpu_efficiency_critical) + "\" high=\"" +
         text::number(levels.cpu_efficiency_warning) + "\" optimum=\"100\" value=\"" + value + "\"></meter>" + value +
         " %";
}

// "1.5 (30 %)": an amount and its share when known.
std::string with_share(double amount, const std::optional<double>& share) {
  return text::number(amount) + (share ? " <span class=\"muted\">(" + text::number(*share) + " %)</span>" : "");
}

std::string findings_list(const EfficiencyTotals& t, std::size_t most) {
  auto list = top_findings(t, most);
  if (list.empty()) return "<span class=\"muted\">none</span>";
  std::string out;
  for (const auto& [rule, jobs] : list)
    out += (out.empty() ? "" : "<br>") + h(finding_title(rule)) + ": " + std::to_string(jobs);
  return out;
}

// "2026-11-04 01:00" in a <time> element.
std::string ended(std::int64_t epoch) {
  const std::string iso = text::iso8601_utc(epoch);
  return "<time datetime=\"" + iso + "\">" + iso.substr(0, 10) + " " + iso.substr(11, 5) + "</time>";
}

// The JSON of the same view: the page's query carried over.
std::string json_url(const model::FleetEfficiency& e, const EfficiencyPageLinks& links) {
  std::string url = links.base_url +
                    "/api/v1/efficiency?by=" + percent_encode(links.by.empty() ? model::grouping_name(e.by) : links.by);
  if (!links.since.empty()) url += "&since=" + percent_encode(links.since);
  if (!links.until.empty()) url += "&until=" + percent_encode(links.until);
  return url;
}

void form(std::ostream& out, const model::FleetEfficiency& e, const EfficiencyPageLinks& links) {
  const std::string by = links.by.empty() ? model::grouping_name(e.by) : links.by;
  out << "<form class=\"period\" method=\"get\" action=\"" << h(links.base_url + "/efficiency")
      << "\">\n<label>Group by<select name=\"by\">";
  for (auto grouping :
       {model::EfficiencyGrouping::User, model::EfficiencyGrouping::Account, model::EfficiencyGrouping::Partition}) {
    const std::string name = model::grouping_name(grouping);
    out << "<option value=\"" << name << "\"" << (name == by ? " selected" : "") << ">" << name << "</option>";
  }
  out << "</select></label>\n<label>Since<input name=\"since\" type=\"text\" value=\"" << h(links.since)
      << "\" placeholder=\"" << text::iso8601_utc(e.since).substr(0, 10)
      << "\" autocomplete=\"off\"></label>\n<label>Until<input name=\"until\" type=\"text\" value=\"" << h(links.until)
      << "\" placeholder=\"" << text::iso8601_utc(e.until).substr(0, 10)
      << "\" autocomplete=\"off\"></label>\n<button type=\"submit\">Show</button>\n</form>\n";
}

void header(std::ostream& out, const model::FleetEfficiency& e, const EfficiencyPageLinks& links) {
  out << "<header class=\"page\">\n<h1>Fleet efficiency <span class=\"by\">by " << model::grouping_name(e.by)
      << "</span></h1>\n<ul class=\"facts\"><li>jobs that ended <b>" << h(efficiency_period(e)) << "</b></li>";
  if (e.user) out << "<li>user <b>" << h(*e.user) << "</b></li>";
  if (!e.accounts.empty()) {
    std::string accounts;
    for (const std::string& a : e.accounts) accounts += (accounts.empty() ? "" : ", ") + a;
    out << "<li>" << (e.accounts.size() == 1 ? "account" : "accounts") << " <b>" << h(accounts) << "</b></li>";
  }
  out << "</ul>\n<nav class=\"links\"><a href=\"" << h(json_url(e, links)) << "\">JSON</a><a href=\""
      << h(links.base_url + "/") << "\">All routes</a></nav>\n";
  form(out, e, links);
  out << "</header>\n";
}

void summary_row(std::ostream& out, const char* label, const std::string& markup) {
  out << "<tr><th scope=\"row\">" << label << "</th><td>" << markup << "</td></tr>\n";
}

void totals(std::ostream& out, const EfficiencyTotals& t) {
  out << "<section id=\"totals\">\n<h2>Totals</h2>\n<table class=\"summary\">\n";
  summary_row(out, "Jobs", std::to_string(t.jobs));
  summary_row(out, "Core-hours",
              text::number(t.core_hours_allocated) + " allocated, " + text::number(t.core_hours_used) + " used, " +
                  text::number(t.core_hours_wasted) + " wasted");
  summary_row(out, "CPU efficiency", efficiency_cell(t.cpu_efficiency_percent));
  summary_row(out, "Memory",
              text::number(t.memory_gb_hours_used) + " of " + text::number(t.memory_gb_hours_requested) +
                  " GB-hours requested used at peak" +
                  (memory_used_percent(t) ? " (" + text::percent(memory_used_percent(t)) + ")" : ""));
  summary_row(out, "GPU-hours",
              t.gpu_hours_allocated > 0
                  ? text::number(t.gpu_hours_allocated) + " allocated, " + text::number(t.gpu_hours_idle) + " idle (" +
                        text::percent(gpu_idle_percent(t)) + ")"
                  : "none allocated");
  summary_row(out, "Findings", findings_list(t, t.jobs_by_finding.size()));
  out << "</table>\n<p class=\"note\">Core-hours allocated are CPUs &times; elapsed time, used the jobs&#39; CPU "
         "time; CPU efficiency and wasted core-hours count the jobs whose CPU time is known. Memory used is the "
         "resident peak &times; elapsed time, an upper bound. Idle GPU-hours follow the GPUs&#39; mean "
         "utilisation.</p>\n</section>\n";
}

void groups(std::ostream& out, const model::FleetEfficiency& e) {
  const std::string by = model::grouping_name(e.by);
  out << "<section id=\"groups\">\n<h2>By " << by << "</h2>\n<div class=\"wide\"><table class=\"groups\">\n"
      << "<thead><tr><th scope=\"col\">" << by
      << "</th><th class=\"n\" scope=\"col\">jobs</th><th class=\"n\" scope=\"col\">core&#8209;hours allocated</th>"
         "<th class=\"n\" scope=\"col\">core&#8209;hours used</th><th scope=\"col\">CPU efficiency</th>"
         "<th class=\"n\" scope=\"col\">core&#8209;hours wasted</th><th class=\"n\" scope=\"col\">memory "
         "GB&#8209;hours "
         "requested</th><th class=\"n\" scope=\"col\">memory GB&#8209;hours used</th><th class=\"n\" "
         "scope=\"col\">GPU&#8209;hours allocated</th><th class=\"n\" scope=\"col\">GPU&#8209;hours idle</th>"
         "<th scope=\"col\">top findings</th></tr></thead>\n<tbody>\n";
  for (const model::EfficiencyGroup& g : e.groups) {
    const EfficiencyTotals& t = g.totals;
    out << "<tr><th scope=\"row\">" << h(g.name) << "</th><td class=\"n\">" << t.jobs << "</td><td class=\"n\">"
        << text::number(t.core_hours_allocated) << "</td><td class=\"n\">" << text::number(t.core_hours_used)
        << "</td><td class=\"eff\">" << efficiency_cell(t.cpu_efficiency_percent) << "</td><td class=\"n\">"
        << text::number(t.core_hours_wasted) << "</td><td class=\"n\">" << text::number(t.memory_gb_hours_requested)
        << "</td><td class=\"n\">" << with_share(t.memory_gb_hours_used, memory_used_percent(t))
        << "</td><td class=\"n\">" << text::number(t.gpu_hours_allocated) << "</td><td class=\"n\">"
        << with_share(t.gpu_hours_idle, gpu_idle_percent(t)) << "</td><td class=\"findings\">"
        << findings_list(t, kGroupFindings) << "</td></tr>\n";
  }
  out << "</tbody>\n</table></div>\n</section>\n";
}

void worst_jobs(std::ostream& out, const std::vector<model::WastefulJob>& jobs, const std::string& base) {
  out << "<section id=\"worst\">\n<h2>Jobs that wasted the most core-hours</h2>\n";
  if (jobs.empty()) {
    out << "<p>No job wasted core-hours that are known.</p>\n</section>\n";
    return;
  }
  out << "<div class=\"wide\"><table class=\"jobs\">\n<thead><tr><th scope=\"col\">job</th><th scope=\"col\">name</th>"
         "<th scope=\"col\">user</th><th scope=\"col\">account</th><th scope=\"col\">partition</th>"
         "<th scope=\"col\">ended (UTC)</th><th class=\"n\" scope=\"col\">core&#8209;hours allocated</th>"
         "<th class=\"n\" scope=\"col\">core&#8209;hours wasted</th><th scope=\"col\">CPU "
         "efficiency</th></tr></thead>\n"
         "<tbody>\n";
  for (const model::WastefulJob& j : jobs) {
    out << "<tr><td><a href=\"" << h(base + "/jobs/" + std::to_string(j.job_id)) << "\">"
        << h(j.display_id.empty() ? std::to_string(j.job_id) : j.display_id) << "</a></td><td>" << h(j.name)
        << "</td><td>" << h(j.user) << "</td><td>" << h(j.account) << "</td><td>" << h(j.partition) << "</td><td>"
        << ended(j.end) << "</td><td class=\"n\">" << text::number(j.core_hours_allocated) << "</td><td class=\"n\">"
        << text::number(j.core_hours_wasted) << "</td><td class=\"eff\">" << efficiency_cell(j.cpu_efficiency_percent)
        << "</td></tr>\n";
  }
  out << "</tbody>\n</table></div>\n</section>\n";
}

void chart(std::ostream& out, const model::FleetEfficiency& e, EfficiencyChart which, const std::string& caption) {
  LineChart c = efficiency_chart(e, which);
  out << "<figure><img src=\"data:image/svg+xml;base64,"
      << base64(line_chart_image(c, ImageFormat::Svg, kChartWidth, kChartHeight)) << "\" width=\"" << kChartWidth
      << "\" height=\"" << kChartHeight << "\" alt=\"" << h(c.title) << "\">\n<figcaption>" << caption
      << "</figcaption></figure>\n";
}

void charts(std::ostream& out, const model::FleetEfficiency& e) {
  out << "<section id=\"over-time\">\n<h2>Over time</h2>\n";
  const std::string stretch = e.point_seconds == 86400 ? "day" : text::duration(e.point_seconds);
  out << "<p class=\"note\">One point per " << h(stretch)
      << " with jobs ending in it; the line breaks where none did.</p>\n";
  chart(out, e, EfficiencyChart::Cpu, "CPU efficiency: core-hours used of allocated (%)");
  chart(out, e, EfficiencyChart::Memory, "Memory: GB-hours used at peak of requested (%)");
  if (e.total.gpu_hours_allocated > 0) chart(out, e, EfficiencyChart::GpuIdle, "GPUs: GPU-hours idle of allocated (%)");
  out << "</section>\n";
}

}  // namespace

std::string efficiency_html(const model::FleetEfficiency& e, const EfficiencyPageLinks& links) {
  std::ostringstream out;
  html::document_start(
      out,
      std::string("Fleet efficiency by ") + model::grouping_name(e.by) + ", " + efficiency_period(e) + ": petricore",
      {html::kPalette, kStyle, html::kFigures, kStyleEnd});
  header(out, e, links);
  out << "<main>\n";
  if (e.total.jobs == 0) {
    out << "<p class=\"empty\">No jobs ended in this period" << (e.user || !e.accounts.empty() ? " for " : "")
        << (e.user || !e.accounts.empty() ? h(efficiency_filters(e)) : "")
        << ": there is nothing to show. Choose another period above.</p>\n";
  } else {
    totals(out, e.total);
    groups(out, e);
    worst_jobs(out, e.worst_jobs, links.base_url);
    charts(out, e);
  }
  html::document_end(out);
  return out.str();
}

}  // namespace petricore::render
