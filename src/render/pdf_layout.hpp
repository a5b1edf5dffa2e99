// The PDF report's pages: A4 geometry, the report's type scale, a pen that
// measures and shows any text (cleaned for cairo first), and a flow of
// blocks (lines, table rows, figures) that paginate() cuts into pages:
// a block is never split, a chain of keep-with-next blocks moves to the next
// page together unless it is taller than a page, spacers vanish at the top
// of a page; render_pdf() turns a flow into the file, a footer on every
// page. Internal to render/ (pdf_report.cpp, efficiency_pdf.cpp).
#pragma once

#include "render/canvas.hpp"

#include <cairo.h>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace petricore::render::pdf {

// A4 portrait in points, 2 cm margins; the footer sits in the bottom margin.
constexpr double kPageWidth = 595.28;
constexpr double kPageHeight = 841.89;
constexpr double kMargin = 56.69;
constexpr double kLeft = kMargin;
constexpr double kRight = kPageWidth - kMargin;
constexpr double kWidth = kRight - kLeft;
constexpr double kTop = kMargin;
constexpr double kBottom = kPageHeight - kMargin;
constexpr double kFooterBaseline = kPageHeight - kMargin + 26;

// The summary table's label column: one cell a row, or two.
constexpr double kLabelWidth = 118;
constexpr double kPairLabelWidth = 66;

constexpr const char* kFamily = "sans-serif";

constexpr Rgb kInk{0.10, 0.10, 0.12};
constexpr Rgb kMuted{0.38, 0.38, 0.42};
constexpr Rgb kRule{0.75, 0.75, 0.78};
constexpr Rgb kZebra{0.95, 0.95, 0.96};
constexpr Rgb kWhite{1, 1, 1};

struct Font {
  double size = 9.5;
  bool bold = false;
  bool italic = false;
  Rgb colour = kInk;
  double line_height() const { return size * 1.38; }
};
constexpr Font kBody{9.5};
constexpr Font kLabel{9.5, true, false, kInk};
constexpr Font kTitle{19, true};
constexpr Font kSubtitle{9.5, false, false, kMuted};
constexpr Font kHeading{13, true};
constexpr Font kMessage{10};
constexpr Font kAdvice{9.5, false, true, kMuted};
constexpr Font kCaption{9, false, true, kMuted};
constexpr Font kFooter{8, false, false, kMuted};
constexpr Font kTag{7.5, true, false, kWhite};

// Text on one cairo context: measuring for the layout, showing for the page.
// Takes any text: it is cleaned (canvas.hpp) before cairo sees it.
class Pen {
 public:
  explicit Pen(cairo_t* cr) : canvas_(cr) {}
  const CairoLibrary& lib() const { return canvas_.lib(); }
  cairo_t* cr() const { return canvas_.cr(); }

  void colour(Rgb rgb) const { canvas_.colour(rgb); }

  void font(const Font& f) const {
    canvas_.font(kFamily, f.size, f.bold, f.italic);
    colour(f.colour);
  }

  double width(const std::string& s) const { return canvas_.width(clean_text(s)); }

  // `text` (in `f`) broken at spaces into lines no wider than `max_width`;
  // a "%" stays with its number, a word too long for a line is cut.
  std::vector<std::string> wrap(const std::string& raw, const Font& f, double max_width) const;

  void show(double x, double baseline, const std::string& s) const { canvas_.show(x, baseline, clean_text(s)); }

  void show_right(double right, double baseline, const std::string& s) const { show(right - width(s), baseline, s); }

  void rule(double x0, double x1, double y, Rgb rgb, double line_width = 0.6) const {
    colour(rgb);
    lib().set_line_width(cr(), line_width);
    canvas_.line(x0, y, x1, y);
  }

  void box(double x, double y, double w, double h, Rgb rgb) const { canvas_.box(x, y, w, h, rgb); }

 private:
  Canvas canvas_;
};

// The baseline of a line of `f` whose box starts at `top`.
inline double baseline(double top, const Font& f) {
  return top + f.size * 1.08;
}

// One unit of the flow: drawn at its top y, never split across pages.
struct Block {
  double height = 0;
  bool page_break_before = false;
  // Moves to the next page with its successor (a heading with its first
  // line, the lines of one finding), unless the chain is taller than a page.
  bool keep_with_next = false;
  // Dropped at the top of a page.
  bool spacer = false;
  std::function<void(const Pen&, double top)> draw;
};

using Page = std::vector<std::pair<const Block*, double>>;

// The blocks on each page, each with its top y.
std::vector<Page> paginate(const std::vector<Block>& blocks);

// Builds the flow, measuring with `pen`.
class Layout {
 public:
  explicit Layout(const Pen& pen) : pen_(pen) {}
  std::vector<Block>& blocks() { return blocks_; }
  const Pen& pen() const { return pen_; }

  // A gap that vanishes at the top of a page.
  void space(double height);

  // A paragraph, one block per line; `keep` holds its lines together.
  void paragraph(const std::string& text, const Font& f, double indent = 0, bool keep = true);

  // A heading with a rule under it, kept with what follows.
  void heading(const std::string& text, bool new_page = false);

  // A label and its (wrapped) value; every other row shaded.
  void row(const std::string& label, const std::string& value) { row({{label, value}}); }

  // Several label-value cells side by side in equal columns.
  void row(const std::vector<std::pair<std::string, std::string>>& cells);
  // The next row is unshaded.
  void table_start() { zebra_ = 0; }

  // `height` of drawing (and a gap under it), kept with its caption.
  void figure(double height, std::function<void(const Pen&, double top)> draw);

  // A figure kWidth wide that `draw` draws with the origin at its top left
  // (a chart).
  void chart(double height, std::function<void(cairo_t* cr)> draw);

 private:
  const Pen& pen_;
  std::vector<Block> blocks_;
  int zebra_ = 0;
};

// What a document says of itself: the title in its metadata, the left part
// of every page's footer (the right part is "page N of M") and the name its
// cairo failures are reported under ("cairo PDF report").
struct DocumentText {
  std::string title;
  std::string footer;
  std::string failure;
};

// The PDF file's bytes: the flow `build` lays out, cut into A4 pages
// (paginate()), each drawn with its footer. Throws std::runtime_error
// ("<failure>: <step>: <cairo's reason>") when cairo fails.
std::string render_pdf(const DocumentText& text, const std::function<void(Layout&)>& build);

}  // namespace petricore::render::pdf
