#include "render/pdf_report.hpp"

#include "sample_jobs.hpp"

#include "catch.hpp"

#include <unistd.h>
#include <zlib.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

using namespace petricore;

namespace {

bool ends_with_eof(const std::string& pdf) {
  std::string tail = pdf.substr(pdf.size() > 16 ? pdf.size() - 16 : 0);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  return tail.size() >= 5 && tail.compare(tail.size() - 5, 5, "%%EOF") == 0;
}

// One Flate stream inflated, or "" when it is not one.
std::string inflated(const std::string& data) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return "";
  std::string out;
  char buffer[16384];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  int status = Z_OK;
  while (status == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    status = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
  }
  inflateEnd(&z);
  return status == Z_STREAM_END ? out : "";
}

// The PDF's objects as text: the file plus every stream inflated. cairo 1.18
// (Debian 13) writes PDF 1.7 with the page objects and link annotations in
// compressed object streams; cairo 1.16 (Debian 12) writes them in the open.
std::string pdf_objects(const std::string& pdf) {
  std::string all = pdf;
  for (std::size_t at = pdf.find("stream"); at != std::string::npos; at = pdf.find("stream", at + 6)) {
    if (at >= 3 && pdf.compare(at - 3, 3, "end") == 0) continue;
    std::size_t start = at + 6;
    if (start < pdf.size() && pdf[start] == '\r') ++start;
    if (start < pdf.size() && pdf[start] == '\n') ++start;
    std::size_t end = pdf.find("endstream", start);
    if (end == std::string::npos) break;
    all += "\n" + inflated(pdf.substr(start, end - start));
    at = end;
  }
  return all;
}

// "/Type /Page" objects, not "/Type /Pages".
int page_objects(const std::string& pdf) {
  const std::string objects = pdf_objects(pdf);
  int count = 0;
  for (std::size_t at = objects.find("/Type /Page"); at != std::string::npos; at = objects.find("/Type /Page", at + 1))
    if (objects.compare(at, 12, "/Type /Pages") != 0) ++count;
  return count;
}

bool have_tool(const char* name) {
  return std::system((std::string("command -v ") + name + " >/dev/null 2>&1").c_str()) == 0;
}

// The PDF in a temporary file, removed at the end of the scope.
class TempPdf {
 public:
  explicit TempPdf(const std::string& bytes) {
    char name[] = "/tmp/petricore-pdf-test-XXXXXX";
    int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    close(fd);
    path_ = name;
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~TempPdf() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  pclose(pipe);
  return out;
}

int pdfinfo_pages(const TempPdf& pdf) {
  std::smatch m;
  std::string info = run("pdfinfo '" + pdf.path() + "' 2>&1");
  if (!std::regex_search(info, m, std::regex("Pages:\\s+(\\d+)"))) FAIL("pdfinfo says: " << info);
  return std::stoi(m[1]);
}

// pdftotext's text with every run of white space made one space, so wrapped
// sentences read as one line.
std::string pdf_text(const TempPdf& pdf, const char* options = "") {
  std::string text = run(std::string("pdftotext ") + options + " '" + pdf.path() + "' - 2>&1");
  std::string flat;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f';
    if (space && !flat.empty() && flat.back() == ' ') continue;
    flat += space ? ' ' : c;
  }
  return flat;
}

// The text of page `page` alone (pdftotext separates pages with form feeds).
std::string page_text(const TempPdf& pdf, int page) {
  return pdf_text(pdf, ("-f " + std::to_string(page) + " -l " + std::to_string(page)).c_str());
}

bool poppler_missing() {
  if (have_tool("pdfinfo") && have_tool("pdftotext")) return false;
  WARN("poppler-utils (pdfinfo, pdftotext) not installed: the PDF's pages and text are not checked");
  return true;
}

}  // namespace

TEST_CASE("the four-node job's report is a PDF of summary, two chart pages and a pie page", "[pdf]") {
  auto report = test::four_node_job();
  REQUIRE_FALSE(report.findings.empty());
  render::PdfOptions options;
  options.generated_at = test::kSampleStart + 4000;
  options.job_url = "https://petricore.example/jobs/4242";
  std::string pdf = render::pdf_report(report, options);
  CHECK(pdf.rfind("%PDF-", 0) == 0);
  CHECK(ends_with_eof(pdf));
  // The summary and its five findings take a page or two; then two chart
  // pages and the pie page.
  const int pages = page_objects(pdf);
  CHECK((pages == 4 || pages == 5));
  CHECK(pdf_objects(pdf).find("/URI (https://petricore.example/jobs/4242)") != std::string::npos);

  if (poppler_missing()) return;
  TempPdf file(pdf);
  REQUIRE(pdfinfo_pages(file) == pages);
  std::string info = run("pdfinfo '" + file.path() + "'");
  CHECK(info.find("petricore report for job 4242") != std::string::npos);
  CHECK(info.find("Creator:         petricore") != std::string::npos);

  std::string text = pdf_text(file);
  CHECK(text.find("Job 4242 \u2014 cfd-run") != std::string::npos);
  CHECK(text.find("def-alice") != std::string::npos);
  for (const auto& f : report.findings) {
    INFO(f.message);
    CHECK(text.find(f.message) != std::string::npos);
    CHECK(text.find(f.advice) != std::string::npos);
  }
  const std::string total = " of " + std::to_string(pages);
  CHECK(text.find("page 1" + total) != std::string::npos);
  CHECK(text.find("page " + std::to_string(pages) + total) != std::string::npos);
  CHECK(text.find("petricore \u00b7 job 4242") != std::string::npos);
  // The charts' axis titles are text, not paths.
  CHECK(text.find("CPU (% of one CPU)") != std::string::npos);
  CHECK(text.find("Resident memory (MiB)") != std::string::npos);
  CHECK(text.find("dashed line") != std::string::npos);

  std::string first = page_text(file, pages - 2), second = page_text(file, pages - 1), pies = page_text(file, pages);
  CHECK(page_text(file, pages - 3).find("CPU use of job 4242") == std::string::npos);
  CHECK(first.find("CPU use of job 4242") != std::string::npos);
  CHECK(first.find("Resident memory of job 4242") != std::string::npos);
  CHECK(second.find("Data read of job 4242") != std::string::npos);
  CHECK(second.find("Data written of job 4242") != std::string::npos);
  CHECK(pies.find("User vs system CPU time of job 4242") != std::string::npos);
  CHECK(pies.find("CPU time per core of job 4242") != std::string::npos);
}

TEST_CASE("a GPU job's PDF has the GPU figures and a page of GPU utilisation and memory", "[pdf]") {
  auto report = test::gpu_training_job();
  std::string pdf = render::pdf_report(report);
  CHECK(pdf.rfind("%PDF-", 0) == 0);
  if (poppler_missing()) return;
  TempPdf file(pdf);
  const int pages = pdfinfo_pages(file);
  std::string text = pdf_text(file);
  CHECK(text.find("GPU utilisation 33.9 % on average per GPU, 90 % at most") != std::string::npos);
  CHECK(text.find("GPU memory 21000 MB at peak of 81920 MB (25.6 %)") != std::string::npos);
  CHECK(text.find("gpu03 GPU 1 30 % on average") != std::string::npos);
  // The GPU page comes before the pie page.
  std::string gpu_page = page_text(file, pages - 1);
  CHECK(gpu_page.find("GPU utilisation of job 4400") != std::string::npos);
  CHECK(gpu_page.find("GPU memory of job 4400") != std::string::npos);
  CHECK(gpu_page.find("one line per GPU") != std::string::npos);
  CHECK(page_text(file, pages).find("User vs system CPU time of job 4400") != std::string::npos);
  // Without GPUs, no GPU row and no GPU chart.
  TempPdf cpu_only(render::pdf_report(test::four_node_job()));
  std::string cpu_text = pdf_text(cpu_only);
  CHECK(cpu_text.find("GPUs none") != std::string::npos);
  CHECK(cpu_text.find("GPU utilisation") == std::string::npos);
  CHECK(cpu_text.find("GPU memory") == std::string::npos);
}

TEST_CASE("the fonts are embedded", "[pdf]") {
  if (!have_tool("pdffonts")) {
    WARN("pdffonts not installed");
    return;
  }
  TempPdf file(render::pdf_report(test::four_node_job()));
  std::string fonts = run("pdffonts '" + file.path() + "'");
  INFO(fonts);
  CHECK(fonts.find(" no ") == std::string::npos);  // the emb column
  CHECK(fonts.find("yes") != std::string::npos);
}

TEST_CASE("a chart whose metric was not recorded is replaced by a sentence", "[pdf]") {
  auto report = test::four_node_job();
  report.usage.series.erase("jobs_write_mb");
  if (poppler_missing()) return;
  TempPdf file(render::pdf_report(report));
  const int pages = pdfinfo_pages(file);
  std::string second = page_text(file, pages - 1);  // the second chart page
  CHECK(second.find("Data read of job 4242") != std::string::npos);
  CHECK(second.find("No data written samples were recorded.") != std::string::npos);
}

TEST_CASE("a job without any metric still gets a PDF with its findings", "[pdf]") {
  auto report = test::oom_before_samples_job();
  REQUIRE(report.usage.no_metrics());
  REQUIRE_FALSE(report.findings.empty());
  std::string pdf = render::pdf_report(report);
  CHECK(pdf.rfind("%PDF-", 0) == 0);
  CHECK(ends_with_eof(pdf));
  if (poppler_missing()) return;
  TempPdf file(pdf);
  CHECK(pdfinfo_pages(file) == 1);
  std::string text = pdf_text(file);
  CHECK(text.find("9001") != std::string::npos);
  CHECK(text.find("OUT_OF_MEMORY") != std::string::npos);
  for (const auto& f : report.findings) CHECK(text.find(f.message) != std::string::npos);
  CHECK(text.find("page 1 of 1") != std::string::npos);
  // Nothing was measured: the reason once, instead of the usage figures.
  REQUIRE(report.usage.no_usage());
  CHECK(text.find(report.usage.missing.front()) != std::string::npos);
  for (const char* label : {"CPU efficiency", "CPU time", "resident", "Data read", "Threads"}) {
    INFO(label);
    CHECK(text.find(label) == std::string::npos);
  }
}

TEST_CASE("figures from Slurm accounting say so in the PDF", "[pdf]") {
  auto report = test::accounting_only_job();
  REQUIRE(report.usage.no_metrics());
  std::string pdf = render::pdf_report(report);
  CHECK(page_objects(pdf) == 1);  // no samples, no charts
  if (poppler_missing()) return;
  TempPdf file(pdf);
  std::string text = pdf_text(file);
  INFO(text);
  CHECK(text.find("no samples; figures from Slurm accounting") != std::string::npos);
  CHECK(text.find("18 s (from Slurm accounting)") != std::string::npos);
  CHECK(text.find("700 MB resident at peak of 2000 MB allocated (35 %) (from Slurm accounting)") != std::string::npos);
  CHECK(text.find("Data read") == std::string::npos);
}

TEST_CASE("the PDF shows resident memory and the reclaimable page cache apart", "[pdf]") {
  auto report = test::page_cache_job();
  std::string pdf = render::pdf_report(report);
  if (poppler_missing()) return;
  TempPdf file(pdf);
  std::string text = page_text(file, 1);
  INFO(text);
  CHECK(text.find("3 MB resident at peak of 4000 MB allocated (0.1 %); with page cache 516 MB (reclaimable)") !=
        std::string::npos);
  CHECK(text.find("page cache 510 MB (reclaimable)") != std::string::npos);
}

TEST_CASE("a job without findings says no problems were found", "[pdf]") {
  auto report = test::four_node_job();
  report.findings.clear();
  if (poppler_missing()) return;
  TempPdf file(render::pdf_report(report));
  CHECK(page_text(file, 1).find("No problems found") != std::string::npos);
}

TEST_CASE("many long findings flow onto more pages, every footer counting them all", "[pdf]") {
  auto report = test::four_node_job();
  report.findings.clear();
  for (int i = 0; i < 40; ++i) {
    model::Finding f;
    f.rule = "rule_" + std::to_string(i);
    f.severity = static_cast<model::Severity>(i % 3);
    f.message = "Finding number " + std::to_string(i) +
                " is a long sentence about what was seen in the job, long enough to wrap over more than one "
                "line of the page at this font size, which it does.";
    f.advice = "Advice number " + std::to_string(i) +
               " says what to do about it in two sentences. The second one is there to make the text longer still, "
               "so that it wraps as well.";
    report.findings.push_back(f);
  }
  std::string pdf = render::pdf_report(report);
  int pages = page_objects(pdf);
  CHECK(pages > 5);  // the findings alone need several pages, then 3 of charts
  if (poppler_missing()) return;
  TempPdf file(pdf);
  REQUIRE(pdfinfo_pages(file) == pages);
  std::string text = pdf_text(file);
  for (const auto& f : report.findings) {
    INFO(f.message);
    CHECK(text.find(f.message) != std::string::npos);
    CHECK(text.find(f.advice) != std::string::npos);
  }
  const std::string total = " of " + std::to_string(pages);
  for (int page = 1; page <= pages; ++page) {
    INFO("page " << page);
    CHECK(page_text(file, page).find("page " + std::to_string(page) + total) != std::string::npos);
  }
  // The last finding ends before the charts, which still start on a page of their own.
  CHECK(page_text(file, pages - 2).find("CPU use of job 4242") != std::string::npos);
  CHECK(page_text(file, pages - 3).find("Finding number 39") != std::string::npos);
}

TEST_CASE("a job name that is not valid UTF-8 still makes a PDF", "[pdf]") {
  auto report = test::four_node_job();
  report.usage.job.name = "bad\xff\xc3name\twith tab";
  std::string pdf = render::pdf_report(report);
  CHECK(ends_with_eof(pdf));
  if (poppler_missing()) return;
  TempPdf file(pdf);
  // Each byte that is not UTF-8 shows as U+FFFD, the tab as a space.
  CHECK(page_text(file, 1).find("bad\xEF\xBF\xBD\xEF\xBF\xBDname with tab") != std::string::npos);
}
