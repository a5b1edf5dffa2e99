// The job's PDF report (cairo PDF surface, A4 portrait): page 1 the summary
// (job, allocation, CPU, memory, I/O, GPUs) and the findings with their
// advice; then the charts of CPU percent, memory, reads and writes, and the
// two pies; every page has a "page N of M" footer. cairo embeds (subsets of)
// the fonts it uses.
#pragma once

#include "model/job_report.hpp"

#include <cstdint>
#include <string>

namespace petricore::render {

struct PdfOptions {
  std::int64_t generated_at = 0;  // epoch seconds printed in the header; 0 = now
  std::string job_url;            // link to the job page printed on page 1; may be empty
};

// The PDF file's bytes. Throws std::runtime_error when cairo cannot be
// loaded or fails (the message names it).
std::string pdf_report(const model::JobReport& report, const PdfOptions& options = {});

}  // namespace petricore::render
