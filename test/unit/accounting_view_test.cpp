// The accounting views' names and columns: what the DB accounting source
// selects and init-db creates.
#include "sources/accounting_view.hpp"

#include "catch.hpp"

#include <string>
#include <vector>

using namespace petricore::sources;

TEST_CASE("identifiers: only what needs no escaping", "[accounting_view]") {
  for (const char* good : {"realstack", "Cluster_2", "a", "slurm_acct_db"}) CHECK(valid_identifier(good));
  for (const char* bad : {"", "a-b", "a b", "a'b", "a`b", "x;DROP USER root", "a.b", "caf\xc3\xa9"})
    CHECK_FALSE(valid_identifier(bad));
  CHECK(valid_identifier(std::string(64, 'a')));
  CHECK_FALSE(valid_identifier(std::string(65, 'a')));
}

TEST_CASE("the step view's name derives from the job view's", "[accounting_view]") {
  CHECK(step_view_of("user_job_view") == "user_step_view");
  CHECK(step_view_of("cluster2_job_view") == "cluster2_step_view");
  CHECK(step_view_of("job_view") == "step_view");
  CHECK(step_view_of("jobs") == "jobs_steps");
  CHECK(step_view_of("job_views") == "job_views_steps");
  CHECK(step_view_of(std::string(60, 'v')).size() == 66);  // may be too long for an identifier
}

TEST_CASE("the views' columns: only what serve needs, in order", "[accounting_view]") {
  CHECK(view_column_names(View::Job) ==
        std::vector<std::string>{
            "id_job",    "id_array_job", "id_array_task", "het_job_id", "het_job_offset", "id_user",    "user_name",
            "account",   "job_name",     "partition",     "state",      "time_submit",    "time_start", "time_end",
            "timelimit", "nodes_alloc",  "nodelist",      "tres_alloc", "gpu_tres_id",    "job_db_inx", "mem_req"});
  CHECK(view_column_names(View::Step) == std::vector<std::string>{"job_db_inx", "id_step", "step_het_comp", "task_cnt",
                                                                  "tres_alloc", "user_sec", "user_usec", "sys_sec",
                                                                  "sys_usec", "tres_usage_in_max"});
}

TEST_CASE("qualified names are quoted", "[accounting_view]") {
  CHECK(qualified("slurm_acct_db", "user_job_view") == "`slurm_acct_db`.`user_job_view`");
}
