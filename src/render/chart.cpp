#include "render/chart.hpp"

#include "core/utf8.hpp"
#include "render/cairo_library.hpp"
#include "render/png_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::render {
namespace {

// ---------------------------------------------------------------------------
// The one visual style. Sizes are for a 900 x 450 image and scale with it.

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

const ChartStyle kStyle;

// Dash patterns (at scale 1) for lines 9-16, 17-24, ...: with the eight
// colours, 64 lines all differ.
const std::vector<std::vector<double>>& dash_patterns() {
  static const std::vector<std::vector<double>> patterns = {
      {}, {6, 3}, {1.5, 2.5}, {9, 3, 2, 3}, {12, 4}, {4, 2, 1, 2}, {3, 3}, {9, 2, 2, 2, 2, 2},
  };
  return patterns;
}

double scale_for(double width, double height) {
  return std::clamp(std::min(width / 900.0, height / 450.0), 0.3, 8.0);
}

double font_px(double size, double scale) {
  return std::max(kStyle.min_font, size * scale);
}

bool tiny(double width, double height) {
  return width < kStyle.tiny_width || height < kStyle.tiny_height;
}

// ---------------------------------------------------------------------------
// Text

// Valid UTF-8 without control characters: cairo puts a context into a
// permanent error state on invalid UTF-8, and labels come from process names.
// Very long text is cut early (it is truncated to the width later anyway).
std::string clean_text(std::string_view in) {
  constexpr std::size_t kMaxCodePoints = 400;
  std::size_t i = 0;
  for (std::size_t count = 0; i < in.size() && count < kMaxCodePoints; ++count) {
    std::size_t n = utf8_sequence(in, i);
    i += n == 0 ? 1 : n;
  }
  std::string out = printable_utf8(in.substr(0, i));
  if (i < in.size()) out += "\xE2\x80\xA6";
  return out;
}

const char* const kEllipsis = "\xE2\x80\xA6";

struct ContextDeleter {
  void operator()(cairo_t* cr) const { cairo_library().destroy(cr); }
};
struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_library().surface_destroy(s); }
};
using ContextPtr = std::unique_ptr<cairo_t, ContextDeleter>;
using SurfacePtr = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;

// Thin drawing helpers over one context.
class Painter {
 public:
  explicit Painter(cairo_t* cr) : c_(cairo_library()), cr_(cr) {}

  const CairoLibrary& c() const { return c_; }
  cairo_t* cr() const { return cr_; }

  void colour(Rgb rgb) const { c_.set_source_rgb(cr_, rgb.r, rgb.g, rgb.b); }
  void font(double size, bool bold = false) {
    c_.select_font_face(cr_, kStyle.font, CAIRO_FONT_SLANT_NORMAL,
                        bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    c_.set_font_size(cr_, size);
    cairo_font_extents_t fe{};
    c_.font_extents(cr_, &fe);
    ascent_ = fe.ascent;
    descent_ = fe.descent;
    size_ = size;
  }
  double ascent() const { return ascent_; }
  double descent() const { return descent_; }
  double size() const { return size_; }
  double line_height() const { return (ascent_ + descent_) * 1.15; }

  // `s` must be clean_text()ed.
  double width(const std::string& s) const {
    if (s.empty()) return 0;
    cairo_text_extents_t te{};
    c_.text_extents(cr_, s.c_str(), &te);
    return te.x_advance;
  }
  // align: 0 left, 0.5 centred, 1 right of x; y is the baseline.
  void text(const std::string& s, double x, double y, double align = 0) const {
    if (s.empty()) return;
    c_.move_to(cr_, x - align * width(s), y);
    c_.show_text(cr_, s.c_str());
    c_.new_path(cr_);
  }
  // Baseline that centres the text vertically on y.
  double centred_baseline(double y) const { return y + (ascent_ - descent_) / 2; }

  // `s` (clean) cut at a code point and ended with "…" to fit max_width.
  std::string fit(const std::string& s, double max_width) const {
    if (width(s) <= max_width) return s;
    std::vector<std::size_t> cuts;  // byte offsets of code point starts
    for (std::size_t i = 0; i < s.size(); ++i)
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) cuts.push_back(i);
    auto prefix = [&](std::size_t k) { return s.substr(0, k < cuts.size() ? cuts[k] : s.size()) + kEllipsis; };
    std::size_t lo = 0, hi = cuts.size();  // the largest k whose prefix(k) fits
    while (lo < hi) {
      std::size_t mid = (lo + hi + 1) / 2;
      if (width(prefix(mid)) <= max_width)
        lo = mid;
      else
        hi = mid - 1;
    }
    if (lo == 0) return width(kEllipsis) <= max_width ? std::string(kEllipsis) : std::string();
    return prefix(lo);
  }

  void line(double x0, double y0, double x1, double y1) const {
    c_.move_to(cr_, x0, y0);
    c_.line_to(cr_, x1, y1);
    c_.stroke(cr_);
  }

 private:
  const CairoLibrary& c_;
  cairo_t* cr_;
  double ascent_ = 0, descent_ = 0, size_ = 0;
};

// A scratch context for measuring text outside drawing (the *_area functions).
struct ScratchContext {
  SurfacePtr surface;
  ContextPtr cr;
  ScratchContext() {
    const auto& c = cairo_library();
    surface.reset(c.image_surface_create(CAIRO_FORMAT_RGB24, 1, 1));
    cr.reset(c.create(surface.get()));
  }
};

// ---------------------------------------------------------------------------
// Numbers

// Trailing zeros and a trailing point removed from a "%.Nf" result.
std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

struct Unit {
  double divisor;
  const char* suffix;
};

Unit unit_for(double magnitude) {
  static const Unit units[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& u : units)
    if (magnitude >= u.divisor) return u;
  return {1, ""};
}

// 3 significant digits with k/M/G...: 12.3k, 250, 0.75.
std::string compact_number(double v) {
  if (!std::isfinite(v)) return "?";
  double a = std::fabs(v);
  char buf[64];
  if (a >= 1e21 || (a > 0 && a < 0.01)) {
    std::snprintf(buf, sizeof buf, "%.2g", v);
    return buf;
  }
  Unit u = unit_for(a);
  double m = v / u.divisor;
  double am = std::fabs(m);
  int decimals = am >= 100 ? 0 : am >= 10 ? 1 : 2;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, m);
  return trim_zeros(buf) + u.suffix;
}

// Axis labels: one unit and one number of decimals for all ticks, enough to
// show the step exactly.
struct AxisNumbers {
  Unit unit{1, ""};
  int decimals = 0;
  bool scientific = false;
};

AxisNumbers axis_numbers(double max_abs, double step) {
  AxisNumbers n;
  if (max_abs >= 1e21 || step < 1e-9) {
    n.scientific = true;
    return n;
  }
  n.unit = max_abs >= 1e4 ? unit_for(max_abs) : Unit{1, ""};
  double x = step / n.unit.divisor;
  for (n.decimals = 0; n.decimals < 9; ++n.decimals) {
    double scaled = x * std::pow(10.0, n.decimals);
    if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) break;
  }
  return n;
}

std::string axis_label(double v, const AxisNumbers& n) {
  char buf[64];
  if (n.scientific) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*f", n.decimals, v / n.unit.divisor);
  std::string s = buf;
  if (s.find_first_not_of("-0.") == std::string::npos) return "0";  // no "-0"
  return s + n.unit.suffix;
}

// The smallest of 1, 2, 2.5, 5 x 10^k at least `rough`.
double nice_step(double rough) {
  if (!(rough > 0) || !std::isfinite(rough)) return 1;
  double p = std::pow(10.0, std::floor(std::log10(rough)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= rough * (1 - 1e-12)) return m * p;
  return 10 * p;
}

// ---------------------------------------------------------------------------
// Time

constexpr double kMaxAbsTime = 1e11;  // beyond: not a time (localtime fails)
constexpr double kMaxAbsValue = 1e300;

bool usable_time(double t) {
  return std::isfinite(t) && std::fabs(t) <= kMaxAbsTime;
}

std::tm local_tm(double t) {
  std::time_t tt = static_cast<std::time_t>(std::floor(t));
  std::tm tm{};
  if (!localtime_r(&tt, &tm)) tm = std::tm{};
  return tm;
}

enum class TimeFormat { Seconds, Minutes, DateMinutes, Date, Year };

std::string format_time(double t, TimeFormat f) {
  static const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm = local_tm(t);
  const char* month = months[std::clamp(tm.tm_mon, 0, 11)];
  char buf[64];
  switch (f) {
    case TimeFormat::Seconds:
      std::snprintf(buf, sizeof buf, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
      break;
    case TimeFormat::Minutes:
      std::snprintf(buf, sizeof buf, "%02d:%02d", tm.tm_hour, tm.tm_min);
      break;
    case TimeFormat::DateMinutes:
      std::snprintf(buf, sizeof buf, "%s %d %02d:%02d", month, tm.tm_mday, tm.tm_hour, tm.tm_min);
      break;
    case TimeFormat::Date:
      std::snprintf(buf, sizeof buf, "%s %d", month, tm.tm_mday);
      break;
    case TimeFormat::Year:
      std::snprintf(buf, sizeof buf, "%d", tm.tm_year + 1900);
      break;
  }
  return buf;
}

std::string time_zone_name(double t) {
  std::tm tm = local_tm(t);
  if (tm.tm_zone && *tm.tm_zone) return clean_text(tm.tm_zone);
  return "local time";
}

struct TimeTicks {
  std::vector<double> ticks;
  std::vector<std::string> labels;
};

TimeTicks time_ticks(Painter& p, double t0, double t1, double plot_width) {
  constexpr double kDay = 86400;
  static const double steps[] = {1,          2,          5,           10,          15,           30,
                                 60,         120,        300,         600,         900,          1800,
                                 3600,       7200,       10800,       21600,       43200,        kDay,
                                 2 * kDay,   7 * kDay,   14 * kDay,   30 * kDay,   91 * kDay,    182 * kDay,
                                 365 * kDay, 730 * kDay, 1825 * kDay, 3650 * kDay, 36500 * kDay, 365000 * kDay};
  std::tm a = local_tm(t0), b = local_tm(t1);
  bool crosses_days = a.tm_year != b.tm_year || a.tm_yday != b.tm_yday;
  double span = t1 - t0;
  TimeTicks out;
  double step = steps[std::size(steps) - 1];
  TimeFormat format = TimeFormat::Year;
  for (double s : steps) {
    TimeFormat f = s < 60           ? TimeFormat::Seconds
                   : s < kDay       ? (crosses_days ? TimeFormat::DateMinutes : TimeFormat::Minutes)
                   : s < 365 * kDay ? TimeFormat::Date
                                    : TimeFormat::Year;
    double label_width = std::max(p.width(format_time(t0, f)), p.width(format_time(t1, f)));
    double max_ticks = std::floor(plot_width / (label_width + 1.5 * p.size()));
    if (std::floor(span / s) + 1 <= std::max(max_ticks, 2.0)) {
      step = s;
      format = f;
      break;
    }
  }
  double offset = static_cast<double>(local_tm(t0).tm_gmtoff);
  double first = std::ceil((t0 + offset) / step - 1e-9) * step - offset;
  for (int i = 0; i < 100; ++i) {
    double t = first + i * step;
    if (t > t1 + 1e-6) break;
    out.ticks.push_back(t);
    out.labels.push_back(format_time(t, format));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Line chart layout

struct LegendEntry {
  enum Kind { Line, Reference, More } kind = Line;
  std::size_t line = 0;  // for Line
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

struct LineLayout {
  double scale = 1;
  bool tiny = false;
  bool has_values = false;
  bool has_time = false;
  PlotArea plot;
  std::string title;
  double title_font = 0, title_baseline = 0;
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

std::string more_text(std::size_t hidden, int omitted) {
  std::string s = kEllipsis;
  if (omitted <= 0) return s + " and " + std::to_string(hidden) + " more";
  if (hidden == 0) return s + " and " + std::to_string(omitted) + " more lines not drawn";
  return s + " and " + std::to_string(hidden + static_cast<std::size_t>(omitted)) + " more (" +
         std::to_string(omitted) + " not drawn)";
}

// Lays out `entries` (text plus `fixed_width` for the sample) in a table as
// wide as fits in `width`, at most `max_rows` rows; what does not fit becomes
// one "… and N more" entry.
void flow_legend(Painter& p, Legend& legend, const std::vector<LegendEntry>& entries, int omitted, double fixed_width,
                 double width, std::size_t max_rows) {
  const double gap = 1.5 * legend.font;
  max_rows = std::max<std::size_t>(max_rows, 1);
  std::vector<double> widths;
  double narrowest = INFINITY;
  for (const auto& e : entries) {
    widths.push_back(fixed_width + p.width(e.text));
    narrowest = std::min(narrowest, widths.back());
  }
  std::size_t most = entries.size() + 1;
  if (std::isfinite(narrowest)) most = std::min(most, static_cast<std::size_t>(width / (narrowest + gap)) + 1);
  // The layout with `cols` columns, into `out`; false when it is too wide.
  auto try_columns = [&](std::size_t cols, Legend& out) {
    std::size_t capacity = cols * max_rows;
    std::size_t shown = entries.size();
    std::string more;
    if (entries.size() > capacity || omitted > 0) {
      shown = std::min(entries.size(), capacity - 1);
      std::size_t hidden = 0;
      for (std::size_t i = shown; i < entries.size(); ++i) hidden += entries[i].kind == LegendEntry::Line;
      if (hidden > 0 || omitted > 0) more = more_text(hidden, omitted);
    }
    std::size_t count = shown + (more.empty() ? 0 : 1);
    out.entries.assign(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(shown));
    if (!more.empty()) out.entries.push_back({LegendEntry::More, 0, more});
    if (count == 0) {
      out.rows = 0;
      out.columns = 1;
      out.column_x = {0};
      out.total_width = 0;
      return true;
    }
    out.rows = out.column_major ? std::min(max_rows, (count + cols - 1) / cols) : (count + cols - 1) / cols;
    out.columns = out.column_major ? (count + out.rows - 1) / out.rows : std::min(cols, count);
    std::vector<double> col_w(out.columns, 0.0);
    for (std::size_t i = 0; i < count; ++i) {
      double w = i < shown ? widths[i] : p.width(more);
      double& cw = col_w[out.column_of(i)];
      cw = std::max(cw, w);
    }
    out.column_x.clear();
    double x = 0;
    for (double w : col_w) {
      out.column_x.push_back(x);
      x += w + gap;
    }
    double total = x - gap;
    out.total_width = std::min(total, width);
    return total <= width;
  };
  most = std::max<std::size_t>(most, 1);
  if (legend.column_major) {
    // As few columns as hold every entry (a list read top to bottom).
    auto complete = [&](const Legend& l) {
      return l.entries.size() == entries.size() && (l.entries.empty() || l.entries.back().kind != LegendEntry::More);
    };
    Legend best = legend;
    try_columns(1, best);
    for (std::size_t cols = 2; cols <= most && !complete(best); ++cols) {
      Legend candidate = legend;
      if (!try_columns(cols, candidate)) break;
      best = std::move(candidate);
    }
    legend = std::move(best);
    return;
  }
  // As many columns as fit (a legend across the width).
  for (std::size_t cols = most; cols >= 1; --cols) {
    Legend candidate = legend;
    if (try_columns(cols, candidate) || cols == 1) {
      legend = std::move(candidate);
      return;
    }
  }
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

  L.title = clean_text(chart.title);
  L.title_font = std::max(font_px(kStyle.title_size, s), kStyle.min_title_font);
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

  // Title.
  double top = m;
  if (!L.title.empty()) {
    p.font(L.title_font, true);
    L.title = p.fit(L.title, width - 2 * m);
    L.title_baseline = top + p.ascent();
    top += p.line_height() + 0.4 * m;
  }

  // Legend, at the bottom across the whole width.
  p.font(L.legend.font);
  double sample = legend_sample_length(L.legend.font) + 0.5 * L.legend.font;
  double legend_width = width - 2 * m;
  double label_max = std::max(legend_width / 3, 12 * L.legend.font) - sample;
  std::vector<LegendEntry> entries;
  if (chart.reference && std::isfinite(*chart.reference)) {
    std::string label = clean_text(chart.reference_label.empty() ? "reference" : chart.reference_label);
    // It explains the dashed line: it may use the legend's whole width.
    entries.push_back({LegendEntry::Reference, 0, p.fit(label, legend_width - sample)});
  }
  for (std::size_t i = 0; i < chart.lines.size(); ++i) {
    std::string label = clean_text(chart.lines[i].label);
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
  double step = nice_step((hi - lo) / target);
  double v0 = std::floor(lo / step + 1e-9) * step, v1 = std::ceil(hi / step - 1e-9) * step;
  if (!(v1 > v0)) v1 = v0 + step;
  L.plot.v0 = v0;
  L.plot.v1 = v1;
  AxisNumbers numbers = axis_numbers(std::max(std::fabs(v0), std::fabs(v1)), step);
  double label_width = 0;
  auto count = static_cast<long>(std::llround((v1 - v0) / step));
  for (long i = 0; i <= count && i <= 100; ++i) {
    double v = v0 + static_cast<double>(i) * step;
    L.y_ticks.push_back(v);
    L.y_labels.push_back(axis_label(v, numbers));
    label_width = std::max(label_width, p.width(L.y_labels.back()));
  }
  L.y_title_baseline = m + axis_ascent;
  double left = m + axis_ascent + axis_descent + 0.6 * m + label_width + tick_len + 0.3 * m;
  L.plot.left = left;
  L.plot.width = std::max(width - m * 1.5 - left, 1.0);

  L.y_title = clean_text(chart.y_title);
  L.x_title = L.has_time ? "Time (" + time_zone_name(t0) + ")" : "Time";
  p.font(L.axis_font);
  L.y_title = p.fit(L.y_title, L.plot.height);
  L.x_title = p.fit(L.x_title, L.plot.width);

  p.font(L.tick_font);
  if (L.has_time) L.x = time_ticks(p, t0, t1, L.plot.width);
  return L;
}

// ---------------------------------------------------------------------------
// Line chart drawing

struct LineStyle {
  Rgb colour;
  double width;
  std::vector<double> dash;
};

LineStyle line_style(std::size_t index, std::size_t line_count, double scale) {
  LineStyle ls;
  ls.colour = series_colour(index);
  ls.width = (line_count > 8 ? kStyle.many_line_width : kStyle.line_width) * scale;
  const auto& patterns = dash_patterns();
  for (double d : patterns[(index / 8) % patterns.size()]) ls.dash.push_back(d * std::max(scale, 0.5));
  return ls;
}

void apply(const Painter& p, const LineStyle& ls) {
  p.colour(ls.colour);
  p.c().set_line_width(p.cr(), ls.width);
  p.c().set_dash(p.cr(), ls.dash.empty() ? nullptr : ls.dash.data(), static_cast<int>(ls.dash.size()), 0);
}

// Builds the path of one line; runs of a single point become markers. With
// many more points than pixel columns, the line is instead a band: per pixel
// column the range from the lowest to the highest point, joined to the
// neighbouring columns and widened by the line width. Peaks stay visible
// and filling ~1,000 boxes is far cheaper than stroking a 10,000-point
// zigzag (dash patterns do not show in such a band; the colour does).
class PathBuilder {
 public:
  PathBuilder(const Painter& p, bool reduce) : p_(p), reduce_(reduce) {}

  void add(double x, double y) {
    if (run_ == 0) single_ = {x, y};
    ++run_;
    if (!reduce_) {
      if (run_ == 1)
        p_.c().move_to(p_.cr(), x, y);
      else
        p_.c().line_to(p_.cr(), x, y);
      return;
    }
    auto column = static_cast<double>(static_cast<long long>(std::floor(x)));
    if (!band_.empty() && band_.back().x == column) {
      band_.back().top = std::min(band_.back().top, y);
      band_.back().bottom = std::max(band_.back().bottom, y);
      return;
    }
    band_.push_back({column, y, y});
  }

  void gap() {
    if (run_ == 1) markers_.push_back(single_);
    if (run_ > 1 && !band_.empty()) bands_.push_back(std::move(band_));
    band_.clear();
    run_ = 0;
  }

  struct Point {
    double x, y;
  };
  struct Column {
    double x, top, bottom;  // left edge; top < bottom on the page
  };
  const std::vector<Point>& markers() const { return markers_; }
  const std::vector<std::vector<Column>>& bands() const { return bands_; }

 private:
  const Painter& p_;
  bool reduce_;
  long run_ = 0;  // points since the last gap
  Point single_{0, 0};
  std::vector<Column> band_;
  std::vector<std::vector<Column>> bands_;
  std::vector<Point> markers_;
};

// The band's outline as a path: flat-topped columns, each stretched to meet
// its neighbours halfway, `half` wider on every side.
void band_path(const Painter& p, std::vector<PathBuilder::Column> band, double half) {
  for (std::size_t k = 0; k + 1 < band.size(); ++k) {
    auto& a = band[k];
    auto& b = band[k + 1];
    if (a.bottom < b.top) {
      double mid = (a.bottom + b.top) / 2;
      a.bottom = mid;
      b.top = mid;
    } else if (b.bottom < a.top) {
      double mid = (b.bottom + a.top) / 2;
      a.top = mid;
      b.bottom = mid;
    }
  }
  const auto& c = p.c();
  c.move_to(p.cr(), band.front().x - half, band.front().top - half);
  for (const auto& col : band) {
    c.line_to(p.cr(), col.x - (&col == &band.front() ? half : 0), col.top - half);
    c.line_to(p.cr(), col.x + 1 + (&col == &band.back() ? half : 0), col.top - half);
  }
  for (auto it = band.rbegin(); it != band.rend(); ++it) {
    c.line_to(p.cr(), it->x + 1 + (it == band.rbegin() ? half : 0), it->bottom + half);
    c.line_to(p.cr(), it->x - (std::next(it) == band.rend() ? half : 0), it->bottom + half);
  }
  c.close_path(p.cr());
}

void draw_line(const Painter& p, const ChartLine& line, const PlotArea& plot, const LineStyle& ls) {
  const auto& c = p.c();
  bool reduce = static_cast<double>(line.points.size()) > 2 * plot.width;
  PathBuilder path(p, reduce);
  for (const auto& pt : line.points) {
    if (!usable_time(pt.time)) continue;
    if (!std::isfinite(pt.value)) {
      path.gap();
      continue;
    }
    double v = std::clamp(pt.value, -kMaxAbsValue, kMaxAbsValue);
    path.add(plot.x_of(pt.time), plot.y_of(v));
  }
  path.gap();
  apply(p, ls);
  if (reduce) {
    c.new_path(p.cr());
    // Half the line width, less the half pixel a column already spans.
    double half = std::max(ls.width / 2 - 0.25, 0.25);
    for (const auto& band : path.bands()) band_path(p, band, half);
    c.fill(p.cr());
  } else {
    c.stroke(p.cr());
  }
  if (!path.markers().empty()) {
    c.set_dash(p.cr(), nullptr, 0, 0);
    double r = std::max(ls.width * 1.6, 2.0);
    for (const auto& mk : path.markers()) {
      c.new_sub_path(p.cr());
      c.arc(p.cr(), mk.x, mk.y, r, 0, 2 * M_PI);
    }
    c.fill(p.cr());
  }
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

// Every chart draws clipped to its own rectangle, on the background colour;
// the caller restores the cairo state when it is done.
void begin_canvas(const Painter& p, double width, double height) {
  const auto& c = p.c();
  c.save(p.cr());
  c.rectangle(p.cr(), 0, 0, width, height);
  c.clip(p.cr());
  p.colour(kStyle.background);
  c.rectangle(p.cr(), 0, 0, width, height);
  c.fill(p.cr());
}

bool drawable(cairo_t* cr, double width, double height) {
  return cr && std::isfinite(width) && std::isfinite(height) && width > 0 && height > 0 &&
         cairo_library().status(cr) == CAIRO_STATUS_SUCCESS;
}

// ---------------------------------------------------------------------------
// Pie layout

struct PieLayout {
  double scale = 1;
  bool tiny = false;
  bool empty = true;
  PieArea area;
  std::string title;
  double title_font = 0, title_baseline = 0;
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

  double top = m;
  L.title = clean_text(chart.title);
  L.title_font = std::max(font_px(kStyle.title_size, s), kStyle.min_title_font);
  if (!L.title.empty()) {
    p.font(L.title_font, true);
    L.title = p.fit(L.title, width - 2 * m);
    L.title_baseline = top + p.ascent();
    top += p.line_height() + 0.4 * m;
  }
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

  std::string unit = clean_text(chart.unit);
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < chart.slices.size(); ++i) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f", L.fractions[i] * 100);
    std::string value = compact_number(chart.slices[i].value);
    if (!unit.empty()) value += " " + unit;
    value += " (" + std::string(pct) + " %)";
    std::string label = clean_text(chart.slices[i].label);
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

void draw_legend(Painter& p, const Legend& legend, double scale, double width,
                 const std::function<void(const LegendEntry&, double x, double y_mid)>& sample, double sample_width) {
  p.font(legend.font);
  for (std::size_t i = 0; i < legend.entries.size(); ++i) {
    const auto& e = legend.entries[i];
    double x = legend.left + legend.column_x[legend.column_of(i)];
    double y_mid = legend.top + (static_cast<double>(legend.row_of(i)) + 0.5) * legend.row_height;
    if (e.kind == LegendEntry::More) {
      p.colour(kStyle.muted);
      p.text(p.fit(e.text, width - x - kStyle.margin * scale / 2), x, p.centred_baseline(y_mid));
      continue;
    }
    sample(e, x, y_mid);
    p.colour(kStyle.text);
    p.text(e.text, x + sample_width, p.centred_baseline(y_mid));
  }
}

}  // namespace

// ---------------------------------------------------------------------------

Rgb series_colour(std::size_t index) {
  return kStyle.palette[index % std::size(kStyle.palette)];
}

PlotArea line_chart_plot_area(const LineChart& chart, double width, double height) {
  ScratchContext scratch;
  Painter p(scratch.cr.get());
  return layout_line_chart(p, chart, width, height).plot;
}

PieArea pie_chart_area(const PieChart& chart, double width, double height) {
  ScratchContext scratch;
  Painter p(scratch.cr.get());
  return layout_pie_chart(p, chart, width, height).area;
}

void draw_line_chart(cairo_t* cr, const LineChart& chart, double width, double height) {
  if (!drawable(cr, width, height)) return;
  Painter p(cr);
  const auto& c = p.c();
  begin_canvas(p, width, height);
  c.set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  c.set_line_join(cr, CAIRO_LINE_JOIN_ROUND);

  LineLayout L = layout_line_chart(p, chart, width, height);
  const PlotArea& plot = L.plot;
  const double s = L.scale;
  const double m = kStyle.margin * s;
  double right = plot.left + plot.width, bottom = plot.top + plot.height;
  // Grid and axis lines on pixel centres: crisp at 1 px.
  auto crisp = [](double v) { return std::floor(v) + 0.5; };

  if (!L.tiny) {
    if (!L.title.empty()) {
      p.font(L.title_font, true);
      p.colour(kStyle.text);
      p.text(L.title, width / 2, L.title_baseline, 0.5);
    }
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

  // Lines, clipped to the plot (with room for a line at the edge).
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

void draw_pie_chart(cairo_t* cr, const PieChart& chart, double width, double height) {
  if (!drawable(cr, width, height)) return;
  Painter p(cr);
  const auto& c = p.c();
  begin_canvas(p, width, height);

  PieLayout L = layout_pie_chart(p, chart, width, height);
  const double s = L.scale;
  const PieArea& a = L.area;

  if (!L.tiny && !L.title.empty()) {
    p.font(L.title_font, true);
    p.colour(kStyle.text);
    p.text(L.title, width / 2, L.title_baseline, 0.5);
  }
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

// ---------------------------------------------------------------------------
// Image files

namespace {

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void check(cairo_status_t status, const char* what) {
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cairo: cannot ") + what + ": " + cairo_library().status_to_string(status));
}

void check_size(int width, int height) {
  if (width < 1 || height < 1 || width > kMaxImageSide || height > kMaxImageSide ||
      static_cast<long>(width) * height > kMaxImagePixels)
    throw std::invalid_argument("chart size " + std::to_string(width) + "x" + std::to_string(height) +
                                " is out of range (1.." + std::to_string(kMaxImageSide) + " per side, " +
                                std::to_string(kMaxImagePixels) + " pixels)");
}

// Cairo names its SVG elements glyph0-1, clip1, ... in every file: inlined
// in one HTML page, a second chart would use the first one's glyphs. Every
// id and reference gets a prefix hashed from the file (equal files may
// share ids: their definitions are equal too).
std::string prefix_svg_ids(const std::string& svg) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : svg) h = (h ^ ch) * 1099511628211ULL;
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "c%08x-", static_cast<unsigned>(h ^ (h >> 32)));
  static const std::string_view markers[] = {"id=\"", "href=\"#", "url(#"};
  std::string out;
  out.reserve(svg.size() + svg.size() / 16);
  std::size_t i = 0;
  while (i < svg.size()) {
    bool matched = false;
    for (std::string_view mk : markers) {
      if (svg.compare(i, mk.size(), mk) == 0) {
        out.append(mk);
        out.append(prefix);
        i += mk.size();
        matched = true;
        break;
      }
    }
    if (!matched) out.push_back(svg[i++]);
  }
  return out;
}

std::string render_image(ImageFormat format, int width, int height, const std::function<void(cairo_t*)>& draw) {
  check_size(width, height);
  const auto& c = cairo_library();
  std::string out;
  if (format == ImageFormat::Png) {
    SurfacePtr surface(c.image_surface_create(CAIRO_FORMAT_RGB24, width, height));
    check(c.surface_status(surface.get()), "create an image");
    ContextPtr cr(c.create(surface.get()));
    draw(cr.get());
    check(c.status(cr.get()), "draw the chart");
    c.surface_flush(surface.get());
    return encode_png(c.image_surface_get_data(surface.get()), width, height,
                      c.image_surface_get_stride(surface.get()));
  }
  SurfacePtr surface(c.svg_surface_create_for_stream(append_to_string, &out, width, height));
  check(c.surface_status(surface.get()), "create an SVG");
  c.svg_surface_set_document_unit(surface.get(), CAIRO_SVG_UNIT_PX);
  {
    ContextPtr cr(c.create(surface.get()));
    draw(cr.get());
    check(c.status(cr.get()), "draw the chart");
  }
  c.surface_finish(surface.get());
  check(c.surface_status(surface.get()), "write the SVG");
  return prefix_svg_ids(out);
}

}  // namespace

std::string line_chart_image(const LineChart& chart, ImageFormat format, int width, int height) {
  return render_image(format, width, height, [&](cairo_t* cr) {
    draw_line_chart(cr, chart, static_cast<double>(width), static_cast<double>(height));
  });
}

std::string pie_chart_image(const PieChart& chart, ImageFormat format, int width, int height) {
  return render_image(format, width, height, [&](cairo_t* cr) {
    draw_pie_chart(cr, chart, static_cast<double>(width), static_cast<double>(height));
  });
}

const char* content_type(ImageFormat format) {
  return format == ImageFormat::Png ? "image/png" : "image/svg+xml";
}

}  // namespace petricore::render
