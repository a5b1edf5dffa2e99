#include "render/canvas.hpp"

#include "core/utf8.hpp"

#include <stdexcept>
#include <vector>

namespace petricore::render {

const char* const kEllipsis = "\xE2\x80\xA6";

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void check_status(cairo_status_t status, const std::string& what) {
  if (status != CAIRO_STATUS_SUCCESS) throw std::runtime_error(what + ": " + cairo_library().status_to_string(status));
}

ScratchContext::ScratchContext() {
  const auto& c = cairo_library();
  surface.reset(c.image_surface_create(CAIRO_FORMAT_RGB24, 1, 1));
  cr.reset(c.create(surface.get()));
}

std::string clean_text(std::string_view s) {
  return printable_utf8(s);
}

std::string clean_text(std::string_view s, std::size_t max_code_points) {
  std::size_t i = 0;
  for (std::size_t count = 0; i < s.size() && count < max_code_points; ++count) {
    std::size_t n = utf8_sequence(s, i);
    i += n == 0 ? 1 : n;
  }
  std::string out = printable_utf8(s.substr(0, i));
  if (i < s.size()) out += kEllipsis;
  return out;
}

void Canvas::font(const char* family, double size, bool bold, bool italic) const {
  c_.select_font_face(cr_, family, italic ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                      bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  c_.set_font_size(cr_, size);
}

double Canvas::width(const std::string& s) const {
  if (s.empty()) return 0;
  cairo_text_extents_t te{};
  c_.text_extents(cr_, s.c_str(), &te);
  return te.x_advance;
}

void Canvas::show(double x, double baseline, const std::string& s) const {
  c_.move_to(cr_, x, baseline);
  c_.show_text(cr_, s.c_str());
}

std::string Canvas::fit(const std::string& s, double max_width) const {
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

std::size_t Canvas::fitting_prefix(const std::string& s, double max_width) const {
  std::size_t best = 0;
  for (std::size_t i = 1; i <= s.size(); ++i) {
    if (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (best != 0 && width(s.substr(0, i)) > max_width) break;
    best = i;
  }
  return best;
}

void Canvas::line(double x0, double y0, double x1, double y1) const {
  c_.move_to(cr_, x0, y0);
  c_.line_to(cr_, x1, y1);
  c_.stroke(cr_);
}

void Canvas::box(double x, double y, double w, double h, Rgb rgb) const {
  colour(rgb);
  c_.rectangle(cr_, x, y, w, h);
  c_.fill(cr_);
}

}  // namespace petricore::render
