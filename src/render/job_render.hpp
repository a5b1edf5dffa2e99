// The faces of one JobReport: the API's JSON document (ARCHITECTURE.md §5
// keys), the job-end mail text (the original's layout, last line
// WARNING=true|false) and the terminal report.
#pragma once

#include "model/job_report.hpp"

#include <string>

namespace petricore::render {

// The job JSON of /api/v1/jobs/<id>/usage and `report --json`.
std::string job_json(const model::JobReport& report);

// The mail text; `pdf_url` is the link to the PDF report (may be empty).
std::string mail_text(const model::JobReport& report, const std::string& pdf_url);

// The terminal report; `tty` adds efficiency bars and colour.
std::string terminal_text(const model::JobReport& report, bool tty);

}  // namespace petricore::render
