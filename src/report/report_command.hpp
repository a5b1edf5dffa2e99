// `petricore report JOBID`: the job analysis on the command line, as text,
// JSON, the job-end mail text or the PDF report, or sent as the job-end mail
// (text + PDF attachment) over SMTP.
#pragma once

#include "analysis/analysis_options.hpp"
#include "archive/archive_options.hpp"
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

  // The fleet view from the job archive instead of one job: one user's
  // jobs, one account's, or (with send_mail) a digest to every user.
  std::string user;
  std::string account;
  bool every_user = false;
  std::string since = "30d";  // core/time_text.hpp forms
  std::string until = "now";
  std::string by;  // user | account | partition; default: account for --user, user otherwise
  archive::ArchiveSettings archive;
};

// 0 success; 2 bad input or unknown job; 1 a dependency failed.
int run_report(const ReportOptions& options);

// fleet_report.cpp: `report --user U | --account A | --every-user`, the
// fleet view as text, JSON or PDF, or mailed as each user's digest. Same
// exit codes; with several digests, 1 when any could not be sent.
int run_fleet_report(const ReportOptions& options);

// "Job 4242 (cfd-run) COMPLETED: 2 warnings": the subject of the job-end mail.
std::string mail_subject(const model::JobReport& report);

}  // namespace petricore::report
