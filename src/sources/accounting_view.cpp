#include "sources/accounting_view.hpp"

#include <algorithm>

namespace petricore::sources {
namespace {

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string quote(std::string_view name) {
  return "`" + std::string(name) + "`";
}

}  // namespace

bool valid_identifier(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), identifier_char);
}

std::string step_view_of(std::string_view job_view) {
  constexpr std::string_view kJobView = "job_view";
  if (job_view.size() >= kJobView.size() && job_view.substr(job_view.size() - kJobView.size()) == kJobView)
    return std::string(job_view.substr(0, job_view.size() - kJobView.size())) + "step_view";
  return std::string(job_view) + "_steps";
}

const std::vector<std::string>& view_column_names(View view) {
  // The order matters to init-db's view_is_current() only.
  static const std::vector<std::string> job{
      "id_job",    "id_array_job", "id_array_task", "het_job_id", "het_job_offset", "id_user",    "user_name",
      "account",   "job_name",     "partition",     "state",      "time_submit",    "time_start", "time_end",
      "timelimit", "nodes_alloc",  "nodelist",      "tres_alloc", "gpu_tres_id",    "job_db_inx", "mem_req"};
  static const std::vector<std::string> step{"job_db_inx", "id_step",          "step_het_comp", "task_cnt",
                                             "tres_alloc", "user_sec",         "user_usec",     "sys_sec",
                                             "sys_usec",   "tres_usage_in_max"};
  return view == View::Job ? job : step;
}

std::string qualified(std::string_view database, std::string_view name) {
  return quote(database) + "." + quote(name);
}

}  // namespace petricore::sources
