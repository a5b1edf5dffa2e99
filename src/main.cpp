// The petricore executable: parses the command line and the config file,
// then dispatches to a subcommand. Nothing else lives here.
//
// Config file: TOML, one [section] per subcommand plus the shared sections
// [prometheus], [accounting], [accounting.db], [ldap], [smtp] and [rules]. Keys are
// the long option names; '_' and '-' are the same ("password_file").
// Command-line options win over the file.
#include "archive/archive_command.hpp"
#include "collect/collect_command.hpp"
#include "core/log.hpp"
#include "core/signals.hpp"
#include "core/startup_error.hpp"
#include "initdb/init_db_command.hpp"
#include "petricore_version.hpp"
#include "report/report_command.hpp"
#include "serve/serve_command.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

using petricore::analysis::AnalysisOptions;

// TOML as CLI11 reads it, with '_' in keys read as '-', so both
// `password_file` and `password-file` name the --password-file option.
class TomlConfig : public CLI::ConfigTOML {
 public:
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    std::vector<CLI::ConfigItem> items = CLI::ConfigTOML::from_config(input);
    for (auto& item : items) std::replace(item.name.begin(), item.name.end(), '_', '-');
    return items;
  }
};

void add_collect(CLI::App& app, petricore::collect::CollectOptions& o) {
  CLI::App* collect = app.add_subcommand("collect", "Export per-job metrics of this node's Slurm jobs (node daemon)");
  collect->add_flag("--once", o.once,
                    "Take one measurement, print the metrics to stdout and exit. CPU percent is measured "
                    "over --once-window seconds between two passes");
  collect->add_option("--once-window", o.once_window, "Seconds between the two passes of --once")
      ->capture_default_str();
  collect->add_option("--listen", o.listen,
                      "Serve /metrics on HOST:PORT or :PORT (default :9966 when no other sink is given)");
  collect->add_option(
      "--push", o.push_url,
      "Pushgateway base URL, e.g. http://localhost:9091 (PUT each interval, DELETE on stop). A URL with "
      "user:password@ belongs in the config file: the command line is visible in ps");
  collect->add_option("--push-timeout", o.push_timeout, "Seconds before a Pushgateway request is abandoned")
      ->capture_default_str();
  collect->add_option("--textfile", o.textfile,
                      "Write the metrics to this file each interval (atomic rename), e.g. for node_exporter");
  collect->add_option("--interval", o.interval, "Seconds between full passes")->capture_default_str();
  collect
      ->add_option("--watch-interval", o.watch_interval,
                   "Seconds between the light passes that catch job starts and ends (cgroup counters only, no "
                   "/proc walk; 0 = off)")
      ->capture_default_str();
  collect->add_option("--pass-timeout", o.pass_timeout,
                      "Seconds a full pass may take (default: --interval): the processes' /proc reads, which a hung "
                      "filesystem can block, run on reader threads and stop within it; the processes left out are "
                      "counted in petricore_collect_skipped_total and their jobs keep their cgroup numbers");
  collect->add_option("--linger", o.linger,
                      "Seconds an ended job's final series stay exported (default 2 x --interval)");
  collect->add_option("--instance", o.instance, "Value of the instance label (default: short host name)");
  collect->add_option("--cgroup-root", o.cgroup_root, "Where the cgroup hierarchies are mounted")
      ->capture_default_str();
  collect->add_option("--proc-root", o.proc_root, "Where procfs is mounted")->capture_default_str();
  collect->add_option("--layout", o.layout, "Job cgroup layout: auto, slurm-v1, slurm-v2 or pattern")
      ->capture_default_str();
  collect->add_option("--job-pattern", o.job_pattern,
                      "With --layout pattern: regex over cgroup paths relative to --cgroup-root, with a named group "
                      "(?<job>...) and optionally (?<uid>...)");
  collect->add_option("--scratch-prefix", o.scratch_prefixes, "Scratch file system prefix (repeatable)")
      ->capture_default_str();
  collect->add_option("--exclude-uid-file", o.exclude_uid_file, "File of UIDs, one per line, whose jobs are skipped");
  collect
      ->add_option("--max-proc-names", o.max_proc_names,
                   "jobs_thread_count names per job; the rest are summed as proc_name=\"other\"")
      ->capture_default_str();
  collect
      ->add_option("--nvml-library", o.nvml_library,
                   "NVIDIA's NVML, loaded on first use for the jobs_gpu_* metrics (a path or a soname; none = off)")
      ->capture_default_str();
  collect->add_option("--rocm-smi-library", o.rocm_smi_library,
                      "AMD's ROCm SMI, loaded on first use for the jobs_gpu_* metrics (a path or a soname; none = "
                      "off; default librocm_smi64.so.7, .6 or .5, the first found)");
}

// The shared sections live in hidden subcommands that only the config file
// fills; the matching command-line flags of serve and report are separate
// options merged over them after parsing (so the command line wins).
struct SharedSections {
  AnalysisOptions file;  // what the config file says
  CLI::App* prometheus = nullptr;
  CLI::App* accounting = nullptr;
  CLI::App* db = nullptr;
  CLI::App* ldap = nullptr;
  CLI::App* rules = nullptr;
};

void add_shared_sections(CLI::App& app, SharedSections& s) {
  AnalysisOptions& o = s.file;
  s.prometheus = app.add_subcommand("prometheus", "")->group("");
  s.prometheus->add_option("--url", o.prometheus.url);
  s.prometheus->add_option("--timeout", o.prometheus.timeout_seconds);
  s.prometheus->add_option("--step", o.analyzer.min_step_seconds);
  s.prometheus->add_option("--after-end", o.analyzer.after_end_seconds);

  s.accounting = app.add_subcommand("accounting", "")->group("");
  s.accounting->add_option("--source", o.accounting.source);
  s.accounting->add_option("--sacct", o.accounting.sacct);
  s.accounting->add_option("--sacct-timeout", o.accounting.sacct_timeout_seconds);
  s.db = s.accounting->add_subcommand("db", "")->group("");
  s.db->add_option("--host", o.accounting.db.host);
  s.db->add_option("--port", o.accounting.db.port);
  s.db->add_option("--socket", o.accounting.db.socket);
  s.db->add_option("--user", o.accounting.db.user);
  s.db->add_option("--password-file", o.accounting.db.password_file);
  s.db->add_option("--database", o.accounting.db.database);
  s.db->add_option("--view", o.accounting.db.view);
  s.db->add_option("--timeout", o.accounting.db.timeout_seconds);

  s.ldap = app.add_subcommand("ldap", "")->group("");
  s.ldap->add_option("--uri", o.ldap.uri);
  s.ldap->add_option("--base", o.ldap.base);
  s.ldap->add_option("--bind-dn", o.ldap.bind_dn);
  s.ldap->add_option("--password-file", o.ldap.password_file);
  s.ldap->add_option("--user-filter", o.ldap.user_filter);
  s.ldap->add_option("--group-filter", o.ldap.group_filter);
  s.ldap->add_option("--mail-attribute", o.ldap.mail_attribute);
  s.ldap->add_option("--timeout", o.ldap.timeout_seconds);

  auto& t = o.analyzer.thresholds;
  s.rules = app.add_subcommand("rules", "")->group("");
  s.rules->add_option("--min-runtime", t.min_runtime_seconds);
  s.rules->add_option("--cpu-efficiency-critical", t.cpu_efficiency_critical);
  s.rules->add_option("--cpu-efficiency-warning", t.cpu_efficiency_warning);
  s.rules->add_option("--cpu-stability-ratio", t.cpu_stability_ratio);
  s.rules->add_option("--core-imbalance-ratio", t.core_imbalance_ratio);
  s.rules->add_option("--serial-low", t.serial_low);
  s.rules->add_option("--serial-high", t.serial_high);
  s.rules->add_option("--memory-overallocated-ratio", t.memory_overallocated_ratio);
  s.rules->add_option("--memory-request-factor", t.memory_request_factor);
  s.rules->add_option("--memory-request-min-mb", t.memory_request_min_mb);
  s.rules->add_option("--memory-near-limit-ratio", t.memory_near_limit_ratio);
  s.rules->add_option("--scratch-min-io-mb", t.scratch_min_io_mb);
  s.rules->add_option("--small-io-mb-per-file", t.small_io_mb_per_file);
  s.rules->add_option("--small-io-min-files", t.small_io_min_files);
  s.rules->add_option("--threads-per-cpu", t.threads_per_cpu);
  s.rules->add_option("--threads-ignore", t.threads_ignore);
  s.rules->add_option("--time-critical-ratio", t.time_critical_ratio);
  s.rules->add_option("--time-warning-ratio", t.time_warning_ratio);
  s.rules->add_option("--gpu-efficiency-critical", t.gpu_efficiency_critical);
  s.rules->add_option("--gpu-efficiency-warning", t.gpu_efficiency_warning);
  s.rules->add_option("--gpu-memory-low-ratio", t.gpu_memory_low_ratio);
  s.rules->add_option("--gpu-utilization-metric", o.analyzer.gpu_utilization_metric);
  s.rules->add_option("--gpu-instance-label", o.analyzer.gpu_instance_label);
  s.rules->add_option("--gpu-index-label", o.analyzer.gpu_index_label);
}

using Merges = std::vector<std::pair<CLI::Option*, std::function<void(AnalysisOptions& to, AnalysisOptions& from)>>>;

// The command-line flags serve and report share. Each is bound to `cli`, a
// copy of its own, and remembered in `merges` so that merge_analysis can lay
// what the command line gave over what the config file said.
void add_analysis_flags(CLI::App* sub, AnalysisOptions& cli, Merges& merges) {
  auto flag = [&](const std::string& name, auto member, const std::string& help) {
    CLI::Option* opt = sub->add_option(name, member(cli), help);
    merges.emplace_back(opt, [member](AnalysisOptions& to, AnalysisOptions& from) { member(to) = member(from); });
  };
  flag(
      "--prometheus", [](AnalysisOptions& o) -> std::string& { return o.prometheus.url; },
      "Prometheus (or Thanos, VictoriaMetrics) base URL, e.g. http://prometheus:9090. A URL with "
      "user:password@ belongs in the config file: the command line is visible in ps");
  flag(
      "--prometheus-timeout", [](AnalysisOptions& o) -> double& { return o.prometheus.timeout_seconds; },
      "Seconds before a Prometheus request is abandoned (default 10)");
  flag(
      "--accounting", [](AnalysisOptions& o) -> std::string& { return o.accounting.source; },
      "Where job owners and times come from: auto, sacct, db or prometheus (default auto)");
  flag(
      "--sacct", [](AnalysisOptions& o) -> std::string& { return o.accounting.sacct; },
      "Path of sacct (default: sacct on PATH)");
  flag(
      "--db-host", [](AnalysisOptions& o) -> std::string& { return o.accounting.db.host; }, "Accounting DB host (TCP)");
  flag(
      "--db-port", [](AnalysisOptions& o) -> unsigned& { return o.accounting.db.port; }, "Accounting DB port");
  flag(
      "--db-socket", [](AnalysisOptions& o) -> std::string& { return o.accounting.db.socket; },
      "Accounting DB Unix socket");
  flag(
      "--db-user", [](AnalysisOptions& o) -> std::string& { return o.accounting.db.user; },
      "Accounting DB user (default petricore)");
  flag(
      "--db-password-file", [](AnalysisOptions& o) -> std::string& { return o.accounting.db.password_file; },
      "File holding the accounting DB password");
  flag(
      "--db-view", [](AnalysisOptions& o) -> std::string& { return o.accounting.db.view; },
      "The view init-db made (default user_job_view)");
  flag(
      "--ldap-uri", [](AnalysisOptions& o) -> std::string& { return o.ldap.uri; },
      "LDAP server, e.g. ldap://ldap:389 (users' mail and groups)");
  flag(
      "--ldap-base", [](AnalysisOptions& o) -> std::string& { return o.ldap.base; }, "LDAP search base");
  flag(
      "--ldap-bind-dn", [](AnalysisOptions& o) -> std::string& { return o.ldap.bind_dn; },
      "LDAP bind DN (default: anonymous)");
  flag(
      "--ldap-password-file", [](AnalysisOptions& o) -> std::string& { return o.ldap.password_file; },
      "File holding the LDAP bind password");
}

// The config file's values, overridden by each flag the command line gave.
AnalysisOptions merge_analysis(const AnalysisOptions& file, AnalysisOptions& cli, const Merges& merges) {
  AnalysisOptions merged = file;
  for (const auto& [option, copy] : merges)
    if (option->count() > 0) copy(merged, cli);
  return merged;
}

struct ServeCli {
  petricore::serve::ServeOptions options;
  AnalysisOptions cli;
  Merges merges;
  CLI::App* app = nullptr;
};

void add_serve(CLI::App& app, ServeCli& s) {
  auto& o = s.options;
  s.app = app.add_subcommand("serve", "HTTP API and pages over Prometheus, accounting and LDAP (web host)");
  s.app->add_option("--listen", o.listen, "HOST:PORT to listen on")->capture_default_str();
  s.app->add_option("--public-url", o.public_url, "Base URL of links in pages and mail (default: from Host)");
  s.app->add_option("--auth", o.auth, "none (loopback only) or header (user name from a trusted proxy)")
      ->capture_default_str();
  s.app->add_option("--auth-header", o.auth_header, "Header carrying the user name")->capture_default_str();
  s.app->add_option("--trusted-proxy", o.trusted_proxies, "Address allowed to set the auth header (repeatable)")
      ->capture_default_str();
  s.app->add_option("--admin", o.admins, "User who may read every job (repeatable)");
  s.app->add_option("--admin-group", o.admin_group, "LDAP group whose members may read every job");
  s.app->add_option("--account-manager", o.account_managers,
                    "ACCOUNT:USER: USER may read ACCOUNT's jobs and fleet figures (repeatable)");
  s.app->add_option("--threads", o.threads, "I/O threads")->capture_default_str();
  s.app->add_option("--workers", o.workers, "Threads for Prometheus, DB, LDAP and sacct work")->capture_default_str();
  s.app->add_option("--cache-entries", o.cache_entries, "Finished jobs' results kept in memory")->capture_default_str();
  s.app->add_option("--cache-mb", o.cache_mb, "Memory those results may hold, in MiB (their samples feed the charts)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  s.app
      ->add_option("--rendered-cache-mb", o.rendered_cache_mb,
                   "Memory for finished jobs' drawn charts, PDFs and pages, in MiB (0 = draw every time)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  s.app->add_option("--max-request-bytes", o.max_request_bytes, "Largest request line + headers")
      ->capture_default_str();
  s.app->add_option("--max-header-count", o.max_header_count, "Most headers in a request")->capture_default_str();
  s.app->add_option("--idle-timeout", o.idle_timeout_seconds, "Seconds before an idle connection is closed")
      ->capture_default_str();
  s.app
      ->add_option("--max-connections", o.max_connections,
                   "Connections open at once; more get 503 (default 0: three quarters of the open-file limit)")
      ->capture_default_str();
  s.app->add_option("--user-recent-jobs", o.user_recent_jobs, "Jobs summarised in /api/v1/users/<u>")
      ->capture_default_str();
  add_analysis_flags(s.app, s.cli, s.merges);
}

// The [smtp] section, which only the config file fills (a hidden
// subcommand, like the shared sections); report's --smtp and --public-url
// win over its url and public_url.
struct SmtpSection {
  petricore::report::MailSettings file;
  std::string public_url;
};

void add_smtp_section(CLI::App& app, SmtpSection& s) {
  CLI::App* smtp = app.add_subcommand("smtp", "")->group("");
  smtp->add_option("--url", s.file.smtp.url);
  smtp->add_flag("--starttls", s.file.smtp.starttls);
  smtp->add_option("--user", s.file.smtp.user);
  smtp->add_option("--password-file", s.file.smtp.password_file);
  smtp->add_option("--timeout", s.file.smtp.timeout_seconds);
  smtp->add_option("--from", s.file.from);
  smtp->add_option("--domain", s.file.domain);
  smtp->add_option("--public-url", s.public_url);
}

struct ReportCli {
  petricore::report::ReportOptions options;
  AnalysisOptions cli;
  Merges merges;
  CLI::App* app = nullptr;
  std::string smtp_url;
  CLI::Option* smtp_option = nullptr;
  CLI::Option* public_url_option = nullptr;
};

void add_report(CLI::App& app, ReportCli& r) {
  auto& o = r.options;
  r.app = app.add_subcommand("report", "The job analysis on the command line");
  r.app->add_option("jobid", o.job_id,
                    "Slurm job id: 123, 123_4 (array task), 123+1 (het job), or a SLUID (s5K1KKYAYG5D00)");
  r.app->add_option("--user", o.user, "The fleet view of this user's archived jobs instead of one job");
  r.app->add_option("--account", o.account, "The fleet view of this account's archived jobs");
  r.app->add_flag("--every-user", o.every_user,
                  "With --send-mail: each user with archived jobs in the period gets their digest");
  r.app
      ->add_option("--since", o.since,
                   "With --user/--account/--every-user: jobs that ended from this time (2026-11-01, UTC, or an "
                   "age: 30d)")
      ->capture_default_str();
  r.app->add_option("--until", o.until, "... up to this time")->capture_default_str();
  r.app->add_option("--by", o.by,
                    "Group the fleet view by user, account or partition (default: account for --user, else user)");
  r.app->add_flag("--json", o.json, "Print the API's job JSON");
  r.app->add_flag("--mail", o.mail, "Print the job-end mail text (last line WARNING=true|false)");
  r.app->add_option("--pdf", o.pdf_file, "Write the PDF report to FILE (atomically; - for stdout)");
  r.app->add_flag("--send-mail", o.send_mail,
                  "Mail the job-end text with the PDF attached over SMTP ([smtp]) to the job's owner: the LDAP mail "
                  "address, else <user>@[smtp] domain");
  r.app->add_option("--to", o.to, "With --send-mail: send to this address instead (repeatable)")
      ->allow_extra_args(false);  // "--to a@b 4242": 4242 is the job id
  r.smtp_option = r.app->add_option("--smtp", r.smtp_url,
                                    "SMTP server URL, e.g. smtp://127.0.0.1:2525 (default [smtp] url, else "
                                    "smtp://localhost:25). A URL with user:password@ belongs in the config "
                                    "file: the command line is visible in ps");
  r.public_url_option = r.app->add_option("--public-url", o.public_url,
                                          "Base URL of the PDF link in the mail (default [smtp] public_url)");
  add_analysis_flags(r.app, r.cli, r.merges);
}

struct ArchiveCli {
  petricore::archive::ArchiveCommandOptions options;
  AnalysisOptions cli;
  Merges merges;
  CLI::App* app = nullptr;
};

// `petricore archive` and the [archive] section serve's archiver reads: one
// subcommand, whose store keys the config file fills for both.
void add_archive(CLI::App& app, ArchiveCli& a) {
  auto& o = a.options;
  auto& s = o.settings;
  a.app = app.add_subcommand("archive",
                             "Fill the job archive with the jobs that ended (a backfill with --since, or carry on "
                             "from where the archive got, as serve's archiver does)");
  a.app->add_option("--since", o.since,
                    "Archive the jobs that ended from this time: 2026-11-01, 2026-11-01T12:00:00 (UTC) or an age "
                    "(30d, 12h); default: from the archive's watermark");
  a.app->add_option("--until", o.until, "... up to this time (default: now, less the analysis's after-end stretch)");
  a.app->add_flag("--quiet", o.quiet, "No progress lines, only the summary");
  a.app->add_option("--store", s.store.store, "Where the archive lives: sqlite, mariadb ([archive.db]) or none")
      ->capture_default_str();
  a.app->add_option("--path", s.store.path, "The SQLite archive file")->capture_default_str();
  a.app->add_option("--cluster", s.store.cluster, "Name the records are filed under (Slurm's ClusterName)")
      ->capture_default_str();
  a.app->add_option("--interval", s.interval_seconds, "serve: seconds between the archiver's passes (0 = off)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  a.app->add_option("--batch", s.batch, "Jobs listed, analysed and stored at a time")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  a.app
      ->add_option("--lookback", s.lookback_seconds,
                   "Seconds behind the watermark looked at again each pass (jobs accounting recorded late)")
      ->capture_default_str()
      ->check(CLI::Range(0, 30 * 86400));
  a.app->add_option("--backfill", s.backfill_seconds, "Seconds before now a new archive's watermark starts")
      ->capture_default_str()
      ->check(CLI::Range(0, 3660 * 86400));
  CLI::App* db = a.app->add_subcommand("db", "")->group("");
  db->add_option("--host", s.store.db.host);
  db->add_option("--port", s.store.db.port);
  db->add_option("--socket", s.store.db.socket);
  db->add_option("--user", s.store.db.user);
  db->add_option("--password-file", s.store.db.password_file);
  db->add_option("--database", s.store.db.database);
  db->add_option("--timeout", s.store.db.timeout_seconds);
  add_analysis_flags(a.app, a.cli, a.merges);
}

CLI::App* add_init_db(CLI::App& app, petricore::initdb::InitDbOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "init-db",
      "Create the petricore DB user, the user_job_view view on slurm_acct_db (SELECT only) and the job archive's "
      "database (admins, once)");
  sub->add_option("--cluster", o.cluster, "Slurm ClusterName (the view reads <cluster>_job_table)")->required();
  sub->add_option("--web-host", o.web_host, "Host the web app connects from ('petricore'@HOST)")->required();
  sub->add_option("--password-file", o.password_file, "File holding the new user's password (not needed with --drop)");
  sub->add_option("--db-host", o.db_host, "MariaDB host (TCP)");
  sub->add_option("--db-port", o.db_port, "MariaDB port")->capture_default_str();
  sub->add_option("--db-socket", o.db_socket, "MariaDB Unix socket (default: the client library's)");
  sub->add_option("--admin-user", o.admin_user, "Administrative account to connect as")->capture_default_str();
  sub->add_option("--admin-password-file", o.admin_password_file, "File holding the admin password");
  sub->add_option("--database", o.database, "Slurm accounting database")->capture_default_str();
  sub->add_option("--user", o.user, "Name of the user to create")->capture_default_str();
  sub->add_option("--view", o.view, "Name of the view to create")->capture_default_str();
  sub->add_option("--archive-database", o.archive_database,
                  "Database of the job archive, created if missing (utf8mb4); the user gets CREATE, ALTER, INDEX, "
                  "SELECT, INSERT, UPDATE, DELETE there (none: no archive database)")
      ->capture_default_str();
  sub->add_flag("--dry-run", o.dry_run, "Print the SQL (password shown as <redacted>) and change nothing");
  sub->add_flag("--drop", o.drop,
                "Remove the user (and its grants) and the views; the archive database and its data are kept");
  return sub;
}

// CLI11 words an unknown config key as "INI was not able to parse
// collect.intervall"; say which file and key instead.
std::string describe_config_error(CLI::App& app, const CLI::ConfigError& e) {
  std::string message = e.what();
  const std::string prefix = "INI was not able to parse ";
  std::string file = app["--config"]->as<std::string>();
  if (message.rfind(prefix, 0) != 0) return "config file " + file + ": " + message;
  std::string key = message.substr(prefix.size());
  std::string section;
  if (auto dot = key.rfind('.'); dot != std::string::npos) {
    section = key.substr(0, dot);
    key = key.substr(dot + 1);
  }
  // A line that is not `key = value` reaches here as a key made of the whole
  // line, which may be a pasted password: a name is shown only when it could
  // be one of ours (lower case, digits, '-' after '_' became '-').
  const bool plausible = !key.empty() && key.size() <= 40 && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
  const std::string where = section.empty() ? "" : " in [" + section + "]";
  if (!plausible) return "config file " + file + ": a line" + where + " is not a known key = value (not shown)";
  return "config file " + file + ": unknown key '" + key + "'" + where;
}

// CLI11 puts the refused value into its message ("Could not convert:
// --timeout = <value>", "--cache-mb: Value <value> not in range 1 to ...").
// A value may be a password put under the wrong key of the config file, and
// the message goes to a terminal, a journal or a mail: name the option and
// the rule, never the value.
std::string describe_value_error(const CLI::ParseError& e) {
  const std::string message = e.what();
  std::string option;
  const std::string convert = "Could not convert: ";
  if (message.rfind(convert, 0) == 0) {
    option = message.substr(convert.size(), message.find(" = ") - convert.size());
  } else {
    option = message.substr(0, message.find(": "));
  }
  const std::size_t range = message.find("not in range");
  const std::string rule = range == std::string::npos ? "is not valid" : "is " + message.substr(range);
  return option + ": the value given " + rule + " (not shown: it may be a secret)";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"petricore: how each Slurm job used the CPUs, memory, files and GPUs it asked for"};
  app.set_version_flag("--version", "petricore " PETRICORE_VERSION);
  app.config_formatter(std::make_shared<TomlConfig>());
  app.set_config("--config", "/etc/petricore/petricore.toml", "TOML config file: one [section] per subcommand");
  app.allow_config_extras(CLI::config_extras_mode::error);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "debug, info, warning or error")->capture_default_str();

  petricore::collect::CollectOptions collect_options;
  add_collect(app, collect_options);
  ServeCli serve;
  add_serve(app, serve);
  ReportCli report;
  add_report(app, report);
  ArchiveCli archive;
  add_archive(app, archive);
  petricore::initdb::InitDbOptions init_db_options;
  CLI::App* init_db = add_init_db(app, init_db_options);
  SharedSections shared;
  add_shared_sections(app, shared);
  SmtpSection smtp;
  add_smtp_section(app, smtp);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ConfigError& e) {
    std::fprintf(stderr, "petricore: %s\n", describe_config_error(app, e).c_str());
    return kExitUsage;
  } catch (const CLI::ConversionError& e) {
    std::fprintf(stderr, "petricore: %s\n", describe_value_error(e).c_str());
    return kExitUsage;
  } catch (const CLI::ValidationError& e) {
    std::fprintf(stderr, "petricore: %s\n", describe_value_error(e).c_str());
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "petricore: %s\n", e.what());
    return kExitUsage;
  }

  static const std::map<std::string, petricore::log::Level> levels{{"debug", petricore::log::Level::Debug},
                                                                   {"info", petricore::log::Level::Info},
                                                                   {"warning", petricore::log::Level::Warning},
                                                                   {"error", petricore::log::Level::Error}};
  auto level = levels.find(log_level);
  if (level == levels.end()) {
    std::fprintf(stderr, "petricore: --log-level must be debug, info, warning or error\n");
    return kExitUsage;
  }
  petricore::log::set_level(level->second);
  // A peer that closes a socket (an HTTP client, an LDAP or DB server) must
  // give an error on that write, not kill the daemon.
  petricore::ignore_sigpipe();

  try {
    if (app.got_subcommand("collect")) return petricore::collect::run_collect(collect_options);
    if (serve.app->parsed()) {
      serve.options.analysis = merge_analysis(shared.file, serve.cli, serve.merges);
      serve.options.archive = archive.options.settings;
      return petricore::serve::run_serve(serve.options);
    }
    if (report.app->parsed()) {
      report.options.analysis = merge_analysis(shared.file, report.cli, report.merges);
      report.options.archive = archive.options.settings;
      report.options.mail_settings = smtp.file;
      if (report.smtp_option->count() > 0) report.options.mail_settings.smtp.url = report.smtp_url;
      if (report.public_url_option->count() == 0) report.options.public_url = smtp.public_url;
      return petricore::report::run_report(report.options);
    }
    if (archive.app->parsed()) {
      archive.options.analysis = merge_analysis(shared.file, archive.cli, archive.merges);
      return petricore::archive::run_archive(archive.options);
    }
    if (init_db->parsed()) return petricore::initdb::run_init_db(init_db_options);
  } catch (const petricore::StartupError& e) {
    std::fprintf(stderr, "petricore: %s\n", e.what());
    return kExitUsage;
  } catch (const std::invalid_argument& e) {  // a value the standard library refused while parsing: bad input too
    std::fprintf(stderr, "petricore: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "petricore: %s\n", e.what());
    return kExitFailure;
  }
  std::fprintf(stderr,
               "petricore: a subcommand is required: collect, serve, report, archive or init-db (see --help)\n");
  return kExitUsage;
}
