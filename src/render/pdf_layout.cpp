#include "render/pdf_layout.hpp"

#include "render/cairo_library.hpp"

#include <algorithm>

namespace petricore::render::pdf {

std::vector<std::string> Pen::wrap(const std::string& raw, const Font& f, double max_width) const {
  font(f);
  std::vector<std::string> lines;
  std::string line;
  const std::string text = clean_text(raw);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t space = text.find(' ', at);
    std::string word = text.substr(at, space == std::string::npos ? std::string::npos : space - at);
    at = space == std::string::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    std::string candidate = line.empty() ? word : line + ' ' + word;
    if (line.empty() || word[0] == '%' || width(candidate) <= max_width) {
      line = std::move(candidate);
    } else {
      lines.push_back(std::move(line));
      line = std::move(word);
    }
    while (width(line) > max_width && line.size() > 1) {
      std::size_t cut = canvas_.fitting_prefix(line, max_width);
      lines.push_back(line.substr(0, cut));
      line.erase(0, cut);
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::vector<Page> paginate(const std::vector<Block>& blocks) {
  std::vector<Page> pages(1);
  double y = kTop;
  auto next_page = [&] {
    pages.emplace_back();
    y = kTop;
  };
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& block = blocks[i];
    double chain = block.height;
    for (std::size_t j = i; j + 1 < blocks.size() && blocks[j].keep_with_next; ++j) chain += blocks[j + 1].height;
    bool empty = pages.back().empty();
    if (!empty &&
        (block.page_break_before || (chain <= kBottom - kTop && y + chain > kBottom) || y + block.height > kBottom))
      next_page();
    if (block.spacer && pages.back().empty()) continue;
    pages.back().emplace_back(&block, y);
    y += block.height;
  }
  return pages;
}

void Layout::space(double height) {
  Block b;
  b.height = height;
  b.spacer = true;
  blocks_.push_back(std::move(b));
}

void Layout::paragraph(const std::string& text, const Font& f, double indent, bool keep) {
  for (const std::string& line : pen_.wrap(text, f, kWidth - indent)) {
    Block b;
    b.height = f.line_height();
    b.keep_with_next = keep;
    b.draw = [line, f, indent](const Pen& pen, double top) {
      pen.font(f);
      pen.show(kLeft + indent, baseline(top, f), line);
    };
    blocks_.push_back(std::move(b));
  }
  blocks_.back().keep_with_next = false;
}

void Layout::heading(const std::string& text, bool new_page) {
  space(10);
  Block b;
  b.height = kHeading.line_height() + 6;
  b.page_break_before = new_page;
  b.keep_with_next = true;
  b.draw = [text](const Pen& pen, double top) {
    pen.font(kHeading);
    pen.show(kLeft, baseline(top, kHeading), text);
    pen.rule(kLeft, kRight, top + kHeading.line_height() + 1.5, kRule);
  };
  blocks_.push_back(std::move(b));
}

void Layout::row(const std::vector<std::pair<std::string, std::string>>& cells) {
  const double cell_width = kWidth / static_cast<double>(cells.size());
  const double label_width = cells.size() == 1 ? kLabelWidth : kPairLabelWidth;
  std::vector<std::vector<std::string>> values;
  std::size_t lines = 1;
  for (const auto& cell : cells) {
    values.push_back(pen_.wrap(cell.second, kBody, cell_width - label_width - 8));
    lines = std::max(lines, values.back().size());
  }
  Block b;
  b.height = kBody.line_height() * static_cast<double>(lines) + 4;
  bool shaded = zebra_++ % 2 == 1;
  b.draw = [cells, values, shaded, cell_width, label_width, height = b.height](const Pen& pen, double top) {
    if (shaded) pen.box(kLeft, top, kWidth, height, kZebra);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      double x = kLeft + cell_width * static_cast<double>(c);
      pen.font(kLabel);
      pen.show(x + 4, baseline(top + 2, kBody), cells[c].first);
      pen.font(kBody);
      for (std::size_t i = 0; i < values[c].size(); ++i)
        pen.show(x + label_width, baseline(top + 2 + kBody.line_height() * static_cast<double>(i), kBody),
                 values[c][i]);
    }
  };
  blocks_.push_back(std::move(b));
}

void Layout::figure(double height, std::function<void(const Pen&, double top)> draw) {
  Block b;
  b.height = height + 6;
  b.keep_with_next = true;
  b.draw = std::move(draw);
  blocks_.push_back(std::move(b));
}

void Layout::chart(double height, std::function<void(cairo_t* cr)> draw) {
  figure(height, [draw = std::move(draw)](const Pen& pen, double top) {
    const CairoLibrary& c = pen.lib();
    c.save(pen.cr());
    c.translate(pen.cr(), kLeft, top);
    draw(pen.cr());
    c.restore(pen.cr());
  });
}

std::string render_pdf(const DocumentText& text, const std::function<void(Layout&)>& build) {
  const CairoLibrary& c = cairo_library();
  auto check = [&text](cairo_status_t status, const char* step) { check_status(status, text.failure + ": " + step); };
  std::string bytes;
  {
    SurfacePtr surface(c.pdf_surface_create_for_stream(append_to_string, &bytes, kPageWidth, kPageHeight));
    check(c.surface_status(surface.get()), "creating the surface");
    c.pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE, clean_text(text.title).c_str());
    c.pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "petricore");
    ContextPtr cr(c.create(surface.get()));
    check(c.status(cr.get()), "creating the context");
    Pen pen(cr.get());

    Layout layout(pen);
    build(layout);

    std::vector<Page> pages = paginate(layout.blocks());
    for (std::size_t i = 0; i < pages.size(); ++i) {
      for (const auto& [block, top] : pages[i])
        if (block->draw) block->draw(pen, top);
      pen.rule(kLeft, kRight, kFooterBaseline - 11, kRule, 0.5);
      pen.font(kFooter);
      pen.show(kLeft, kFooterBaseline, text.footer);
      pen.show_right(kRight, kFooterBaseline, "page " + std::to_string(i + 1) + " of " + std::to_string(pages.size()));
      c.show_page(cr.get());
    }
    check(c.status(cr.get()), "drawing");
    cr.reset();
    c.surface_finish(surface.get());
    check(c.surface_status(surface.get()), "writing");
  }
  return bytes;
}

}  // namespace petricore::render::pdf
