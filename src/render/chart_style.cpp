#include "render/chart_style.hpp"

#include "render/chart.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace petricore::render {

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

Rgb series_colour(std::size_t index) {
  return kStyle.palette[index % std::size(kStyle.palette)];
}

void Painter::font(double size, bool bold) {
  Canvas::font(kStyle.font, size, bold);
  cairo_font_extents_t fe{};
  c().font_extents(cr(), &fe);
  ascent_ = fe.ascent;
  descent_ = fe.descent;
  size_ = size;
}

void Painter::text(const std::string& s, double x, double y, double align) const {
  if (s.empty()) return;
  show(x - align * width(s), y, s);
  c().new_path(cr());
}

double lay_out_title(Painter& p, std::string_view title, double width, double top, double scale, ChartTitle& out) {
  const double m = kStyle.margin * scale;
  out.text = clean_label(title);
  out.font = std::max(font_px(kStyle.title_size, scale), kStyle.min_title_font);
  if (out.text.empty()) return top;
  p.font(out.font, true);
  out.text = p.fit(out.text, width - 2 * m);
  out.baseline = top + p.ascent();
  return top + (p.line_height() + 0.4 * m);  // grouped as the layouts always added it
}

void draw_title(Painter& p, const ChartTitle& title, double width) {
  if (title.text.empty()) return;
  p.font(title.font, true);
  p.colour(kStyle.text);
  p.text(title.text, width / 2, title.baseline, 0.5);
}

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

}  // namespace petricore::render
