// libcairo, loaded on first use instead of linked (see core/shared_library.hpp):
// linked, cairo and its ~20 dependencies (pixman, fontconfig, freetype, X11,
// png, ...) cost every petricore process about 2.4 MiB of RSS (measured: a
// trivial program 1.2 MiB, linked to cairo 3.6 MiB), which the node daemon
// never uses. Only the functions petricore calls are looked up.
#pragma once

#include "core/shared_library.hpp"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

namespace petricore::render {

#define PETRICORE_CAIRO_FUNCTIONS(X)                                                  \
  /* contexts and surfaces */                                                         \
  X(create, cairo_create)                                                             \
  X(destroy, cairo_destroy)                                                           \
  X(status, cairo_status)                                                             \
  X(status_to_string, cairo_status_to_string)                                         \
  X(image_surface_create, cairo_image_surface_create)                                 \
  X(image_surface_get_data, cairo_image_surface_get_data)                             \
  X(image_surface_get_stride, cairo_image_surface_get_stride)                         \
  X(image_surface_get_width, cairo_image_surface_get_width)                           \
  X(image_surface_get_height, cairo_image_surface_get_height)                         \
  X(image_surface_create_from_png_stream, cairo_image_surface_create_from_png_stream) \
  X(surface_write_to_png_stream, cairo_surface_write_to_png_stream)                   \
  X(svg_surface_create_for_stream, cairo_svg_surface_create_for_stream)               \
  X(svg_surface_set_document_unit, cairo_svg_surface_set_document_unit)               \
  X(pdf_surface_create_for_stream, cairo_pdf_surface_create_for_stream)               \
  X(pdf_surface_set_metadata, cairo_pdf_surface_set_metadata)                         \
  X(surface_flush, cairo_surface_flush)                                               \
  X(surface_finish, cairo_surface_finish)                                             \
  X(surface_status, cairo_surface_status)                                             \
  X(surface_destroy, cairo_surface_destroy)                                           \
  X(show_page, cairo_show_page)                                                       \
  /* state */                                                                         \
  X(save, cairo_save)                                                                 \
  X(restore, cairo_restore)                                                           \
  X(translate, cairo_translate)                                                       \
  X(rotate, cairo_rotate)                                                             \
  X(scale, cairo_scale)                                                               \
  X(set_source_rgb, cairo_set_source_rgb)                                             \
  X(set_source_rgba, cairo_set_source_rgba)                                           \
  X(set_line_width, cairo_set_line_width)                                             \
  X(set_line_join, cairo_set_line_join)                                               \
  X(set_line_cap, cairo_set_line_cap)                                                 \
  X(set_dash, cairo_set_dash)                                                         \
  X(set_antialias, cairo_set_antialias)                                               \
  /* paths and painting */                                                            \
  X(new_path, cairo_new_path)                                                         \
  X(new_sub_path, cairo_new_sub_path)                                                 \
  X(close_path, cairo_close_path)                                                     \
  X(move_to, cairo_move_to)                                                           \
  X(line_to, cairo_line_to)                                                           \
  X(rel_line_to, cairo_rel_line_to)                                                   \
  X(rel_move_to, cairo_rel_move_to)                                                   \
  X(rectangle, cairo_rectangle)                                                       \
  X(arc, cairo_arc)                                                                   \
  X(fill, cairo_fill)                                                                 \
  X(fill_preserve, cairo_fill_preserve)                                               \
  X(stroke, cairo_stroke)                                                             \
  X(stroke_preserve, cairo_stroke_preserve)                                           \
  X(paint, cairo_paint)                                                               \
  X(clip, cairo_clip)                                                                 \
  X(reset_clip, cairo_reset_clip)                                                     \
  /* text (the "toy" API: fontconfig picks the face, PDF/SVG embed subsets) */        \
  X(select_font_face, cairo_select_font_face)                                         \
  X(set_font_size, cairo_set_font_size)                                               \
  X(show_text, cairo_show_text)                                                       \
  X(text_extents, cairo_text_extents)                                                 \
  X(font_extents, cairo_font_extents)                                                 \
  X(text_path, cairo_text_path)                                                       \
  /* PDF links (cairo >= 1.16) */                                                     \
  X(tag_begin, cairo_tag_begin)                                                       \
  X(tag_end, cairo_tag_end)

struct CairoLibrary {
  PETRICORE_CAIRO_FUNCTIONS(PETRICORE_DLSYM_MEMBER)
};

// Loads libcairo.so.2 once per process (thread-safe). Throws
// std::runtime_error with a one-line reason when the library or one of its
// functions cannot be loaded.
const CairoLibrary& cairo_library();

}  // namespace petricore::render
