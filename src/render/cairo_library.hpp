// libcairo, loaded on first use instead of linked (see core/shared_library.hpp):
// linked, cairo and its ~20 dependencies (pixman, fontconfig, freetype, X11,
// png, ...) cost every petricore process about 2.4 MiB of RSS (measured: a
// trivial program 1.2 MiB, linked to cairo 3.6 MiB), which the node daemon
// never uses. Only the functions petricore calls are looked up.
#pragma once

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

namespace petricore::render {

struct CairoLibrary {
  // contexts and surfaces
  decltype(&::cairo_create) create;
  decltype(&::cairo_destroy) destroy;
  decltype(&::cairo_status) status;
  decltype(&::cairo_status_to_string) status_to_string;
  decltype(&::cairo_image_surface_create) image_surface_create;
  decltype(&::cairo_image_surface_get_data) image_surface_get_data;
  decltype(&::cairo_image_surface_get_stride) image_surface_get_stride;
  decltype(&::cairo_image_surface_get_width) image_surface_get_width;
  decltype(&::cairo_image_surface_get_height) image_surface_get_height;
  decltype(&::cairo_image_surface_create_from_png_stream) image_surface_create_from_png_stream;
  decltype(&::cairo_surface_write_to_png_stream) surface_write_to_png_stream;
  decltype(&::cairo_svg_surface_create_for_stream) svg_surface_create_for_stream;
  decltype(&::cairo_svg_surface_set_document_unit) svg_surface_set_document_unit;
  decltype(&::cairo_pdf_surface_create_for_stream) pdf_surface_create_for_stream;
  decltype(&::cairo_pdf_surface_set_metadata) pdf_surface_set_metadata;
  decltype(&::cairo_surface_flush) surface_flush;
  decltype(&::cairo_surface_finish) surface_finish;
  decltype(&::cairo_surface_status) surface_status;
  decltype(&::cairo_surface_destroy) surface_destroy;
  decltype(&::cairo_show_page) show_page;
  // state
  decltype(&::cairo_save) save;
  decltype(&::cairo_restore) restore;
  decltype(&::cairo_translate) translate;
  decltype(&::cairo_rotate) rotate;
  decltype(&::cairo_scale) scale;
  decltype(&::cairo_set_source_rgb) set_source_rgb;
  decltype(&::cairo_set_source_rgba) set_source_rgba;
  decltype(&::cairo_set_line_width) set_line_width;
  decltype(&::cairo_set_line_join) set_line_join;
  decltype(&::cairo_set_line_cap) set_line_cap;
  decltype(&::cairo_set_dash) set_dash;
  decltype(&::cairo_set_antialias) set_antialias;
  // paths and painting
  decltype(&::cairo_new_path) new_path;
  decltype(&::cairo_new_sub_path) new_sub_path;
  decltype(&::cairo_close_path) close_path;
  decltype(&::cairo_move_to) move_to;
  decltype(&::cairo_line_to) line_to;
  decltype(&::cairo_rel_line_to) rel_line_to;
  decltype(&::cairo_rel_move_to) rel_move_to;
  decltype(&::cairo_rectangle) rectangle;
  decltype(&::cairo_arc) arc;
  decltype(&::cairo_fill) fill;
  decltype(&::cairo_fill_preserve) fill_preserve;
  decltype(&::cairo_stroke) stroke;
  decltype(&::cairo_stroke_preserve) stroke_preserve;
  decltype(&::cairo_paint) paint;
  decltype(&::cairo_clip) clip;
  decltype(&::cairo_reset_clip) reset_clip;
  // text (the "toy" API: fontconfig picks the face, PDF/SVG embed subsets)
  decltype(&::cairo_select_font_face) select_font_face;
  decltype(&::cairo_set_font_size) set_font_size;
  decltype(&::cairo_show_text) show_text;
  decltype(&::cairo_text_extents) text_extents;
  decltype(&::cairo_font_extents) font_extents;
  decltype(&::cairo_text_path) text_path;
  // PDF links (cairo >= 1.16)
  decltype(&::cairo_tag_begin) tag_begin;
  decltype(&::cairo_tag_end) tag_end;
};

// Loads libcairo.so.2 once per process (thread-safe). Throws
// std::runtime_error with a one-line reason when the library or one of its
// functions cannot be loaded.
const CairoLibrary& cairo_library();

}  // namespace petricore::render
