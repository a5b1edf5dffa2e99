// The charts' one visual style (sizes for a 900 x 450 image, scaled with
// it) and the text and canvas steps every chart takes in it. Internal to the
// chart modules: callers use render/chart.hpp.
#pragma once

#include "render/canvas.hpp"

#include <cairo.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::render {

struct ChartStyle {
  Rgb background{1, 1, 1};
  Rgb text{0.12, 0.12, 0.12};
  Rgb muted{0.38, 0.38, 0.38};  // tick labels, "… and N more", empty state
  Rgb grid{0.89, 0.89, 0.89};
  Rgb axis{0.45, 0.45, 0.45};
  Rgb reference{0.15, 0.15, 0.15};
  // Okabe-Ito (without its yellow, unreadable on white) and Tol's wine and
  // olive, ordered so that the first four also differ in lightness (L* 47,
  // 72, 30, 58): four nodes stay apart in grey-scale print.
  Rgb palette[8] = {
      {0x00 / 255.0, 0x72 / 255.0, 0xB2 / 255.0},  // blue
      {0xE6 / 255.0, 0x9F / 255.0, 0x00 / 255.0},  // orange
      {0x88 / 255.0, 0x22 / 255.0, 0x55 / 255.0},  // wine
      {0x00 / 255.0, 0x9E / 255.0, 0x73 / 255.0},  // bluish green
      {0x56 / 255.0, 0xB4 / 255.0, 0xE9 / 255.0},  // sky blue
      {0xD5 / 255.0, 0x5E / 255.0, 0x00 / 255.0},  // vermillion
      {0xCC / 255.0, 0x79 / 255.0, 0xA7 / 255.0},  // reddish purple
      {0x99 / 255.0, 0x99 / 255.0, 0x33 / 255.0},  // olive
  };
  const char* font = "DejaVu Sans";
  double title_size = 17;
  double axis_title_size = 13.5;
  double tick_size = 12.5;
  double legend_size = 12.5;
  double min_font = 8;  // never smaller, however small the image
  double min_title_font = 10;
  double margin = 12;
  double line_width = 2;         // up to 8 lines
  double many_line_width = 1.4;  // more than 8 lines
  double grid_width = 1;
  double axis_width = 1;
  double reference_width = 1.6;
  double reference_dash[2] = {7, 4};
  double legend_max_share = 0.28;  // of the height, for the line chart's legend
  double pie_separator = 1.5;
  // Below this size there is no room for text: only the lines or the pie.
  double tiny_width = 120;
  double tiny_height = 80;
};

inline const ChartStyle kStyle;

// Values beyond this are drawn at it: cairo's fixed-point coordinates
// overflow long before, and a chart must not fail on a huge sample.
constexpr double kMaxAbsValue = 1e300;

// Chart text (titles, labels, units): clean_text() cut at 400 code points,
// more than any chart has room for.
inline std::string clean_label(std::string_view s) {
  return clean_text(s, 400);
}

// Dash patterns (at scale 1) for lines 9-16, 17-24, ...: with the eight
// colours, 64 lines all differ.
const std::vector<std::vector<double>>& dash_patterns();

// The factor that sizes text, margins and lines for a width x height chart.
double scale_for(double width, double height);
// A font size at `scale`, never below the style's minimum.
double font_px(double size, double scale);
// Too small for any text: only the lines or the pie are drawn.
bool tiny(double width, double height);

// A canvas in the chart font, knowing the current font's metrics.
class Painter : public Canvas {
 public:
  explicit Painter(cairo_t* cr) : Canvas(cr) {}

  const CairoLibrary& c() const { return lib(); }

  void font(double size, bool bold = false);
  double ascent() const { return ascent_; }
  double descent() const { return descent_; }
  double size() const { return size_; }
  double line_height() const { return (ascent_ + descent_) * 1.15; }

  // align: 0 left, 0.5 centred, 1 right of x; y is the baseline. `s` must be
  // clean_text()ed.
  void text(const std::string& s, double x, double y, double align = 0) const;
  // Baseline that centres the text vertically on y.
  double centred_baseline(double y) const { return y + (ascent_ - descent_) / 2; }

 private:
  double ascent_ = 0, descent_ = 0, size_ = 0;
};

// A chart's title: bold, centred at the top, cut to the width.
struct ChartTitle {
  std::string text;  // clean and fitted; empty: no title
  double font = 0, baseline = 0;
};

// Lays out `title` with its box starting at `top` in a chart `width` wide;
// returns where what follows starts (`top` without a title).
double lay_out_title(Painter& p, std::string_view title, double width, double top, double scale, ChartTitle& out);
void draw_title(Painter& p, const ChartTitle& title, double width);

// Every chart draws clipped to its own rectangle, on the background colour;
// the caller restores the cairo state when it is done.
void begin_canvas(const Painter& p, double width, double height);

// Whether there is anything to draw on: a live context and a finite,
// positive size.
bool drawable(cairo_t* cr, double width, double height);

}  // namespace petricore::render
