// Charts as image files: PNG (render/png_writer) or SVG, each from a fresh
// surface of exactly the requested size.
#include "render/chart.hpp"

#include "render/canvas.hpp"
#include "render/png_writer.hpp"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace petricore::render {
namespace {

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
    check_status(c.surface_status(surface.get()), "cairo: cannot create an image");
    ContextPtr cr(c.create(surface.get()));
    draw(cr.get());
    check_status(c.status(cr.get()), "cairo: cannot draw the chart");
    c.surface_flush(surface.get());
    return encode_png(c.image_surface_get_data(surface.get()), width, height,
                      c.image_surface_get_stride(surface.get()));
  }
  SurfacePtr surface(c.svg_surface_create_for_stream(append_to_string, &out, width, height));
  check_status(c.surface_status(surface.get()), "cairo: cannot create an SVG");
  c.svg_surface_set_document_unit(surface.get(), CAIRO_SVG_UNIT_PX);
  {
    ContextPtr cr(c.create(surface.get()));
    draw(cr.get());
    check_status(c.status(cr.get()), "cairo: cannot draw the chart");
  }
  c.surface_finish(surface.get());
  check_status(c.surface_status(surface.get()), "cairo: cannot write the SVG");
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
