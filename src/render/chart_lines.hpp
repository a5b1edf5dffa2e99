// One line of a line chart: its colour, width and dash pattern, and its
// path; with many more points than pixel columns, a band of each column's
// range instead, so peaks stay visible and drawing stays cheap. Internal to
// the chart modules: callers use render/chart.hpp.
#pragma once

#include "render/chart.hpp"
#include "render/chart_style.hpp"

#include <cstddef>
#include <vector>

namespace petricore::render {

struct LineStyle {
  Rgb colour;
  double width;
  std::vector<double> dash;
};

// Line `index` of `line_count`: series_colour(index), thinner past 8 lines,
// a dash pattern from the 9th.
LineStyle line_style(std::size_t index, std::size_t line_count, double scale);

// Makes `ls` the context's source, line width and dash.
void apply(const Painter& p, const LineStyle& ls);

// Draws `line` in `plot` (the caller clips): NaN values break it, a run of
// one point between breaks becomes a dot, points with unusable times are
// skipped.
void draw_line(const Painter& p, const ChartLine& line, const PlotArea& plot, const LineStyle& ls);

}  // namespace petricore::render
