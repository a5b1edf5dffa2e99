// The restricted views on slurm_acct_db that the DB accounting source reads
// and `petricore init-db` creates: their names and their columns, the
// contract between the two. One setting (`view`, the same for init-db and
// [accounting.db]) names the job view; the step view's name derives from it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace petricore::sources {

enum class View { Job, Step };

// 1-64 of [A-Za-z0-9_] (also what slurmdbd accepts in a cluster name): a
// name that can be quoted (`x`) without any escaping.
bool valid_identifier(std::string_view name);

// The step view's name: a trailing "job_view" becomes "step_view"
// (user_job_view → user_step_view), any other name gets "_steps" appended
// (jobs → jobs_steps). It may be too long to be an identifier.
std::string step_view_of(std::string_view job_view);

// A view's columns, in order: what the DB accounting source selects by name.
// Job: only what serve needs (no scripts, environments, work_dir, submit
// line), plus user_name from the association and gpu_tres_id, the id of
// gres/gpu in tres_table, so tres_alloc can be read without access to it;
// job_db_inx links a job to its steps. Step: the key, task count, allocation
// and CPU times and maximum usage of each step (no node list, no submit line).
const std::vector<std::string>& view_column_names(View view);

// `db`.`name`, quoted (both must be valid identifiers).
std::string qualified(std::string_view database, std::string_view name);

}  // namespace petricore::sources
