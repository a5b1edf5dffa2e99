// Chart rendering times (render/chart.hpp): prints figures, asserts none.
//
//   render_bench [SAMPLE-DIR]
//
// With SAMPLE-DIR, also writes sample charts there (4 nodes with the
// reference line, 64 lines, gaps, pies) to look at.
#include "render/cairo_library.hpp"
#include "render/chart.hpp"
#include "render/pdf_report.hpp"
#include "sample_jobs.hpp"  // test/unit: the 1-hour 4-node job

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using namespace petricore::render;

namespace {

constexpr double kStart = 1'795'975'755;  // 2026-11-29T18:09:15Z

LineChart lines_chart(int lines, int points, double step) {
  LineChart chart;
  chart.title = "CPU use of job 4242";
  chart.y_title = "CPU (% of one core)";
  for (int n = 0; n < lines; ++n) {
    ChartLine line;
    line.label = lines <= 8 ? "node0" + std::to_string(n + 1)
                            : "node0" + std::to_string(n / 16 + 1) + " core " + std::to_string(n % 16);
    for (int i = 0; i < points; ++i) {
      double base = lines <= 8 ? 200.0 + 100 * n : 20.0 + 1.2 * n;
      line.points.push_back({kStart + step * i, base + 40 * std::sin(i / (9.0 + n)) + 10 * std::sin(i * 1.7)});
    }
    chart.lines.push_back(std::move(line));
  }
  chart.reference = lines <= 8 ? 800 : 50;
  chart.reference_label = "lowest expected (25 % of 32 cores)";
  chart.start = kStart;
  chart.end = kStart + step * (points - 1);
  return chart;
}

PieChart core_pie(int n) {
  PieChart pie;
  pie.title = "CPU time per core";
  pie.unit = "s";
  for (int i = 0; i < n; ++i) pie.slices.push_back({"node01 core " + std::to_string(i), 900.0 + 400 * (i % 5)});
  return pie;
}

// Medians of wall-clock and CPU time (the CPU time is the fairer figure on a
// busy machine).
std::pair<double, double> median_ms(int runs, const std::function<std::string()>& render, std::size_t& bytes) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    bytes = render().size();
    cpu.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void figure(const char* what, int runs, const std::function<std::string()>& render) {
  render();  // loads cairo and the font
  std::size_t bytes = 0;
  auto [wall, cpu] = median_ms(runs, render, bytes);
  std::printf("%-52s %8.2f ms wall %8.2f ms CPU  (medians of %d, %zu bytes)\n", what, wall, cpu, runs, bytes);
}

// Drawing alone, on an image surface: the rest of the PNG time is encoding.
std::string draw_only(const LineChart& chart) {
  const auto& c = cairo_library();
  cairo_surface_t* surface = c.image_surface_create(CAIRO_FORMAT_RGB24, 900, 450);
  cairo_t* cr = c.create(surface);
  draw_line_chart(cr, chart, 900, 450);
  c.destroy(cr);
  c.surface_destroy(surface);
  return {};
}

// The same chart through cairo's own PNG writer (libpng), for comparison
// with render/png_writer.
cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}
std::string cairo_png(const LineChart& chart) {
  const auto& c = cairo_library();
  cairo_surface_t* surface = c.image_surface_create(CAIRO_FORMAT_RGB24, 900, 450);
  cairo_t* cr = c.create(surface);
  draw_line_chart(cr, chart, 900, 450);
  c.destroy(cr);
  std::string out;
  c.surface_write_to_png_stream(surface, append, &out);
  c.surface_destroy(surface);
  return out;
}

void write(const std::string& dir, const std::string& name, const std::string& data) {
  std::ofstream(dir + "/" + name, std::ios::binary) << data;
}

void samples(const std::string& dir) {
  write(dir, "cpu_4_nodes.png", line_chart_image(lines_chart(4, 241, 15), ImageFormat::Png, 900, 450));
  write(dir, "cpu_4_nodes.svg", line_chart_image(lines_chart(4, 241, 15), ImageFormat::Svg, 900, 450));
  LineChart many = lines_chart(64, 241, 15);
  many.omitted_lines = 12;
  write(dir, "cpu_64_lines.png", line_chart_image(many, ImageFormat::Png, 900, 450));
  write(dir, "cpu_64_lines_small.png", line_chart_image(many, ImageFormat::Png, 400, 300));

  write(dir, "dense_4x10000.png", line_chart_image(lines_chart(4, 10'000, 1), ImageFormat::Png, 900, 450));
  LineChart gaps = lines_chart(3, 200, 60);
  gaps.title = "Memory (gaps, isolated points, negative)";
  gaps.y_title = "Memory (bytes)";
  gaps.reference.reset();
  for (auto& line : gaps.lines)
    for (std::size_t i = 0; i < line.points.size(); ++i) {
      line.points[i].value *= 1.5e6;
      if ((i >= 50 && i < 80) || i == 120 || i == 122 || i == 150) line.points[i].value = std::nan("");
    }
  gaps.lines[2].points.resize(1);
  gaps.lines[2].label = "one sample \xC3\xA9t\xC3\xA9 with a very long label that does not fit anywhere at all, really";
  write(dir, "gaps.png", line_chart_image(gaps, ImageFormat::Png, 900, 450));

  LineChart days = lines_chart(2, 300, 900);
  days.title = "Three days";
  write(dir, "days.png", line_chart_image(days, ImageFormat::Png, 900, 450));
  LineChart empty;
  empty.title = "No samples";
  empty.y_title = "CPU (%)";
  write(dir, "empty.png", line_chart_image(empty, ImageFormat::Png, 900, 450));
  write(dir, "cpu_4_nodes_big.png", line_chart_image(lines_chart(4, 241, 15), ImageFormat::Png, 1800, 900));
  write(dir, "cpu_4_nodes_thumb.png", line_chart_image(lines_chart(4, 241, 15), ImageFormat::Png, 200, 150));

  PieChart modes;
  modes.title = "User vs system CPU time";
  modes.unit = "s";
  modes.slices = {{"user", 41'234}, {"system", 3'120}};
  write(dir, "pie_modes.png", pie_chart_image(modes, ImageFormat::Png, 900, 450));
  write(dir, "pie_cores_8.png", pie_chart_image(core_pie(8), ImageFormat::Png, 900, 450));
  write(dir, "pie_cores_256.png", pie_chart_image(core_pie(256), ImageFormat::Png, 900, 450));
  write(dir, "pie_cores_32_tall.png", pie_chart_image(core_pie(32), ImageFormat::Png, 400, 600));
  PieChart none;
  none.title = "CPU time per core";
  write(dir, "pie_empty.png", pie_chart_image(none, ImageFormat::Png, 900, 450));
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = 25;
  LineChart four = lines_chart(4, 1000, 4);
  figure("line chart PNG 900x450, 4 lines x 1,000 points", runs,
         [&] { return line_chart_image(four, ImageFormat::Png, 900, 450); });
  figure("line chart drawn, no PNG encoding, 4 x 1,000", runs, [&] { return draw_only(four); });
  figure("  the same through cairo's PNG writer (libpng)", runs, [&] { return cairo_png(four); });
  figure("line chart SVG 900x450, 4 lines x 1,000 points", runs,
         [&] { return line_chart_image(four, ImageFormat::Svg, 900, 450); });
  LineChart big = lines_chart(64, 10'000, 1);
  figure("line chart PNG 900x450, 64 lines x 10,000 points", 5,
         [&] { return line_chart_image(big, ImageFormat::Png, 900, 450); });
  figure("line chart drawn, no PNG encoding, 64 x 10,000", 5, [&] { return draw_only(big); });
  LineChart four_big = lines_chart(4, 10'000, 1);
  figure("line chart PNG 900x450, 4 lines x 10,000 points", runs,
         [&] { return line_chart_image(four_big, ImageFormat::Png, 900, 450); });
  PieChart pie = core_pie(32);
  figure("pie chart PNG 900x450, 32 slices", runs, [&] { return pie_chart_image(pie, ImageFormat::Png, 900, 450); });
  figure("pie chart SVG 900x450, 32 slices", runs, [&] { return pie_chart_image(pie, ImageFormat::Svg, 900, 450); });
  petricore::model::JobReport job = petricore::test::four_node_job();
  figure("PDF report, 1-hour 4-node job (4 pages)", runs, [&] { return pdf_report(job); });
  if (argc > 1) samples(argv[1]);
  return 0;
}
