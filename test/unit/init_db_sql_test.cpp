// init-db's SQL generation and checks ([initdb]), and, hidden ([.][mariadb]),
// the DB accounting source reading the views init-db made on a real MariaDB:
// test/integration/mariadb_test.sh runs those with the PETRICORE_TEST_DB_*
// variables pointing at its server, loaded from
// scripts/lib/slurm_acct_db.sql.
#include "initdb/init_db_sql.hpp"
#include "core/secret_file.hpp"
#include "model/job_id.hpp"
#include "sources/accounting_factory.hpp"
#include "sources/accounting_view.hpp"
#include "sources/mariadb_library.hpp"

#include "catch.hpp"
#include "job_record_checks.hpp"

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace petricore::initdb;
using petricore::sources::view_column_names;

namespace {

SqlNames names_for(const std::string& cluster, const std::string& web_host) {
  SqlNames n;
  n.cluster = cluster;
  n.web_host = web_host;
  return n;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What MariaDB 10.11 stores for create_view_sql(names_for("itest", ...), View::Job).
const char* const kServerDefinition =
    "select `j`.`id_job` AS `id_job`,`j`.`id_array_job` AS `id_array_job`,`j`.`id_array_task` AS "
    "`id_array_task`,`j`.`het_job_id` AS `het_job_id`,`j`.`het_job_offset` AS `het_job_offset`,`j`.`id_user` AS "
    "`id_user`,`a`.`user` AS `user_name`,`j`.`account` AS `account`,`j`.`job_name` AS `job_name`,`j`.`partition` "
    "AS `partition`,`j`.`state` AS `state`,`j`.`time_submit` AS `time_submit`,`j`.`time_start` AS "
    "`time_start`,`j`.`time_end` AS `time_end`,`j`.`timelimit` AS `timelimit`,`j`.`nodes_alloc` AS "
    "`nodes_alloc`,`j`.`nodelist` AS `nodelist`,`j`.`tres_alloc` AS `tres_alloc`,`t`.`id` AS "
    "`gpu_tres_id`,`j`.`job_db_inx` "
    "AS `job_db_inx`,`j`.`mem_req` AS `mem_req` from "
    "((`slurm_acct_db`.`itest_job_table` `j` left join `slurm_acct_db`.`itest_assoc_table` `a` on(`a`.`id_assoc` "
    "= `j`.`id_assoc`)) left join `slurm_acct_db`.`tres_table` `t` on(`t`.`type` = 'gres' and `t`.`name` = 'gpu' "
    "and `t`.`deleted` = 0)) where `j`.`deleted` = 0";

// ... and for create_view_sql(names_for("itest", ...), View::Step).
const char* const kServerStepDefinition =
    "select `s`.`job_db_inx` AS `job_db_inx`,`s`.`id_step` AS `id_step`,`s`.`step_het_comp` AS "
    "`step_het_comp`,`s`.`task_cnt` AS `task_cnt`,`s`.`tres_alloc` AS `tres_alloc`,`s`.`user_sec` AS "
    "`user_sec`,`s`.`user_usec` AS `user_usec`,`s`.`sys_sec` AS `sys_sec`,`s`.`sys_usec` AS "
    "`sys_usec`,`s`.`tres_usage_in_max` AS `tres_usage_in_max` from `slurm_acct_db`.`itest_step_table` `s` where "
    "`s`.`deleted` = 0";

}  // namespace

TEST_CASE("hosts: only what needs no escaping", "[initdb]") {
  for (const char* good : {"127.0.0.1", "localhost", "login1.int.kappa.calculquebec.cloud", "::1", "10.0.%", "web_1"})
    CHECK(valid_host(good));
  for (const char* bad : {"", "-x", "a'b", "h@st", "a b", "host`", "a\\b", "x;y"}) CHECK_FALSE(valid_host(bad));
}

TEST_CASE("validate names the first bad option in one line", "[initdb]") {
  CHECK_FALSE(validate(names_for("realstack", "127.0.0.1")));
  auto cluster = validate(names_for("real-stack", "127.0.0.1"));
  REQUIRE(cluster);
  CHECK(*cluster == "invalid --cluster 'real-stack': expected 1-64 of A-Z a-z 0-9 _");
  auto host = validate(names_for("realstack", "web'--"));
  REQUIRE(host);
  CHECK(contains(*host, "--web-host"));
  SqlNames view = names_for("realstack", "h");
  view.view = "v;x";
  REQUIRE(validate(view));
  CHECK(contains(*validate(view), "view"));
  view.view = std::string(60, 'v');  // valid, but its step view's name would be 66 long
  auto derived = validate(view);
  REQUIRE(derived);
  CHECK(*derived == "invalid view '" + view.view + "': the step view's name derived from it, '" + view.view +
                        "_steps', is longer than 64 characters");
  view.view = std::string(55, 'v') + "job_view";  // 63: its step view's name is 64 long
  CHECK_FALSE(validate(view));
  view.view = std::string(56, 'v') + "job_view";  // 64: its step view's name would be 65
  CHECK(validate(view));
}

TEST_CASE("the archive database: a plain name of its own, or none", "[initdb]") {
  SqlNames n = names_for("realstack", "h");
  CHECK(n.archive_database == "petricore");
  for (const char* good : {"petricore", "pc_archive", "Archive2", ""}) {  // "": none
    n.archive_database = good;
    CHECK_FALSE(validate(n));
  }
  n.archive_database = "pc-archive";
  REQUIRE(validate(n));
  CHECK(*validate(n) == "invalid --archive-database 'pc-archive': expected 1-64 of A-Z a-z 0-9 _, or none");
  n.archive_database = "x`; DROP DATABASE slurm_acct_db; --";
  CHECK(validate(n));
  for (const char* taken : {"slurm_acct_db", "SLURM_ACCT_DB"}) {
    n.archive_database = taken;
    REQUIRE(validate(n));
    CHECK(contains(*validate(n), "not Slurm's accounting database"));
  }
  for (const char* system : {"mysql", "information_schema", "Performance_Schema", "sys"}) {
    n.archive_database = system;
    REQUIRE(validate(n));
    CHECK(contains(*validate(n), "a database of the server itself"));
  }
}

TEST_CASE("the archive database's statements: utf8mb4, the archive's privileges, '_' escaped", "[initdb]") {
  SqlNames n = names_for("realstack", "web1");
  CHECK(archive_privileges() ==
        std::vector<std::string>{"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "INDEX", "ALTER"});
  CHECK(create_archive_database_sql(n) == "CREATE DATABASE IF NOT EXISTS `petricore` CHARACTER SET utf8mb4");
  CHECK(archive_grant_sql(n) ==
        "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER ON `petricore`.* TO 'petricore'@'web1'");
  n.archive_database = "pc_archive";
  CHECK(create_archive_database_sql(n) == "CREATE DATABASE IF NOT EXISTS `pc_archive` CHARACTER SET utf8mb4");
  CHECK(archive_grant_sql(n) ==
        "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER ON `pc\\_archive`.* TO 'petricore'@'web1'");
}

TEST_CASE("the step view's name follows the job view's", "[initdb]") {
  SqlNames n = names_for("realstack", "h");
  CHECK(n.step_view() == "user_step_view");
  CHECK(view_name(n, View::Job) == "user_job_view");
  CHECK(view_name(n, View::Step) == "user_step_view");
  n.view = "pc_view";
  CHECK(view_name(n, View::Step) == "pc_view_steps");
}

TEST_CASE("the job view: only the columns serve needs, deleted rows out, definer's rights", "[initdb]") {
  std::string sql = create_view_sql(names_for("realstack", "127.0.0.1"), View::Job);
  CHECK(sql.rfind("CREATE OR REPLACE ALGORITHM = MERGE SQL SECURITY DEFINER VIEW `slurm_acct_db`.`user_job_view` AS "
                  "SELECT j.`id_job` AS `id_job`, ",
                  0) == 0);
  CHECK(contains(sql,
                 " FROM `slurm_acct_db`.`realstack_job_table` AS j LEFT JOIN "
                 "`slurm_acct_db`.`realstack_assoc_table` AS a ON a.`id_assoc` = j.`id_assoc` LEFT JOIN "
                 "`slurm_acct_db`.`tres_table` AS t ON t.`type` = 'gres' AND t.`name` = 'gpu' AND t.`deleted` = "
                 "0 WHERE j.`deleted` = 0"));
  CHECK(contains(sql, "a.`user` AS `user_name`"));
  CHECK(contains(sql, "t.`id` AS `gpu_tres_id`"));
  CHECK(contains(sql, "j.`partition` AS `partition`"));  // a reserved word: quoted
  CHECK(contains(sql, "j.`job_db_inx` AS `job_db_inx`, j.`mem_req` AS `mem_req` FROM "));
  for (const char* secret : {"script_hash_inx", "env_hash_inx", "work_dir", "submit_line", "admin_comment",
                             "derived_es", "id_group", "tres_req"})
    CHECK_FALSE(contains(sql, secret));
}

TEST_CASE("the step view: plain columns of the step table, no node list or command line", "[initdb]") {
  std::string sql = create_view_sql(names_for("realstack", "127.0.0.1"), View::Step);
  CHECK(sql ==
        "CREATE OR REPLACE ALGORITHM = MERGE SQL SECURITY DEFINER VIEW `slurm_acct_db`.`user_step_view` AS SELECT "
        "s.`job_db_inx` AS `job_db_inx`, s.`id_step` AS `id_step`, s.`step_het_comp` AS `step_het_comp`, "
        "s.`task_cnt` AS `task_cnt`, s.`tres_alloc` AS `tres_alloc`, s.`user_sec` AS `user_sec`, s.`user_usec` AS "
        "`user_usec`, s.`sys_sec` AS `sys_sec`, s.`sys_usec` AS `sys_usec`, s.`tres_usage_in_max` AS "
        "`tres_usage_in_max` FROM `slurm_acct_db`.`realstack_step_table` AS s WHERE s.`deleted` = 0");
  for (const char* secret : {"submit_line", "nodelist", "step_name", "container", "JOIN"})
    CHECK_FALSE(contains(sql, secret));
  SqlNames other = names_for("Other_2", "h");
  other.database = "acct";
  other.view = "pc_job_view";
  CHECK(contains(create_view_sql(other, View::Step),
                 " VIEW `acct`.`pc_step_view` AS SELECT s.`job_db_inx` AS `job_db_inx`, "));
  CHECK(contains(create_view_sql(other, View::Step), " FROM `acct`.`Other_2_step_table` AS s WHERE "));
  CHECK(step_table(other) == "`acct`.`Other_2_step_table`");
}

TEST_CASE("user, grant and drop statements", "[initdb]") {
  SqlNames n = names_for("realstack", "login1.int.kappa");
  const std::string hash = "*B69027D44F6E5EDC07F1AEAD1477967B16F28227";
  CHECK(create_user_sql(n, hash) ==
        "CREATE USER IF NOT EXISTS 'petricore'@'login1.int.kappa' IDENTIFIED BY PASSWORD '" + hash + "'");
  CHECK(alter_user_password_sql(n, hash) ==
        "ALTER USER 'petricore'@'login1.int.kappa' IDENTIFIED BY PASSWORD '" + hash + "'");
  CHECK(grant_sql(n, View::Job) == "GRANT SELECT ON `slurm_acct_db`.`user_job_view` TO 'petricore'@'login1.int.kappa'");
  CHECK(grant_sql(n, View::Step) ==
        "GRANT SELECT ON `slurm_acct_db`.`user_step_view` TO 'petricore'@'login1.int.kappa'");
  CHECK(show_grants_sql(n) == "SHOW GRANTS FOR 'petricore'@'login1.int.kappa'");
  CHECK(drop_view_sql(n, View::Job) == "DROP VIEW IF EXISTS `slurm_acct_db`.`user_job_view`");
  CHECK(drop_view_sql(n, View::Step) == "DROP VIEW IF EXISTS `slurm_acct_db`.`user_step_view`");
  CHECK(drop_user_sql(n) == "DROP USER IF EXISTS 'petricore'@'login1.int.kappa'");
  CHECK(job_table(n) == "`slurm_acct_db`.`realstack_job_table`");
}

TEST_CASE("a password hash is checked before it goes into a statement", "[initdb]") {
  CHECK(valid_password_hash("*B69027D44F6E5EDC07F1AEAD1477967B16F28227"));
  CHECK_FALSE(valid_password_hash(""));
  CHECK_FALSE(valid_password_hash("B69027D44F6E5EDC07F1AEAD1477967B16F28227"));
  CHECK_FALSE(valid_password_hash("*b69027d44f6e5edc07f1aead1477967b16f28227"));
  CHECK_FALSE(valid_password_hash("*B69027D44F6E5EDC07F1AEAD1477967B16F2822'"));
  CHECK_FALSE(valid_password_hash("*B69027D44F6E5EDC07F1AEAD1477967B16F282270"));
}

TEST_CASE("dry run: the statements in order, the password as <redacted>", "[initdb]") {
  SqlNames n = names_for("realstack", "127.0.0.1");
  auto create = dry_run_script(n, false);
  REQUIRE(create.size() == 7);
  CHECK(create[0] == "CREATE USER IF NOT EXISTS 'petricore'@'127.0.0.1' IDENTIFIED BY '<redacted>';");
  CHECK(create[1] == create_view_sql(n, View::Job) + ";");
  CHECK(create[2] == create_view_sql(n, View::Step) + ";");
  CHECK(create[3] == grant_sql(n, View::Job) + ";");
  CHECK(create[4] == grant_sql(n, View::Step) + ";");
  CHECK(create[5] == "CREATE DATABASE IF NOT EXISTS `petricore` CHARACTER SET utf8mb4;");
  CHECK(create[6] == archive_grant_sql(n) + ";");
  auto drop = dry_run_script(n, true);
  CHECK(drop == std::vector<std::string>{drop_view_sql(n, View::Job) + ";", drop_view_sql(n, View::Step) + ";",
                                         drop_user_sql(n) + ";",
                                         "-- kept: the archive database `petricore` and its data (DROP DATABASE "
                                         "removes them)"});
  // --archive-database none: the views alone.
  n.archive_database.clear();
  CHECK(dry_run_script(n, false) == std::vector<std::string>(create.begin(), create.begin() + 5));
  CHECK(dry_run_script(n, true) == std::vector<std::string>(drop.begin(), drop.begin() + 3));
}

TEST_CASE("SHOW GRANTS: exactly USAGE plus SELECT on the two views", "[initdb]") {
  SqlNames n = names_for("itest", "127.0.0.1");
  n.archive_database.clear();  // the archive's grant: the next test
  const std::string usage =
      "GRANT USAGE ON *.* TO `petricore`@`127.0.0.1` IDENTIFIED BY PASSWORD "
      "'*B69027D44F6E5EDC07F1AEAD1477967B16F28227'";
  const std::string select = "GRANT SELECT ON `slurm_acct_db`.`user_job_view` TO `petricore`@`127.0.0.1`";
  const std::string steps = "GRANT SELECT ON `slurm_acct_db`.`user_step_view` TO `petricore`@`127.0.0.1`";
  CHECK_FALSE(check_grants(n, {usage, select, steps}));
  CHECK_FALSE(check_grants(n, {usage, steps, select}));
  CHECK(has_view_grant(n, View::Job, {usage, select}));
  CHECK_FALSE(has_view_grant(n, View::Step, {usage, select}));
  CHECK(has_view_grant(n, View::Step, {usage, steps}));
  CHECK_FALSE(has_view_grant(n, View::Job, {usage, steps}));
  CHECK_FALSE(has_view_grant(n, View::Job, {usage}));
  // MariaDB 10.3 quoted accounts with single quotes.
  CHECK_FALSE(check_grants(n, {"GRANT USAGE ON *.* TO 'petricore'@'127.0.0.1'",
                               "GRANT SELECT ON `slurm_acct_db`.`user_job_view` TO 'petricore'@'127.0.0.1'",
                               "GRANT SELECT ON `slurm_acct_db`.`user_step_view` TO 'petricore'@'127.0.0.1'"}));

  auto lacking = check_grants(n, {usage});
  REQUIRE(lacking);
  CHECK(*lacking == "'petricore'@'127.0.0.1' lacks SELECT on slurm_acct_db.user_job_view");
  auto lacking_steps = check_grants(n, {usage, select});
  REQUIRE(lacking_steps);
  CHECK(*lacking_steps == "'petricore'@'127.0.0.1' lacks SELECT on slurm_acct_db.user_step_view");
  auto database =
      check_grants(n, {usage, select, steps, "GRANT SELECT ON `slurm_acct_db`.* TO `petricore`@`127.0.0.1`"});
  REQUIRE(database);
  CHECK(*database ==
        "'petricore'@'127.0.0.1' holds more than SELECT on slurm_acct_db.user_job_view and "
        "slurm_acct_db.user_step_view: GRANT SELECT ON `slurm_acct_db`.* TO `petricore`@`127.0.0.1`");
  auto table = check_grants(
      n, {usage, select, steps, "GRANT SELECT ON `slurm_acct_db`.`itest_step_table` TO `petricore`@`127.0.0.1`"});
  REQUIRE(table);
  CHECK(contains(*table, ": GRANT SELECT ON `slurm_acct_db`.`itest_step_table`"));
  CHECK(check_grants(n, {usage + " WITH GRANT OPTION", select, steps}));
  CHECK(check_grants(n, {usage, select, steps + " WITH GRANT OPTION"}));
  CHECK(check_grants(
      n, {usage, select, "GRANT SELECT, INSERT ON `slurm_acct_db`.`user_step_view` TO `petricore`@`127.0.0.1`"}));
  CHECK(check_grants(
      n, {usage, steps, "GRANT SELECT, INSERT ON `slurm_acct_db`.`user_job_view` TO `petricore`@`127.0.0.1`"}));
  CHECK(has_view_grant(n, View::Job,
                       {"GRANT SELECT, INSERT ON `slurm_acct_db`.`user_job_view` TO `petricore`@`127.0.0.1`"}));
  CHECK(has_view_grant(n, View::Step,
                       {"GRANT ALL PRIVILEGES ON `slurm_acct_db`.`user_step_view` TO `petricore`@`127.0.0.1`"}));
  CHECK(check_grants(n, {usage, select, steps, "GRANT `admin_role` TO `petricore`@`127.0.0.1`"}));
  auto super =
      check_grants(n, {"GRANT SUPER ON *.* TO `petricore`@`127.0.0.1` IDENTIFIED BY PASSWORD '*AB'", select, steps});
  REQUIRE(super);
  CHECK_FALSE(contains(*super, "PASSWORD"));  // the hash stays out of messages
  // Another view name moves the step view with it.
  n.view = "pc_job_view";
  CHECK_FALSE(check_grants(n, {usage, "GRANT SELECT ON `slurm_acct_db`.`pc_job_view` TO `petricore`@`127.0.0.1`",
                               "GRANT SELECT ON `slurm_acct_db`.`pc_step_view` TO `petricore`@`127.0.0.1`"}));
  CHECK(check_grants(n, {usage, "GRANT SELECT ON `slurm_acct_db`.`pc_job_view` TO `petricore`@`127.0.0.1`", steps}));
}

TEST_CASE("SHOW GRANTS: the archive's privileges on its database, no more, no less", "[initdb]") {
  SqlNames n = names_for("itest", "127.0.0.1");
  const std::string usage = "GRANT USAGE ON *.* TO `petricore`@`127.0.0.1`";
  const std::string select = "GRANT SELECT ON `slurm_acct_db`.`user_job_view` TO `petricore`@`127.0.0.1`";
  const std::string steps = "GRANT SELECT ON `slurm_acct_db`.`user_step_view` TO `petricore`@`127.0.0.1`";
  // As MariaDB 10.11 shows it.
  const std::string archive =
      "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER ON `petricore`.* TO `petricore`@`127.0.0.1`";
  CHECK_FALSE(check_grants(n, {usage, select, steps, archive}));
  CHECK_FALSE(check_grants(n, {archive, usage, steps, select}));
  CHECK(has_archive_grant(n, {usage, archive}));
  CHECK_FALSE(has_archive_grant(n, {usage, select, steps}));
  CHECK(has_archive_grant(n, {"GRANT ALL PRIVILEGES ON `petricore`.* TO `petricore`@`127.0.0.1`"}));
  // In another order, as an older server may list them.
  CHECK_FALSE(check_grants(
      n, {usage, select, steps,
          "GRANT CREATE, ALTER, INDEX, SELECT, INSERT, UPDATE, DELETE ON `petricore`.* TO 'petricore'@'127.0.0.1'"}));

  auto lacking = check_grants(n, {usage, select, steps});
  REQUIRE(lacking);
  CHECK(*lacking ==
        "'petricore'@'127.0.0.1' lacks SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER on petricore.*");
  const std::string partial = "GRANT SELECT, INSERT ON `petricore`.* TO `petricore`@`127.0.0.1`";
  CHECK_FALSE(has_archive_grant(n, {partial}));
  CHECK(check_grants(n, {usage, select, steps, partial}));
  auto drop = check_grants(n, {usage, select, steps,
                               "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER ON `petricore`.* TO "
                               "`petricore`@`127.0.0.1`"});
  REQUIRE(drop);
  CHECK(contains(*drop,
                 "holds more than SELECT on slurm_acct_db.user_job_view and slurm_acct_db.user_step_view and "
                 "SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER on petricore.*: GRANT SELECT, INSERT, "
                 "UPDATE, DELETE, CREATE, DROP,"));
  CHECK(check_grants(n, {usage, select, steps, archive + " WITH GRANT OPTION"}));
  CHECK(check_grants(
      n, {usage, select, steps, archive, "GRANT SELECT, INSERT ON `slurm_acct_db`.* TO `petricore`@`127.0.0.1`"}));
  // The archive's privileges on the accounting database are not the archive's.
  CHECK(check_grants(
      n,
      {usage, select, steps, archive,
       "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER ON `slurm_acct_db`.* TO `petricore`@`127.0.0.1`"}));
  // A '_' in its name is escaped in the grant; unescaped it is a pattern.
  n.archive_database = "pc_archive";
  CHECK_FALSE(check_grants(
      n,
      {usage, select, steps,
       "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER ON `pc\\_archive`.* TO `petricore`@`127.0.0.1`"}));
  CHECK(check_grants(
      n, {usage, select, steps,
          "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER ON `pc_archive`.* TO `petricore`@`127.0.0.1`"}));
  // No archive database: a grant on one is more than the views.
  n.archive_database.clear();
  CHECK_FALSE(check_grants(n, {usage, select, steps}));
  CHECK_FALSE(has_archive_grant(n, {usage, archive}));
  auto none = check_grants(n, {usage, select, steps, archive});
  REQUIRE(none);
  CHECK(*none ==
        "'petricore'@'127.0.0.1' holds more than SELECT on slurm_acct_db.user_job_view and "
        "slurm_acct_db.user_step_view: " +
            archive);
}

TEST_CASE("an existing view is current only with our columns, table and security", "[initdb]") {
  SqlNames n = names_for("itest", "127.0.0.1");
  CHECK(view_is_current(n, View::Job, view_column_names(View::Job), "DEFINER", kServerDefinition));
  CHECK_FALSE(view_is_current(n, View::Job, view_column_names(View::Job), "INVOKER", kServerDefinition));
  CHECK_FALSE(view_is_current(names_for("other", "127.0.0.1"), View::Job, view_column_names(View::Job), "DEFINER",
                              kServerDefinition));
  std::vector<std::string> older{"id_user", "id_job", "job_name"};  // the 2020 original's view
  CHECK_FALSE(view_is_current(n, View::Job, older, "DEFINER", kServerDefinition));
  // The view of the version before the step view: no job_db_inx, no mem_req.
  std::vector<std::string> before_steps = view_column_names(View::Job);
  before_steps.resize(before_steps.size() - 2);
  CHECK_FALSE(view_is_current(n, View::Job, before_steps, "DEFINER", kServerDefinition));
  std::string with_deleted = kServerDefinition;
  with_deleted.erase(with_deleted.find(" where"));
  CHECK_FALSE(view_is_current(n, View::Job, view_column_names(View::Job), "DEFINER", with_deleted));

  CHECK(view_is_current(n, View::Step, view_column_names(View::Step), "DEFINER", kServerStepDefinition));
  CHECK_FALSE(view_is_current(n, View::Step, view_column_names(View::Step), "INVOKER", kServerStepDefinition));
  CHECK_FALSE(view_is_current(names_for("other", "127.0.0.1"), View::Step, view_column_names(View::Step), "DEFINER",
                              kServerStepDefinition));
  std::vector<std::string> fewer = view_column_names(View::Step);
  fewer.pop_back();
  CHECK_FALSE(view_is_current(n, View::Step, fewer, "DEFINER", kServerStepDefinition));
  std::string steps_with_deleted = kServerStepDefinition;
  steps_with_deleted.erase(steps_with_deleted.find(" where"));
  CHECK_FALSE(view_is_current(n, View::Step, view_column_names(View::Step), "DEFINER", steps_with_deleted));
  // Each view judged against the other's definition.
  CHECK_FALSE(view_is_current(n, View::Step, view_column_names(View::Step), "DEFINER", kServerDefinition));
  CHECK_FALSE(view_is_current(n, View::Job, view_column_names(View::Job), "DEFINER", kServerStepDefinition));
}

// ---- against a real server (hidden: run by test/integration/mariadb_test.sh) ----

namespace {

using petricore::Error;
using petricore::model::parse_job_id;
using namespace petricore::sources;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// The source over TCP as petricore, or nullptr (the test then skips).
std::unique_ptr<AccountingSource> db_source(const std::string& password_file) {
  DbConfig config;
  config.host = env("PETRICORE_TEST_DB_HOST");
  if (config.host.empty()) return nullptr;
  config.port = static_cast<unsigned>(std::stoul(env("PETRICORE_TEST_DB_PORT")));
  config.password_file = password_file;
  config.timeout_seconds = 5;
  return make_db_accounting(config);
}

}  // namespace

TEST_CASE("DB source reads jobs from the view on a real MariaDB", "[.][mariadb]") {
  auto source = db_source(env("PETRICORE_TEST_DB_PASSWORD_FILE"));
  if (!source) {
    WARN("PETRICORE_TEST_DB_HOST is not set: skipped");
    return;
  }
  CHECK(source->name() == "db");

  auto oom = source->job(*parse_job_id("201"));
  REQUIRE(oom.ok());
  CHECK(oom->job_id == "201");
  CHECK(oom->raw_id == "201");
  CHECK(oom->state == "OUT_OF_MEMORY");
  CHECK(oom->user == "pcalice");  // from the association: uid 424201 is unknown here
  CHECK(oom->uid == 424201u);
  CHECK(oom->account == "research");
  CHECK(oom->name == "oom");
  CHECK(oom->partition == "debug");
  CHECK(oom->submit == 1795977000);
  CHECK(oom->start == 1795977001);
  CHECK(oom->end == 1795977011);
  CHECK(oom->time_limit_seconds == 600);
  CHECK(oom->alloc_cpus == 1);
  CHECK(oom->alloc_mem_mb == Approx(64));
  CHECK(oom->alloc_nodes == 1);
  CHECK(oom->billing == 1);
  CHECK(oom->alloc_gpus == 0);
  CHECK(oom->node_list == "vm");
  CHECK(oom->mem_per_cpu == false);             // --mem
  CHECK(oom->total_cpu_seconds == Approx(10));  // its batch step alone
  CHECK(oom->max_rss_mb == Approx(64));
  CHECK_FALSE(oom->tasks);  // no srun step: the layout is unknown
  CHECK_FALSE(oom->cpus_per_task);

  auto running = source->job(*parse_job_id("102"));
  REQUIRE(running.ok());
  CHECK(running->state == "RUNNING");
  CHECK(running->running());
  CHECK_FALSE(running->end);
  CHECK_FALSE(running->time_limit_seconds);  // INFINITE
  CHECK(running->user == "root");
  CHECK(running->alloc_nodes == 2);
  CHECK(running->node_list == "node[01-02]");
  CHECK(running->alloc_mem_mb == Approx(4096));
  CHECK(running->tasks == 4);  // its srun step, still running
  CHECK(running->cpus_per_task == 1);
  CHECK(running->total_cpu_seconds == Approx(0));
  CHECK_FALSE(running->max_rss_mb);  // no step has measured memory yet

  auto pending = source->job(*parse_job_id("304"));
  REQUIRE(pending.ok());
  CHECK(pending->state == "PENDING");
  CHECK_FALSE(pending->start);
  CHECK(pending->node_list.empty());
  CHECK(pending->alloc_cpus == 0);
  CHECK(pending->mem_per_cpu == false);
  CHECK_FALSE(pending->total_cpu_seconds);  // no steps
  CHECK_FALSE(pending->max_rss_mb);
  CHECK_FALSE(pending->tasks);
  CHECK_FALSE(pending->cpus_per_task);

  auto gpu = source->job(*parse_job_id("202"));
  REQUIRE(gpu.ok());
  CHECK(gpu->alloc_gpus == 2);  // TRES 1001 = gres/gpu in tres_table
  CHECK(gpu->alloc_cpus == 8);
  CHECK(gpu->billing == 10);
  CHECK(gpu->mem_per_cpu == false);
  CHECK(gpu->tasks == 4);  // the first step with the most tasks: 4 tasks on 8 CPUs
  CHECK(gpu->cpus_per_task == 2);
  CHECK(gpu->total_cpu_seconds == Approx(3532.751));
  CHECK(gpu->max_rss_mb == Approx(8192));

  auto task = source->job(*parse_job_id("210_3"));
  REQUIRE(task.ok());
  CHECK(task->job_id == "210_3");
  CHECK(task->raw_id == "213");
  CHECK(task->mem_per_cpu == true);  // --mem-per-cpu=100M
  CHECK(task->total_cpu_seconds == Approx(52.501));
  CHECK(task->max_rss_mb == Approx(100));
  CHECK_FALSE(task->tasks);
  auto by_raw = source->job(*parse_job_id("213"));
  REQUIRE(by_raw.ok());
  CHECK(by_raw->job_id == "210_3");

  auto het = source->job(*parse_job_id("230+1"));
  REQUIRE(het.ok());
  CHECK(het->raw_id == "231");
  CHECK(het->alloc_cpus == 2);
  CHECK(het->mem_per_cpu == true);  // mem_req holds the flag alone
  CHECK(het->tasks == 1);           // -n 1 -c 2
  CHECK(het->cpus_per_task == 2);
  CHECK(het->total_cpu_seconds == Approx(195.03));
  CHECK(het->max_rss_mb == Approx(50));
  auto leader = source->job(*parse_job_id("230"));
  REQUIRE(leader.ok());
  CHECK(leader->job_id == "230+0");
  CHECK_FALSE(leader->total_cpu_seconds);  // its steps are not its component's

  // A job as a real Slurm 22.05 recorded it: -n 2 -c 1 --mem-per-cpu, srun.
  auto root = source->job(*parse_job_id("101"));
  REQUIRE(root.ok());
  CHECK(root->mem_per_cpu == true);
  CHECK(root->alloc_mem_mb == Approx(256));
  CHECK(root->tasks == 2);  // not the deleted 8-task step
  CHECK(root->cpus_per_task == 1);
  CHECK(root->total_cpu_seconds == Approx(5.949046).epsilon(1e-9));  // sacct: TotalCPU 00:05.949
  CHECK(root->max_rss_mb == Approx(4079616.0 / 1048576));            // sacct: MaxRSS 3984K (batch)

  CHECK(source->job(*parse_job_id("304")).ok());
  for (const char* unknown : {"999", "103", "210_9", "230+5"}) {  // 103 is marked deleted
    auto none = source->job(*parse_job_id(unknown));
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().kind == Error::Kind::NotFound);
  }
}

TEST_CASE("DB source lists a user's jobs newest first", "[.][mariadb]") {
  auto source = db_source(env("PETRICORE_TEST_DB_PASSWORD_FILE"));
  if (!source) return;
  auto alice = source->jobs_of_user("pcalice", 10);  // by user name: unknown to this host
  REQUIRE(alice.ok());
  std::vector<std::string> ids;
  for (const auto& j : *alice) ids.push_back(j.job_id);
  CHECK(ids == std::vector<std::string>{"230+1", "230+0", "202", "210_3", "201"});
  std::vector<bool> per_cpu;
  CHECK(source->lists_whole_records());
  for (const auto& j : *alice) {
    per_cpu.push_back(j.mem_per_cpu.value_or(false));
    CHECK(j.mem_per_cpu.has_value());
    // Whole records: the step figures too, as job() gives them.
    auto alone = source->job(*parse_job_id(j.job_id));
    REQUIRE(alone.ok());
    petricore::test::check_same_record(j, *alone);
  }
  CHECK(per_cpu == std::vector<bool>{true, false, false, true, false});
  REQUIRE((*alice)[2].total_cpu_seconds);
  CHECK(*(*alice)[2].total_cpu_seconds == Approx(3532.751));  // 202, from its steps
  CHECK((*alice)[2].tasks == 4);
  CHECK_FALSE((*alice)[1].total_cpu_seconds);  // 230+0: its steps are not its component's
  auto two = source->jobs_of_user("pcalice", 2);
  REQUIRE(two.ok());
  CHECK(two->size() == 2);
  auto root = source->jobs_of_user("root", 10);  // by uid 0 from this host's passwd
  REQUIRE(root.ok());
  ids.clear();
  for (const auto& j : *root) ids.push_back(j.job_id);
  CHECK(ids == std::vector<std::string>{"102", "101"});
  auto nobody = source->jobs_of_user("pcnobody", 10);
  REQUIRE(nobody.ok());
  CHECK(nobody->empty());
  auto bad = source->jobs_of_user("x' OR '1'='1", 10);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == Error::Kind::BadInput);
}

TEST_CASE("DB source lists the jobs ended in a window, by end then id, each as job() gives it", "[.][mariadb]") {
  auto source = db_source(env("PETRICORE_TEST_DB_PASSWORD_FILE"));
  if (!source) return;
  auto ids_of = [](const std::vector<petricore::model::JobRecord>& jobs) {
    std::vector<std::string> ids;
    for (const auto& j : jobs) ids.push_back(j.job_id);
    return ids;
  };
  // Every final state; not 102 (running), 304 (pending) or 103 (deleted).
  // 230+0 and 230+1 (raw 230, 231) ended in the same second.
  auto all = source->jobs_ended(0, 1900000000, 100);
  REQUIRE(all.ok());
  CHECK(ids_of(*all) == std::vector<std::string>{"101", "201", "210_3", "230+0", "230+1", "301", "302", "202"});
  std::vector<std::string> states;
  for (const auto& j : *all) {
    states.push_back(j.state);
    // Whole records: the step figures too, as job() gives them.
    auto alone = source->job(*parse_job_id(j.job_id));
    REQUIRE(alone.ok());
    petricore::test::check_same_record(j, *alone);
    CHECK(j.user == alone->user);
    CHECK(j.account == alone->account);
    CHECK(j.partition == alone->partition);
    CHECK(j.alloc_gpus == alone->alloc_gpus);
  }
  CHECK(states == std::vector<std::string>{"COMPLETED", "OUT_OF_MEMORY", "COMPLETED", "COMPLETED", "COMPLETED",
                                           "CANCELLED", "TIMEOUT", "COMPLETED"});
  CHECK((*all)[2].raw_id == "213");
  CHECK((*all)[7].total_cpu_seconds == Approx(3532.751));  // 202, from its steps
  CHECK((*all)[7].alloc_gpus == 2);
  // Half-open on the end: 230's end is in, 202's (1795982700) is out.
  auto window = source->jobs_ended(1795980101, 1795982700, 100);
  REQUIRE(window.ok());
  CHECK(ids_of(*window) == std::vector<std::string>{"230+0", "230+1", "301", "302"});
  auto first = source->jobs_ended(0, 1900000000, 3);
  REQUIRE(first.ok());
  CHECK(ids_of(*first) == std::vector<std::string>{"101", "201", "210_3"});
  for (auto [since, until] : {std::pair<std::int64_t, std::int64_t>{1795982701, 1900000000},
                              {1795982700, 1795982700},
                              {1795990000, 1795980000}}) {
    auto none = source->jobs_ended(since, until, 100);
    REQUIRE(none.ok());
    CHECK(none->empty());
  }
  auto zero = source->jobs_ended(0, 1900000000, 0);
  REQUIRE(zero.ok());
  CHECK(zero->empty());
}

TEST_CASE("DB source serves several threads at once", "[.][mariadb]") {
  auto source = db_source(env("PETRICORE_TEST_DB_PASSWORD_FILE"));
  if (!source) return;
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        auto job = source->job(*parse_job_id(i % 2 ? "201" : "230+1"));
        if (job.ok() && (job->raw_id == "201" || job->raw_id == "231")) ++good;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(good == 200);
}

TEST_CASE("DB source reconnects after the server dropped its connections", "[.][mariadb]") {
  auto source = db_source(env("PETRICORE_TEST_DB_PASSWORD_FILE"));
  const std::string socket = env("PETRICORE_TEST_DB_SOCKET");
  if (!source || socket.empty()) return;
  REQUIRE(source->job(*parse_job_id("201")).ok());  // a connection now waits in the pool

  MariaDbTarget admin;
  admin.socket = socket;
  admin.user = "root";  // unix_socket authentication: the tests run as root
  auto root = MariaDbConnection::connect(admin);
  REQUIRE(root.ok());
  auto ids = root->run("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?", {std::string("petricore")});
  REQUIRE(ids.ok());
  REQUIRE_FALSE(ids->rows.empty());
  for (const auto& row : ids->rows) REQUIRE(root->run("KILL CONNECTION " + row[0].value()).ok());

  auto again = source->job(*parse_job_id("201"));
  REQUIRE(again.ok());
  CHECK(again->state == "OUT_OF_MEMORY");
}

TEST_CASE("DB source: a wrong password is Unavailable in one line; a missing file is refused at start",
          "[.][mariadb]") {
  const std::string wrong = env("PETRICORE_TEST_DB_WRONG_PASSWORD_FILE");
  auto source = db_source(wrong);
  if (!source || wrong.empty()) return;
  auto job = source->job(*parse_job_id("201"));
  REQUIRE_FALSE(job.ok());
  CHECK(job.error().kind == Error::Kind::Unavailable);
  CHECK(contains(job.error().message, "as petricore: Access denied"));
  CHECK(contains(job.error().message, "(1045)"));
  CHECK_FALSE(contains(job.error().message, "\n"));
  CHECK_THROWS_AS(db_source("/nonexistent/password"), std::invalid_argument);
}

TEST_CASE("MariaDB connection: bound parameters, NULL, values longer than the fetch buffer", "[.][mariadb]") {
  const std::string host = env("PETRICORE_TEST_DB_HOST");
  if (host.empty()) return;
  MariaDbTarget target;
  target.host = host;
  target.port = static_cast<unsigned>(std::stoul(env("PETRICORE_TEST_DB_PORT")));
  target.user = "petricore";
  target.password = petricore::read_password_file(env("PETRICORE_TEST_DB_PASSWORD_FILE"), "password");
  auto c = MariaDbConnection::connect(target);
  REQUIRE(c.ok());
  auto r = c->run("SELECT REPEAT(?, ?), ?, ? + 1", {std::string("ab"), std::int64_t{600}, nullptr, std::int64_t{41}});
  REQUIRE(r.ok());
  REQUIRE(r->rows.size() == 1);
  std::string repeated;
  for (int i = 0; i < 600; ++i) repeated += "ab";
  CHECK(r->rows[0][0] == std::optional<std::string>(repeated));
  CHECK_FALSE(r->rows[0][1]);
  CHECK(r->rows[0][2] == std::optional<std::string>("42"));
  // A quote in a bound value is data, not SQL.
  auto quoted = c->run("SELECT ?", {std::string("x' OR '1'='1")});
  REQUIRE(quoted.ok());
  CHECK(quoted->rows[0][0] == std::optional<std::string>("x' OR '1'='1"));
  auto denied = c->run("SELECT 1 FROM `slurm_acct_db`.`itest_job_table` LIMIT 1");
  REQUIRE_FALSE(denied.ok());
  CHECK(c->error_code() == mariadb_error::kTableAccessDenied);
}
