// `petricore report --user U | --account A | --every-user`: the fleet view
// from the job archive in the terminal (or as JSON, or a PDF), or mailed as
// each user's periodic digest (text + a small PDF) for a monthly timer
// (packaging/systemd/petricore-digest.timer). Reads the archive only: no
// Prometheus, no accounting.
#include "archive/shared_archive.hpp"
#include "core/smtp_client.hpp"
#include "core/startup_error.hpp"
#include "core/time_text.hpp"
#include "model/job_id.hpp"
#include "render/efficiency_render.hpp"
#include "render/mail_message.hpp"
#include "report/report_command.hpp"
#include "report/report_io.hpp"
#include "sources/archive_efficiency.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace petricore::report {
namespace {

// The digest of `user` (their jobs in the query's period and accounts) to
// their address. 0 sent; else the exit code of the failure, said.
int send_digest(const ReportOptions& options, archive::SharedArchive& archive, sources::EfficiencyQuery query,
                const std::string& user) {
  query.user = user;
  query.by = model::EfficiencyGrouping::Account;
  auto fleet = archive.with([&](sources::JobArchive&, sources::SqlDatabase& db) {
    return sources::fleet_efficiency(db, archive.cluster(), query);
  });
  if (!fleet) return fail(fleet.error());
  Result<std::vector<std::string>> to = recipients(options, user);
  if (!to) return fail(to.error());

  render::MailMessage message;
  message.from = sender(options);
  message.to = *to;
  message.subject = "Your Slurm jobs' efficiency, " + render::efficiency_period(*fleet);
  message.text = render::digest_mail_text(*fleet, user, public_base(options));
  message.attachments.push_back({"efficiency-" + user + ".pdf", "application/pdf", render::efficiency_pdf(*fleet)});
  Result<SmtpSent> sent =
      send_mail(options.mail_settings.smtp, message.from, message.to, render::compose_mail(message));
  if (!sent) return fail(sent.error());
  std::string list;
  for (const auto& address : message.to) list += (list.empty() ? "" : ", ") + address;
  std::printf("sent the efficiency digest of user %s (%lld jobs) to %s via %s\n", user.c_str(),
              static_cast<long long>(fleet->total.jobs), list.c_str(), sent->server.c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace

int run_fleet_report(const ReportOptions& options) {
  const int scopes = int{!options.user.empty()} + int{!options.account.empty()} + int{options.every_user};
  if (scopes > 1) throw StartupError("--user, --account and --every-user exclude each other");
  if (!options.job_id.empty()) throw StartupError("a job id and --user, --account or --every-user exclude each other");
  if (options.every_user && !options.send_mail) throw StartupError("--every-user is for --send-mail (the digests)");
  if (!options.user.empty() && !model::valid_user_name(options.user))
    throw StartupError("--user must be a user name, not '" + options.user + "'");
  if (!options.account.empty() && !model::valid_user_name(options.account))
    throw StartupError("--account must be an account name, not '" + options.account + "'");
  const int outputs = int{options.json} + int{!options.pdf_file.empty()} + int{options.send_mail};
  if (outputs > 1) throw StartupError("--json, --pdf and --send-mail exclude each other");
  if (options.mail) throw StartupError("--mail prints one job's mail: use --send-mail for the digests");
  if (!options.to.empty() && !options.send_mail) throw StartupError("--to needs --send-mail");

  sources::EfficiencyQuery query;
  const std::string by = !options.by.empty() ? options.by : !options.user.empty() ? "account" : "user";
  auto grouping = model::parse_grouping(by);
  if (!grouping) throw StartupError("--by must be user, account or partition, not '" + by + "'");
  query.by = *grouping;
  const std::int64_t now = epoch_seconds();
  query.since = time_point_option("--since", options.since, now);
  query.until = time_point_option("--until", options.until, now);
  if (query.since >= query.until) throw StartupError("--since must be before --until");
  if (!options.user.empty()) query.user = options.user;
  if (!options.account.empty()) query.accounts = {options.account};

  sources::ArchiveConnector connector(options.archive.store);
  if (!connector.enabled()) throw StartupError("[archive] store is none: the fleet view reads the job archive");
  // A reader never creates the archive: the file would belong to its user.
  if (!connector.exists())
    return fail(unavailable("no job archive: " + connector.describe() +
                            " does not exist (petricore serve's archiver or petricore archive fills it)"));
  archive::SharedArchive archive(connector);

  if (options.send_mail) {
    if (!options.user.empty()) return send_digest(options, archive, query, options.user);
    // Every user with jobs in the period (and the account): one digest each.
    query.by = model::EfficiencyGrouping::User;
    auto users = archive.with([&](sources::JobArchive&, sources::SqlDatabase& db) {
      return sources::fleet_efficiency(db, archive.cluster(), query);
    });
    if (!users) return fail(users.error());
    int worst = 0;
    std::size_t failed = 0;
    for (const model::EfficiencyGroup& group : users->groups) {
      const int code = send_digest(options, archive, query, group.name);
      if (code != 0) ++failed;
      worst = std::max(worst, code == 0 ? 0 : 1);
    }
    std::printf("%zu digests sent, %zu failed\n", users->groups.size() - failed, failed);
    return worst;
  }

  auto fleet = archive.with([&](sources::JobArchive&, sources::SqlDatabase& db) {
    return sources::fleet_efficiency(db, archive.cluster(), query);
  });
  if (!fleet) return fail(fleet.error());
  if (options.json) {
    write_stdout(render::efficiency_json(*fleet));
  } else if (!options.pdf_file.empty()) {
    Result<bool> written = write_file(options.pdf_file, render::efficiency_pdf(*fleet));
    if (!written) return fail(written.error());
  } else {
    write_stdout(render::efficiency_text(*fleet, ::isatty(STDOUT_FILENO) == 1));
  }
  return 0;
}

}  // namespace petricore::report
