// Line and pie charts drawn with cairo in one visual style (chart_style.hpp):
// PNG for /plot and /pie, SVG for the HTML page, and drawn straight onto a
// PDF page by the report.
//
// Promises: the image has exactly the requested size; every line has its own
// colour and, from the 9th on, its own dash pattern (readable in grey-scale
// print); the time axis shows clock times in the process's local time zone
// (TZ), named in the axis title; the y axis title carries the unit; a chart
// with no point, one point, gaps (NaN values break the line) or 10,000
// points per line draws without error; with many lines the legend shows as
// many as fit and says how many more there are.
#pragma once

#include "render/colour.hpp"

#include <cairo.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace petricore::render {

struct ChartPoint {
  double time = 0;   // epoch seconds
  double value = 0;  // NaN = no value: the line is broken there
};

struct ChartLine {
  std::string label;               // legend text: node, "node core 3", process name
  std::vector<ChartPoint> points;  // in time order
};

struct LineChart {
  std::string title;    // "CPU use of job 123"
  std::string y_title;  // with the unit: "CPU (% of one core)"
  std::vector<ChartLine> lines;
  // A dashed horizontal reference line (the "lowest expected" CPU level).
  std::optional<double> reference;
  std::string reference_label;  // its legend text
  // The x range: the job's start and end (or last sample). When both are 0
  // the range comes from the points.
  double start = 0;
  double end = 0;
  // Lines left out before drawing (too many to show): the legend says so.
  int omitted_lines = 0;
  // The y axis reaches at least this value: 100 on a percentage chart, so
  // that an idle GPU's flat 0 reads as 0 of 100 %, not 0 of 1.
  double y_top_at_least = 0;
};

struct PieSlice {
  std::string label;
  double value = 0;  // >= 0; slices of 0 are listed in the legend, not drawn
};

// A pie whose slices add up to 0 (or that has none) shows "no CPU time
// recorded" under its title; negative, NaN and infinite values count as 0.
struct PieChart {
  std::string title;
  std::vector<PieSlice> slices;
  // The legend shows "<label>  <value> <unit> (<percent> %)".
  std::string unit;
};

enum class ImageFormat { Png, Svg };

// A line chart without any value shows "no data" in its (empty) axes; values
// are clipped to +-1e300; points whose time is not finite are skipped.
//
// Drawing on any cairo context (image, SVG or PDF surface), inside the
// rectangle (0, 0)-(width, height) of the current user space.
void draw_line_chart(cairo_t* cr, const LineChart& chart, double width, double height);
void draw_pie_chart(cairo_t* cr, const PieChart& chart, double width, double height);

// A whole image file of width x height pixels (SVG: user units = CSS px).
// Any size from 1 x 1 to kMaxImageSide on each side and kMaxImagePixels in
// all is drawn (below about 120 x 80 without text); other sizes throw
// std::invalid_argument (serve clamps requests before calling). Throws
// std::runtime_error when cairo cannot be loaded or fails (the message names
// it). SVG element ids carry a prefix made from a hash of the image, so
// several charts can be inlined in one HTML page without clashing glyph ids.
constexpr int kMaxImageSide = 8192;
constexpr long kMaxImagePixels = 16L * 1024 * 1024;
std::string line_chart_image(const LineChart& chart, ImageFormat format, int width, int height);
std::string pie_chart_image(const PieChart& chart, ImageFormat format, int width, int height);

// The MIME type of a format ("image/png", "image/svg+xml").
const char* content_type(ImageFormat format);

// The geometry the drawing uses, exposed for tests and for callers that put
// marks over a chart.

// The colour of line `index` (and pie slice `index`): eight colours that
// colour-blind readers can tell apart, repeating from the 9th (where lines
// add a dash pattern).
Rgb series_colour(std::size_t index);

// The plot rectangle of a line chart drawn in (0, 0)-(width, height) of an
// image surface, and the data range it shows. Text sizes come from the font;
// on vector surfaces (unhinted metrics) the layout may differ by a pixel.
struct PlotArea {
  double left = 0, top = 0, width = 0, height = 0;  // user-space units
  double t0 = 0, t1 = 1;                            // epoch seconds at the left and right edges
  double v0 = 0, v1 = 1;                            // values at the bottom and top edges
  double x_of(double time) const { return left + (time - t0) / (t1 - t0) * width; }
  double y_of(double value) const { return top + height - (value - v0) / (v1 - v0) * height; }
};
PlotArea line_chart_plot_area(const LineChart& chart, double width, double height);

// Where a pie chart's disc is. The first slice starts at 12 o'clock and the
// slices follow clockwise.
struct PieArea {
  double cx = 0, cy = 0, radius = 0;  // user-space units
};
PieArea pie_chart_area(const PieChart& chart, double width, double height);

}  // namespace petricore::render
