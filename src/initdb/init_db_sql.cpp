#include "initdb/init_db_sql.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace petricore::initdb {
namespace {

struct ViewColumn {
  const char* name;
  const char* expression;  // over j (job table), a (assoc table), t (tres_table)
};

// The view; order matters only for view_is_current().
const std::vector<ViewColumn>& view_columns() {
  static const std::vector<ViewColumn> columns{
      {"id_job", "j.`id_job`"},
      {"id_array_job", "j.`id_array_job`"},
      {"id_array_task", "j.`id_array_task`"},
      {"het_job_id", "j.`het_job_id`"},
      {"het_job_offset", "j.`het_job_offset`"},
      {"id_user", "j.`id_user`"},
      {"user_name", "a.`user`"},
      {"account", "j.`account`"},
      {"job_name", "j.`job_name`"},
      {"partition", "j.`partition`"},
      {"state", "j.`state`"},
      {"time_submit", "j.`time_submit`"},
      {"time_start", "j.`time_start`"},
      {"time_end", "j.`time_end`"},
      {"timelimit", "j.`timelimit`"},
      {"nodes_alloc", "j.`nodes_alloc`"},
      {"nodelist", "j.`nodelist`"},
      {"tres_alloc", "j.`tres_alloc`"},
      {"gpu_tres_id", "t.`id`"},
  };
  return columns;
}

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string quote(std::string_view name) {
  return "`" + std::string(name) + "`";
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

}  // namespace

bool valid_identifier(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), identifier_char);
}

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

const std::vector<std::string>& view_column_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& c : view_columns()) out.emplace_back(c.name);
    return out;
  }();
  return names;
}

std::string qualified(std::string_view database, std::string_view name) {
  return quote(database) + "." + quote(name);
}

std::string account(const SqlNames& names) {
  return "'" + names.user + "'@'" + names.web_host + "'";
}

std::string job_table(const SqlNames& names) {
  return qualified(names.database, names.cluster + "_job_table");
}

std::string create_view_sql(const SqlNames& names) {
  std::string select;
  for (const auto& c : view_columns())
    select += (select.empty() ? "" : ", ") + std::string(c.expression) + " AS " + quote(c.name);
  // Joins, not subqueries, keep the view mergeable: a lookup by id_job uses
  // the job table's index instead of materialising the whole view.
  return "CREATE OR REPLACE ALGORITHM = MERGE SQL SECURITY DEFINER VIEW " + qualified(names.database, names.view) +
         " AS SELECT " + select + " FROM " + job_table(names) + " AS j LEFT JOIN " +
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

std::string grant_sql(const SqlNames& names) {
  return "GRANT SELECT ON " + qualified(names.database, names.view) + " TO " + account(names);
}

std::string show_grants_sql(const SqlNames& names) {
  return "SHOW GRANTS FOR " + account(names);
}

std::string drop_view_sql(const SqlNames& names) {
  return "DROP VIEW IF EXISTS " + qualified(names.database, names.view);
}

std::string drop_user_sql(const SqlNames& names) {
  return "DROP USER IF EXISTS " + account(names);
}

std::vector<std::string> dry_run_script(const SqlNames& names, bool drop) {
  if (drop) return {drop_view_sql(names) + ";", drop_user_sql(names) + ";"};
  return {"CREATE USER IF NOT EXISTS " + account(names) + " IDENTIFIED BY '<redacted>';", create_view_sql(names) + ";",
          grant_sql(names) + ";"};
}

bool has_view_grant(const SqlNames& names, const std::vector<std::string>& grants) {
  const std::string view = lower(qualified(names.database, names.view));
  for (const auto& line : grants) {
    auto grant = split_grant(line);
    if (!grant || lower(grant->second) != view) continue;
    std::string privileges = ", " + grant->first + ",";
    if (privileges.find(" SELECT,") != std::string::npos || grant->first == "ALL PRIVILEGES") return true;
  }
  return false;
}

std::optional<std::string> check_grants(const SqlNames& names, const std::vector<std::string>& grants) {
  const std::string view = lower(qualified(names.database, names.view));
  bool usage = false, select = false;
  for (const auto& line : grants) {
    auto grant = split_grant(line);
    bool grant_option = line.find("WITH GRANT OPTION") != std::string::npos;
    if (grant && !grant_option && grant->first == "USAGE" && grant->second == "*.*") {
      usage = true;
    } else if (grant && !grant_option && grant->first == "SELECT" && lower(grant->second) == view) {
      select = true;
    } else {
      return account(names) + " holds more than SELECT on " + names.database + "." + names.view + ": " +
             without_password(line);
    }
  }
  if (!usage) return account(names) + " does not exist";
  if (!select) return account(names) + " lacks SELECT on " + names.database + "." + names.view;
  return std::nullopt;
}

bool view_is_current(const SqlNames& names, const std::vector<std::string>& columns, std::string_view security_type,
                     std::string_view definition) {
  if (columns != view_column_names() || security_type != "DEFINER") return false;
  const std::string text = lower(definition);
  // The server rewrites the text (`db`.`table` `j`, "= 0"): look for the
  // parts that matter rather than comparing whole strings.
  return text.find(lower(job_table(names)) + " `j`") != std::string::npos &&
         text.find(lower(qualified(names.database, names.cluster + "_assoc_table"))) != std::string::npos &&
         text.find("where `j`.`deleted` = 0") != std::string::npos;
}

}  // namespace petricore::initdb
