// `petricore init-db` (see init_db_command.hpp): looks before it acts, so a
// second run changes nothing and says so. Every statement either has its
// values bound as parameters or is built by init_db_sql from validated names.
#include "initdb/init_db_command.hpp"

#include "core/result.hpp"
#include "core/secret_file.hpp"
#include "initdb/init_db_sql.hpp"
#include "sources/mariadb_library.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace petricore::initdb {
namespace {

using sources::MariaDbConnection;
using sources::MariaDbTarget;
using sources::SqlParam;
using sources::SqlResult;

constexpr double kTimeoutSeconds = 10;

void say(const std::string& line) {
  std::printf("%s\n", line.c_str());
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string short_name(const std::string& host) {
  return host.substr(0, host.find('.'));
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "127.0.0.1" || host == "::1";
}

// Loopback, or this machine's host name (short or with any domain).
bool is_this_host(const std::string& host) {
  if (is_loopback(host)) return true;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return false;
  return lower(short_name(host)) == lower(short_name(name));
}

// The first column of every row.
std::vector<std::string> first_column(const SqlResult& result) {
  std::vector<std::string> out;
  for (const auto& row : result.rows) out.push_back(row.empty() ? "" : row[0].value_or(""));
  return out;
}

class InitDb {
 public:
  InitDb(const InitDbOptions& options, SqlNames names) : options_(options), names_(std::move(names)) {}

  // The steps of a create or a drop; the error's kind picks the exit code.
  Result<bool> create(const std::string& password);
  Result<bool> drop();

 private:
  Result<bool> connect_admin();
  Result<SqlResult> run(const std::string& sql, const std::vector<SqlParam>& params = {}) {
    return admin_->run(sql, params);
  }
  Result<bool> check_tables();
  Result<bool> ensure_user(const std::string& password);
  Result<bool> ensure_view(View view);
  Result<bool> ensure_archive_database();
  Result<bool> ensure_grants();
  Result<bool> verify_archive(MariaDbConnection& login);
  Result<bool> verify_login(const std::string& password);
  Result<std::size_t> count(const std::string& sql, const std::vector<SqlParam>& params);

  // Said at once, so that what was done shows even when a later step fails.
  void changed(const std::string& what) {
    say(what);
    ++changes_;
  }

  const InitDbOptions& options_;
  SqlNames names_;
  std::optional<MariaDbConnection> admin_;
  int changes_ = 0;
};

Result<bool> InitDb::connect_admin() {
  MariaDbTarget target;
  target.host = options_.db_host;
  target.port = options_.db_port;
  target.socket = options_.db_socket;
  target.user = options_.admin_user;
  if (!options_.admin_password_file.empty())
    target.password = read_password_file(options_.admin_password_file, "--admin-password-file");
  target.timeout_seconds = kTimeoutSeconds;
  auto connection = MariaDbConnection::connect(target);
  if (!connection) return connection.error();
  admin_.emplace(std::move(*connection));
  return true;
}

Result<std::size_t> InitDb::count(const std::string& sql, const std::vector<SqlParam>& params) {
  auto result = run(sql, params);
  if (!result) return result.error();
  if (result->rows.empty() || result->rows[0].empty()) return std::size_t{0};
  return static_cast<std::size_t>(std::stoull(result->rows[0][0].value_or("0")));
}

Result<bool> InitDb::check_tables() {
  const std::string tables[] = {names_.cluster + "_job_table", names_.cluster + "_step_table",
                                names_.cluster + "_assoc_table", "tres_table"};
  for (const auto& table : tables) {
    auto found = count("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
                       {names_.database, table});
    if (!found) return found.error();
    if (*found == 0)
      return bad_input("no table " + names_.database + "." + table + " on " + admin_->target().describe() +
                       (table == "tres_table" ? "" : " (is --cluster Slurm's ClusterName?)"));
  }
  return true;
}

Result<bool> InitDb::ensure_user(const std::string& password) {
  // The password travels only as a bound parameter; the statements get its hash.
  auto hashed = run("SELECT PASSWORD(?)", {password});
  if (!hashed) return hashed.error();
  std::string hash = hashed->rows.empty() ? "" : hashed->rows[0][0].value_or("");
  if (!valid_password_hash(hash))
    return unavailable("unexpected result of PASSWORD() on " + admin_->target().describe());

  auto existing =
      run("SELECT authentication_string FROM mysql.user WHERE User = ? AND Host = ?", {names_.user, names_.web_host});
  if (!existing) return existing.error();
  if (existing->rows.empty()) {
    if (auto r = run(create_user_sql(names_, hash)); !r) return r.error();
    changed("created user " + account(names_));
  } else if (existing->rows[0][0].value_or("") != hash) {
    if (auto r = run(alter_user_password_sql(names_, hash)); !r) return r.error();
    changed("set a new password for " + account(names_));
  }
  return true;
}

Result<bool> InitDb::ensure_view(View which) {
  const std::string name = view_name(names_, which);
  const std::vector<SqlParam> where{names_.database, name};
  auto kind = run("SELECT TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", where);
  if (!kind) return kind.error();
  bool exists = !kind->rows.empty();
  if (exists && kind->rows[0][0].value_or("") != "VIEW")
    return bad_input(names_.database + "." + name + " exists and is not a view; choose another view name" +
                     (which == View::Step ? " (--view: the step view's name is derived from it)" : ""));
  if (exists) {
    auto view =
        run("SELECT SECURITY_TYPE, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND "
            "TABLE_NAME = ?",
            where);
    if (!view) return view.error();
    auto columns =
        run("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
            "ORDER BY ORDINAL_POSITION",
            where);
    if (!columns) return columns.error();
    if (!view->rows.empty() && view_is_current(names_, which, first_column(*columns), view->rows[0][0].value_or(""),
                                               view->rows[0][1].value_or("")))
      return true;
  }
  if (auto r = run(create_view_sql(names_, which)); !r) return r.error();
  changed((exists ? "replaced view " : "created view ") + names_.database + "." + name);
  return true;
}

Result<bool> InitDb::ensure_archive_database() {
  if (names_.archive_database.empty()) return true;
  auto found = run("SELECT DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                   {names_.archive_database});
  if (!found) return found.error();
  if (found->rows.empty()) {
    if (auto r = run(create_archive_database_sql(names_)); !r) return r.error();
    changed("created database " + names_.archive_database + " (utf8mb4) for the job archive");
    return true;
  }
  // An existing one is the site's: its character set is not ours to change.
  const std::string charset = found->rows[0][0].value_or("");
  if (lower(charset) != "utf8mb4")
    say("note: database " + names_.archive_database + " exists with character set " + charset +
        "; the archive's tables ask for utf8mb4 themselves");
  return true;
}

Result<bool> InitDb::ensure_grants() {
  auto grants = run(show_grants_sql(names_));
  if (!grants) return grants.error();
  bool granted = false;
  for (View which : {View::Job, View::Step}) {
    if (has_view_grant(names_, which, first_column(*grants))) continue;
    if (auto r = run(grant_sql(names_, which)); !r) return r.error();
    changed("granted SELECT on " + names_.database + "." + view_name(names_, which) + " to " + account(names_));
    granted = true;
  }
  if (!names_.archive_database.empty() && !has_archive_grant(names_, first_column(*grants))) {
    if (auto r = run(archive_grant_sql(names_)); !r) return r.error();
    std::string privileges;
    for (const auto& p : archive_privileges()) privileges += (privileges.empty() ? "" : ", ") + p;
    changed("granted " + privileges + " on " + names_.archive_database + ".* to " + account(names_));
    granted = true;
  }
  if (granted) {
    grants = run(show_grants_sql(names_));
    if (!grants) return grants.error();
  }
  if (auto problem = check_grants(names_, first_column(*grants)))
    return unavailable(*problem + " (SHOW GRANTS on " + admin_->target().describe() +
                       "); revoke it or run --drop first");
  return true;
}

// When the web host is this host, log in as the new user the way serve will:
// both views must be readable and the job and step tables must not.
Result<bool> InitDb::verify_login(const std::string& password) {
  const std::string& web = names_.web_host;
  bool db_here = options_.db_host.empty() || is_this_host(options_.db_host);
  if (!is_this_host(web) || (is_loopback(web) && !db_here)) {
    say("not verified by logging in: the web host " + web + " is not this host");
    return true;
  }
  auto server = run("SELECT @@port, @@socket, @@skip_networking, @@skip_name_resolve");
  if (!server) return server.error();
  const auto& row = server->rows.at(0);
  MariaDbTarget target;
  if (web == "localhost") {
    target.socket = options_.db_socket.empty() ? row[1].value_or("") : options_.db_socket;
  } else {
    if (row[2].value_or("0") == "1" && options_.db_host.empty()) {
      say("not verified by logging in: the server does not listen on TCP (skip_networking)");
      return true;
    }
    target.host = options_.db_host.empty() || is_loopback(web) ? web : options_.db_host;
    target.port =
        options_.db_host.empty() ? static_cast<unsigned>(std::stoul(row[0].value_or("3306"))) : options_.db_port;
  }
  target.user = names_.user;
  target.password = password;
  target.timeout_seconds = kTimeoutSeconds;
  const std::string hint =
      row[3].value_or("0") == "1" && !is_loopback(web) ? " (the server skips name resolution: use an IP address)" : "";
  auto login = MariaDbConnection::connect(target);
  if (!login) return unavailable("logging in as the new user failed: " + login.error().message + hint);
  // The server may match the login to another account (another host's, or
  // one for an address when it does not resolve names): then this check
  // would prove nothing about the new one.
  auto who = login->run("SELECT CURRENT_USER()");
  if (!who) return who.error();
  const std::string expected = names_.user + "@" + web;
  const std::string matched = who->rows.at(0).at(0).value_or("");
  if (matched != expected)
    return unavailable("logging in as " + account(names_) + " over " + target.describe() + " matched account " +
                       matched + " instead" + hint);
  std::string rows[2];
  for (View which : {View::Job, View::Step}) {
    const std::string name = view_name(names_, which);
    auto view = login->run("SELECT COUNT(*) FROM " + sources::qualified(names_.database, name));
    if (!view)
      return unavailable(account(names_) + " cannot read the view " + names_.database + "." + name + ": " +
                         view.error().message);
    rows[which == View::Job ? 0 : 1] = view->rows.at(0).at(0).value_or("?");
  }
  for (const std::string& forbidden : {job_table(names_), step_table(names_)}) {
    auto table = login->run("SELECT 1 FROM " + forbidden + " LIMIT 1");
    if (table) return unavailable(account(names_) + " can read " + forbidden + ", which it must not");
    if (login->error_code() != sources::mariadb_error::kTableAccessDenied)
      return unavailable("reading " + forbidden + " as " + account(names_) +
                         " failed other than by a denial: " + table.error().message);
  }
  say("verified as " + account(names_) + " over " + target.describe() + ": the views are readable (" + rows[0] +
      " jobs, " + rows[1] + " steps), " + names_.database + "." + names_.cluster + "_job_table and " + names_.cluster +
      "_step_table are denied");
  return verify_archive(*login);
}

// As the new user: a table made, written and read in the archive database,
// as the archive's migrations and writers will; the admin drops it again
// (the user may not).
Result<bool> InitDb::verify_archive(MariaDbConnection& login) {
  if (names_.archive_database.empty()) return true;
  const std::string probe = sources::qualified(names_.archive_database, "petricore_init_db_probe");
  auto drop_probe = [&] { return run("DROP TABLE IF EXISTS " + probe); };
  if (auto r = drop_probe(); !r) return r.error();
  const std::pair<const char*, std::string> steps[] = {
      {"CREATE TABLE", "CREATE TABLE " + probe + " (id INT NOT NULL PRIMARY KEY, note VARCHAR(16))"},
      {"CREATE INDEX", "CREATE INDEX probe_note ON " + probe + " (note)"},
      {"ALTER TABLE", "ALTER TABLE " + probe + " ADD COLUMN version INT NOT NULL DEFAULT 1"},
      {"INSERT", "INSERT INTO " + probe + " (id, note) VALUES (1, 'archive')"},
      {"UPDATE", "UPDATE " + probe + " SET note = 'written' WHERE id = 1"},
      {"SELECT", "SELECT note FROM " + probe},
      {"DELETE", "DELETE FROM " + probe}};
  for (const auto& [what, sql] : steps) {
    auto done = login.run(sql);
    if (!done) {
      drop_probe();  // its own failure would hide the one that matters
      return unavailable(account(names_) + " cannot " + what + " in the archive database " + names_.archive_database +
                         ": " + done.error().message);
    }
  }
  if (auto r = drop_probe(); !r) return r.error();
  say("verified as " + account(names_) + ": the archive database " + names_.archive_database +
      " takes tables, indexes and rows");
  return true;
}

Result<bool> InitDb::create(const std::string& password) {
  if (auto r = connect_admin(); !r) return r;
  if (auto r = check_tables(); !r) return r;
  if (auto r = ensure_user(password); !r) return r;
  if (auto r = ensure_view(View::Job); !r) return r;
  if (auto r = ensure_view(View::Step); !r) return r;
  if (auto r = ensure_archive_database(); !r) return r;
  if (auto r = ensure_grants(); !r) return r;
  if (changes_ == 0)
    say("nothing to change: " + account(names_) + ", " + names_.database + "." + names_.view + " and " +
        names_.database + "." + names_.step_view() +
        (names_.archive_database.empty() ? "" : " and the archive database " + names_.archive_database) +
        " are already set up");
  return verify_login(password);
}

Result<bool> InitDb::drop() {
  if (auto r = connect_admin(); !r) return r;
  auto user = count("SELECT COUNT(*) FROM mysql.user WHERE User = ? AND Host = ?", {names_.user, names_.web_host});
  if (!user) return user.error();
  // Looked at before the user goes: its grants would go with it.
  struct Found {
    std::size_t exists = 0;
    std::string other_reader;  // another account granted on it; empty = none
  } views[2];
  for (View which : {View::Job, View::Step}) {
    Found& found = views[which == View::Job ? 0 : 1];
    const std::vector<SqlParam> where{names_.database, view_name(names_, which)};
    auto exists =
        count("SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", where);
    if (!exists) return exists.error();
    found.exists = *exists;
    // One view serves every web host's account: it goes with the last of them.
    auto grantees =
        run("SELECT DISTINCT GRANTEE FROM information_schema.TABLE_PRIVILEGES WHERE TABLE_SCHEMA = ? AND "
            "TABLE_NAME = ? AND GRANTEE <> ?",
            {names_.database, view_name(names_, which), account(names_)});
    if (!grantees) return grantees.error();
    if (!grantees->rows.empty()) found.other_reader = grantees->rows[0][0].value_or("another account");
  }
  if (*user > 0) {
    if (auto r = run(drop_user_sql(names_)); !r) return r.error();
    say("dropped user " + account(names_));
  }
  for (View which : {View::Job, View::Step}) {
    const Found& found = views[which == View::Job ? 0 : 1];
    const std::string name = names_.database + "." + view_name(names_, which);
    if (found.exists == 0) continue;
    if (!found.other_reader.empty()) {
      say("kept view " + name + ": " + found.other_reader + " still reads it");
      continue;
    }
    if (auto r = run(drop_view_sql(names_, which)); !r) return r.error();
    say("dropped view " + name);
  }
  if (views[0].exists == 0 && views[1].exists == 0 && *user == 0)
    say("nothing to drop: no view " + names_.database + "." + names_.view + " or " + names_.database + "." +
        names_.step_view() + ", no user " + account(names_));
  // The archive's data outlives the user: dropping it is the admin's call.
  if (!names_.archive_database.empty()) {
    auto archive =
        count("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", {names_.archive_database});
    if (!archive) return archive.error();
    if (*archive > 0)
      say("kept database " + names_.archive_database + " and the job archive in it (DROP DATABASE `" +
          names_.archive_database + "` removes them)");
  }
  return true;
}

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "petricore init-db: %s\n", message.c_str());
  return code;
}

}  // namespace

int run_init_db(const InitDbOptions& options) {
  constexpr int kBadInput = 2, kFailed = 1;
  if (options.cluster.empty()) return fail(kBadInput, "--cluster is required (Slurm's ClusterName)");
  if (options.web_host.empty()) return fail(kBadInput, "--web-host is required (where petricore serve runs)");
  SqlNames names;
  names.database = options.database;
  names.cluster = options.cluster;
  names.view = options.view;
  names.user = options.user;
  names.web_host = options.web_host;
  names.archive_database = options.archive_database == "none" ? "" : options.archive_database;
  if (auto problem = validate(names)) return fail(kBadInput, *problem);
  names.cluster = lower(names.cluster);  // Slurm lower-cases ClusterName in its table names

  try {
    std::string password;
    if (!options.drop) password = read_password_file(options.password_file, "--password-file");
    if (options.dry_run) {
      for (const auto& statement : dry_run_script(names, options.drop)) say(statement);
      return 0;
    }
    InitDb init(options, names);
    auto done = options.drop ? init.drop() : init.create(password);
    if (!done) return fail(done.error().kind == Error::Kind::BadInput ? kBadInput : kFailed, done.error().message);
    return 0;
  } catch (const StartupError& e) {  // an unreadable password file
    return fail(kBadInput, e.what());
  } catch (const std::exception& e) {  // a server answer of an unexpected shape
    return fail(kFailed, e.what());
  }
}

}  // namespace petricore::initdb
