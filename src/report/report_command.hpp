// `petricore report JOBID`: the job analysis on the command line.
#pragma once

#include "analysis/analysis_options.hpp"

#include <string>

namespace petricore::report {

struct ReportOptions {
  analysis::AnalysisOptions analysis;
  std::string job_id;
  bool json = false;
  bool mail = false;
  std::string public_url;  // base of the PDF link in the mail
};

// 0 success; 2 bad input or unknown job; 1 a dependency failed.
int run_report(const ReportOptions& options);

}  // namespace petricore::report
