#include "render/chart.hpp"
#include "render/cairo_library.hpp"
#include "render/png_writer.hpp"
#include "utc_zone.hpp"

#include "catch.hpp"

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace petricore::render;

namespace {

constexpr double kStart = 1'795'975'755;  // 2026-11-29T18:09:15Z

// A decoded PNG: the pixels as 0xRRGGBB.
class Image {
 public:
  explicit Image(const std::string& png) {
    const auto& c = cairo_library();
    Reader reader{png, 0};
    cairo_surface_t* s = c.image_surface_create_from_png_stream(read, &reader);
    surface_.reset(s);
    if (c.surface_status(s) != CAIRO_STATUS_SUCCESS) throw std::runtime_error("not a PNG");
    c.surface_flush(s);
  }
  int width() const { return cairo_library().image_surface_get_width(surface_.get()); }
  int height() const { return cairo_library().image_surface_get_height(surface_.get()); }
  std::uint32_t at(int x, int y) const {
    const auto& c = cairo_library();
    const unsigned char* data = c.image_surface_get_data(surface_.get());
    std::uint32_t px;
    std::memcpy(&px, data + static_cast<std::ptrdiff_t>(y) * c.image_surface_get_stride(surface_.get()) + 4 * x, 4);
    return px & 0xFFFFFF;
  }
  // Pixels that are not white, and the distinct colours.
  std::size_t non_white() const {
    std::size_t n = 0;
    for (int y = 0; y < height(); ++y)
      for (int x = 0; x < width(); ++x) n += at(x, y) != 0xFFFFFF;
    return n;
  }
  std::size_t colours() const {
    std::set<std::uint32_t> seen;
    for (int y = 0; y < height(); ++y)
      for (int x = 0; x < width(); ++x) seen.insert(at(x, y));
    return seen.size();
  }

 private:
  struct Reader {
    const std::string& data;
    std::size_t pos;
  };
  static cairo_status_t read(void* closure, unsigned char* out, unsigned int length) {
    auto* r = static_cast<Reader*>(closure);
    if (r->data.size() - r->pos < length) return CAIRO_STATUS_READ_ERROR;
    std::memcpy(out, r->data.data() + r->pos, length);
    r->pos += length;
    return CAIRO_STATUS_SUCCESS;
  }
  struct Deleter {
    void operator()(cairo_surface_t* s) const { cairo_library().surface_destroy(s); }
  };
  std::unique_ptr<cairo_surface_t, Deleter> surface_;
};

bool near(std::uint32_t px, Rgb c, int tolerance = 24) {
  auto chan = [](std::uint32_t px, int shift) { return static_cast<int>((px >> shift) & 0xFF); };
  auto want = [](double v) { return static_cast<int>(std::lround(v * 255)); };
  return std::abs(chan(px, 16) - want(c.r)) <= tolerance && std::abs(chan(px, 8) - want(c.g)) <= tolerance &&
         std::abs(chan(px, 0) - want(c.b)) <= tolerance;
}

ChartLine flat_line(std::string label, double value, std::size_t count, double step = 15) {
  ChartLine line{std::move(label), {}};
  for (std::size_t i = 0; i < count; ++i) line.points.push_back({kStart + step * static_cast<double>(i), value});
  return line;
}

LineChart four_nodes() {
  LineChart chart;
  chart.title = "CPU use of job 4242";
  chart.y_title = "CPU (% of one core)";
  for (int n = 1; n <= 4; ++n) {
    ChartLine line{"node0" + std::to_string(n), {}};
    for (int i = 0; i < 241; ++i)
      line.points.push_back({kStart + 15.0 * i, 100.0 * (n + 1) + 40 * std::sin(i / (7.0 + n))});
    chart.lines.push_back(line);
  }
  chart.reference = 800;
  chart.reference_label = "lowest expected (25 % of 32 cores)";
  chart.start = kStart;
  chart.end = kStart + 3600;
  return chart;
}

PieChart core_pie(std::size_t n) {
  PieChart pie;
  pie.title = "CPU time per core";
  pie.unit = "s";
  for (std::size_t i = 0; i < n; ++i) pie.slices.push_back({"core " + std::to_string(i), 100.0 + 37.0 * (i % 7)});
  return pie;
}

void well_formed_svg(const std::string& svg) {
  REQUIRE(svg.rfind("<?xml", 0) == 0);
  REQUIRE(svg.find("<svg") != std::string::npos);
  std::istringstream in(svg);
  boost::property_tree::ptree tree;
  REQUIRE_NOTHROW(boost::property_tree::read_xml(in, tree));
}

void renders(const LineChart& chart, int w = 900, int h = 450) {
  Image img(line_chart_image(chart, ImageFormat::Png, w, h));
  CHECK(img.width() == w);
  CHECK(img.height() == h);
  well_formed_svg(line_chart_image(chart, ImageFormat::Svg, w, h));
}

}  // namespace

TEST_CASE("line chart PNG has the requested size and is drawn", "[chart]") {
  petricore::test::UtcZone utc;
  Image img(line_chart_image(four_nodes(), ImageFormat::Png, 900, 450));
  CHECK(img.width() == 900);
  CHECK(img.height() == 450);
  CHECK(img.non_white() > 5000);
  CHECK(img.colours() > 20);
}

TEST_CASE("pie chart PNG has the requested size and is drawn", "[chart]") {
  Image img(pie_chart_image(core_pie(8), ImageFormat::Png, 640, 400));
  CHECK(img.width() == 640);
  CHECK(img.height() == 400);
  CHECK(img.non_white() > 20000);
  CHECK(img.colours() > 8);
}

TEST_CASE("a flat line is drawn in the first palette colour at its value", "[chart]") {
  petricore::test::UtcZone utc;
  LineChart chart;
  chart.title = "flat";
  chart.y_title = "CPU (%)";
  chart.lines.push_back(flat_line("node01", 50, 100));
  PlotArea plot = line_chart_plot_area(chart, 900, 450);
  REQUIRE(plot.width > 500);
  REQUIRE(plot.height > 250);
  CHECK(plot.v0 == 0);
  CHECK(plot.v1 > 50);
  CHECK(plot.t0 == kStart);
  CHECK(plot.t1 == kStart + 15 * 99);
  Image img(line_chart_image(chart, ImageFormat::Png, 900, 450));
  for (double t : {kStart + 100, kStart + 700, kStart + 1400}) {
    int x = static_cast<int>(plot.x_of(t)), y = static_cast<int>(plot.y_of(50));
    INFO("pixel " << x << "," << y << " = " << std::hex << img.at(x, y));
    CHECK(near(img.at(x, y), series_colour(0)));
  }
  // Above the line, inside the plot: background or grid, not the line.
  CHECK_FALSE(
      near(img.at(static_cast<int>(plot.x_of(kStart + 700)), static_cast<int>(plot.y_of(50)) - 15), series_colour(0)));
}

TEST_CASE("y_top_at_least keeps a percentage axis up to 100 for an idle device", "[chart]") {
  LineChart chart;
  chart.y_title = "GPU utilisation (%)";
  chart.lines.push_back(flat_line("gpu01 GPU 0", 0, 20));
  CHECK(line_chart_plot_area(chart, 900, 450).v1 == 1);  // alone, all zero: 0 to 1
  chart.y_top_at_least = 100;
  PlotArea plot = line_chart_plot_area(chart, 900, 450);
  CHECK(plot.v0 == 0);
  CHECK(plot.v1 == 100);
  chart.lines.push_back(flat_line("gpu01 GPU 1", 250, 20));  // data above it still fits
  CHECK(line_chart_plot_area(chart, 900, 450).v1 >= 250);
}

TEST_CASE("the first pie slice is drawn in the first palette colour", "[chart]") {
  PieChart pie = core_pie(4);
  PieArea area = pie_chart_area(pie, 900, 450);
  REQUIRE(area.radius > 100);
  double total = 0;
  for (const auto& s : pie.slices) total += s.value;
  // Halfway through the first slice (clockwise from 12 o'clock), near the centre.
  double mid = -M_PI / 2 + M_PI * pie.slices[0].value / total;
  Image img(pie_chart_image(pie, ImageFormat::Png, 900, 450));
  int x = static_cast<int>(area.cx + 0.3 * area.radius * std::cos(mid));
  int y = static_cast<int>(area.cy + 0.3 * area.radius * std::sin(mid));
  CHECK(near(img.at(x, y), series_colour(0)));
  // The second slice in the second colour.
  double mid2 = -M_PI / 2 + 2 * M_PI * (pie.slices[0].value + pie.slices[1].value / 2) / total;
  CHECK(near(img.at(static_cast<int>(area.cx + 0.3 * area.radius * std::cos(mid2)),
                    static_cast<int>(area.cy + 0.3 * area.radius * std::sin(mid2))),
             series_colour(1)));
}

TEST_CASE("palette colours differ", "[chart]") {
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < 8; ++i) {
    Rgb c = series_colour(i);
    seen.insert(static_cast<std::uint32_t>(std::lround(c.r * 255)) << 16 |
                static_cast<std::uint32_t>(std::lround(c.g * 255)) << 8 |
                static_cast<std::uint32_t>(std::lround(c.b * 255)));
  }
  CHECK(seen.size() == 8);
}

TEST_CASE("SVG charts are well-formed XML", "[chart]") {
  petricore::test::UtcZone utc;
  std::string line = line_chart_image(four_nodes(), ImageFormat::Svg, 900, 450);
  well_formed_svg(line);
  well_formed_svg(pie_chart_image(core_pie(8), ImageFormat::Svg, 900, 450));
  CHECK(std::string(content_type(ImageFormat::Svg)) == "image/svg+xml");
  CHECK(std::string(content_type(ImageFormat::Png)) == "image/png");
}

TEST_CASE("SVG element ids of different charts do not clash", "[chart]") {
  petricore::test::UtcZone utc;
  std::string a = line_chart_image(four_nodes(), ImageFormat::Svg, 900, 450);
  LineChart other = four_nodes();
  other.title = "Memory";
  std::string b = line_chart_image(other, ImageFormat::Svg, 900, 450);
  auto first_id = [](const std::string& svg) {
    auto pos = svg.find("id=\"");
    REQUIRE(pos != std::string::npos);
    return svg.substr(pos + 4, svg.find('"', pos + 4) - pos - 4);
  };
  CHECK(first_id(a) != first_id(b));
  CHECK(a.find("href=\"#glyph") == std::string::npos);
}

TEST_CASE("the time axis is titled with the time zone", "[chart]") {
  petricore::test::UtcZone utc;
  // Drawn text is glyphs, so check through the SVG of a chart with and
  // without the title: the layout must at least not fail; the zone name
  // comes from localtime.
  std::tm tm{};
  std::time_t t = static_cast<std::time_t>(kStart);
  localtime_r(&t, &tm);
  CHECK(std::string(tm.tm_zone) == "UTC");
  CHECK(tm.tm_hour == 18);
  renders(four_nodes());
}

TEST_CASE("a chart without lines or values draws", "[chart]") {
  petricore::test::UtcZone utc;
  renders(LineChart{});
  LineChart nan;
  nan.title = "all NaN";
  ChartLine line{"n", {}};
  for (int i = 0; i < 10; ++i) line.points.push_back({kStart + i, std::nan("")});
  nan.lines.push_back(line);
  renders(nan);
  LineChart empty_lines;
  empty_lines.lines.resize(3);
  empty_lines.start = kStart;
  empty_lines.end = kStart + 600;
  renders(empty_lines);
}

TEST_CASE("a chart of one sample is padded around it and shows a marker", "[chart]") {
  petricore::test::UtcZone utc;
  LineChart chart;
  chart.lines.push_back(flat_line("node01", 42, 1));
  PlotArea plot = line_chart_plot_area(chart, 900, 450);
  CHECK(plot.t0 < kStart);
  CHECK(plot.t1 > kStart);
  Image img(line_chart_image(chart, ImageFormat::Png, 900, 450));
  CHECK(near(img.at(static_cast<int>(plot.x_of(kStart)), static_cast<int>(plot.y_of(42))), series_colour(0)));
  chart.start = chart.end = kStart;
  renders(chart);
}

TEST_CASE("NaN values break the line and isolated points are visible", "[chart]") {
  petricore::test::UtcZone utc;
  LineChart chart;
  ChartLine line{"gappy", {}};
  for (int i = 0; i < 100; ++i) {
    double v = (i >= 30 && i < 50) || i == 60 || i == 62 ? std::nan("") : 10.0;
    line.points.push_back({kStart + 10.0 * i, v});
  }
  chart.lines.push_back(line);
  PlotArea plot = line_chart_plot_area(chart, 900, 450);
  Image img(line_chart_image(chart, ImageFormat::Png, 900, 450));
  int y = static_cast<int>(plot.y_of(10));
  CHECK(near(img.at(static_cast<int>(plot.x_of(kStart + 100)), y), series_colour(0)));
  CHECK_FALSE(near(img.at(static_cast<int>(plot.x_of(kStart + 400)), y), series_colour(0)));  // in the gap
  CHECK(near(img.at(static_cast<int>(plot.x_of(kStart + 610)), y), series_colour(0)));        // isolated point
}

TEST_CASE("10,000 samples per line keep their peaks", "[chart]") {
  petricore::test::UtcZone utc;
  LineChart chart;
  ChartLine line{"busy", {}};
  for (int i = 0; i < 10'000; ++i) line.points.push_back({kStart + i, i == 5'000 ? 1000.0 : 100.0});
  chart.lines.push_back(line);
  PlotArea plot = line_chart_plot_area(chart, 900, 450);
  Image img(line_chart_image(chart, ImageFormat::Png, 900, 450));
  // The one-sample spike reaches (nearly) the top of its value.
  int x = static_cast<int>(plot.x_of(kStart + 5'000));
  bool found = false;
  for (int dx = -2; dx <= 2 && !found; ++dx)
    found = near(img.at(x + dx, static_cast<int>(plot.y_of(990))), series_colour(0), 60);
  CHECK(found);
  renders(chart);
}

TEST_CASE("64 lines and omitted lines draw with a legend that fits", "[chart]") {
  petricore::test::UtcZone utc;
  LineChart chart;
  chart.title = "CPU per core";
  chart.y_title = "CPU (%)";
  for (int i = 0; i < 64; ++i) {
    ChartLine line{"node0" + std::to_string(i / 16 + 1) + " core " + std::to_string(i % 16), {}};
    for (int k = 0; k < 241; ++k) line.points.push_back({kStart + 15.0 * k, 50 + i + 20 * std::sin(k / 10.0 + i)});
    chart.lines.push_back(line);
  }
  chart.omitted_lines = 12;
  chart.reference = 25;
  chart.reference_label = "lowest expected";
  Image img(line_chart_image(chart, ImageFormat::Png, 900, 450));
  CHECK(img.colours() > 30);
  renders(chart, 400, 300);
}

TEST_CASE("negative, huge and odd values and labels draw", "[chart]") {
  petricore::test::UtcZone utc;
  LineChart chart;
  chart.title = std::string(500, 'x') + " \xC3\xA9t\xC3\xA9 \xFF\xFE bad UTF-8 \xE2\x82";
  chart.y_title = "\xE2\x82\xAC per second \n with a newline";
  ChartLine neg = flat_line("negative \xF0\x9F\x98\x80", -5, 50);
  neg.points[10].value = -1e6;
  ChartLine huge = flat_line(std::string(3000, 'y'), 1e300, 50);
  huge.points[3].value = std::numeric_limits<double>::infinity();
  huge.points[4].value = -std::numeric_limits<double>::max();
  huge.points[5].time = std::nan("");
  huge.points[6].time = 1e300;
  chart.lines = {neg, huge};
  chart.reference = -3;
  renders(chart);

  LineChart negative_only;
  negative_only.lines.push_back(flat_line("n", -7, 20));
  PlotArea plot = line_chart_plot_area(negative_only, 900, 450);
  CHECK(plot.v0 < -7);
  CHECK(plot.v1 == 0);
}

TEST_CASE("a chart spanning days and one of seconds draw", "[chart]") {
  petricore::test::UtcZone utc;
  LineChart days;
  days.lines.push_back(flat_line("long", 3, 200, 1800));  // 100 hours
  renders(days);
  LineChart seconds;
  seconds.lines.push_back(flat_line("short", 3, 20, 1));
  renders(seconds);
}

TEST_CASE("tiny and large images have the requested size; absurd ones are rejected", "[chart]") {
  petricore::test::UtcZone utc;
  for (auto [w, h] : {std::pair{1, 1}, std::pair{50, 30}, std::pair{200, 150}, std::pair{4000, 3000}}) {
    CHECK(Image(line_chart_image(four_nodes(), ImageFormat::Png, w, h)).width() == w);
    Image pie(pie_chart_image(core_pie(16), ImageFormat::Png, w, h));
    CHECK(pie.width() == w);
    CHECK(pie.height() == h);
  }
  CHECK_THROWS_AS(line_chart_image(four_nodes(), ImageFormat::Png, 0, 450), std::invalid_argument);
  CHECK_THROWS_AS(line_chart_image(four_nodes(), ImageFormat::Png, 900, -1), std::invalid_argument);
  CHECK_THROWS_AS(pie_chart_image(core_pie(2), ImageFormat::Svg, 100'000, 100), std::invalid_argument);
  CHECK_THROWS_AS(pie_chart_image(core_pie(2), ImageFormat::Png, 8000, 8000), std::invalid_argument);
}

TEST_CASE("a pie of 300 slices draws with a shortened legend", "[chart]") {
  Image img(pie_chart_image(core_pie(300), ImageFormat::Png, 900, 450));
  CHECK(img.colours() > 8);
  well_formed_svg(pie_chart_image(core_pie(300), ImageFormat::Svg, 900, 450));
}

TEST_CASE("a pie with nothing to show draws its empty state", "[chart]") {
  PieChart zero;
  zero.title = "CPU time per core";
  zero.slices = {{"core 0", 0}, {"core 1", 0}};
  Image img(pie_chart_image(zero, ImageFormat::Png, 900, 450));
  CHECK(img.non_white() > 100);  // the title and the empty-state text
  PieArea area = pie_chart_area(zero, 900, 450);
  CHECK(img.at(static_cast<int>(area.cx), static_cast<int>(area.cy) - 100) == 0xFFFFFF);
  CHECK_NOTHROW(pie_chart_image(PieChart{}, ImageFormat::Png, 900, 450));
  PieChart odd;
  odd.slices = {{"neg", -5}, {"nan", std::nan("")}, {"inf", std::numeric_limits<double>::infinity()}};
  CHECK_NOTHROW(pie_chart_image(odd, ImageFormat::Png, 900, 450));
  PieChart huge;
  huge.slices = {{"a", 1e308}, {"b", 1e308}, {"c", 0}, {"\xFF label", 1}};
  well_formed_svg(pie_chart_image(huge, ImageFormat::Svg, 900, 450));
}

TEST_CASE("the PNG writer's files decode (libpng) to exactly the pixels given", "[chart]") {
  // Rows that favour each filter: flat runs (Sub), repeated rows (Up), noise.
  const int width = 37, height = 23, stride = width * 4 + 12;  // cairo pads rows
  std::vector<unsigned char> pixels(static_cast<std::size_t>(stride) * height, 0xAB);
  std::uint32_t seed = 12345;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      seed = seed * 1103515245u + 12345u;
      std::uint32_t px = y < 8 ? 0xFFFFFF : y < 16 ? 0x0072B2u + static_cast<std::uint32_t>(x % 3) : (seed >> 8);
      px &= 0xFFFFFF;
      std::memcpy(pixels.data() + static_cast<std::size_t>(y) * stride + 4 * x, &px, 4);
    }
  }
  Image image(encode_png(pixels.data(), width, height, stride));
  REQUIRE(image.width() == width);
  REQUIRE(image.height() == height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      std::uint32_t px;
      std::memcpy(&px, pixels.data() + static_cast<std::size_t>(y) * stride + 4 * x, 4);
      if (image.at(x, y) != (px & 0xFFFFFF)) FAIL("pixel " << x << "," << y << " differs");
    }
  }
  CHECK_THROWS_AS(encode_png(pixels.data(), 0, height, stride), std::runtime_error);
}
