#include "render/job_html.hpp"

#include "render/job_charts.hpp"
#include "sample_jobs.hpp"

#include "catch.hpp"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

using namespace petricore;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Every http:// or https:// in the page, with the text that follows it.
std::vector<std::string> absolute_urls(const std::string& html) {
  std::vector<std::string> urls;
  std::regex url(R"(https?://[^"'<>\s]*)", std::regex::icase);
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator(); ++it)
    urls.push_back(it->str());
  return urls;
}

// Where a developer wants to look at the page in a browser:
// PETRICORE_HTML_OUT=/tmp/browser build/test/unit/unit_tests '[html]'
void keep(const std::string& name, const std::string& html) {
  if (const char* dir = std::getenv("PETRICORE_HTML_OUT")) std::ofstream(std::string(dir) + "/" + name) << html;
}

render::IndexPage sample_index(const std::string& base) {
  render::IndexPage page;
  page.base_url = base;
  page.routes = {
      {"/", "this page", base + "/"},
      {"/api/v1/jobs/{jobid}/usage", "job JSON", base + "/api/v1/jobs/12345/usage"},
      {"/plot/{jobid}/{metric}", "PNG line chart <of one metric>", base + "/plot/12345/jobs_cpu_percent"},
      {"/jobs/{jobid}", "HTML job page", base + "/jobs/12345"},
      {"/healthz", "liveness", ""},
  };
  return page;
}

}  // namespace

TEST_CASE("html escape of markup, quotes and bytes that are not UTF-8", "[html]") {
  CHECK(render::html_escape("<a href=\"x\">Tom & Jerry's</a>") ==
        "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
  CHECK(render::html_escape("caf\xC3\xA9 \xE2\x9C\x93") == "caf\xC3\xA9 \xE2\x9C\x93");
  CHECK(render::html_escape("bad \xFF byte") == "bad \xEF\xBF\xBD byte");
  CHECK(render::html_escape("overlong \xC0\xAF") == "overlong \xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(render::html_escape(std::string("nul \0 bell \a", 12)) == "nul \xEF\xBF\xBD bell \xEF\xBF\xBD");
  CHECK(render::html_escape("tab\tline\n") == "tab\tline\n");
  CHECK(render::html_escape("") == "");
}

TEST_CASE("job page escapes the job name, user and account", "[html]") {
  auto report = test::four_node_job();
  report.usage.job.name = "<script>alert(1)</script>";
  report.usage.job.user = "al\"ice";
  report.usage.job.account = "<b>acct</b>";
  report.findings.front().message = "<img src=x onerror=alert(2)>";
  std::string html = render::job_page_html(report, {});
  CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("al&quot;ice") != std::string::npos);
  CHECK(html.find("&lt;b&gt;acct&lt;/b&gt;") != std::string::npos);
  CHECK(html.find("&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<b>acct") == std::string::npos);
  CHECK(html.find("<img src=x") == std::string::npos);
}

TEST_CASE("job page is one self-contained HTML5 document without script", "[html]") {
  auto report = test::four_node_job();
  std::string html = render::job_page_html(report, {});
  keep("job.html", html);
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
  CHECK(count_of(html, "<title>") == 1);
  CHECK(html.find("<title>Job 4242 (cfd-run): petricore</title>") != std::string::npos);
  CHECK(count_of(html, "<style>") == 1);
  CHECK(count_of(html, "<meta charset=\"utf-8\">") == 1);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  CHECK(absolute_urls(html).empty());
  CHECK(html.find("system-ui") != std::string::npos);
  CHECK(html.find("@media print") != std::string::npos);
  // Closed like it was opened.
  CHECK(html.size() > 20);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
  CHECK(count_of(html, "<section") == count_of(html, "</section>"));
  CHECK(count_of(html, "<figure>") == count_of(html, "</figure>"));
}

TEST_CASE("job page heads with id, name, user, account and state, and summarises the job", "[html]") {
  auto report = test::four_node_job();
  std::string html = render::job_page_html(report, {});
  CHECK(html.find("<h1>Job 4242 <span class=\"name\">cfd-run</span></h1>") != std::string::npos);
  for (const char* fact : {"user <b>alice</b>", "account <b>def-alice</b>", "state <b>COMPLETED</b>"})
    CHECK(html.find(fact) != std::string::npos);
  // The same figures as the mail and the terminal report.
  for (const char* figure :
       {"node[01-04] (4 nodes): 32 CPUs, 64000 MB", "01:00:00 of 04:00:00 asked for (25 %)",
        "1400 % of one CPU on average", "(43.8 % of the 32 allocated CPUs)", "Cores used", "of 32",
        "10000 MB resident at peak of 64000 MB allocated (15.6 %)", "2400 MB in 19200 reads", "not used",
        "bash 4, solver 32", "48 on average", "2026-11-29T18:09:15Z to 2026-11-29T19:09:15Z"}) {
    INFO(figure);
    CHECK(html.find(figure) != std::string::npos);
  }
}

TEST_CASE("job page holds every finding with its severity word, message and advice", "[html]") {
  auto report = test::four_node_job();
  REQUIRE(!report.findings.empty());
  std::string html = render::job_page_html(report, {});
  for (const auto& f : report.findings) {
    INFO(f.rule);
    CHECK(html.find(render::html_escape(f.message)) != std::string::npos);
    CHECK(html.find(render::html_escape(f.advice)) != std::string::npos);
    const std::string severity = model::severity_name(f.severity);
    CHECK(html.find("<li class=\"sev-" + severity + "\"><span class=\"badge\">" + severity + "</span>") !=
          std::string::npos);
  }
  CHECK(count_of(html, "<li class=\"sev-") == report.findings.size());
}

TEST_CASE("job page without findings says so", "[html]") {
  auto report = test::four_node_job();
  report.findings.clear();
  report.warning = false;
  std::string html = render::job_page_html(report, {});
  CHECK(html.find("<p>No findings.</p>") != std::string::npos);
}

TEST_CASE("job page draws the charts inline as SVG images and links their PNGs", "[html]") {
  auto report = test::four_node_job();
  std::string html = render::job_page_html(report, {});
  // Four line charts and two pies, each a data: SVG.
  CHECK(count_of(html, "<img src=\"data:image/svg+xml;base64,") == 6);
  CHECK(count_of(html, "<img ") == 6);
  const auto& metrics = render::chart_metrics();
  REQUIRE(metrics.size() >= 4);
  for (std::size_t i = 0; i < 4; ++i) {
    INFO(metrics[i].metric);
    CHECK(html.find("href=\"/plot/4242/" + metrics[i].metric + "\"") != std::string::npos);
    CHECK(html.find("href=\"/plot/4242/" + metrics[i].metric + "?format=svg\"") != std::string::npos);
  }
  CHECK(html.find("href=\"/pie/4242/\"") != std::string::npos);
  CHECK(html.find("href=\"/pie/4242/?format=svg\"") != std::string::npos);
  CHECK(html.find("href=\"/pie/4242/?of=cores\"") != std::string::npos);
  CHECK(html.find("href=\"/pie/4242/?of=cores&amp;format=svg\"") != std::string::npos);
  // CPU percent comes first.
  CHECK(metrics[0].metric == "jobs_cpu_percent");
  CHECK(html.find("/plot/4242/jobs_cpu_percent") < html.find("/pie/4242/"));
}

TEST_CASE("job page of a GPU job: the GPU rows and the GPU utilisation and memory charts inline", "[html]") {
  auto report = test::gpu_training_job();
  std::string html = render::job_page_html(report, {});
  keep("gpu.html", html);
  // CPU, memory, reads and writes, then GPU utilisation and GPU memory; the pies.
  CHECK(count_of(html, "<img src=\"data:image/svg+xml;base64,") == 8);
  for (const char* metric : {"jobs_gpu_utilization_percent", "jobs_gpu_memory_used_mb"}) {
    INFO(metric);
    CHECK(html.find("href=\"/plot/4400/" + std::string(metric) + "\"") != std::string::npos);
    CHECK(html.find("href=\"/plot/4400/" + std::string(metric) + "?format=svg\"") != std::string::npos);
  }
  // The other GPU series are linked as PNGs.
  CHECK(html.find("<a href=\"/plot/4400/jobs_gpu_power_watts\">GPU power</a>") != std::string::npos);
  for (const char* row : {"<th scope=\"row\">GPUs</th><td>gpu03: 0 1, utilisation 33.9 % on average per GPU, 90 % at "
                          "most</td>",
                          "<th scope=\"row\">GPU memory</th><td>21000 MB at peak of 81920 MB (25.6 %)</td>",
                          "<th scope=\"row\">GPU power</th><td>295.4 W on average, ",
                          "<th scope=\"row\">gpu03 GPU 0</th><td>37.7 % on average, 90 % at most; memory 12000 of "
                          "40960 MB at peak; 155.4 W on average</td>",
                          "<th scope=\"row\">gpu03 GPU 1</th>"}) {
    INFO(row);
    CHECK(html.find(row) != std::string::npos);
  }
  CHECK(html.find("gpu_efficiency") != std::string::npos);

  // Without GPUs, no GPU row and no GPU chart.
  std::string cpu_only = render::job_page_html(test::four_node_job(), {});
  CHECK(cpu_only.find("GPU") == std::string::npos);
}

TEST_CASE("job page of a job of which nothing is known says why in one paragraph, without charts", "[html]") {
  auto report = test::four_node_job();
  report.usage = analysis::summarize(report.usage.job, {}, std::nullopt);
  report.findings = analysis::evaluate_rules(report.usage, {});
  report.warning = model::has_warning(report.findings);
  REQUIRE(report.usage.no_usage());
  std::string html = render::job_page_html(report, {});
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("id=\"charts\"") == std::string::npos);
  CHECK(html.find("<p class=\"no-usage\">" + render::html_escape(report.usage.missing.front()) + "</p>") !=
        std::string::npos);
  CHECK(count_of(html, render::html_escape(report.usage.missing.front())) == 1);
  for (const char* row : {">CPU<", ">CPU time<", ">Memory<", ">Data read<", ">Missing figures"}) {
    INFO(row);
    CHECK(html.find(row) == std::string::npos);
  }
  CHECK(html.find("Nothing was measured, so little could be checked.") != std::string::npos);
}

TEST_CASE("job page marks the figures from Slurm accounting", "[html]") {
  auto report = test::accounting_only_job();
  std::string html = render::job_page_html(report, {});
  keep("job-accounting.html", html);
  CHECK(html.find("<th scope=\"row\">Metrics</th><td>no samples; figures from Slurm accounting</td>") !=
        std::string::npos);
  CHECK(html.find("90 % of one CPU on average (90 % of the 1 allocated CPU) (from Slurm accounting)") !=
        std::string::npos);
  CHECK(html.find("18 s (from Slurm accounting)") != std::string::npos);
  CHECK(html.find("700 MB resident at peak of 2000 MB allocated (35 %) (from Slurm accounting)") != std::string::npos);
  CHECK(html.find(">Data read<") == std::string::npos);  // nothing sampled
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("No samples were recorded for this job, so there is nothing to chart.") != std::string::npos);
}

TEST_CASE("job page shows resident memory and the reclaimable page cache apart", "[html]") {
  auto report = test::page_cache_job();
  std::string html = render::job_page_html(report, {});
  keep("job-page-cache.html", html);
  CHECK(html.find("<th scope=\"row\">Memory</th><td>3 MB resident at peak of 4000 MB allocated (0.1 %); with page "
                  "cache 516 MB (reclaimable)</td>") != std::string::npos);
  CHECK(html.find("<th scope=\"row\">Memory at peak</th><td>anon 2.5 MB, shmem 0.5 MB, page cache 510 MB "
                  "(reclaimable), kernel 3 MB</td>") != std::string::npos);
}

TEST_CASE("job page lists the figures that are missing and why", "[html]") {
  auto report = test::four_node_job();
  report.usage.series.erase("jobs_cpu_time_total");
  report.usage = analysis::summarize(report.usage.job, report.usage.series, std::nullopt);
  REQUIRE(report.usage.missing.size() == 1);
  std::string html = render::job_page_html(report, {});
  CHECK(html.find("<p>Missing figures:</p>\n<ul class=\"missing\">\n<li>" +
                  render::html_escape(report.usage.missing.front()) + "</li>\n</ul>") != std::string::npos);
  CHECK(test::four_node_job().usage.missing.empty());
  CHECK(render::job_page_html(test::four_node_job(), {}).find("Missing figures") == std::string::npos);
}

TEST_CASE("job page links the job-end mail only once the job has ended", "[html]") {
  auto report = test::four_node_job();
  CHECK(render::job_page_html(report, {}).find("href=\"/mail/4242\"") != std::string::npos);
  report.usage.job.end.reset();
  std::string html = render::job_page_html(report, {});
  CHECK(html.find("/mail/") == std::string::npos);
  CHECK(html.find("href=\"/pdf/4242\"") != std::string::npos);
}

TEST_CASE("job page links are relative without a base URL and absolute with one", "[html]") {
  auto report = test::four_node_job();
  std::string relative = render::job_page_html(report, {});
  CHECK(relative.find("href=\"/pdf/4242\"") != std::string::npos);
  CHECK(relative.find("href=\"/api/v1/jobs/4242/usage\"") != std::string::npos);
  CHECK(relative.find("href=\"/plot/4242/jobs_cpu_percent\"") != std::string::npos);

  const std::string base = "https://jobs.example.org:8443";
  std::string absolute = render::job_page_html(report, {base});
  CHECK(absolute.find("href=\"" + base + "/pdf/4242\"") != std::string::npos);
  CHECK(absolute.find("href=\"" + base + "/api/v1/jobs/4242/usage\"") != std::string::npos);
  CHECK(absolute.find("href=\"" + base + "/plot/4242/jobs_cpu_percent\"") != std::string::npos);
  CHECK(absolute.find("href=\"" + base + "/pie/4242/\"") != std::string::npos);
  // Every absolute URL is one of ours.
  auto urls = absolute_urls(absolute);
  CHECK(!urls.empty());
  for (const auto& url : urls) {
    INFO(url);
    CHECK(url.rfind(base + "/", 0) == 0);
  }
}

TEST_CASE("job ids with array and het suffixes stay readable in links", "[html]") {
  auto report = test::four_node_job();
  report.usage.job.job_id = "4242_7";
  CHECK(render::job_page_html(report, {}).find("href=\"/pdf/4242_7\"") != std::string::npos);
  report.usage.job.job_id = "4242+1";
  CHECK(render::job_page_html(report, {}).find("href=\"/pdf/4242+1\"") != std::string::npos);
}

TEST_CASE("index lists every route with its example link and the job form", "[html]") {
  for (const std::string base : {"", "http://web.example.org"}) {
    INFO(base);
    auto page = sample_index(base);
    std::string html = render::index_html(page);
    if (base.empty()) keep("index.html", html);
    CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
    CHECK(count_of(html, "<title>") == 1);
    CHECK(count_of(html, "<style>") == 1);
    CHECK(html.find("<script") == std::string::npos);
    for (const auto& route : page.routes) {
      INFO(route.pattern);
      CHECK(html.find("<code>" + render::html_escape(route.pattern) + "</code>") != std::string::npos);
      CHECK(html.find(render::html_escape(route.description)) != std::string::npos);
      if (!route.example_url.empty()) {
        // The link text is the path; the server is the same for every route.
        std::string path = route.example_url.substr(base.size());
        CHECK(std::regex_replace(html, std::regex("<wbr>"), "")
                  .find("<a href=\"" + route.example_url + "\">" + path + "</a>") != std::string::npos);
      }
    }
    CHECK(html.find("&lt;of one metric&gt;") != std::string::npos);
    CHECK(html.find("<form class=\"job\" method=\"get\" action=\"" + base + "/jobs/\">") != std::string::npos);
    CHECK(html.find("name=\"id\"") != std::string::npos);
    CHECK(html.find("type=\"submit\"") != std::string::npos);
    for (const auto& url : absolute_urls(html)) {
      INFO(url);
      CHECK((!base.empty() && url.rfind(base + "/", 0) == 0));
    }
  }
}

TEST_CASE("index escapes a hostile base URL", "[html]") {
  render::IndexPage page;
  page.base_url = "http://x\"><script>alert(1)</script>";
  page.routes = {{"/", "this page", page.base_url + "/"}};
  std::string html = render::index_html(page);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("&quot;&gt;&lt;script&gt;") != std::string::npos);
}
