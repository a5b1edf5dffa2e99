// The pie chart: slices clockwise from 12 o'clock with white separators and
// percentages on the wide ones, its legend at the right of a wide chart or
// under a tall one.
#include "render/chart.hpp"

#include "render/chart_axis.hpp"
#include "render/chart_legend.hpp"
#include "render/chart_style.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace petricore::render {
namespace {

struct PieLayout {
  double scale = 1;
  bool tiny = false;
  bool empty = true;
  PieArea area;
  ChartTitle title;
  std::vector<double> fractions;  // of the total, per slice (0 for invalid)
  Legend legend;
  double content_top = 0;
};

PieLayout layout_pie_chart(Painter& p, const PieChart& chart, double width, double height) {
  PieLayout L;
  L.scale = scale_for(width, height);
  L.tiny = tiny(width, height);
  const double s = L.scale;
  const double m = kStyle.margin * s;

  // Fractions relative to the largest value first: no overflow with huge values.
  double largest = 0;
  for (const auto& sl : chart.slices)
    if (std::isfinite(sl.value) && sl.value > 0) largest = std::max(largest, sl.value);
  double total = 0;
  L.fractions.assign(chart.slices.size(), 0.0);
  if (largest > 0) {
    for (std::size_t i = 0; i < chart.slices.size(); ++i) {
      double v = chart.slices[i].value;
      if (std::isfinite(v) && v > 0) L.fractions[i] = v / largest;
      total += L.fractions[i];
    }
    for (double& f : L.fractions) f /= total;
  }
  L.empty = !(total > 0);

  if (L.tiny) {
    L.area = {width / 2, height / 2, std::max(std::min(width, height) / 2 - 1, 0.5)};
    return L;
  }

  double top = lay_out_title(p, chart.title, width, m, s, L.title);
  L.content_top = top;
  double cw = width - 2 * m, ch = height - m - top;
  if (L.empty || cw <= 0 || ch <= 0) {
    L.area = {width / 2, top + std::max(ch, 0.0) / 2, 0};
    return L;
  }

  L.legend.font = font_px(kStyle.legend_size, s);
  p.font(L.legend.font);
  L.legend.row_height = p.line_height() * 1.15;
  double square = 0.8 * L.legend.font;
  double fixed = square + 0.6 * L.legend.font;

  bool right = cw >= 1.25 * ch;
  double d = right ? std::min(ch, cw * 0.55) : std::min(cw, ch * 0.62);
  double legend_x, legend_y, legend_w, legend_h;
  if (right) {
    L.area = {m + d / 2, top + ch / 2, d / 2 - 2 * s};
    legend_x = m + d + 2 * m;
    legend_y = top;
    legend_w = width - m - legend_x;
    legend_h = ch;
  } else {
    L.area = {width / 2, top + d / 2, d / 2 - 2 * s};
    legend_x = m;
    legend_y = top + d + m;
    legend_w = cw;
    legend_h = height - m - legend_y;
  }
  L.area.radius = std::max(L.area.radius, 0.5);

  std::string unit = clean_label(chart.unit);
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < chart.slices.size(); ++i) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f", L.fractions[i] * 100);
    std::string value = compact_number(chart.slices[i].value);
    if (!unit.empty()) value += " " + unit;
    value += " (" + std::string(pct) + " %)";
    std::string label = clean_label(chart.slices[i].label);
    double room = std::max(legend_w - fixed - p.width("  " + value), 3 * L.legend.font);
    room = std::min(room, std::max(legend_w / 2, 14 * L.legend.font));
    entries.push_back({LegendEntry::Line, i, p.fit(label, room) + "  " + value});
  }
  auto max_rows = static_cast<std::size_t>(std::max(1.0, std::floor(legend_h / L.legend.row_height)));
  L.legend.column_major = right;
  flow_legend(p, L.legend, entries, 0, fixed, std::max(legend_w, 1.0), max_rows);
  double rows_height = static_cast<double>(L.legend.rows) * L.legend.row_height;
  if (right) {
    // Pie and legend centred together.
    double shift = std::max(0.0, (legend_w - L.legend.total_width) / 2);
    L.area.cx += shift;
    L.legend.left = legend_x + shift;
    L.legend.top = legend_y + std::max(0.0, (legend_h - rows_height) / 2);
  } else {
    L.legend.left = (width - L.legend.total_width) / 2;
    L.legend.top = legend_y;
  }
  return L;
}

}  // namespace

PieArea pie_chart_area(const PieChart& chart, double width, double height) {
  ScratchContext scratch;
  Painter p(scratch.cr.get());
  return layout_pie_chart(p, chart, width, height).area;
}

void draw_pie_chart(cairo_t* cr, const PieChart& chart, double width, double height) {
  if (!drawable(cr, width, height)) return;
  Painter p(cr);
  const auto& c = p.c();
  begin_canvas(p, width, height);

  PieLayout L = layout_pie_chart(p, chart, width, height);
  const double s = L.scale;
  const PieArea& a = L.area;

  if (!L.tiny) draw_title(p, L.title, width);
  if (L.empty) {
    if (!L.tiny) {
      p.font(font_px(kStyle.axis_title_size, s));
      p.colour(kStyle.muted);
      p.text(p.fit("no CPU time recorded", width - 2 * kStyle.margin * s), width / 2,
             p.centred_baseline((L.content_top + height) / 2), 0.5);
    }
    c.restore(cr);
    return;
  }

  // Slices, clockwise from 12 o'clock.
  std::vector<double> boundaries;  // start angles of drawn slices
  double angle = -M_PI / 2;
  for (std::size_t i = 0; i < L.fractions.size(); ++i) {
    if (L.fractions[i] <= 0) continue;
    double sweep = L.fractions[i] * 2 * M_PI;
    p.colour(series_colour(i));
    c.move_to(cr, a.cx, a.cy);
    c.arc(cr, a.cx, a.cy, a.radius, angle, angle + sweep);
    c.close_path(cr);
    c.fill(cr);
    boundaries.push_back(angle);
    angle += sweep;
  }
  if (boundaries.size() > 1) {
    // White separators, thinner when slices are many and narrow.
    double per_slice = 2 * M_PI * a.radius / static_cast<double>(boundaries.size());
    double sep = std::clamp(per_slice * 0.2, 0.3, kStyle.pie_separator * s);
    p.colour(kStyle.background);
    c.set_line_width(cr, sep);
    for (double b : boundaries) {
      c.move_to(cr, a.cx, a.cy);
      c.line_to(cr, a.cx + a.radius * std::cos(b), a.cy + a.radius * std::sin(b));
    }
    c.stroke(cr);
  }
  if (L.tiny) {
    c.restore(cr);
    return;
  }

  // Percentages on slices wide enough for them.
  p.font(font_px(kStyle.legend_size, s), true);
  angle = -M_PI / 2;
  for (std::size_t i = 0; i < L.fractions.size(); ++i) {
    double sweep = L.fractions[i] * 2 * M_PI;
    if (L.fractions[i] >= 0.03) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.0f %%", L.fractions[i] * 100);
      double r = a.radius * (L.fractions[i] > 0.99 ? 0 : 0.64);
      double w = p.width(pct);
      if (L.fractions[i] > 0.99 || sweep * r > 1.4 * w) {
        double mid = angle + sweep / 2;
        p.colour(luminance(series_colour(i)) > 0.45 ? kStyle.text : kStyle.background);
        p.text(pct, a.cx + r * std::cos(mid), p.centred_baseline(a.cy + r * std::sin(mid)), 0.5);
      }
    }
    angle += sweep;
  }

  double square = 0.8 * L.legend.font;
  draw_legend(
      p, L.legend, s, width,
      [&](const LegendEntry& e, double x, double y_mid) {
        p.colour(series_colour(e.line));
        c.rectangle(cr, x, y_mid - square / 2, square, square);
        c.fill(cr);
      },
      square + 0.6 * L.legend.font);
  c.restore(cr);
}

}  // namespace petricore::render
