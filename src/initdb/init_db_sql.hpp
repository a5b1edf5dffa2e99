// The SQL of `petricore init-db`, generated purely from validated names: the
// two restricted views on slurmdbd's tables (their names and columns, the
// contract the DB accounting source reads, are sources/accounting_view.hpp):
// jobs from <cluster>_job_table and their steps from <cluster>_step_table;
// the job archive's database (sources/job_archive.hpp); the petricore user,
// its grants (SELECT on the two views, and what the archive needs in its own
// database: it makes its tables itself, by versioned migrations), and their
// removal.
//
// Identifiers (database, views, cluster, user) must match [A-Za-z0-9_]+ and
// hosts a host name, an IP address or a MariaDB host pattern; they are then
// quoted (`x`, 'x') without any escaping needed. The password never appears
// in statement text: init-db sends it only as a bound parameter of
// `SELECT PASSWORD(?)` and uses the returned hash (IDENTIFIED BY PASSWORD
// '*<40 hex>'), which is checked before it is spliced in.
#pragma once

#include "sources/accounting_view.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::initdb {

// The two views init-db creates.
using sources::View;

struct SqlNames {
  std::string database = "slurm_acct_db";
  std::string cluster;  // Slurm ClusterName: the tables are <cluster>_job_table, <cluster>_step_table, ...
  std::string view = "user_job_view";
  std::string user = "petricore";
  std::string web_host;  // host part of 'petricore'@'<web_host>'
  // The job archive's database; empty: none (--archive-database none).
  std::string archive_database = "petricore";
  std::string step_view() const { return sources::step_view_of(view); }
};

// What the archive needs in its database, in the order MariaDB's SHOW GRANTS
// lists them: its tables (CREATE, ALTER, INDEX by its migrations) and their
// rows. No DROP: a migration that needs one is an admin's step.
const std::vector<std::string>& archive_privileges();

// 1-255 of [A-Za-z0-9.-_:%] not starting with '-': a host name, IPv4, IPv6,
// or a MariaDB pattern such as 10.0.% ('_' and '%' are MariaDB wildcards).
bool valid_host(std::string_view host);
// The first invalid name as a one-line message ("invalid --cluster 'a-b': ..."),
// nullopt when all are valid (the derived step view name included). The
// archive database may be neither the accounting database nor one of the
// server's own (mysql, information_schema, performance_schema, sys).
std::optional<std::string> validate(const SqlNames& names);

// A password hash as PASSWORD() returns it: '*' and 40 upper-case hex digits.
bool valid_password_hash(std::string_view hash);

// 'user'@'host', quoted (names must be valid).
std::string account(const SqlNames& names);
std::string job_table(const SqlNames& names);   // `db`.`<cluster>_job_table`
std::string step_table(const SqlNames& names);  // `db`.`<cluster>_step_table`
// The view's bare name (names.view or names.step_view()).
std::string view_name(const SqlNames& names, View view);

// The statements. `password_hash` is PASSWORD()'s result (see above).
std::string create_view_sql(const SqlNames& names, View view);
std::string create_user_sql(const SqlNames& names, std::string_view password_hash);
std::string alter_user_password_sql(const SqlNames& names, std::string_view password_hash);
std::string grant_sql(const SqlNames& names, View view);
std::string show_grants_sql(const SqlNames& names);
std::string drop_view_sql(const SqlNames& names, View view);
std::string drop_user_sql(const SqlNames& names);
// CREATE DATABASE IF NOT EXISTS `archive` CHARACTER SET utf8mb4.
std::string create_archive_database_sql(const SqlNames& names);
// GRANT <archive_privileges> ON `archive`.* TO the user; a '_' in the name
// is escaped (`a\_b`.*): in a database-level grant it would match any
// character.
std::string archive_grant_sql(const SqlNames& names);

// What --dry-run prints: the statements in the order init-db would run them,
// each ending with ';', the password shown as '<redacted>'. --drop keeps the
// archive database (its data is the archive): a comment line says so.
std::vector<std::string> dry_run_script(const SqlNames& names, bool drop);

// SHOW GRANTS lines of the new user, judged: exactly USAGE on *.* plus SELECT
// on each of the two views, plus exactly archive_privileges() on the archive
// database (when there is one). nullopt when right, else the first problem
// in one line.
std::optional<std::string> check_grants(const SqlNames& names, const std::vector<std::string>& grants);
// Whether SHOW GRANTS shows SELECT on the view (to know if GRANT is needed).
bool has_view_grant(const SqlNames& names, View view, const std::vector<std::string>& grants);
// Whether SHOW GRANTS shows every archive privilege on the archive database.
bool has_archive_grant(const SqlNames& names, const std::vector<std::string>& grants);

// Whether an existing view is the one create_view_sql makes: the same columns
// in order, SQL SECURITY DEFINER, reading this cluster's table without
// deleted rows. `definition` is information_schema.VIEWS.VIEW_DEFINITION.
bool view_is_current(const SqlNames& names, View view, const std::vector<std::string>& columns,
                     std::string_view security_type, std::string_view definition);

}  // namespace petricore::initdb
