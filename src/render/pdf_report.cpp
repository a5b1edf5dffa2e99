// The report is laid out in two passes: first a flat list of blocks (a title
// line, a table row, one line of a finding, a chart) with their heights is
// cut into pages, then each page is drawn knowing how many pages there are,
// so every footer can say "page N of M". Text goes through cairo's toy text
// API, which a PDF surface writes as real (searchable, copyable) text with
// embedded font subsets.
#include "render/pdf_report.hpp"

#include "render/cairo_library.hpp"
#include "render/canvas.hpp"
#include "render/chart.hpp"
#include "render/job_charts.hpp"
#include "render/text_format.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace petricore::render {
namespace {

using model::Finding;
using model::JobUsage;
using model::Severity;

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

// Two charts share a page; the heading, caption and gap fit around each.
constexpr double kChartHeight = 268;
// The pie page: user vs system needs little room, the per-core legend much.
constexpr double kModePieHeight = 230;
constexpr double kCorePieHeight = 350;
// The summary table's label column and a finding's severity tag column.
constexpr double kLabelWidth = 118;
constexpr double kPairLabelWidth = 66;
constexpr double kTagWidth = 62;

constexpr const char* kFamily = "sans-serif";

constexpr Rgb kInk{0.10, 0.10, 0.12};
constexpr Rgb kMuted{0.38, 0.38, 0.42};
constexpr Rgb kRule{0.75, 0.75, 0.78};
constexpr Rgb kZebra{0.95, 0.95, 0.96};
constexpr Rgb kWhite{1, 1, 1};

// Dark enough that the white word on the tag stays legible in grey-scale.
Rgb severity_colour(Severity severity) {
  switch (severity) {
    case Severity::Critical:
      return {0.72, 0.11, 0.11};
    case Severity::Warning:
      return {0.80, 0.36, 0.00};
    case Severity::Info:
      return {0.08, 0.40, 0.75};
  }
  return kMuted;
}

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
  std::vector<std::string> wrap(const std::string& raw, const Font& f, double max_width) const {
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
double baseline(double top, const Font& f) {
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

class Layout {
 public:
  explicit Layout(const Pen& pen) : pen_(pen) {}
  std::vector<Block>& blocks() { return blocks_; }

  void space(double height) {
    Block b;
    b.height = height;
    b.spacer = true;
    blocks_.push_back(std::move(b));
  }

  // A paragraph, one block per line; `keep` holds its lines together.
  void paragraph(const std::string& text, const Font& f, double indent = 0, bool keep = true) {
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

  void heading(const std::string& text, bool new_page = false) {
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

  // A label and its (wrapped) value; every other row shaded.
  void row(const std::string& label, const std::string& value) { row({{label, value}}); }

  // Several label-value cells side by side in equal columns.
  void row(const std::vector<std::pair<std::string, std::string>>& cells) {
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
  void table_start() { zebra_ = 0; }

  void finding(const Finding& f) {
    const double indent = kTagWidth + 10;
    auto message = pen_.wrap(f.message, kMessage, kWidth - indent);
    auto advice = pen_.wrap("Advice: " + f.advice, kAdvice, kWidth - indent);
    std::string word = model::severity_name(f.severity);
    for (char& ch : word) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    for (std::size_t i = 0; i < message.size(); ++i) {
      Block b;
      b.height = kMessage.line_height();
      b.keep_with_next = true;
      b.draw = [line = message[i], tag = i == 0, word, colour = severity_colour(f.severity), indent](const Pen& pen,
                                                                                                     double top) {
        if (tag) {
          pen.box(kLeft, top + 0.5, kTagWidth, kMessage.line_height() - 1, colour);
          pen.font(kTag);
          pen.show(kLeft + (kTagWidth - pen.width(word)) / 2, top + kMessage.line_height() / 2 + kTag.size * 0.36,
                   word);
        }
        pen.font(kMessage);
        pen.show(kLeft + indent, baseline(top, kMessage), line);
      };
      blocks_.push_back(std::move(b));
    }
    for (std::size_t i = 0; i < advice.size(); ++i) {
      Block b;
      b.height = kAdvice.line_height();
      b.keep_with_next = i + 1 < advice.size();
      b.draw = [line = advice[i], indent](const Pen& pen, double top) {
        pen.font(kAdvice);
        pen.show(kLeft + indent, baseline(top, kAdvice), line);
      };
      blocks_.push_back(std::move(b));
    }
    space(7);
  }

  void figure(double height, std::function<void(const Pen&, double top)> draw) {
    Block b;
    b.height = height + 6;
    b.keep_with_next = true;
    b.draw = std::move(draw);
    blocks_.push_back(std::move(b));
  }

 private:
  const Pen& pen_;
  std::vector<Block> blocks_;
  int zebra_ = 0;
};

std::string lower_first(std::string s) {
  // "Resident memory" -> "resident memory", but "CPU use" stays.
  if (s.size() > 1 && std::isupper(static_cast<unsigned char>(s[0])) && std::islower(static_cast<unsigned char>(s[1])))
    s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string plural(double n, const char* one, const char* many) {
  return text::number(n) + " " + (n == 1 ? one : many);
}

void title_block(Layout& layout, const JobUsage& usage, const PdfOptions& options) {
  const model::JobRecord& job = usage.job;
  std::string title = "Job " + job.job_id;
  if (!job.name.empty()) title += " \u2014 " + job.name;
  layout.paragraph(title, kTitle);
  std::int64_t when = options.generated_at != 0 ? options.generated_at : static_cast<std::int64_t>(std::time(nullptr));
  layout.paragraph("petricore report, generated " + text::iso8601_utc(when), kSubtitle);
  if (!options.job_url.empty()) {
    std::string url = options.job_url;
    Block b;
    b.height = kSubtitle.line_height();
    b.draw = [url](const Pen& pen, double top) {
      const CairoLibrary& c = pen.lib();
      pen.font(kSubtitle);
      pen.show(kLeft, baseline(top, kSubtitle), "Job page: ");
      double x = kLeft + pen.width("Job page: ");
      // cairo's tag attributes quote with single quotes, escaped by '\'.
      std::string quoted;
      for (char ch : clean_text(url)) {
        if (ch == '\'' || ch == '\\') quoted += '\\';
        quoted += ch;
      }
      std::string attributes = "uri='" + quoted + "'";
      c.tag_begin(pen.cr(), CAIRO_TAG_LINK, attributes.c_str());
      pen.colour({0.08, 0.33, 0.70});
      pen.show(x, baseline(top, kSubtitle), url);
      c.tag_end(pen.cr(), CAIRO_TAG_LINK);
    };
    layout.blocks().push_back(std::move(b));
  }
}

// Two cells a row: the allocation is short facts.
void job_table(Layout& layout, const JobUsage& usage) {
  const model::JobRecord& job = usage.job;
  std::vector<std::pair<std::string, std::string>> cells;
  auto cell = [&](const char* label, const std::string& value) { cells.emplace_back(label, value); };
  cell("User", job.user.empty() ? "unknown" : job.user + (job.uid ? " (uid " + std::to_string(*job.uid) + ")" : ""));
  cell("Account", job.account.empty() ? "unknown" : job.account);
  cell("Partition", job.partition.empty() ? "unknown" : job.partition);
  cell("State", job.state.empty() ? "unknown" : job.state);
  if (job.submit) cell("Submitted", text::iso8601_utc(*job.submit));
  cell("Started", job.start ? text::iso8601_utc(*job.start) : "not yet");
  cell("Ended", job.end ? text::iso8601_utc(*job.end) : job.start ? "still running" : "not yet");
  std::string runtime = usage.runtime_seconds ? text::duration(*usage.runtime_seconds) : "unknown";
  if (job.time_limit_seconds) runtime += " of " + text::duration(*job.time_limit_seconds);
  if (auto fraction = usage.time_limit_fraction) runtime += " (" + text::number(100 * *fraction) + " %)";
  cell("Runtime", runtime);
  std::string nodes = job.alloc_nodes > 0 ? std::to_string(job.alloc_nodes) : "unknown";
  if (!job.node_list.empty()) nodes += ": " + job.node_list;
  cell("Nodes", nodes);
  cell("CPUs", std::to_string(job.alloc_cpus));
  cell("Memory", job.alloc_mem_mb ? text::number(*job.alloc_mem_mb) + " MB" : "unknown");
  std::string gpus = job.alloc_gpus > 0 ? std::to_string(job.alloc_gpus) : "none";
  for (const auto& [node, ids] : usage.gpus) {
    gpus += (gpus == "none" ? "" : "; ") + node + ":";
    for (const auto& id : ids) gpus += " " + id;
  }
  cell("GPUs", gpus);

  layout.heading("Job");
  layout.table_start();
  for (std::size_t i = 0; i < cells.size(); i += 2) {
    if (i + 1 < cells.size())
      layout.row({cells[i], cells[i + 1]});
    else
      layout.row({cells[i], {"", ""}});
  }
}

// The rows only samples have.
void sampled_rows(Layout& layout, const JobUsage& usage) {
  const model::JobRecord& job = usage.job;
  auto transfers = [&](const char* mb_metric, double mb, const char* count_metric, double count, const char* ops) {
    std::string s = text::amount(text::measured(usage, mb_metric, mb), "MB");
    if (text::has_metric(usage, count_metric)) s += " in " + text::number(count, 0) + " " + ops;
    return s;
  };
  layout.row("Data read", transfers("jobs_read_mb", usage.read_mb, "jobs_read_count", usage.read_count, "reads"));
  layout.row("Data written",
             transfers("jobs_write_mb", usage.write_mb, "jobs_write_count", usage.write_count, "writes"));
  layout.row("Opened files",
             usage.opened_files_avg ? text::number(*usage.opened_files_avg) + " on average" : "unknown");
  layout.row("Scratch", !text::has_metric(usage, "jobs_uses_scratch") ? "unknown"
                        : usage.uses_scratch                          ? "used"
                                                                      : "not used");
  std::string threads;
  for (const auto& [name, count] : usage.threads_max)
    threads += (threads.empty() ? "" : ", ") + name + ": " + plural(count, "thread", "threads");
  layout.row("Threads", threads.empty() ? "unknown" : threads + " (at most, over all nodes)");
  if (!usage.gpus.empty() || job.alloc_gpus > 0)
    layout.row("GPU utilisation",
               usage.gpu_utilization_max ? text::number(*usage.gpu_utilization_max) + " % at most" : "not measured");
}

void usage_table(Layout& layout, const JobUsage& usage) {
  layout.heading("Usage");
  layout.table_start();
  if (usage.no_usage()) {
    layout.row("Usage", text::no_usage_sentence(usage));
    return;
  }
  if (usage.no_metrics()) layout.row("Metrics", text::kNoSamples);
  const model::JobRecord& job = usage.job;
  std::string efficiency;
  if (auto share = usage.cpu_efficiency_percent)
    efficiency =
        " (" + text::number(*share) + " % of the " + plural(job.alloc_cpus, "allocated CPU", "allocated CPUs") + ")";
  layout.row("CPU efficiency", text::cpu_usage(usage, efficiency));
  if (!usage.cpu_time_core.empty())
    layout.row("Cores used", std::to_string(usage.cores_used) + " of " + std::to_string(usage.cpu_time_core.size()) +
                                 " (cores with at least 0.8 \u00d7 the mean CPU time per core)");
  layout.row("CPU time", text::cpu_time(usage));
  layout.row("Memory", text::resident_memory(usage) + text::page_cache_note(usage));
  if (std::string parts = text::memory_parts(usage); !parts.empty()) layout.row("Memory at peak", parts);
  if (!usage.no_metrics()) sampled_rows(layout, usage);
  for (const std::string& why : usage.missing) layout.row("Missing", why);
}

void findings_section(Layout& layout, const std::vector<Finding>& findings) {
  layout.heading("Findings");
  if (findings.empty()) {
    layout.paragraph("No problems found.", kMessage);
    return;
  }
  for (const Finding& f : findings) layout.finding(f);
}

const ChartMetric& metric_info(const std::string& metric) {
  for (const ChartMetric& m : chart_metrics())
    if (m.metric == metric) return m;
  throw std::logic_error("pdf_report: " + metric + " is not in chart_metrics()");
}

void line_chart_section(Layout& layout, const model::JobReport& report, const std::string& metric, bool new_page,
                        int& figure) {
  const ChartMetric& info = metric_info(metric);
  layout.heading(info.title, new_page);
  Result<LineChart> chart = metric_chart(report, metric);
  if (!chart) {
    layout.paragraph("No " + lower_first(info.title) + " samples were recorded.", kBody);
    return;
  }
  auto shared = std::make_shared<LineChart>(std::move(chart.value()));
  layout.figure(kChartHeight, [shared](const Pen& pen, double top) {
    const CairoLibrary& c = pen.lib();
    c.save(pen.cr());
    c.translate(pen.cr(), kLeft, top);
    draw_line_chart(pen.cr(), *shared, kWidth, kChartHeight);
    c.restore(pen.cr());
  });
  std::string caption = "Figure " + std::to_string(++figure) + ". " + shared->title + " over time, one line per " +
                        (metric == "jobs_thread_count" ? "process name"
                         : metric == kGpuUtilization   ? "GPU"
                                                       : "node") +
                        ".";
  if (shared->reference) {
    const double threshold = report.thresholds.cpu_efficiency_warning;
    const double per_node = *shared->reference / threshold;
    const bool one_node = per_node >= report.usage.job.alloc_cpus;
    caption += std::string(" The dashed line marks the lowest expected use of ") + (one_node ? "the" : "each") +
               " node, " + text::number(*shared->reference) + " % of one CPU (" + text::number(threshold) +
               " % of its " + plural(per_node, "allocated CPU", "allocated CPUs") +
               "): below it, allocated CPUs stand idle.";
  }
  layout.paragraph(caption, kCaption);
}

void pie_section(Layout& layout, Result<PieChart> pie, double height, const std::string& heading,
                 const std::string& missing, const std::string& caption, bool new_page, int& figure) {
  layout.heading(heading, new_page);
  if (!pie) {
    layout.paragraph(missing, kBody);
    return;
  }
  auto shared = std::make_shared<PieChart>(std::move(pie.value()));
  layout.figure(height, [shared, height](const Pen& pen, double top) {
    const CairoLibrary& c = pen.lib();
    c.save(pen.cr());
    c.translate(pen.cr(), kLeft, top);
    draw_pie_chart(pen.cr(), *shared, kWidth, height);
    c.restore(pen.cr());
  });
  layout.paragraph("Figure " + std::to_string(++figure) + ". " + caption, kCaption);
}

std::string mode_caption(const JobUsage& usage) {
  std::string caption = "User vs system CPU time of job " + usage.job.job_id;
  double user = usage.user_time.value_or(0), system = usage.system_time.value_or(0);
  if (user + system > 0)
    caption += ": " + text::number(100 * user / (user + system)) + " % in user mode (the program's own work), " +
               text::number(100 * system / (user + system)) + " % in system mode (the kernel, mostly I/O)";
  return caption + ".";
}

std::string core_caption(const JobUsage& usage) {
  std::string caption = "CPU time per allocated core of job " + usage.job.job_id;
  if (!usage.cpu_time_core.empty())
    caption += ": " + std::to_string(usage.cores_used) + " of " + std::to_string(usage.cpu_time_core.size()) +
               " cores got at least 0.8 \u00d7 the mean CPU time per core";
  return caption + ".";
}

void chart_sections(Layout& layout, const model::JobReport& report) {
  int figure = 0;
  line_chart_section(layout, report, "jobs_cpu_percent", true, figure);
  layout.space(14);
  line_chart_section(layout, report, "jobs_rss", false, figure);
  line_chart_section(layout, report, "jobs_read_mb", true, figure);
  layout.space(14);
  line_chart_section(layout, report, "jobs_write_mb", false, figure);
  const JobUsage& usage = report.usage;
  if (!usage.gpu_utilization_series.empty()) line_chart_section(layout, report, kGpuUtilization, true, figure);
  pie_section(layout, cpu_mode_pie(report), kModePieHeight, "CPU time by mode",
              "No user and system CPU time samples were recorded.", mode_caption(usage), true, figure);
  layout.space(14);
  pie_section(layout, cpu_core_pie(report), kCorePieHeight, "CPU time per core",
              "No CPU time per core samples were recorded.", core_caption(usage), false, figure);
}

void footer(const Pen& pen, const std::string& job_id, std::size_t page, std::size_t pages) {
  pen.rule(kLeft, kRight, kFooterBaseline - 11, kRule, 0.5);
  pen.font(kFooter);
  pen.show(kLeft, kFooterBaseline, "petricore \u00b7 job " + job_id);
  pen.show_right(kRight, kFooterBaseline, "page " + std::to_string(page) + " of " + std::to_string(pages));
}

void check(cairo_status_t status, const char* what) {
  check_status(status, std::string("cairo PDF report: ") + what);
}

}  // namespace

std::string pdf_report(const model::JobReport& report, const PdfOptions& options) {
  const CairoLibrary& c = cairo_library();
  const JobUsage& usage = report.usage;
  std::string bytes;
  {
    SurfacePtr surface(c.pdf_surface_create_for_stream(append_to_string, &bytes, kPageWidth, kPageHeight));
    check(c.surface_status(surface.get()), "creating the surface");
    c.pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE,
                               clean_text("petricore report for job " + usage.job.job_id).c_str());
    c.pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "petricore");
    ContextPtr cr(c.create(surface.get()));
    check(c.status(cr.get()), "creating the context");
    Pen pen(cr.get());

    Layout layout(pen);
    title_block(layout, usage, options);
    job_table(layout, usage);
    usage_table(layout, usage);
    findings_section(layout, report.findings);
    if (!usage.no_metrics()) chart_sections(layout, report);

    std::vector<Page> pages = paginate(layout.blocks());
    for (std::size_t i = 0; i < pages.size(); ++i) {
      for (const auto& [block, top] : pages[i])
        if (block->draw) block->draw(pen, top);
      footer(pen, usage.job.job_id, i + 1, pages.size());
      c.show_page(cr.get());
    }
    check(c.status(cr.get()), "drawing");
    cr.reset();
    c.surface_finish(surface.get());
    check(c.surface_status(surface.get()), "writing");
  }
  return bytes;
}

}  // namespace petricore::render
