// Line and pie charts drawn with cairo in one visual style (chart_style in
// chart.cpp): PNG for /plot and /pie, SVG for the HTML page, and drawn
// straight onto a PDF page by the report.
//
// Promises: the image has exactly the requested size; every line has its own
// colour and, from the 9th on, its own dash pattern (readable in grey-scale
// print); the time axis shows clock times in the process's local time zone
// (TZ), named in the axis title; the y axis title carries the unit; a chart
// with no point, one point, gaps (NaN values break the line) or 10,000
// points per line draws without error; with many lines the legend shows as
// many as fit and says how many more there are.
#pragma once

#include <cairo.h>

#include <optional>
#include <string>
#include <vector>

namespace petricore::render {

struct ChartPoint {
  double time = 0;   // epoch seconds
  double value = 0;  // NaN = no value: the line is broken there
};

struct ChartLine {
  std::string label;  // legend text: node, "node core 3", process name
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
};

struct PieSlice {
  std::string label;
  double value = 0;  // >= 0; slices of 0 are listed in the legend, not drawn
};

struct PieChart {
  std::string title;
  std::vector<PieSlice> slices;
  // The legend shows "<label>  <value> <unit> (<percent> %)".
  std::string unit;
};

enum class ImageFormat { Png, Svg };

// Drawing on any cairo context (image, SVG or PDF surface), inside the
// rectangle (0, 0)-(width, height) of the current user space.
void draw_line_chart(cairo_t* cr, const LineChart& chart, double width, double height);
void draw_pie_chart(cairo_t* cr, const PieChart& chart, double width, double height);

// A whole image file. Throws std::runtime_error when cairo cannot be loaded
// or fails (the message names it).
std::string line_chart_image(const LineChart& chart, ImageFormat format, int width, int height);
std::string pie_chart_image(const PieChart& chart, ImageFormat format, int width, int height);

// The MIME type of a format ("image/png", "image/svg+xml").
const char* content_type(ImageFormat format);

}  // namespace petricore::render
