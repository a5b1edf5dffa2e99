#include "render/chart_legend.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace petricore::render {

std::string more_text(std::size_t hidden, int omitted) {
  std::string s = kEllipsis;
  if (omitted <= 0) return s + " and " + std::to_string(hidden) + " more";
  if (hidden == 0) return s + " and " + std::to_string(omitted) + " more lines not drawn";
  return s + " and " + std::to_string(hidden + static_cast<std::size_t>(omitted)) + " more (" +
         std::to_string(omitted) + " not drawn)";
}

void flow_legend(Painter& p, Legend& legend, const std::vector<LegendEntry>& entries, int omitted, double fixed_width,
                 double width, std::size_t max_rows) {
  const double gap = 1.5 * legend.font;
  max_rows = std::max<std::size_t>(max_rows, 1);
  std::vector<double> widths;
  double narrowest = INFINITY;
  for (const auto& e : entries) {
    widths.push_back(fixed_width + p.width(e.text));
    narrowest = std::min(narrowest, widths.back());
  }
  std::size_t most = entries.size() + 1;
  if (std::isfinite(narrowest)) most = std::min(most, static_cast<std::size_t>(width / (narrowest + gap)) + 1);
  // The layout with `cols` columns, into `out`; false when it is too wide.
  auto try_columns = [&](std::size_t cols, Legend& out) {
    std::size_t capacity = cols * max_rows;
    std::size_t shown = entries.size();
    std::string more;
    if (entries.size() > capacity || omitted > 0) {
      shown = std::min(entries.size(), capacity - 1);
      std::size_t hidden = 0;
      for (std::size_t i = shown; i < entries.size(); ++i) hidden += entries[i].kind == LegendEntry::Line;
      if (hidden > 0 || omitted > 0) more = more_text(hidden, omitted);
    }
    std::size_t count = shown + (more.empty() ? 0 : 1);
    out.entries.assign(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(shown));
    if (!more.empty()) out.entries.push_back({LegendEntry::More, 0, more});
    if (count == 0) {
      out.rows = 0;
      out.columns = 1;
      out.column_x = {0};
      out.total_width = 0;
      return true;
    }
    out.rows = out.column_major ? std::min(max_rows, (count + cols - 1) / cols) : (count + cols - 1) / cols;
    out.columns = out.column_major ? (count + out.rows - 1) / out.rows : std::min(cols, count);
    std::vector<double> col_w(out.columns, 0.0);
    for (std::size_t i = 0; i < count; ++i) {
      double w = i < shown ? widths[i] : p.width(more);
      double& cw = col_w[out.column_of(i)];
      cw = std::max(cw, w);
    }
    out.column_x.clear();
    double x = 0;
    for (double w : col_w) {
      out.column_x.push_back(x);
      x += w + gap;
    }
    double total = x - gap;
    out.total_width = std::min(total, width);
    return total <= width;
  };
  most = std::max<std::size_t>(most, 1);
  if (legend.column_major) {
    // As few columns as hold every entry (a list read top to bottom).
    auto complete = [&](const Legend& l) {
      return l.entries.size() == entries.size() && (l.entries.empty() || l.entries.back().kind != LegendEntry::More);
    };
    Legend best = legend;
    try_columns(1, best);
    for (std::size_t cols = 2; cols <= most && !complete(best); ++cols) {
      Legend candidate = legend;
      if (!try_columns(cols, candidate)) break;
      best = std::move(candidate);
    }
    legend = std::move(best);
    return;
  }
  // As many columns as fit (a legend across the width).
  for (std::size_t cols = most; cols >= 1; --cols) {
    Legend candidate = legend;
    if (try_columns(cols, candidate) || cols == 1) {
      legend = std::move(candidate);
      return;
    }
  }
}

void draw_legend(Painter& p, const Legend& legend, double scale, double width,
                 const std::function<void(const LegendEntry&, double x, double y_mid)>& sample, double sample_width) {
  p.font(legend.font);
  for (std::size_t i = 0; i < legend.entries.size(); ++i) {
    const auto& e = legend.entries[i];
    double x = legend.left + legend.column_x[legend.column_of(i)];
    double y_mid = legend.top + (static_cast<double>(legend.row_of(i)) + 0.5) * legend.row_height;
    if (e.kind == LegendEntry::More) {
      p.colour(kStyle.muted);
      p.text(p.fit(e.text, width - x - kStyle.margin * scale / 2), x, p.centred_baseline(y_mid));
      continue;
    }
    sample(e, x, y_mid);
    p.colour(kStyle.text);
    p.text(e.text, x + sample_width, p.centred_baseline(y_mid));
  }
}

}  // namespace petricore::render
