// The HTML pages of serve: the index (what petricore is, a job-id form, the
// routes with working example links) and a job's page (summary, findings with
// advice, the charts inline as SVG). Self-contained: no external script,
// font, style or image, no script at all; one inline <style>. The charts are
// <img> elements with data:image/svg+xml URIs (no request; a Content-
// Security-Policy must allow img-src data:).
#pragma once

#include "model/job_report.hpp"

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
  std::string base_url;  // "" = relative links; the job form GETs <base>/jobs/?id=<id>
  std::vector<IndexRoute> routes;
};

std::string index_html(const IndexPage& page);

struct JobPageLinks {
  std::string base_url;  // "" = relative links ("/pdf/123")
};

// The job page: header (id, name, user, account, state; links to the PDF,
// the JSON and the mail), the summary (the figures of the mail and the
// terminal report), the findings (severity badge with its word, message,
// advice), then the charts: the first four of chart_metrics() that have
// series (CPU percent, memory, reads, writes) and the GPU utilisation and GPU
// memory charts of a job that has them, each linking its PNG and SVG
// routes, the two pies, and links to the PNGs of the other metrics. A chart
// whose metric has no series is left out. Throws std::runtime_error when
// cairo cannot be loaded.
std::string job_page_html(const model::JobReport& report, const JobPageLinks& links);

// Text escaped for HTML element content and (quoted) attribute values:
// & < > " ' become references; bytes that are not UTF-8 and C0 controls
// other than tab, LF and CR become U+FFFD.
std::string html_escape(std::string_view text);

}  // namespace petricore::render
