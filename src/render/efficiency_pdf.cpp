// The digest's PDF: the fleet view on one or two A4 pages, laid out with the
// job report's flow (pdf_layout.hpp: blocks cut into pages, then drawn with
// "page N of M" footers) and its type scale; tables of figures in a smaller
// size so that ten columns fit the width.
#include "render/canvas.hpp"
#include "render/efficiency_render.hpp"
#include "render/pdf_layout.hpp"
#include "render/text_format.hpp"

#include <memory>
#include <utility>
#include <vector>

namespace petricore::render {
namespace {

using namespace pdf;
using model::EfficiencyTotals;

constexpr Font kCell{7.5};
constexpr Font kCellHead{7, false, false, kMuted};
constexpr double kCellPad = 2.5;
constexpr double kChartHeight = 250;

struct Column {
  const char* head1;
  const char* head2;
  double width;
  bool number;  // right-aligned
};

// A table: a two-line header kept with the first row, then one block a row,
// every other one shaded; a cell too wide is cut with "…".
void table(Layout& layout, const std::vector<Column>& columns, const std::vector<std::vector<std::string>>& rows) {
  auto draw_cells = [columns](const Pen& pen, double top, const std::vector<std::string>& cells, const Font& f) {
    pen.font(f);
    Canvas canvas(pen.cr());
    double x = kLeft;
    for (std::size_t i = 0; i < columns.size() && i < cells.size(); ++i) {
      const double room = columns[i].width - 2 * kCellPad;
      const std::string s = canvas.fit(clean_text(cells[i]), room);
      if (columns[i].number)
        pen.show_right(x + columns[i].width - kCellPad, baseline(top + 1.5, f), s);
      else
        pen.show(x + kCellPad, baseline(top + 1.5, f), s);
      x += columns[i].width;
    }
  };
  Block head;
  head.height = 2 * kCellHead.line_height() + 4;
  head.keep_with_next = true;
  head.draw = [columns, draw_cells](const Pen& pen, double top) {
    std::vector<std::string> first, second;
    for (const Column& c : columns) {
      first.push_back(c.head1);
      second.push_back(c.head2);
    }
    draw_cells(pen, top, first, kCellHead);
    draw_cells(pen, top + kCellHead.line_height(), second, kCellHead);
    pen.rule(kLeft, kRight, top + 2 * kCellHead.line_height() + 3, kRule);
  };
  layout.blocks().push_back(std::move(head));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    Block b;
    b.height = kCell.line_height() + 3;
    b.draw = [cells = rows[r], shaded = r % 2 == 1, height = b.height, draw_cells](const Pen& pen, double top) {
      if (shaded) pen.box(kLeft, top, kWidth, height, kZebra);
      draw_cells(pen, top, cells, kCell);
    };
    layout.blocks().push_back(std::move(b));
  }
}

void totals(Layout& layout, const EfficiencyTotals& t) {
  layout.heading("Totals");
  layout.table_start();
  layout.row("Jobs", std::to_string(t.jobs));
  layout.row("Core-hours", text::number(t.core_hours_allocated) + " allocated, " + text::number(t.core_hours_used) +
                               " used, " + text::number(t.core_hours_wasted) + " wasted");
  layout.row("CPU efficiency", text::percent(t.cpu_efficiency_percent) + " of the allocated core-hours used");
  layout.row("Memory", text::number(t.memory_gb_hours_used) + " of " + text::number(t.memory_gb_hours_requested) +
                           " GB-hours requested used at peak" +
                           (memory_used_percent(t) ? " (" + text::percent(memory_used_percent(t)) + ")" : ""));
  layout.row("GPU-hours", t.gpu_hours_allocated > 0
                              ? text::number(t.gpu_hours_allocated) + " allocated, " + text::number(t.gpu_hours_idle) +
                                    " idle (" + text::percent(gpu_idle_percent(t)) + ")"
                              : "none allocated");
  std::string findings;
  for (const auto& [rule, jobs] : top_findings(t, t.jobs_by_finding.size()))
    findings += (findings.empty() ? "" : "; ") + finding_title(rule) + ": " + std::to_string(jobs);
  layout.row("Findings (jobs)", findings.empty() ? "none" : findings);
}

void groups(Layout& layout, const model::FleetEfficiency& e) {
  const char* by = model::grouping_name(e.by);
  layout.heading(std::string("By ") + by);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < e.groups.size() && i < kPdfGroups; ++i) {
    const EfficiencyTotals& t = e.groups[i].totals;
    rows.push_back({e.groups[i].name, std::to_string(t.jobs), text::number(t.core_hours_allocated),
                    text::number(t.core_hours_used), text::percent(t.cpu_efficiency_percent),
                    text::number(t.core_hours_wasted), text::number(t.memory_gb_hours_requested),
                    text::number(t.memory_gb_hours_used), text::number(t.gpu_hours_allocated),
                    text::number(t.gpu_hours_idle)});
  }
  table(layout,
        {{by, "", 94, false},
         {"jobs", "", 28, true},
         {"core-hours", "allocated", 46, true},
         {"core-hours", "used", 46, true},
         {"CPU", "efficiency", 44, true},
         {"core-hours", "wasted", 46, true},
         {"memory", "requested", 46, true},
         {"memory", "used", 40, true},
         {"GPU-hours", "allocated", 46, true},
         {"GPU-hours", "idle", 46, true}},
        rows);
  std::string caption = "Memory in GB-hours: the resident peak \u00d7 the elapsed time, an upper bound of use.";
  if (e.groups.size() > kPdfGroups)
    caption += " " + std::to_string(e.groups.size() - kPdfGroups) + " more " + by + "s with less waste are left out.";
  layout.space(3);
  layout.paragraph(caption, kCaption);
}

void worst_jobs(Layout& layout, const std::vector<model::WastefulJob>& jobs) {
  layout.heading("Jobs that wasted the most core-hours");
  if (jobs.empty()) {
    layout.paragraph("No job wasted core-hours that are known.", kBody);
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < jobs.size() && i < kPdfWorstJobs; ++i) {
    const model::WastefulJob& j = jobs[i];
    rows.push_back({j.display_id, j.name, j.user, j.account, text::iso8601_utc(j.end).substr(0, 10),
                    text::number(j.core_hours_allocated), text::number(j.core_hours_wasted),
                    text::percent(j.cpu_efficiency_percent)});
  }
  table(layout,
        {{"job", "", 56, false},
         {"name", "", 104, false},
         {"user", "", 60, false},
         {"account", "", 70, false},
         {"ended", "", 54, false},
         {"core-hours", "allocated", 46, true},
         {"core-hours", "wasted", 46, true},
         {"CPU", "efficiency", 44, true}},
        rows);
  if (jobs.size() > kPdfWorstJobs) {
    layout.space(3);
    layout.paragraph(std::to_string(jobs.size() - kPdfWorstJobs) + " more jobs are left out.", kCaption);
  }
}

void cpu_chart(Layout& layout, const model::FleetEfficiency& e) {
  layout.heading("CPU efficiency over time");
  auto chart = std::make_shared<LineChart>(efficiency_chart(e, EfficiencyChart::Cpu));
  layout.chart(kChartHeight, [chart](cairo_t* cr) { draw_line_chart(cr, *chart, kWidth, kChartHeight); });
  layout.paragraph("Core-hours used of allocated, one point per " +
                       (e.point_seconds == 86400 ? std::string("day") : text::duration(e.point_seconds)) +
                       " with jobs ending in it.",
                   kCaption);
}

}  // namespace

std::string efficiency_pdf(const model::FleetEfficiency& e) {
  const DocumentText text{"petricore efficiency, " + efficiency_period(e),
                          "petricore \u00b7 efficiency " + efficiency_period(e), "cairo efficiency PDF"};
  return render_pdf(text, [&](Layout& layout) {
    layout.paragraph(std::string("Efficiency by ") + model::grouping_name(e.by), kTitle);
    layout.paragraph("Jobs that ended " + efficiency_period(e) + " \u00b7 " + efficiency_filters(e), kSubtitle);
    if (e.total.jobs == 0) {
      layout.space(12);
      layout.paragraph("No jobs ended in this period: there is nothing to report.", kMessage);
      return;
    }
    totals(layout, e.total);
    if (!e.groups.empty()) groups(layout, e);
    worst_jobs(layout, e.worst_jobs);
    cpu_chart(layout, e);
  });
}

}  // namespace petricore::render
