// The line chart: its layout (title, the legend across the bottom, the axes
// and their ticks, the plot in what is left) and its drawing in that order.
#include "render/chart.hpp"

#include "render/chart_axis.hpp"
#include "render/chart_legend.hpp"
#include "render/chart_lines.hpp"
#include "render/chart_style.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace petricore::render {
namespace {

struct LineLayout {
  double scale = 1;
  bool tiny = false;
  bool has_values = false;
  bool has_time = false;
  PlotArea plot;
  ChartTitle title;
  double tick_font = 0, axis_font = 0;
  std::vector<double> y_ticks;
  std::vector<std::string> y_labels;
  TimeTicks x;
  std::string x_title, y_title;
  double x_title_baseline = 0, y_title_baseline = 0;
  Legend legend;
};

double legend_sample_length(double font) {
  return 2.2 * font;
}

LineLayout layout_line_chart(Painter& p, const LineChart& chart, double width, double height) {
  LineLayout L;
  L.scale = scale_for(width, height);
  L.tiny = tiny(width, height);
  const double s = L.scale;
  const double m = kStyle.margin * s;

  // Data ranges.
  double tmin = INFINITY, tmax = -INFINITY, vmin = INFINITY, vmax = -INFINITY;
  for (const auto& line : chart.lines) {
    for (const auto& pt : line.points) {
      if (!usable_time(pt.time)) continue;
      tmin = std::min(tmin, pt.time);
      tmax = std::max(tmax, pt.time);
      if (!std::isfinite(pt.value)) continue;
      double v = std::clamp(pt.value, -kMaxAbsValue, kMaxAbsValue);
      vmin = std::min(vmin, v);
      vmax = std::max(vmax, v);
    }
  }
  L.has_values = vmin <= vmax;
  if (chart.reference && std::isfinite(*chart.reference)) {
    double r = std::clamp(*chart.reference, -kMaxAbsValue, kMaxAbsValue);
    vmin = std::min(vmin, r);
    vmax = std::max(vmax, r);
  }
  double t0 = usable_time(chart.start) && chart.start != 0 ? chart.start : tmin;
  double t1 = usable_time(chart.end) && chart.end != 0 ? chart.end : tmax;
  if (!std::isfinite(t0)) t0 = t1;
  if (!std::isfinite(t1)) t1 = t0;
  L.has_time = std::isfinite(t0);
  if (!L.has_time) t0 = t1 = 0;
  if (t1 < t0) std::swap(t0, t1);
  if (t1 - t0 < 1) {  // one sample: half a minute each side
    double c = (t0 + t1) / 2;
    t0 = c - 30;
    t1 = c + 30;
  }
  L.plot.t0 = t0;
  L.plot.t1 = t1;
  if (!(vmin <= vmax)) vmin = vmax = 0;
  double lo = std::min(0.0, vmin), hi = std::max(0.0, vmax);
  if (hi == lo) hi = 1;
  double headroom = (hi - lo) * 0.05;
  if (vmax > 0) hi += headroom;
  if (vmin < 0) lo -= headroom;
  if (std::isfinite(chart.y_top_at_least) && chart.y_top_at_least <= kMaxAbsValue)
    hi = std::max(hi, chart.y_top_at_least);

  L.tick_font = font_px(kStyle.tick_size, s);
  L.axis_font = font_px(kStyle.axis_title_size, s);
  L.legend.font = font_px(kStyle.legend_size, s);

  if (L.tiny) {
    // Only the lines, in the whole image.
    L.plot.left = 1;
    L.plot.top = 1;
    L.plot.width = std::max(width - 2, 1.0);
    L.plot.height = std::max(height - 2, 1.0);
    double step = nice_step((hi - lo) / 2);
    L.plot.v0 = std::floor(lo / step) * step;
    L.plot.v1 = std::ceil(hi / step) * step;
    return L;
  }

  double top = lay_out_title(p, chart.title, width, m, s, L.title);

  // Legend, at the bottom across the whole width.
  p.font(L.legend.font);
  double sample = legend_sample_length(L.legend.font) + 0.5 * L.legend.font;
  double legend_width = width - 2 * m;
  double label_max = std::max(legend_width / 3, 12 * L.legend.font) - sample;
  std::vector<LegendEntry> entries;
  if (chart.reference && std::isfinite(*chart.reference)) {
    std::string label = clean_label(chart.reference_label.empty() ? "reference" : chart.reference_label);
    // It explains the dashed line: it may use the legend's whole width.
    entries.push_back({LegendEntry::Reference, 0, p.fit(label, legend_width - sample)});
  }
  for (std::size_t i = 0; i < chart.lines.size(); ++i) {
    std::string label = clean_label(chart.lines[i].label);
    if (label.empty()) label = "line " + std::to_string(i + 1);
    entries.push_back({LegendEntry::Line, i, p.fit(label, label_max)});
  }
  L.legend.row_height = p.line_height() * 1.1;
  auto max_rows =
      static_cast<std::size_t>(std::max(1.0, std::floor(height * kStyle.legend_max_share / L.legend.row_height)));
  flow_legend(p, L.legend, entries, chart.omitted_lines, sample, legend_width, max_rows);
  double legend_height = static_cast<double>(L.legend.rows) * L.legend.row_height;
  L.legend.left = (width - L.legend.total_width) / 2;
  L.legend.top = height - m - legend_height;
  double bottom = legend_height > 0 ? L.legend.top - 0.6 * m : height - m;

  // X axis: tick labels, then the title.
  p.font(L.axis_font);
  double axis_line = p.line_height();
  double axis_ascent = p.ascent(), axis_descent = p.descent();
  p.font(L.tick_font);
  double tick_len = 4 * s;
  double x_axis_height = tick_len + 0.3 * m + p.line_height() + 0.3 * m + axis_line;
  L.x_title_baseline = bottom - axis_descent;
  double plot_bottom = bottom - x_axis_height;
  double plot_top = top + p.ascent() / 2;
  L.plot.top = plot_top;
  L.plot.height = std::max(plot_bottom - plot_top, 1.0);

  // Y ticks, for the plot height.
  double target = std::clamp(std::floor(L.plot.height / (2.8 * L.tick_font)), 2.0, 10.0);
  ValueTicks y = value_ticks(lo, hi, target);
  L.plot.v0 = y.v0;
  L.plot.v1 = y.v1;
  L.y_ticks = std::move(y.ticks);
  L.y_labels = std::move(y.labels);
  double label_width = 0;
  for (const std::string& label : L.y_labels) label_width = std::max(label_width, p.width(label));
  L.y_title_baseline = m + axis_ascent;
  double left = m + axis_ascent + axis_descent + 0.6 * m + label_width + tick_len + 0.3 * m;
  L.plot.left = left;
  L.plot.width = std::max(width - m * 1.5 - left, 1.0);

  L.y_title = clean_label(chart.y_title);
  L.x_title = L.has_time ? "Time (" + time_zone_name(t0) + ")" : "Time";
  p.font(L.axis_font);
  L.y_title = p.fit(L.y_title, L.plot.height);
  L.x_title = p.fit(L.x_title, L.plot.width);

  p.font(L.tick_font);
  if (L.has_time)
    L.x = time_ticks(t0, t1, L.plot.width, p.size(), [&p](const std::string& label) { return p.width(label); });
  return L;
}

void draw_legend_sample(const Painter& p, const LegendEntry& e, double x, double y_mid, double length,
                        std::size_t line_count, double scale) {
  const auto& c = p.c();
  if (e.kind == LegendEntry::Reference) {
    p.colour(kStyle.reference);
    c.set_line_width(p.cr(), kStyle.reference_width * scale);
    double dash[2] = {kStyle.reference_dash[0] * scale, kStyle.reference_dash[1] * scale};
    c.set_dash(p.cr(), dash, 2, 0);
  } else {
    LineStyle ls = line_style(e.line, line_count, scale);
    ls.width = std::max(ls.width, 2 * scale);  // a bit bolder: the colour must read
    apply(p, ls);
  }
  p.line(x, y_mid, x + length, y_mid);
  c.set_dash(p.cr(), nullptr, 0, 0);
}

// The title, grid, axes with their ticks and labels, and the axis titles.
void draw_axes(Painter& p, const LineLayout& L, double width) {
  const auto& c = p.c();
  cairo_t* cr = p.cr();
  const PlotArea& plot = L.plot;
  const double s = L.scale;
  const double m = kStyle.margin * s;
  double right = plot.left + plot.width, bottom = plot.top + plot.height;
  // Grid and axis lines on pixel centres: crisp at 1 px.
  auto crisp = [](double v) { return std::floor(v) + 0.5; };
  draw_title(p, L.title, width);
  // Grid.
  p.colour(kStyle.grid);
  c.set_line_width(cr, std::max(kStyle.grid_width * s, 1.0));
  for (double v : L.y_ticks) {
    double y = crisp(plot.y_of(v));
    c.move_to(cr, plot.left, y);
    c.line_to(cr, right, y);
  }
  for (double t : L.x.ticks) {
    double x = crisp(plot.x_of(t));
    c.move_to(cr, x, plot.top);
    c.line_to(cr, x, bottom);
  }
  c.stroke(cr);
  // Axes and ticks.
  p.colour(kStyle.axis);
  c.set_line_width(cr, std::max(kStyle.axis_width * s, 1.0));
  double tick_len = 4 * s;
  double x_axis_y = crisp(bottom);
  c.move_to(cr, crisp(plot.left), plot.top);
  c.line_to(cr, crisp(plot.left), x_axis_y);
  c.line_to(cr, right, x_axis_y);
  for (double t : L.x.ticks) {
    c.move_to(cr, crisp(plot.x_of(t)), x_axis_y);
    c.rel_line_to(cr, 0, tick_len);
  }
  for (double v : L.y_ticks) {
    c.move_to(cr, crisp(plot.left), crisp(plot.y_of(v)));
    c.rel_line_to(cr, -tick_len, 0);
  }
  c.stroke(cr);
  // Tick labels.
  p.font(L.tick_font);
  p.colour(kStyle.muted);
  for (std::size_t i = 0; i < L.y_ticks.size(); ++i)
    p.text(L.y_labels[i], plot.left - tick_len - 0.3 * m, p.centred_baseline(plot.y_of(L.y_ticks[i])), 1);
  double label_y = bottom + tick_len + 0.3 * m + p.ascent();
  for (std::size_t i = 0; i < L.x.ticks.size(); ++i) {
    double w = p.width(L.x.labels[i]);
    double x = std::clamp(plot.x_of(L.x.ticks[i]), w / 2 + 2, width - w / 2 - 2);
    p.text(L.x.labels[i], x, label_y, 0.5);
  }
  // Axis titles.
  p.font(L.axis_font);
  p.colour(kStyle.text);
  p.text(L.x_title, plot.left + plot.width / 2, L.x_title_baseline, 0.5);
  if (!L.y_title.empty()) {
    c.save(cr);
    c.translate(cr, L.y_title_baseline, plot.top + plot.height / 2);
    c.rotate(cr, -M_PI / 2);
    p.text(L.y_title, 0, 0, 0.5);
    c.restore(cr);
  }
  if (!L.has_values) {
    p.font(L.axis_font);
    p.colour(kStyle.muted);
    p.text("no data", plot.left + plot.width / 2, p.centred_baseline(plot.top + plot.height / 2), 0.5);
  }
}

// The lines and the reference line, clipped to the plot (with room for a
// line at the edge).
void draw_data(Painter& p, const LineChart& chart, const PlotArea& plot, double s) {
  const auto& c = p.c();
  cairo_t* cr = p.cr();
  double right = plot.left + plot.width, bottom = plot.top + plot.height;
  c.save(cr);
  // On whole pixels: cairo clips a pixel-aligned rectangle without a mask.
  double pad = 3 * s;
  double cx0 = std::floor(plot.left - pad), cy0 = std::floor(plot.top - pad);
  c.rectangle(cr, cx0, cy0, std::ceil(right + pad) - cx0, std::ceil(bottom + pad) - cy0);
  c.clip(cr);
  for (std::size_t i = 0; i < chart.lines.size(); ++i)
    draw_line(p, chart.lines[i], plot, line_style(i, chart.lines.size(), s));
  if (chart.reference && std::isfinite(*chart.reference)) {
    double y = plot.y_of(std::clamp(*chart.reference, -kMaxAbsValue, kMaxAbsValue));
    p.colour(kStyle.reference);
    c.set_line_width(cr, kStyle.reference_width * s);
    double dash[2] = {kStyle.reference_dash[0] * s, kStyle.reference_dash[1] * s};
    c.set_dash(cr, dash, 2, 0);
    p.line(plot.left, y, right, y);
    c.set_dash(cr, nullptr, 0, 0);
  }
  c.restore(cr);
}

}  // namespace

PlotArea line_chart_plot_area(const LineChart& chart, double width, double height) {
  ScratchContext scratch;
  Painter p(scratch.cr.get());
  return layout_line_chart(p, chart, width, height).plot;
}

void draw_line_chart(cairo_t* cr, const LineChart& chart, double width, double height) {
  if (!drawable(cr, width, height)) return;
  Painter p(cr);
  const auto& c = p.c();
  begin_canvas(p, width, height);
  c.set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  c.set_line_join(cr, CAIRO_LINE_JOIN_ROUND);

  LineLayout L = layout_line_chart(p, chart, width, height);
  const double s = L.scale;
  if (!L.tiny) draw_axes(p, L, width);
  draw_data(p, chart, L.plot, s);

  if (!L.tiny) {
    double sample_len = legend_sample_length(L.legend.font);
    draw_legend(
        p, L.legend, s, width,
        [&](const LegendEntry& e, double x, double y_mid) {
          draw_legend_sample(p, e, x, y_mid, sample_len, chart.lines.size(), s);
        },
        sample_len + 0.5 * L.legend.font);
  }
  c.restore(cr);
}

}  // namespace petricore::render
