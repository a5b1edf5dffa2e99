// Chooses and builds the accounting source from the [accounting] options
// (ARCHITECTURE.md §3): `auto` uses the DB view when [accounting.db] is
// configured, else sacct when it is on PATH (or `sacct = PATH`), else the
// jobs_info series in Prometheus.
#pragma once

#include "sources/accounting.hpp"

#include <memory>
#include <string>

namespace petricore::sources {

class PrometheusClient;

struct DbConfig {
  std::string host;  // TCP host; empty with `socket` set = Unix socket
  unsigned port = 3306;
  std::string socket;
  std::string user = "petricore";
  std::string password_file;  // read at start; never from argv
  std::string database = "slurm_acct_db";
  std::string view = "user_job_view";
  double timeout_seconds = 5;
  bool configured() const { return !host.empty() || !socket.empty(); }
};

struct AccountingOptions {
  std::string source = "auto";  // auto | sacct | db | prometheus
  std::string sacct;            // path; empty = "sacct" on PATH
  double sacct_timeout_seconds = 20;
  DbConfig db;
};

// Throws StartupError (one line, exit 2) for bad options: unknown
// source, an unreadable password file, sacct not found when asked for.
// `prometheus` must outlive the source (used by the prometheus source).
std::unique_ptr<AccountingSource> make_accounting(const AccountingOptions& options, PrometheusClient& prometheus);

// Factories of the individual sources (each in its own file).
std::unique_ptr<AccountingSource> make_sacct_accounting(const std::string& sacct_path, double timeout_seconds);
std::unique_ptr<AccountingSource> make_db_accounting(const DbConfig& config);
std::unique_ptr<AccountingSource> make_prometheus_accounting(PrometheusClient& prometheus);

}  // namespace petricore::sources
