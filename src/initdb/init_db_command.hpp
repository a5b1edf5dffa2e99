// `petricore init-db`: creates, idempotently, the `petricore` MariaDB user
// for the web host, the views `user_job_view` on `<cluster>_job_table` and
// `user_step_view` on `<cluster>_step_table` with only the columns serve
// needs, GRANT SELECT on those two views alone (nothing else of
// slurm_acct_db), and the job archive's database `petricore` (utf8mb4) with
// what the archive needs there (archive_privileges(): its tables and their
// rows); verifies it by logging in; `--drop` removes the user, its grants
// and the views, and keeps the archive database and its data.
#pragma once

#include <string>

namespace petricore::initdb {

struct InitDbOptions {
  std::string cluster;        // Slurm ClusterName
  std::string web_host;       // host part of 'petricore'@'<web_host>'
  std::string password_file;  // the new user's password
  std::string db_host;        // TCP; empty = Unix socket
  unsigned db_port = 3306;
  std::string db_socket;  // default: the client library's
  std::string admin_user = "root";
  std::string admin_password_file;  // empty = no password (unix_socket auth)
  std::string database = "slurm_acct_db";
  std::string user = "petricore";
  std::string view = "user_job_view";          // the step view's name derives from it (sources::step_view_of)
  std::string archive_database = "petricore";  // "none": no archive database
  bool dry_run = false;                        // print the SQL, password shown as <redacted>
  bool drop = false;
};

// Exit status: 0 done, 2 bad input (missing/unreadable password file, bad
// cluster name), 1 the database refused or failed (one line on stderr).
int run_init_db(const InitDbOptions& options);

}  // namespace petricore::initdb
