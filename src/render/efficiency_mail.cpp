// A user's periodic efficiency digest (the mail text; its PDF is
// efficiency_pdf.cpp): their figures, what they mean in plain words, what
// to change (one generic line per finding: the job pages have each job's
// own advice), and their most wasteful jobs with links.
#include "core/utf8.hpp"
#include "model/rule_thresholds.hpp"
#include "render/efficiency_render.hpp"
#include "render/text_format.hpp"

#include <sstream>

namespace petricore::render {
namespace {

using model::EfficiencyTotals;

// Plain-text mail convention, as the job-end mail.
constexpr std::size_t kMailWidth = 76;
constexpr std::size_t kFindingsShown = 5;
constexpr std::size_t kJobsShown = 5;

void wrap(std::ostream& out, const std::string& text, const std::string& first = "", const std::string& rest = "") {
  out << text::wrapped(text, kMailWidth, first, rest);
}

std::string jobs_word(std::int64_t n) {
  return std::to_string(n) + (n == 1 ? " job" : " jobs");
}

void figures(std::ostream& out, const EfficiencyTotals& t) {
  out << "Your jobs\n";
  out << "  Jobs:            " << t.jobs << '\n';
  out << "  Core-hours:      " << text::number(t.core_hours_allocated) << " allocated, "
      << text::number(t.core_hours_used) << " used, " << text::number(t.core_hours_wasted) << " wasted\n";
  out << "  CPU efficiency:  " << text::number(t.cpu_efficiency_percent) << (t.cpu_efficiency_percent ? " %\n" : "\n");
  wrap(out,
       text::number(t.memory_gb_hours_used) + " of " + text::number(t.memory_gb_hours_requested) +
           " GB-hours requested used at peak" +
           (memory_used_percent(t) ? " (" + text::number(*memory_used_percent(t)) + " %)" : ""),
       "  Memory:          ", "                   ");
  if (t.gpu_hours_allocated > 0)
    out << "  GPU-hours:       " << text::number(t.gpu_hours_allocated) << " allocated, "
        << text::number(t.gpu_hours_idle) << " idle (" << text::number(gpu_idle_percent(t)) << " %)\n";
}

// What the figures mean, in sentences; the rules' default levels decide
// which (the digest does not know a site's own).
void meaning(std::ostream& out, const EfficiencyTotals& t) {
  const model::RuleThresholds levels;
  out << "\nWhat it means\n";
  if (!t.cpu_efficiency_percent) {
    wrap(out, "The CPU time of your jobs is not known, so their CPU efficiency cannot be told.");
  } else if (*t.cpu_efficiency_percent >= levels.cpu_efficiency_warning) {
    wrap(out, "Your jobs kept the cores they asked for busy: " + text::number(*t.cpu_efficiency_percent) +
                  " % of the core-hours they held did work. Well done.");
  } else if (*t.cpu_efficiency_percent >= levels.cpu_efficiency_critical) {
    wrap(out, "Your jobs used " + text::number(*t.cpu_efficiency_percent) +
                  " % of the core-hours they held; the other " + text::number(t.core_hours_wasted) +
                  " core-hours stood idle. Asking for fewer cores leaves them to others and may start your "
                  "jobs sooner.");
  } else {
    wrap(out, "Only " + text::number(*t.cpu_efficiency_percent) +
                  " % of the core-hours your jobs held did work: " + text::number(t.core_hours_wasted) +
                  " core-hours stood idle that could have run other people's jobs. The findings below say "
                  "where to start.");
  }
  if (auto memory = memory_used_percent(t); memory && *memory < 100 * levels.memory_overallocated_ratio) {
    out << '\n';
    wrap(out, "At their peak your jobs used " + text::number(*memory) +
                  " % of the memory they requested: smaller requests start sooner and leave memory to others.");
  }
  if (auto idle = gpu_idle_percent(t); idle && 100 - *idle < levels.gpu_efficiency_warning) {
    out << '\n';
    wrap(out, text::number(t.gpu_hours_idle) + " of your " + text::number(t.gpu_hours_allocated) + " GPU-hours (" +
                  text::number(*idle) + " %) stood idle; GPUs are the scarcest thing the cluster has.");
  }
}

void findings(std::ostream& out, const EfficiencyTotals& t) {
  auto list = top_findings(t, kFindingsShown);
  out << "\nWhat to look at\n";
  if (list.empty()) {
    out << "No findings in your jobs.\n";
    return;
  }
  for (const auto& [rule, jobs] : list) {
    wrap(out, finding_title(rule) + " (" + jobs_word(jobs) + ")", "- ", "  ");
    if (std::string advice = finding_advice(rule); !advice.empty()) wrap(out, advice, "  ", "  ");
  }
}

void worst_jobs(std::ostream& out, const model::FleetEfficiency& e, const std::string& user, const std::string& base) {
  std::size_t shown = 0;
  for (const model::WastefulJob& j : e.worst_jobs) {
    // Only the user's own: a digest never names other people's jobs.
    if (j.user != user || shown == kJobsShown) continue;
    if (shown++ == 0) out << "\nYour jobs that wasted the most core-hours\n";
    std::string line = "Job " + j.display_id;
    if (!j.name.empty()) line += " (" + printable_utf8(j.name) + ")";
    line += ", ended " + text::iso8601_utc(j.end).substr(0, 10) + ": " + text::number(j.core_hours_allocated) +
            " core-hours allocated, " + text::number(j.core_hours_wasted) + " wasted, CPU efficiency " +
            text::number(j.cpu_efficiency_percent) + (j.cpu_efficiency_percent ? " %" : "");
    wrap(out, line, "- ", "  ");
    if (!base.empty()) out << "  " << base << "/jobs/" << j.job_id << '\n';
  }
}

}  // namespace

std::string digest_mail_text(const model::FleetEfficiency& e, const std::string& user, const std::string& page_url) {
  std::string base = page_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::ostringstream out;
  out << "Hello " << printable_utf8(user) << ",\n\n";
  wrap(out, "here is your petricore efficiency summary of the jobs that ended from " + efficiency_period(e) + ".");
  out << '\n';
  if (e.total.jobs == 0) {
    wrap(out, "None of your jobs ended in this period, so there is nothing to report.");
  } else {
    figures(out, e.total);
    meaning(out, e.total);
    findings(out, e.total);
    worst_jobs(out, e, user, base);
  }
  if (!base.empty()) out << "\nAll your figures: " << base << "/efficiency\n";
  out << "\n-- \npetricore, the job monitoring of this cluster\n";
  return out.str();
}

}  // namespace petricore::render
