// `petricore report JOBID`: the job analysis on the command line, as text,
// JSON, the job-end mail text or the PDF report, or sent as the job-end mail
// (text + PDF attachment) over SMTP.
#pragma once

#include "analysis/analysis_options.hpp"
#include "core/smtp_client.hpp"

#include <string>
#include <vector>

namespace petricore::report {

// The [smtp] section (and --smtp URL).
struct MailSettings {
  SmtpConfig smtp;
  std::string from;    // empty = "petricore@<host fqdn>"
  std::string domain;  // recipient <user>@<domain> when the directory has no mail for the user
};

struct ReportOptions {
  analysis::AnalysisOptions analysis;
  std::string job_id;
  bool json = false;
  bool mail = false;
  std::string pdf_file;  // --pdf FILE; "-" = stdout
  bool send_mail = false;
  std::vector<std::string> to;  // --to; empty = the job owner's address
  MailSettings mail_settings;
  std::string public_url;  // base of the PDF link in the mail
};

// 0 success; 2 bad input or unknown job; 1 a dependency failed.
int run_report(const ReportOptions& options);

// "Job 4242 (cfd-run) COMPLETED: 2 warnings": the subject of the job-end mail.
std::string mail_subject(const model::JobReport& report);

}  // namespace petricore::report
