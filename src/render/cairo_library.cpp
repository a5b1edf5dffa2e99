#include "render/cairo_library.hpp"

#include "core/shared_library.hpp"

namespace petricore::render {
namespace {

CairoLibrary load() {
  SharedLibrary so("libcairo.so.2");
  CairoLibrary lib{};
  so.resolve("cairo_create", lib.create);
  so.resolve("cairo_destroy", lib.destroy);
  so.resolve("cairo_status", lib.status);
  so.resolve("cairo_status_to_string", lib.status_to_string);
  so.resolve("cairo_image_surface_create", lib.image_surface_create);
  so.resolve("cairo_image_surface_get_data", lib.image_surface_get_data);
  so.resolve("cairo_image_surface_get_stride", lib.image_surface_get_stride);
  so.resolve("cairo_image_surface_get_width", lib.image_surface_get_width);
  so.resolve("cairo_image_surface_get_height", lib.image_surface_get_height);
  so.resolve("cairo_image_surface_create_from_png_stream", lib.image_surface_create_from_png_stream);
  so.resolve("cairo_surface_write_to_png_stream", lib.surface_write_to_png_stream);
  so.resolve("cairo_svg_surface_create_for_stream", lib.svg_surface_create_for_stream);
  so.resolve("cairo_svg_surface_set_document_unit", lib.svg_surface_set_document_unit);
  so.resolve("cairo_pdf_surface_create_for_stream", lib.pdf_surface_create_for_stream);
  so.resolve("cairo_pdf_surface_set_metadata", lib.pdf_surface_set_metadata);
  so.resolve("cairo_surface_flush", lib.surface_flush);
  so.resolve("cairo_surface_finish", lib.surface_finish);
  so.resolve("cairo_surface_status", lib.surface_status);
  so.resolve("cairo_surface_destroy", lib.surface_destroy);
  so.resolve("cairo_show_page", lib.show_page);
  so.resolve("cairo_save", lib.save);
  so.resolve("cairo_restore", lib.restore);
  so.resolve("cairo_translate", lib.translate);
  so.resolve("cairo_rotate", lib.rotate);
  so.resolve("cairo_scale", lib.scale);
  so.resolve("cairo_set_source_rgb", lib.set_source_rgb);
  so.resolve("cairo_set_source_rgba", lib.set_source_rgba);
  so.resolve("cairo_set_line_width", lib.set_line_width);
  so.resolve("cairo_set_line_join", lib.set_line_join);
  so.resolve("cairo_set_line_cap", lib.set_line_cap);
  so.resolve("cairo_set_dash", lib.set_dash);
  so.resolve("cairo_set_antialias", lib.set_antialias);
  so.resolve("cairo_new_path", lib.new_path);
  so.resolve("cairo_new_sub_path", lib.new_sub_path);
  so.resolve("cairo_close_path", lib.close_path);
  so.resolve("cairo_move_to", lib.move_to);
  so.resolve("cairo_line_to", lib.line_to);
  so.resolve("cairo_rel_line_to", lib.rel_line_to);
  so.resolve("cairo_rel_move_to", lib.rel_move_to);
  so.resolve("cairo_rectangle", lib.rectangle);
  so.resolve("cairo_arc", lib.arc);
  so.resolve("cairo_fill", lib.fill);
  so.resolve("cairo_fill_preserve", lib.fill_preserve);
  so.resolve("cairo_stroke", lib.stroke);
  so.resolve("cairo_stroke_preserve", lib.stroke_preserve);
  so.resolve("cairo_paint", lib.paint);
  so.resolve("cairo_clip", lib.clip);
  so.resolve("cairo_reset_clip", lib.reset_clip);
  so.resolve("cairo_select_font_face", lib.select_font_face);
  so.resolve("cairo_set_font_size", lib.set_font_size);
  so.resolve("cairo_show_text", lib.show_text);
  so.resolve("cairo_text_extents", lib.text_extents);
  so.resolve("cairo_font_extents", lib.font_extents);
  so.resolve("cairo_text_path", lib.text_path);
  so.resolve("cairo_tag_begin", lib.tag_begin);
  so.resolve("cairo_tag_end", lib.tag_end);
  return lib;
}

}  // namespace

const CairoLibrary& cairo_library() {
  // A function-local static: thread-safe, and a failed load throws again on
  // the next call.
  static const CairoLibrary lib = load();
  return lib;
}

}  // namespace petricore::render
