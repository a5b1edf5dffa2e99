#include "initdb/init_db_sql.hpp"

#include "sources/accounting_view.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace petricore::initdb {

using sources::qualified;
using sources::valid_identifier;
using sources::view_column_names;

namespace {

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string quote(std::string_view name) {
  return "`" + std::string(name) + "`";
}

// The expression behind a view's column: the column of the same name in the
// job table (j) or the step table (s), but for the two the job view takes
// from the association (a) and TRES (t) tables.
std::string column_expression(View view, const std::string& column) {
  if (view == View::Step) return "s." + quote(column);
  if (column == "user_name") return "a.`user`";
  if (column == "gpu_tres_id") return "t.`id`";
  return "j." + quote(column);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "GRANT <privileges> ON <object> TO <account>..." → (privileges, object);
// nullopt for other shapes (role grants, PROXY without ON, ...).
std::optional<std::pair<std::string, std::string>> split_grant(std::string_view line) {
  constexpr std::string_view kGrant = "GRANT ";
  if (line.substr(0, kGrant.size()) != kGrant) return std::nullopt;
  std::size_t on = line.find(" ON ");
  if (on == std::string_view::npos) return std::nullopt;
  std::size_t to = line.find(" TO ", on);
  if (to == std::string_view::npos) return std::nullopt;
  return std::make_pair(std::string(line.substr(kGrant.size(), on - kGrant.size())),
                        std::string(line.substr(on + 4, to - on - 4)));
}

// A grant line without its password hash, for messages.
std::string without_password(std::string_view line) {
  std::size_t at = line.find(" IDENTIFIED ");
  return std::string(line.substr(0, at));
}

std::string select_list(View view) {
  std::string select;
  for (const std::string& column : view_column_names(view))
    select += (select.empty() ? "" : ", ") + column_expression(view, column) + " AS " + quote(column);
  return select;
}

// "db.view", for messages.
std::string dotted(const SqlNames& names, View view) {
  return names.database + "." + view_name(names, view);
}

// `archive`.* as a database-level grant names it: '_' escaped, or it would
// match any character.
std::string archive_object(const SqlNames& names) {
  std::string escaped;
  for (char c : names.archive_database) escaped += c == '_' ? std::string("\\_") : std::string(1, c);
  return quote(escaped) + ".*";
}

// "SELECT, INSERT, ..." of a grant line, one word each.
std::vector<std::string> privilege_list(const std::string& privileges) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= privileges.size()) {
    std::size_t comma = privileges.find(',', at);
    std::string item = privileges.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

bool valid_host(std::string_view host) {
  if (host.empty() || host.size() > 255 || host.front() == '-') return false;
  return std::all_of(host.begin(), host.end(),
                     [](char c) { return identifier_char(c) || c == '.' || c == '-' || c == ':' || c == '%'; });
}

std::optional<std::string> validate(const SqlNames& names) {
  const std::pair<const char*, const std::string*> identifiers[] = {
      {"--cluster", &names.cluster}, {"database", &names.database}, {"view", &names.view}, {"user", &names.user}};
  for (const auto& [what, value] : identifiers)
    if (!valid_identifier(*value))
      return "invalid " + std::string(what) + " '" + value->substr(0, 80) + "': expected 1-64 of A-Z a-z 0-9 _";
  // Only its length can be wrong once the view's name is valid.
  if (std::string steps = names.step_view(); !valid_identifier(steps))
    return "invalid view '" + names.view + "': the step view's name derived from it, '" + steps +
           "', is longer than 64 characters";
  if (!names.archive_database.empty()) {
    const std::string archive = lower(names.archive_database);
    if (!valid_identifier(names.archive_database))
      return "invalid --archive-database '" + names.archive_database.substr(0, 80) +
             "': expected 1-64 of A-Z a-z 0-9 _, or none";
    if (archive == lower(names.database))
      return "invalid --archive-database '" + names.archive_database +
             "': the archive needs a database of its own, not Slurm's accounting database";
    for (const char* system : {"mysql", "information_schema", "performance_schema", "sys"})
      if (archive == system)
        return "invalid --archive-database '" + names.archive_database + "': a database of the server itself";
  }
  if (!valid_host(names.web_host))
    return "invalid --web-host '" + names.web_host.substr(0, 80) +
           "': expected a host name, an IP address or a MariaDB host pattern";
  return std::nullopt;
}

bool valid_password_hash(std::string_view hash) {
  return hash.size() == 41 && hash.front() == '*' && std::all_of(hash.begin() + 1, hash.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
         });
}

std::string account(const SqlNames& names) {
  return "'" + names.user + "'@'" + names.web_host + "'";
}

std::string job_table(const SqlNames& names) {
  return qualified(names.database, names.cluster + "_job_table");
}

std::string step_table(const SqlNames& names) {
  return qualified(names.database, names.cluster + "_step_table");
}

std::string view_name(const SqlNames& names, View view) {
  return view == View::Job ? names.view : names.step_view();
}

std::string create_view_sql(const SqlNames& names, View view) {
  const std::string head = "CREATE OR REPLACE ALGORITHM = MERGE SQL SECURITY DEFINER VIEW " +
                           qualified(names.database, view_name(names, view)) + " AS SELECT " + select_list(view);
  if (view == View::Step) return head + " FROM " + step_table(names) + " AS s WHERE s.`deleted` = 0";
  // Joins, not subqueries, keep the view mergeable: a lookup by id_job uses
  // the job table's index instead of materialising the whole view.
  return head + " FROM " + job_table(names) + " AS j LEFT JOIN " +
         qualified(names.database, names.cluster + "_assoc_table") + " AS a ON a.`id_assoc` = j.`id_assoc` LEFT JOIN " +
         qualified(names.database, "tres_table") +
         " AS t ON t.`type` = 'gres' AND t.`name` = 'gpu' AND t.`deleted` = 0 WHERE j.`deleted` = 0";
}

std::string create_user_sql(const SqlNames& names, std::string_view password_hash) {
  return "CREATE USER IF NOT EXISTS " + account(names) + " IDENTIFIED BY PASSWORD '" + std::string(password_hash) + "'";
}

std::string alter_user_password_sql(const SqlNames& names, std::string_view password_hash) {
  return "ALTER USER " + account(names) + " IDENTIFIED BY PASSWORD '" + std::string(password_hash) + "'";
}

std::string grant_sql(const SqlNames& names, View view) {
  return "GRANT SELECT ON " + qualified(names.database, view_name(names, view)) + " TO " + account(names);
}

std::string show_grants_sql(const SqlNames& names) {
  return "SHOW GRANTS FOR " + account(names);
}

std::string drop_view_sql(const SqlNames& names, View view) {
  return "DROP VIEW IF EXISTS " + qualified(names.database, view_name(names, view));
}

std::string drop_user_sql(const SqlNames& names) {
  return "DROP USER IF EXISTS " + account(names);
}

const std::vector<std::string>& archive_privileges() {
  static const std::vector<std::string> privileges{"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "INDEX", "ALTER"};
  return privileges;
}

std::string create_archive_database_sql(const SqlNames& names) {
  return "CREATE DATABASE IF NOT EXISTS " + quote(names.archive_database) + " CHARACTER SET utf8mb4";
}

std::string archive_grant_sql(const SqlNames& names) {
  return "GRANT " + joined(archive_privileges()) + " ON " + archive_object(names) + " TO " + account(names);
}

std::vector<std::string> dry_run_script(const SqlNames& names, bool drop) {
  std::vector<std::string> script;
  if (drop) {
    script = {drop_view_sql(names, View::Job) + ";", drop_view_sql(names, View::Step) + ";",
              drop_user_sql(names) + ";"};
    if (!names.archive_database.empty())
      script.push_back("-- kept: the archive database " + quote(names.archive_database) +
                       " and its data (DROP DATABASE removes them)");
    return script;
  }
  script = {"CREATE USER IF NOT EXISTS " + account(names) + " IDENTIFIED BY '<redacted>';",
            create_view_sql(names, View::Job) + ";", create_view_sql(names, View::Step) + ";",
            grant_sql(names, View::Job) + ";", grant_sql(names, View::Step) + ";"};
  if (!names.archive_database.empty()) {
    script.push_back(create_archive_database_sql(names) + ";");
    script.push_back(archive_grant_sql(names) + ";");
  }
  return script;
}

bool has_archive_grant(const SqlNames& names, const std::vector<std::string>& grants) {
  if (names.archive_database.empty()) return false;
  const std::string object = lower(archive_object(names));
  for (const auto& line : grants) {
    auto grant = split_grant(line);
    if (!grant || lower(grant->second) != object) continue;
    if (grant->first == "ALL PRIVILEGES") return true;
    auto held = privilege_list(grant->first);
    if (std::all_of(archive_privileges().begin(), archive_privileges().end(),
                    [&](const std::string& p) { return std::find(held.begin(), held.end(), p) != held.end(); }))
      return true;
  }
  return false;
}

bool has_view_grant(const SqlNames& names, View view, const std::vector<std::string>& grants) {
  const std::string object = lower(qualified(names.database, view_name(names, view)));
  for (const auto& line : grants) {
    auto grant = split_grant(line);
    if (!grant || lower(grant->second) != object) continue;
    std::string privileges = ", " + grant->first + ",";
    if (privileges.find(" SELECT,") != std::string::npos || grant->first == "ALL PRIVILEGES") return true;
  }
  return false;
}

std::optional<std::string> check_grants(const SqlNames& names, const std::vector<std::string>& grants) {
  const std::string job = lower(qualified(names.database, names.view));
  const std::string step = lower(qualified(names.database, names.step_view()));
  const bool archived = !names.archive_database.empty();
  const std::string archive = archived ? lower(archive_object(names)) : "";
  auto wanted = archive_privileges();
  std::sort(wanted.begin(), wanted.end());
  bool usage = false, select_job = false, select_step = false, archive_grant = false;
  for (const auto& line : grants) {
    auto grant = split_grant(line);
    bool grant_option = line.find("WITH GRANT OPTION") != std::string::npos;
    bool plain_select = grant && !grant_option && grant->first == "SELECT";
    auto held = grant ? privilege_list(grant->first) : std::vector<std::string>{};
    std::sort(held.begin(), held.end());
    if (grant && !grant_option && grant->first == "USAGE" && grant->second == "*.*") {
      usage = true;
    } else if (plain_select && lower(grant->second) == job) {
      select_job = true;
    } else if (plain_select && lower(grant->second) == step) {
      select_step = true;
    } else if (archived && grant && !grant_option && lower(grant->second) == archive && held == wanted) {
      archive_grant = true;
    } else {
      return account(names) + " holds more than SELECT on " + dotted(names, View::Job) + " and " +
             dotted(names, View::Step) +
             (archived ? " and " + joined(archive_privileges()) + " on " + names.archive_database + ".*" : "") + ": " +
             without_password(line);
    }
  }
  if (!usage) return account(names) + " does not exist";
  if (!select_job) return account(names) + " lacks SELECT on " + dotted(names, View::Job);
  if (!select_step) return account(names) + " lacks SELECT on " + dotted(names, View::Step);
  if (archived && !archive_grant)
    return account(names) + " lacks " + joined(archive_privileges()) + " on " + names.archive_database + ".*";
  return std::nullopt;
}

bool view_is_current(const SqlNames& names, View view, const std::vector<std::string>& columns,
                     std::string_view security_type, std::string_view definition) {
  if (columns != view_column_names(view) || security_type != "DEFINER") return false;
  const std::string text = lower(definition);
  auto has = [&](const std::string& part) { return text.find(part) != std::string::npos; };
  // The server rewrites the text (`db`.`table` `j`, "= 0"): look for the
  // parts that matter rather than comparing whole strings.
  if (view == View::Step) return has(lower(step_table(names)) + " `s`") && has("where `s`.`deleted` = 0");
  return has(lower(job_table(names)) + " `j`") &&
         has(lower(qualified(names.database, names.cluster + "_assoc_table"))) && has("where `j`.`deleted` = 0");
}

}  // namespace petricore::initdb
