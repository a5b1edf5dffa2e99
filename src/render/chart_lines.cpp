#include "render/chart_lines.hpp"

#include "render/chart_axis.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace petricore::render {

LineStyle line_style(std::size_t index, std::size_t line_count, double scale) {
  LineStyle ls;
  ls.colour = series_colour(index);
  ls.width = (line_count > 8 ? kStyle.many_line_width : kStyle.line_width) * scale;
  const auto& patterns = dash_patterns();
  for (double d : patterns[(index / 8) % patterns.size()]) ls.dash.push_back(d * std::max(scale, 0.5));
  return ls;
}

void apply(const Painter& p, const LineStyle& ls) {
  p.colour(ls.colour);
  p.c().set_line_width(p.cr(), ls.width);
  p.c().set_dash(p.cr(), ls.dash.empty() ? nullptr : ls.dash.data(), static_cast<int>(ls.dash.size()), 0);
}

namespace {

// Builds the path of one line; runs of a single point become markers. With
// many more points than pixel columns, the line is instead a band: per pixel
// column the range from the lowest to the highest point, joined to the
// neighbouring columns and widened by the line width. Peaks stay visible
// and filling ~1,000 boxes is far cheaper than stroking a 10,000-point
// zigzag (dash patterns do not show in such a band; the colour does).
class PathBuilder {
 public:
  PathBuilder(const Painter& p, bool reduce) : p_(p), reduce_(reduce) {}

  void add(double x, double y) {
    if (run_ == 0) single_ = {x, y};
    ++run_;
    if (!reduce_) {
      if (run_ == 1)
        p_.c().move_to(p_.cr(), x, y);
      else
        p_.c().line_to(p_.cr(), x, y);
      return;
    }
    auto column = static_cast<double>(static_cast<long long>(std::floor(x)));
    if (!band_.empty() && band_.back().x == column) {
      band_.back().top = std::min(band_.back().top, y);
      band_.back().bottom = std::max(band_.back().bottom, y);
      return;
    }
    band_.push_back({column, y, y});
  }

  void gap() {
    if (run_ == 1) markers_.push_back(single_);
    if (run_ > 1 && !band_.empty()) bands_.push_back(std::move(band_));
    band_.clear();
    run_ = 0;
  }

  struct Point {
    double x, y;
  };
  struct Column {
    double x, top, bottom;  // left edge; top < bottom on the page
  };
  const std::vector<Point>& markers() const { return markers_; }
  const std::vector<std::vector<Column>>& bands() const { return bands_; }

 private:
  const Painter& p_;
  bool reduce_;
  long run_ = 0;  // points since the last gap
  Point single_{0, 0};
  std::vector<Column> band_;
  std::vector<std::vector<Column>> bands_;
  std::vector<Point> markers_;
};

// The band's outline as a path: flat-topped columns, each stretched to meet
// its neighbours halfway, `half` wider on every side.
void band_path(const Painter& p, std::vector<PathBuilder::Column> band, double half) {
  for (std::size_t k = 0; k + 1 < band.size(); ++k) {
    auto& a = band[k];
    auto& b = band[k + 1];
    if (a.bottom < b.top) {
      double mid = (a.bottom + b.top) / 2;
      a.bottom = mid;
      b.top = mid;
    } else if (b.bottom < a.top) {
      double mid = (b.bottom + a.top) / 2;
      a.top = mid;
      b.bottom = mid;
    }
  }
  const auto& c = p.c();
  c.move_to(p.cr(), band.front().x - half, band.front().top - half);
  for (const auto& col : band) {
    c.line_to(p.cr(), col.x - (&col == &band.front() ? half : 0), col.top - half);
    c.line_to(p.cr(), col.x + 1 + (&col == &band.back() ? half : 0), col.top - half);
  }
  for (auto it = band.rbegin(); it != band.rend(); ++it) {
    c.line_to(p.cr(), it->x + 1 + (it == band.rbegin() ? half : 0), it->bottom + half);
    c.line_to(p.cr(), it->x - (std::next(it) == band.rend() ? half : 0), it->bottom + half);
  }
  c.close_path(p.cr());
}

}  // namespace

void draw_line(const Painter& p, const ChartLine& line, const PlotArea& plot, const LineStyle& ls) {
  const auto& c = p.c();
  bool reduce = static_cast<double>(line.points.size()) > 2 * plot.width;
  PathBuilder path(p, reduce);
  for (const auto& pt : line.points) {
    if (!usable_time(pt.time)) continue;
    if (!std::isfinite(pt.value)) {
      path.gap();
      continue;
    }
    double v = std::clamp(pt.value, -kMaxAbsValue, kMaxAbsValue);
    path.add(plot.x_of(pt.time), plot.y_of(v));
  }
  path.gap();
  apply(p, ls);
  if (reduce) {
    c.new_path(p.cr());
    // Half the line width, less the half pixel a column already spans.
    double half = std::max(ls.width / 2 - 0.25, 0.25);
    for (const auto& band : path.bands()) band_path(p, band, half);
    c.fill(p.cr());
  } else {
    c.stroke(p.cr());
  }
  if (!path.markers().empty()) {
    c.set_dash(p.cr(), nullptr, 0, 0);
    double r = std::max(ls.width * 1.6, 2.0);
    for (const auto& mk : path.markers()) {
      c.new_sub_path(p.cr());
      c.arc(p.cr(), mk.x, mk.y, r, 0, 2 * M_PI);
    }
    c.fill(p.cr());
  }
}

}  // namespace petricore::render
