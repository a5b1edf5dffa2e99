#include "render/efficiency_render.hpp"

#include "catch.hpp"

#include <boost/beast/core/detail/base64.hpp>
#include <boost/json.hpp>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace petricore;
namespace json = boost::json;

namespace {

constexpr std::int64_t kNovember = 1'793'491'200;  // 2026-11-01T00:00:00Z
constexpr std::int64_t kDecember = 1'796'083'200;  // 2026-12-01T00:00:00Z
constexpr std::int64_t kDay = 86400;

// Two accounts' jobs in November: def-a ran 2 jobs (90 core-hours, 52.5
// used), the account with a hostile name 1 job whose CPU time is unknown.
model::FleetEfficiency sample() {
  model::FleetEfficiency e;
  e.by = model::EfficiencyGrouping::Account;
  e.since = kNovember;
  e.until = kDecember;
  e.total.jobs = 3;
  e.total.core_hours_allocated = 100;
  e.total.core_hours_used = 52.5;
  e.total.cpu_efficiency_percent = 100 * 52.5 / 90;
  e.total.core_hours_wasted = 37.5;
  e.total.memory_gb_hours_requested = 200;
  e.total.memory_gb_hours_used = 50.125;
  e.total.gpu_hours_allocated = 8;
  e.total.gpu_hours_idle = 6;
  e.total.jobs_by_finding = {{"cpu_efficiency", 2}, {"memory_overallocated", 1}};

  model::EfficiencyGroup a;
  a.name = "def-a";
  a.totals = e.total;
  a.totals.jobs = 2;
  a.totals.core_hours_allocated = 90;
  a.totals.memory_gb_hours_requested = 150;
  a.totals.memory_gb_hours_used = 40;
  a.totals.jobs_by_finding = {{"cpu_efficiency", 2}};
  model::EfficiencyGroup hostile;
  hostile.name = "<script>alert(1)</script>";
  hostile.totals.jobs = 1;
  hostile.totals.core_hours_allocated = 10;
  hostile.totals.memory_gb_hours_requested = 50;
  hostile.totals.memory_gb_hours_used = 10.125;
  hostile.totals.jobs_by_finding = {{"memory_overallocated", 1}};
  e.groups = {a, hostile};

  model::WastefulJob first;
  first.job_id = 123;
  first.display_id = "123_4";
  first.name = "<b>bad</b>";
  first.user = "alice";
  first.account = "def-a";
  first.partition = "cpu";
  first.end = kNovember + 3 * kDay + 3600;  // 2026-11-04T01:00:00Z
  first.core_hours_allocated = 64;
  first.core_hours_wasted = 30.25;
  first.cpu_efficiency_percent = 52.734375;
  model::WastefulJob second;
  second.job_id = 130;
  second.display_id = "130";
  second.name = "train";
  second.user = "bob";
  second.account = "def-a";
  second.partition = "gpu";
  second.end = kNovember + 5 * kDay;
  second.core_hours_allocated = 26;
  second.core_hours_wasted = 7.25;
  e.worst_jobs = {first, second};

  // Days 0 and 2 had jobs, day 1 none.
  model::EfficiencyPoint day0{kNovember, a.totals};
  model::EfficiencyPoint day2{kNovember + 2 * kDay, hostile.totals};
  e.over_time = {day0, day2};
  return e;
}

model::FleetEfficiency empty_period() {
  model::FleetEfficiency e;
  e.by = model::EfficiencyGrouping::User;
  e.since = kNovember;
  e.until = kDecember;
  e.user = "alice";
  return e;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

bool has_nan_or_inf(const std::string& text) {
  return std::regex_search(text, std::regex(R"(\b(nan|inf)\b)", std::regex::icase));
}

// The text between `open` and the next `close` after it.
std::string between(const std::string& text, const std::string& open, const std::string& close) {
  std::size_t start = text.find(open);
  if (start == std::string::npos) return "";
  std::size_t end = text.find(close, start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// RFC 4648 base64 decoded (Boost.Beast's decoder); nullopt unless every
// character up to the padding is base64.
std::optional<std::string> unbase64(const std::string& in) {
  namespace base64 = boost::beast::detail::base64;
  std::string out(base64::decoded_size(in.size()), '\0');
  auto [written, read] = base64::decode(out.data(), in.data(), in.size());
  if (in.size() % 4 != 0 || in.find_first_not_of('=', read) != std::string::npos) return std::nullopt;
  out.resize(written);
  return out;
}

std::vector<std::string> data_images(const std::string& html) {
  std::vector<std::string> images;
  const std::string prefix = "<img src=\"data:image/svg+xml;base64,";
  for (std::size_t at = html.find(prefix); at != std::string::npos; at = html.find(prefix, at + 1)) {
    std::size_t start = at + prefix.size();
    images.push_back(html.substr(start, html.find('"', start) - start));
  }
  return images;
}

bool have_tool(const char* name) {
  return std::system((std::string("command -v ") + name + " >/dev/null 2>&1").c_str()) == 0;
}

// pdfinfo's page count and pdftotext's text (white space folded) of `pdf`;
// -1 and "" without poppler-utils.
std::pair<int, std::string> poppler(const std::string& pdf) {
  if (!have_tool("pdfinfo") || !have_tool("pdftotext")) {
    WARN("poppler-utils (pdfinfo, pdftotext) not installed: the PDF's pages and text are not checked");
    return {-1, ""};
  }
  char name[] = "/tmp/petricore-efficiency-pdf-XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(name, std::ios::binary) << pdf;
  auto run = [](const std::string& command) {
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[4096];
    for (std::size_t n; pipe && (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    if (pipe) pclose(pipe);
    return out;
  };
  std::string info = run(std::string("pdfinfo '") + name + "' 2>&1");
  std::string text = run(std::string("pdftotext '") + name + "' - 2>&1");
  std::remove(name);
  std::smatch m;
  int pages = std::regex_search(info, m, std::regex("Pages:\\s+(\\d+)")) ? std::stoi(m[1]) : 0;
  std::string flat;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f';
    if (space && !flat.empty() && flat.back() == ' ') continue;
    flat += space ? ' ' : c;
  }
  return {pages, flat};
}

}  // namespace

TEST_CASE("efficiency JSON: every key, rounded numbers, unknown efficiency as null", "[efficiency_render]") {
  const std::string text = render::efficiency_json(sample());
  CHECK(text.back() == '\n');
  CHECK_FALSE(has_nan_or_inf(text));
  json::value doc = json::parse(text);
  const json::object& o = doc.as_object();

  std::vector<std::string> keys;
  for (const auto& member : o) keys.emplace_back(member.key());
  CHECK(keys == std::vector<std::string>{"by", "since", "until", "point_seconds", "total", "groups", "worst_jobs",
                                         "over_time"});
  CHECK(o.at("by") == "account");
  CHECK(o.at("since") == "2026-11-01T00:00:00Z");
  CHECK(o.at("until") == "2026-12-01T00:00:00Z");
  CHECK(o.at("point_seconds") == 86400);

  const json::object& total = o.at("total").as_object();
  keys.clear();
  for (const auto& member : total) keys.emplace_back(member.key());
  CHECK(keys ==
        std::vector<std::string>{"jobs", "core_hours", "cpu_efficiency", "memory_gb_hours", "gpu_hours", "findings"});
  CHECK(total.at("jobs").as_int64() == 3);
  // Whole numbers are integers, the rest 2 decimals.
  CHECK(total.at("core_hours").at("allocated").is_int64());
  CHECK(total.at("core_hours").at("allocated") == 100);
  CHECK(total.at("core_hours").at("used").as_double() == 52.5);
  CHECK(total.at("core_hours").at("wasted").as_double() == 37.5);
  CHECK(total.at("cpu_efficiency").as_double() == 58.33);
  CHECK(total.at("memory_gb_hours").at("requested") == 200);
  CHECK(total.at("memory_gb_hours").at("used").as_double() == 50.13);
  CHECK(total.at("gpu_hours").at("allocated") == 8);
  CHECK(total.at("gpu_hours").at("idle") == 6);
  CHECK(total.at("findings") == json::object{{"cpu_efficiency", 2}, {"memory_overallocated", 1}});

  const json::array& groups = o.at("groups").as_array();
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].at("name") == "def-a");
  CHECK(groups[0].at("jobs") == 2);
  CHECK(groups[0].at("cpu_efficiency").as_double() == 58.33);
  CHECK(groups[0].as_object().begin()->key() == "name");
  CHECK(groups[1].at("name") == "<script>alert(1)</script>");
  CHECK(groups[1].at("cpu_efficiency").is_null());
  CHECK(groups[1].at("core_hours").at("used") == 0);
  CHECK(groups[1].at("memory_gb_hours").at("used").as_double() == 10.13);

  const json::array& worst = o.at("worst_jobs").as_array();
  REQUIRE(worst.size() == 2);
  CHECK(worst[0] == json::value{{"jobid", 123},
                                {"display_id", "123_4"},
                                {"name", "<b>bad</b>"},
                                {"user", "alice"},
                                {"account", "def-a"},
                                {"partition", "cpu"},
                                {"end", "2026-11-04T01:00:00Z"},
                                {"core_hours_allocated", 64},
                                {"core_hours_wasted", 30.25},
                                {"cpu_efficiency", 52.73}});
  CHECK(worst[1].at("cpu_efficiency").is_null());

  const json::array& over_time = o.at("over_time").as_array();
  REQUIRE(over_time.size() == 2);
  CHECK(over_time[0].at("start") == "2026-11-01T00:00:00Z");
  CHECK(over_time[0].at("jobs") == 2);
  CHECK(over_time[1].at("start") == "2026-11-03T00:00:00Z");
  CHECK(over_time[1].at("cpu_efficiency").is_null());
}

TEST_CASE("efficiency JSON names the user and account filters only when set", "[efficiency_render]") {
  model::FleetEfficiency e = sample();
  json::value plain = json::parse(render::efficiency_json(e));
  CHECK_FALSE(plain.as_object().contains("user"));
  CHECK_FALSE(plain.as_object().contains("accounts"));
  e.user = "alice";
  e.accounts = {"def-a", "def-b"};
  json::value filtered = json::parse(render::efficiency_json(e));
  CHECK(filtered.at("user") == "alice");
  CHECK(filtered.at("accounts") == json::array{"def-a", "def-b"});
}

TEST_CASE("efficiency page: escaped names, links, one row per group, decodable charts", "[efficiency_render]") {
  render::EfficiencyPageLinks links;
  links.base_url = "https://p.example";
  links.by = "account";
  links.since = "30d";
  const std::string html = render::efficiency_html(sample(), links);
  if (const char* dir = std::getenv("PETRICORE_HTML_OUT")) std::ofstream(std::string(dir) + "/efficiency.html") << html;

  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count_of(html, "<style>") == 1);
  CHECK(count_of(html, "<section") == count_of(html, "</section>"));
  // Nothing a job or group name says becomes markup.
  CHECK(count_of(html, "<script") == 0);
  CHECK(count_of(html, "<b>bad") == 0);
  CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("&lt;b&gt;bad&lt;/b&gt;") != std::string::npos);

  // The period, the form and the JSON of the same view.
  CHECK(html.find("2026-11-01 to 2026-12-01") != std::string::npos);
  CHECK(html.find("<form class=\"period\" method=\"get\" action=\"https://p.example/efficiency\">") !=
        std::string::npos);
  CHECK(html.find("<option value=\"account\" selected>") != std::string::npos);
  CHECK(html.find("name=\"since\" type=\"text\" value=\"30d\"") != std::string::npos);
  CHECK(html.find("href=\"https://p.example/api/v1/efficiency?by=account&amp;since=30d\"") != std::string::npos);

  // One row per group, in order, the unknown efficiency said so.
  const std::string groups = between(html, "<section id=\"groups\">", "</section>");
  CHECK(count_of(groups, "<tr>") == 3);  // the header and two groups
  CHECK(groups.find("def-a") < groups.find("&lt;script&gt;"));
  CHECK(groups.find("value=\"58.3\"></meter>58.3 %") != std::string::npos);
  CHECK(groups.find("<span class=\"muted\">unknown</span>") != std::string::npos);
  CHECK(groups.find("low CPU efficiency: 2") != std::string::npos);

  // The worst jobs link their pages by number.
  const std::string worst = between(html, "<section id=\"worst\">", "</section>");
  CHECK(worst.find("<a href=\"https://p.example/jobs/123\">123_4</a>") != std::string::npos);
  CHECK(worst.find("<a href=\"https://p.example/jobs/130\">130</a>") != std::string::npos);
  CHECK(worst.find("<time datetime=\"2026-11-04T01:00:00Z\">2026-11-04 01:00</time>") != std::string::npos);

  // CPU, memory and (GPUs were allocated) GPU idle charts, each an SVG.
  auto images = data_images(html);
  CHECK(images.size() == 3);
  CHECK(count_of(html, "<img ") == images.size());
  for (const std::string& image : images) {
    std::optional<std::string> svg = unbase64(image);
    REQUIRE(svg);
    CHECK(svg->rfind("<?xml", 0) == 0);
    CHECK(svg->find("<svg") != std::string::npos);
    CHECK(svg->find("</svg>") != std::string::npos);
  }
}

TEST_CASE("efficiency page without GPUs has no GPU chart; relative links without a base", "[efficiency_render]") {
  model::FleetEfficiency e = sample();
  e.total.gpu_hours_allocated = e.total.gpu_hours_idle = 0;
  const std::string html = render::efficiency_html(e, {});
  CHECK(data_images(html).size() == 2);
  CHECK(html.find("<a href=\"/jobs/123\">") != std::string::npos);
  CHECK(html.find("action=\"/efficiency\"") != std::string::npos);
  CHECK(html.find("href=\"/api/v1/efficiency?by=account\"") != std::string::npos);
  CHECK(html.find("none allocated") != std::string::npos);
}

TEST_CASE("efficiency text: totals, groups, worst jobs and findings; colour only on a tty", "[efficiency_render]") {
  const std::string plain = render::efficiency_text(sample(), false);
  CHECK(plain.find('\033') == std::string::npos);
  CHECK_FALSE(has_nan_or_inf(plain));
  CHECK(plain.rfind("Efficiency of the jobs that ended 2026-11-01 to 2026-12-01, by account (all jobs)\n", 0) == 0);
  CHECK(plain.find("3 jobs") != std::string::npos);
  CHECK(plain.find("100 allocated, 52.5 used, 37.5 wasted") != std::string::npos);
  CHECK(plain.find("58.3 % efficiency") != std::string::npos);
  CHECK(plain.find("50.1 of 200 GB-hours requested used at peak (25.1 %)") != std::string::npos);
  CHECK(plain.find("8 allocated, 6 idle (75 %)") != std::string::npos);
  CHECK(plain.find("By account") != std::string::npos);
  CHECK(plain.find("  def-a     ") != std::string::npos);
  // The long name is cut to its column; its efficiency is unknown.
  CHECK(plain.find("<script>alert(1)</s\u2026") != std::string::npos);
  CHECK(plain.find("unknown") != std::string::npos);
  CHECK(plain.find("123_4") != std::string::npos);
  CHECK(plain.find("64 core-h, 30.2 wasted, CPU 52.7 %") != std::string::npos);
  CHECK(plain.find("      2  low CPU efficiency (cpu_efficiency)") != std::string::npos);
  CHECK(plain.find("█") == std::string::npos);

  const std::string tty = render::efficiency_text(sample(), true);
  CHECK(tty.find("\033[1;31m") != std::string::npos);  // 58 % is below the critical level
  CHECK(tty.find("█") != std::string::npos);
  CHECK(tty.find("\033[0m") != std::string::npos);
}

TEST_CASE("efficiency text keeps escape codes in names off the terminal", "[efficiency_render]") {
  model::FleetEfficiency e = sample();
  e.groups[0].name = "evil\033[2Jname";
  e.worst_jobs[0].name = "job\033]0;title\007";
  const std::string plain = render::efficiency_text(e, false);
  CHECK(plain.find('\033') == std::string::npos);
  CHECK(plain.find('\007') == std::string::npos);
}

TEST_CASE("the digest tells the user their figures, the advice and links to their own jobs", "[efficiency_render]") {
  model::FleetEfficiency e = sample();
  e.user = "alice";
  const std::string mail = render::digest_mail_text(e, "alice", "https://p.example/");
  CHECK_FALSE(has_nan_or_inf(mail));
  CHECK(mail.rfind("Hello alice,\n", 0) == 0);
  CHECK(mail.find("2026-11-01 to 2026-12-01") != std::string::npos);
  CHECK(mail.find("Jobs:            3\n") != std::string::npos);
  CHECK(mail.find("Core-hours:      100 allocated, 52.5 used, 37.5 wasted\n") != std::string::npos);
  CHECK(mail.find("CPU efficiency:  58.3 %\n") != std::string::npos);
  CHECK(mail.find("GPU-hours:       8 allocated, 6 idle (75 %)\n") != std::string::npos);
  // Below the critical level: the plain words say so.
  CHECK(mail.find("Only 58.3 % of the core-hours") != std::string::npos);
  CHECK(mail.find("- low CPU efficiency (2 jobs)\n") != std::string::npos);
  CHECK(mail.find(render::finding_advice("cpu_efficiency").substr(0, 30)) != std::string::npos);
  CHECK(mail.find("- memory over-requested (1 job)\n") != std::string::npos);
  CHECK(mail.find("Job 123_4 (<b>bad</b>), ended 2026-11-04") != std::string::npos);
  CHECK(mail.find("  https://p.example/jobs/123\n") != std::string::npos);
  // Bob's job is not alice's business.
  CHECK(mail.find("/jobs/130") == std::string::npos);
  CHECK(mail.find("train") == std::string::npos);
  CHECK(mail.find("All your figures: https://p.example/efficiency\n") != std::string::npos);
  std::istringstream lines(mail);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= 76);
  }
}

TEST_CASE("the digest's PDF is one or two pages of totals, groups, worst jobs and the chart", "[efficiency_render]") {
  const std::string pdf = render::efficiency_pdf(sample());
  CHECK(pdf.rfind("%PDF-", 0) == 0);
  CHECK(pdf.find("%%EOF") != std::string::npos);
  auto [pages, text] = poppler(pdf);
  if (pages < 0) return;
  CHECK((pages == 1 || pages == 2));
  CHECK(text.find("Efficiency by account") != std::string::npos);
  CHECK(text.find("2026-11-01 to 2026-12-01") != std::string::npos);
  CHECK(text.find("def-a") != std::string::npos);
  CHECK(text.find("<script>") != std::string::npos);  // text in a PDF, not markup
  CHECK(text.find("123_4") != std::string::npos);
  CHECK(text.find("CPU efficiency over time") != std::string::npos);
  CHECK(text.find("page 1 of " + std::to_string(pages)) != std::string::npos);
}

TEST_CASE("the digest's PDF stays within two pages however many groups and jobs", "[efficiency_render]") {
  model::FleetEfficiency e = sample();
  for (int g = 0; g < 40; ++g) e.groups.push_back({"acct-" + std::to_string(g), e.total});
  for (int j = 0; j < 20; ++j) e.worst_jobs.push_back(e.worst_jobs[0]);
  for (int d = 3; d < 30; ++d) e.over_time.push_back({kNovember + d * kDay, e.total});
  const std::string pdf = render::efficiency_pdf(e);
  CHECK(pdf.rfind("%PDF-", 0) == 0);
  auto [pages, text] = poppler(pdf);
  if (pages < 0) return;
  CHECK(pages == 2);
  CHECK(text.find("acct-" + std::to_string(render::kPdfGroups - 3)) != std::string::npos);
  CHECK(text.find("acct-" + std::to_string(render::kPdfGroups - 2) + " ") == std::string::npos);
  CHECK(text.find("17 more accounts with less waste are left out.") != std::string::npos);
  CHECK(count_of(text, "123_4") + count_of(text, "130 train") == render::kPdfWorstJobs);
  CHECK(text.find("12 more jobs are left out.") != std::string::npos);
}

TEST_CASE("a period without jobs: one clear sentence in every face, no NaN", "[efficiency_render]") {
  const model::FleetEfficiency e = empty_period();

  json::value doc = json::parse(render::efficiency_json(e));
  CHECK(doc.at("user") == "alice");
  CHECK(doc.at("total").at("jobs") == 0);
  CHECK(doc.at("total").at("cpu_efficiency").is_null());
  CHECK(doc.at("total").at("core_hours").at("wasted") == 0);
  CHECK(doc.at("groups").as_array().empty());
  CHECK(doc.at("over_time").as_array().empty());

  const std::string html = render::efficiency_html(e, {});
  CHECK_FALSE(has_nan_or_inf(html));
  CHECK(html.find("No jobs ended in this period for user alice") != std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<table") == std::string::npos);

  const std::string text = render::efficiency_text(e, true);
  CHECK_FALSE(has_nan_or_inf(text));
  CHECK(text.find("No jobs ended in this period.\n") != std::string::npos);

  const std::string mail = render::digest_mail_text(e, "alice", "");
  CHECK_FALSE(has_nan_or_inf(mail));
  CHECK(mail.find("None of your jobs ended in this period") != std::string::npos);
  CHECK(mail.find("http") == std::string::npos);

  const std::string pdf = render::efficiency_pdf(e);
  CHECK(pdf.rfind("%PDF-", 0) == 0);
  auto [pages, pdf_text] = poppler(pdf);
  if (pages < 0) return;
  CHECK(pages == 1);
  CHECK(pdf_text.find("No jobs ended in this period") != std::string::npos);
}

TEST_CASE("jobs whose CPU time is unknown: efficiency unknown, never a division by zero", "[efficiency_render]") {
  model::FleetEfficiency e = empty_period();
  e.total.jobs = 2;
  e.total.core_hours_allocated = 0;  // never started
  e.total.jobs_by_finding = {{"job_state", 2}};
  model::EfficiencyGroup g;
  g.name = "alice";
  g.totals = e.total;
  e.groups = {g};
  e.over_time = {{kNovember, e.total}};
  CHECK_FALSE(render::memory_used_percent(e.total));
  CHECK_FALSE(render::gpu_idle_percent(e.total));
  json::value doc = json::parse(render::efficiency_json(e));
  CHECK(doc.at("groups").at(0).at("cpu_efficiency").is_null());
  const std::string text = render::efficiency_text(e, true);
  CHECK_FALSE(has_nan_or_inf(text));
  CHECK(text.find("unknown efficiency") != std::string::npos);
  const std::string mail = render::digest_mail_text(e, "alice", "https://p.example");
  CHECK_FALSE(has_nan_or_inf(mail));
  CHECK(mail.find("CPU efficiency:  unknown\n") != std::string::npos);
  CHECK(mail.find("so their CPU efficiency cannot") != std::string::npos);
  const std::string html = render::efficiency_html(e, {});
  CHECK(html.find("<span class=\"muted\">unknown</span>") != std::string::npos);
  CHECK(render::efficiency_pdf(e).rfind("%PDF-", 0) == 0);
}

TEST_CASE("the over-time chart breaks its line over stretches without jobs", "[efficiency_render]") {
  render::LineChart chart = render::efficiency_chart(sample(), render::EfficiencyChart::Cpu);
  REQUIRE(chart.lines.size() == 1);
  const auto& points = chart.lines[0].points;
  REQUIRE(points.size() == 3);
  CHECK(points[0].time == kNovember + kDay / 2);
  CHECK(points[0].value == Approx(100 * 52.5 / 90));
  CHECK(std::isnan(points[1].value));  // day 1 had no job
  CHECK(points[2].time == kNovember + 2 * kDay + kDay / 2);
  CHECK(std::isnan(points[2].value));  // day 2's CPU time is unknown
  CHECK(chart.start == kNovember);
  CHECK(chart.end == kDecember);
  CHECK(chart.y_top_at_least == 100);
  render::LineChart memory = render::efficiency_chart(sample(), render::EfficiencyChart::Memory);
  CHECK(memory.lines[0].points[0].value == Approx(100 * 40.0 / 150));
  CHECK(memory.lines[0].points[2].value == Approx(100 * 10.125 / 50));
}

TEST_CASE("findings in words: known rules titled, unknown ones by name, most jobs first", "[efficiency_render]") {
  CHECK(render::finding_title("cpu_efficiency") == "low CPU efficiency");
  CHECK(render::finding_title("new_rule") == "new_rule");
  CHECK(render::finding_advice("new_rule").empty());
  CHECK_FALSE(render::finding_advice("gpu_unused").empty());
  model::EfficiencyTotals t;
  t.jobs_by_finding = {{"b", 3}, {"a", 3}, {"c", 5}, {"d", 0}};
  auto top = render::top_findings(t, 2);
  REQUIRE(top.size() == 2);
  CHECK(top[0] == std::pair<std::string, std::int64_t>{"c", 5});
  CHECK(top[1] == std::pair<std::string, std::int64_t>{"a", 3});
  CHECK(render::top_findings(t, 10).size() == 3);
}
