// What the HTML pages of serve share (job_html.cpp, efficiency_html.cpp):
// the job page's palette and type and its figures, written once, and the
// document around a page: the head with its one inline <style>, and the
// footer. Internal to render/.
#pragma once

#include "render/job_html.hpp"

#include <initializer_list>
#include <ostream>
#include <string_view>

namespace petricore::render::html {

// The colours (CSS variables), the box model and the body's type. Readable
// on a phone, on a wide screen and on paper.
inline constexpr std::string_view kPalette =
    R"(:root{color-scheme:light;--fg:#1d2330;--muted:#5a6272;--line:#d9dde5;--bg:#fff;--soft:#f4f6f9;--link:#0b57d0}
*{box-sizing:border-box}
body{margin:0;padding:0 1.25rem;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","Liberation Sans",sans-serif}
)";

// A chart across the column, framed, its caption under it.
inline constexpr std::string_view kFigures = R"(figure{margin:0 0 1.5rem}
figure img{display:block;width:100%;height:auto;border:1px solid var(--line);border-radius:.3rem;background:#fff}
figcaption{font-size:.9rem;color:var(--muted);margin-top:.3rem}
)";

// "<!DOCTYPE html>" to "<body>": UTF-8, a viewport for phones, `title`
// (escaped here) and one <style> of `style`'s parts in order.
inline void document_start(std::ostream& out, std::string_view title, std::initializer_list<std::string_view> style) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
      << html_escape(title) << "</title>\n<style>\n";
  for (std::string_view part : style) out << part;
  out << "</style>\n</head>\n<body>\n";
}

// The end of the page's <main>, every page's footer and the document's end.
inline void document_end(std::ostream& out) {
  out << "</main>\n<footer>petricore: Slurm job monitoring.</footer>\n</body>\n</html>\n";
}

}  // namespace petricore::render::html
