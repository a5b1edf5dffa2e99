#include "report/report_command.hpp"

#include "report/report_io.hpp"

#include "analysis/analysis_stack.hpp"
#include "archive/archived_report.hpp"
#include "archive/shared_archive.hpp"
#include "core/atomic_file.hpp"
#include "core/log.hpp"
#include "core/startup_error.hpp"
#include "model/sluid.hpp"
#include "render/job_render.hpp"
#include "render/mail_message.hpp"
#include "render/pdf_report.hpp"
#include "sources/directory.hpp"
#include "sources/sluid_lookup.hpp"

#include <netdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <stdexcept>
#include <thread>

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

}  // namespace

int fail(const Error& error) {
  std::fprintf(stderr, "petricore: %s\n", error.message.c_str());
  return exit_code(error);
}

void write_stdout(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  std::fflush(stdout);
}

// core/atomic_file, so that a reader never sees half a PDF.
Result<bool> write_file(const std::string& path, const std::string& data) {
  if (path == "-") {
    if (!write_all(STDOUT_FILENO, data))
      return unavailable(std::string("cannot write stdout: ") + std::strerror(errno));
    return true;
  }
  AtomicWriteOptions options;
  options.sync = true;  // written once, read later: it must survive a crash
  const std::optional<AtomicWriteError> failed = write_file_atomically(path, data, options);
  if (!failed) return true;
  const char* what = failed->step == AtomicWriteError::Step::Rename ? "rename a temporary file to" : "write";
  return unavailable("cannot " + std::string(what) + " " + path + ": " + std::strerror(failed->error));
}

namespace {

std::string host_fqdn() {
  char host[HOST_NAME_MAX + 1] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_flags = AI_CANONNAME;
  addrinfo* info = nullptr;
  std::string name = host;
  if (::getaddrinfo(host, nullptr, &hints, &info) == 0) {
    if (info && info->ai_canonname && info->ai_canonname[0] != '\0') name = info->ai_canonname;
    ::freeaddrinfo(info);
  }
  return name;
}

std::string pdf_url_of(const std::string& public_url, const model::JobId& id) {
  if (public_url.empty()) return "";
  std::string url = public_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url + "/pdf/" + id.text();
}

}  // namespace

Result<std::vector<std::string>> recipients(const ReportOptions& options, const std::string& user) {
  if (!options.to.empty()) return options.to;
  const std::string& domain = options.mail_settings.domain;
  if (!options.analysis.ldap.uri.empty()) {
    std::unique_ptr<sources::Directory> directory = sources::make_ldap_directory(options.analysis.ldap);
    Result<sources::DirectoryUser> entry = directory->user(user);
    if (entry && entry->email && !entry->email->empty()) return std::vector<std::string>{*entry->email};
    if (!entry && entry.error().kind == Error::Kind::Unavailable) {
      if (domain.empty()) return entry.error();
      log::warning(entry.error().message + "; mailing " + user + "@" + domain + " instead");
    }
  }
  if (!domain.empty()) return std::vector<std::string>{user + "@" + domain};
  return bad_input("no recipient for user " + user + ": set [smtp] domain, configure [ldap], or pass --to");
}

std::string sender(const ReportOptions& options) {
  return options.mail_settings.from.empty() ? "petricore@" + host_fqdn() : options.mail_settings.from;
}

std::string public_base(const ReportOptions& options) {
  std::string url = options.public_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

namespace {

int send_report(const ReportOptions& options, const model::JobId& id, const model::JobReport& report) {
  const std::string& user = report.usage.job.user;
  Result<std::vector<std::string>> to = recipients(options, user);
  if (!to) return fail(to.error());

  render::MailMessage message;
  message.from = sender(options);
  message.to = *to;
  message.subject = mail_subject(report);
  const std::string pdf_url = pdf_url_of(options.public_url, id);
  message.text = render::mail_text(report, pdf_url);
  render::PdfOptions pdf_options;
  if (!options.public_url.empty()) {
    pdf_options.job_url = options.public_url;
    while (!pdf_options.job_url.empty() && pdf_options.job_url.back() == '/') pdf_options.job_url.pop_back();
    pdf_options.job_url += "/jobs/" + id.text();
  }
  message.attachments.push_back(
      {"job-" + id.text() + ".pdf", "application/pdf", render::pdf_report(report, pdf_options)});

  Result<SmtpSent> sent =
      send_mail(options.mail_settings.smtp, message.from, message.to, render::compose_mail(message));
  if (!sent) return fail(sent.error());
  std::string list;
  for (const auto& address : message.to) list += (list.empty() ? "" : ", ") + address;
  std::printf("sent the report of job %s to %s via %s\n", id.text().c_str(), list.c_str(), sent->server.c_str());
  std::fflush(stdout);
  return 0;
}

// The numeric id the archive keeps job `id` under: the record's JobIDRaw
// when accounting answered, else the id itself when it is a plain job (an
// array task's or a het component's raw id is known to accounting alone).
std::optional<std::int64_t> archive_key(const Result<model::JobReport>& report, const model::JobId& id) {
  if (!report) {
    if (id.array_task || id.het_component) return std::nullopt;
    return id.job;
  }
  return report->usage.job.numeric_raw_id();
}

// The job archive's report of a finished job that Prometheus no longer has
// samples of, or that accounting or Prometheus could not give (purged, down),
// as serve answers it; nullopt when there is none to give. Only an existing
// archive is read: this command never creates one.
std::optional<archive::ArchivedReport> from_archive(const ReportOptions& options,
                                                    const Result<model::JobReport>& report, const model::JobId& id) {
  if (report) {
    if (!report->usage.job.finished() || !report->usage.no_metrics()) return std::nullopt;
  } else if (report.error().kind != Error::Kind::NotFound && report.error().kind != Error::Kind::Unavailable) {
    return std::nullopt;
  }
  const std::optional<std::int64_t> key = archive_key(report, id);
  if (!key) return std::nullopt;
  sources::ArchiveConnector connector(options.archive.store);
  if (!connector.exists()) return std::nullopt;
  archive::SharedArchive shared(connector);
  auto kept = shared.with([&](sources::JobArchive& archive, sources::SqlDatabase&) { return archive.latest(*key); });
  if (!kept) {
    log::warning("job " + id.text() + ": the job archive: " + kept.error().message);
    return std::nullopt;
  }
  if (!*kept) return std::nullopt;
  auto drawn = archive::archived_report(**kept, options.analysis.analyzer.thresholds);
  if (!drawn) {
    log::warning(drawn.error().message);
    return std::nullopt;
  }
  // Prometheus failed: any record beats none. It had nothing: only one with samples.
  if (report && drawn->report.usage.no_metrics()) return std::nullopt;
  return std::move(*drawn);
}

}  // namespace

std::string mail_subject(const model::JobReport& report) {
  const model::JobRecord& job = report.usage.job;
  std::size_t warnings = 0;
  for (const auto& f : report.findings)
    if (f.severity != model::Severity::Info) ++warnings;
  std::string subject = "Job " + job.job_id;
  if (!job.name.empty()) subject += " (" + job.name + ")";
  subject += " " + (job.state.empty() ? std::string("ENDED") : job.state) + ": ";
  if (warnings == 0) return subject + "no warnings";
  return subject + std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings");
}

int run_report(const ReportOptions& options) {
  if (!options.user.empty() || !options.account.empty() || options.every_user) return run_fleet_report(options);
  if (options.job_id.empty()) throw StartupError("a job id is required (or --user, --account or --every-user)");
  // A SLUID (Slurm 26.05) stands for its numeric job id, looked up once the
  // stack (and its Prometheus client) exists.
  auto id = model::parse_job_id(options.job_id);
  const std::optional<std::string> sluid = id ? std::nullopt : model::parse_sluid(options.job_id);
  if (!id && !sluid) throw StartupError("not a Slurm job id or SLUID: '" + options.job_id + "'");
  const int outputs = int{options.json} + int{options.mail} + int{!options.pdf_file.empty()} + int{options.send_mail};
  if (outputs > 1) throw StartupError("--json, --mail, --pdf and --send-mail exclude each other");
  if (!options.to.empty() && !options.send_mail) throw StartupError("--to needs --send-mail");
  if (options.analysis.prometheus.url.empty()) throw StartupError("--prometheus URL is required");

  // The directory only when mailing: see recipients().
  analysis::AnalysisStack stack(options.analysis, analysis::AnalysisStack::WithDirectory::No);
  analysis::JobAnalyzer& analyzer = stack.analyzer;
  if (sluid) {
    Result<model::JobId> resolved = sources::SluidLookup(stack.prometheus).job_id(*sluid);
    if (!resolved) return fail(resolved.error());
    id = *resolved;
  }

  Result<model::JobReport> report = analyzer.analyze(*id);
  std::optional<std::string> archived_json;
  if (std::optional<archive::ArchivedReport> kept = from_archive(options, report, *id)) {
    report = std::move(kept->report);
    archived_json = std::move(kept->json);
  }
  // The sources' messages already name the job and where it was looked for.
  if (!report) return fail(report.error());
  if (options.send_mail && report->usage.job.finished() && !report->settled) {
    // Slurm's MailProg runs as the job ends, before the collector's final
    // readings are scraped: the mail waits for them ([prometheus] after_end).
    double ready = static_cast<double>(*report->usage.job.end) + analysis::after_end_seconds(options.analysis.analyzer);
    double wait = ready - static_cast<double>(std::time(nullptr));
    if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    report = analyzer.analyze(*id);
    if (!report) return fail(report.error());
  }
  if ((options.mail || options.send_mail) && !report->usage.job.finished()) {
    std::fprintf(stderr, "petricore: job %s is still running: the mail is written once it has ended\n",
                 id->text().c_str());
    return kExitUsage;
  }
  if (options.json) {
    write_stdout(archived_json ? *archived_json : render::job_json(*report));
  } else if (options.mail) {
    write_stdout(render::mail_text(*report, pdf_url_of(options.public_url, *id)));
  } else if (!options.pdf_file.empty()) {
    Result<bool> written = write_file(options.pdf_file, render::pdf_report(*report));
    if (!written) return fail(written.error());
  } else if (options.send_mail) {
    return send_report(options, *id, *report);
  } else {
    if (archived_json) std::fprintf(stderr, "petricore: job %s: from the job archive\n", id->text().c_str());
    write_stdout(render::terminal_text(*report, ::isatty(STDOUT_FILENO) == 1));
  }
  return 0;
}

}  // namespace petricore::report
