// The charts' legends: entries laid out in a table that fits the room given
// (what does not fit becomes one "… and N more" entry), and drawn with a
// sample of each line or slice that the chart draws itself. Internal to the
// chart modules: callers use render/chart.hpp.
#pragma once

#include "render/chart_style.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace petricore::render {

struct LegendEntry {
  enum Kind { Line, Reference, More } kind = Line;
  std::size_t line = 0;  // for Line: the line's or slice's index
  std::string text;
};

struct Legend {
  std::vector<LegendEntry> entries;
  double left = 0, top = 0;
  double row_height = 0;
  std::size_t rows = 0, columns = 1;
  bool column_major = false;     // fill columns top to bottom (a legend at the right)
  std::vector<double> column_x;  // offsets from `left`
  double total_width = 0;
  double font = 0;

  std::size_t column_of(std::size_t i) const { return column_major ? i / rows : i % columns; }
  std::size_t row_of(std::size_t i) const { return column_major ? i % rows : i / columns; }
};

// "… and 3 more", "… and 12 more lines not drawn", "… and 15 more (12 not
// drawn)": `hidden` entries that did not fit, `omitted` lines the caller
// left out before drawing.
std::string more_text(std::size_t hidden, int omitted);

// Lays out `entries` (text plus `fixed_width` for the sample) in a table as
// wide as fits in `width`, at most `max_rows` rows; what does not fit becomes
// one "… and N more" entry. A column-major legend takes as few columns as
// hold every entry, a row-major one as many as fit. Uses legend.font,
// legend.column_major; sets the rest but left and top.
void flow_legend(Painter& p, Legend& legend, const std::vector<LegendEntry>& entries, int omitted, double fixed_width,
                 double width, std::size_t max_rows);

// Draws the laid-out legend: `sample` draws an entry's sample at x with its
// row's middle at y_mid, its text follows `sample_width` to the right.
void draw_legend(Painter& p, const Legend& legend, double scale, double width,
                 const std::function<void(const LegendEntry&, double x, double y_mid)>& sample, double sample_width);

}  // namespace petricore::render
