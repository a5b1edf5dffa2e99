#include "report/report_command.hpp"

#include "analysis/job_analyzer.hpp"
#include "render/job_render.hpp"
#include "sources/accounting_factory.hpp"
#include "sources/prometheus_client.hpp"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace petricore::report {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int exit_code(const Error& error) {
  switch (error.kind) {
    case Error::Kind::BadInput:
    case Error::Kind::NotFound:
    case Error::Kind::NotFinished:
    case Error::Kind::Forbidden:
      return kExitUsage;
    case Error::Kind::Unavailable:
      return kExitFailure;
  }
  return kExitFailure;
}

void write_stdout(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace

int run_report(const ReportOptions& options) {
  auto id = analysis::parse_job_id(options.job_id);
  if (!id) throw std::invalid_argument("not a Slurm job id: '" + options.job_id + "'");
  if (options.json && options.mail) throw std::invalid_argument("--json and --mail exclude each other");
  if (options.analysis.prometheus.url.empty()) throw std::invalid_argument("--prometheus URL is required");

  sources::PrometheusClient prometheus(options.analysis.prometheus);
  std::unique_ptr<sources::AccountingSource> accounting =
      sources::make_accounting(options.analysis.accounting, prometheus);
  analysis::JobAnalyzer analyzer(*accounting, prometheus, options.analysis.analyzer);

  Result<analysis::JobReport> report = analyzer.analyze(*id);
  if (!report) {
    // The sources' messages already name the job and where it was looked for.
    std::fprintf(stderr, "petricore: %s\n", report.error().message.c_str());
    return exit_code(report.error());
  }
  if (options.json) {
    write_stdout(render::job_json(*report));
  } else if (options.mail) {
    if (!report->usage.job.finished()) {
      std::fprintf(stderr, "petricore: job %s is still running: the mail is written once it has ended\n",
                   id->text().c_str());
      return kExitUsage;
    }
    std::string pdf_url;
    if (!options.public_url.empty()) {
      pdf_url = options.public_url;
      if (pdf_url.back() != '/') pdf_url += '/';
      pdf_url += "pdf/" + id->text();
    }
    write_stdout(render::mail_text(*report, pdf_url));
  } else {
    write_stdout(render::terminal_text(*report, ::isatty(STDOUT_FILENO) == 1));
  }
  return 0;
}

}  // namespace petricore::report
