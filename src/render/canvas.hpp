// What every cairo drawing in petricore (the charts, the PDF report) stands
// on: handles that free themselves, output into a string, one failure rule,
// colours (colour.hpp), and text that cairo can draw and that fits its room.
//
// Promises: text passed through clean_text() never puts a context into
// cairo's permanent error state; fit() and fitting_prefix() cut only at code
// point boundaries. Everything goes through cairo_library() (the dlopen
// adapter), so nothing here links libcairo.
#pragma once

#include "render/cairo_library.hpp"
#include "render/colour.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace petricore::render {

// Handles: a surface or context is destroyed with the object that holds it.
struct ContextDeleter {
  void operator()(cairo_t* cr) const { cairo_library().destroy(cr); }
};
struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_library().surface_destroy(s); }
};
using ContextPtr = std::unique_ptr<cairo_t, ContextDeleter>;
using SurfacePtr = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;

// A cairo write function (SVG, PDF streams) appending to the std::string
// given as its closure.
cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length);

// Throws std::runtime_error("<what>: <cairo's reason>") unless `status` is
// success: a failed surface or context is a bug or an exhausted machine,
// never an expected outcome.
void check_status(cairo_status_t status, const std::string& what);

// A 1 x 1 image context for measuring text where nothing is drawn (a
// chart's layout asked for without its image).
struct ScratchContext {
  SurfacePtr surface;
  ContextPtr cr;
  ScratchContext();
};

extern const char* const kEllipsis;  // "…", U+2026

// Valid UTF-8 without control characters (core/utf8.hpp): cairo puts a
// context into a permanent error state on invalid UTF-8 and shows controls
// as boxes, and text comes from job and process names.
std::string clean_text(std::string_view s);

// clean_text() of at most `max_code_points`, ended with "…" when cut: a
// label is truncated to its width later anyway, so very long text is cut
// early to keep measuring it cheap.
std::string clean_text(std::string_view s, std::size_t max_code_points);

// Drawing and measuring on one context. Strings given to it must be clean
// (clean_text()); it does not clean them again.
class Canvas {
 public:
  explicit Canvas(cairo_t* cr) : c_(cairo_library()), cr_(cr) {}

  const CairoLibrary& lib() const { return c_; }
  cairo_t* cr() const { return cr_; }

  void colour(Rgb rgb) const { c_.set_source_rgb(cr_, rgb.r, rgb.g, rgb.b); }
  void font(const char* family, double size, bool bold, bool italic = false) const;

  // The advance of `s` in the current font (0 for "").
  double width(const std::string& s) const;
  // `s` with its baseline starting at (x, baseline); the current point is
  // left at its end.
  void show(double x, double baseline, const std::string& s) const;

  // `s` cut at a code point and ended with "…" to fit max_width; "…" alone,
  // or "" when not even that fits.
  std::string fit(const std::string& s, double max_width) const;
  // The byte length of the longest prefix of `s` no wider than max_width,
  // ending at a code point boundary; at least one code point.
  std::size_t fitting_prefix(const std::string& s, double max_width) const;

  // A stroked line in the current colour and line width.
  void line(double x0, double y0, double x1, double y1) const;
  // A filled rectangle.
  void box(double x, double y, double w, double h, Rgb rgb) const;

 private:
  const CairoLibrary& c_;
  cairo_t* cr_;
};

}  // namespace petricore::render
