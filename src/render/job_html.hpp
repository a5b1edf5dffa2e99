// The HTML pages of serve: the index (what petricore is, a job-id form, the
// routes with working example links) and a job's page (summary, findings with
// advice, the charts inline as SVG). Self-contained: no external script,
// font, style or image; one inline <style>, no JavaScript needed.
#pragma once

#include "analysis/job_analyzer.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace petricore::render {

struct IndexRoute {
  std::string pattern;      // "/plot/{jobid}/{metric}"
  std::string description;  // what it answers
  std::string example_url;  // a working link, may be empty
};

struct IndexPage {
  std::string base_url;  // "" = relative links; the job form goes to <base>/jobs/<id>
  std::vector<IndexRoute> routes;
};

std::string index_html(const IndexPage& page);

struct JobPageLinks {
  std::string base_url;  // "" = relative links ("/pdf/123")
};

// The job page. Charts are drawn inline as SVG (chart.hpp); a chart whose
// metric has no series is left out. Throws std::runtime_error when cairo
// cannot be loaded.
std::string job_page_html(const analysis::JobReport& report, const JobPageLinks& links);

// Text escaped for HTML element content and attribute values.
std::string html_escape(std::string_view text);

}  // namespace petricore::render
