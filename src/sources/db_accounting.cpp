// The accounting source that reads the restricted views `petricore init-db`
// creates on slurm_acct_db (their columns: sources/accounting_view.hpp), through
// MariaDB, with prepared statements only: jobs from the job view, and for
// job() and jobs_of_user() also their steps from the step view (TotalCPU,
// MaxRSS, task layout).
//
// Thread-safety: serve calls it from several worker threads. Each call
// borrows an idle connection from a small pool (a mutex guards only the pool)
// or opens a new one, so calls run in parallel, each on its own connection.
// Connections are opened on first use; one that fails is dropped, so the next
// call reconnects, and a call whose pooled connection turns out dead (server
// restart, wait_timeout) is retried once on a fresh one.
#include "core/idle_pool.hpp"
#include "core/passwd.hpp"
#include "core/secret_file.hpp"
#include "core/startup_error.hpp"
#include "model/job_id.hpp"
#include "sources/accounting_factory.hpp"
#include "sources/accounting_view.hpp"
#include "sources/mariadb_library.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

namespace petricore::sources {
namespace {

using model::JobRecord;

constexpr std::size_t kMaxIdleConnections = 4;
constexpr unsigned kUnknownColumn = 1054;                  // ER_BAD_FIELD_ERROR
constexpr std::uint64_t kNoValue = 4294967294;             // Slurm's NO_VAL (array task, het offset, time limit)
constexpr std::uint64_t kInfinite = 4294967295;            // Slurm's INFINITE (time limit)
constexpr std::uint64_t kMemPerCpu = 1ull << 63;           // Slurm's MEM_PER_CPU flag in mem_req
constexpr std::uint64_t kNoValue64 = 0xfffffffffffffffe;   // Slurm's NO_VAL64
constexpr std::uint64_t kInfinite64 = 0xffffffffffffffff;  // Slurm's INFINITE64

// Slurm's enum job_states, the base state in the low byte of `state`.
std::string state_name(std::uint64_t state) {
  static const char* const names[] = {"PENDING", "RUNNING",   "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
                                      "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY"};
  std::uint64_t base = state & 0xff;  // JOB_STATE_BASE; the rest are flags
  return base < std::size(names) ? names[base] : "UNKNOWN";
}

// The final ones among them, COMPLETED .. OUT_OF_MEMORY (not PENDING,
// RUNNING or SUSPENDED): "3, 4, ..., 11".
std::string final_state_list() {
  std::string list;
  for (int state = 3; state <= 11; ++state) list += (list.empty() ? "" : ", ") + std::to_string(state);
  return list;
}

std::optional<std::uint64_t> to_u64(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

// tres_alloc "1=2,2=256,4=1,5=2,1001=2": TRES id → count.
std::map<std::uint64_t, std::uint64_t> parse_tres_ids(const std::string& text) {
  std::map<std::uint64_t, std::uint64_t> tres;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    std::size_t eq = item.find('=');
    if (eq != std::string::npos) {
      auto id = to_u64(item.substr(0, eq));
      auto value = to_u64(item.substr(eq + 1));
      if (id && value) tres[*id] = *value;
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return tres;
}

class DbAccounting final : public AccountingSource {
 public:
  explicit DbAccounting(const DbConfig& config) {
    if (!valid_identifier(config.database))
      throw StartupError("[accounting.db] database '" + config.database + "' is not a plain identifier");
    if (!valid_identifier(config.view))
      throw StartupError("[accounting.db] view '" + config.view + "' is not a plain identifier");
    const std::string step_view = step_view_of(config.view);
    if (!valid_identifier(step_view))
      throw StartupError("[accounting.db] view '" + config.view + "': the step view's name derived from it, '" +
                         step_view + "', is longer than 64 characters");
    target_.host = config.host;
    target_.port = config.port;
    target_.socket = config.socket;
    target_.user = config.user;
    target_.password = read_password_file(config.password_file, "[accounting.db] password_file");
    target_.database = config.database;
    target_.timeout_seconds = config.timeout_seconds;
    view_ = config.database + "." + config.view;
    select_ = "SELECT " + column_list(View::Job, column_) + " FROM " + qualified(config.database, config.view);
    select_steps_from_ = "SELECT " + column_list(View::Step, step_column_) + " FROM " +
                         qualified(config.database, step_view) + " WHERE `job_db_inx` ";
    select_steps_ = select_steps_from_ + "= ? ORDER BY `id_step`, `step_het_comp`";
  }

  Result<JobRecord> job(const model::JobId& id) override {
    std::string where;
    std::vector<SqlParam> params{static_cast<std::int64_t>(id.job)};
    if (id.array_task) {
      where = " WHERE `id_array_job` = ? AND `id_array_task` = ?";
      params.emplace_back(static_cast<std::int64_t>(*id.array_task));
    } else if (id.het_component) {
      where = " WHERE `het_job_id` = ? AND `het_job_offset` = ?";
      params.emplace_back(static_cast<std::int64_t>(*id.het_component));
    } else {
      where = " WHERE `id_job` = ?";
    }
    // A job id can repeat in the table (requeued, or after the id counter wrapped): the latest.
    auto result = query(select_ + where + " ORDER BY `time_submit` DESC LIMIT 1", params);
    if (!result) return result.error();
    if (result->rows.empty()) return not_found("job " + id.text() + " not found in the accounting DB (" + view_ + ")");
    JobRecord job = record(result->rows.front());
    if (auto inx = to_u64(at(result->rows.front(), "job_db_inx"))) {
      auto steps = query(select_steps_, {static_cast<std::int64_t>(*inx)});
      if (!steps) return steps.error();
      add_steps(job, steps->rows);
    }
    return job;
  }

  Result<std::vector<JobRecord>> jobs_of_user(const std::string& user, std::size_t limit) override {
    if (!model::valid_user_name(user)) return bad_input("invalid user name '" + user.substr(0, 64) + "'");
    if (limit == 0) return std::vector<JobRecord>{};
    // By uid when this host knows the user (indexed, and covers jobs without
    // an association); else by the association's user name.
    std::vector<SqlParam> params;
    std::string where;
    if (auto uid = uid_of_user_name(user)) {
      where = " WHERE `id_user` = ?";
      params.emplace_back(static_cast<std::int64_t>(*uid));
    } else {
      where = " WHERE `user_name` = ?";
      params.emplace_back(user);
    }
    params.emplace_back(static_cast<std::int64_t>(std::min<std::size_t>(limit, 1000000)));
    // Newest first: by submit time, then by the number the user submitted
    // under (an array's or het job's own, not the raw id a task got when it
    // started), then by task or component.
    return listed(select_ + where +
                      " ORDER BY `time_submit` DESC, CASE WHEN `id_array_job` <> 0 THEN `id_array_job` WHEN "
                      "`het_job_id` <> 0 THEN `het_job_id` ELSE `id_job` END DESC, `id_array_task` DESC, "
                      "`het_job_offset` DESC LIMIT ?",
                  params);
  }

  // The jobs whose row ended in the window in a final state, by end and id,
  // through the job table's index on (time_end, time_eligible) (slurmdbd's
  // `rollup2`): the view merges into the query, so the server reads only the
  // window's rows. A requeued job's earlier runs are rows of state REQUEUE
  // (PENDING in the low byte) and stay out; a job id slurmctld handed out
  // again after its counter wrapped ends in another window.
  Result<std::vector<JobRecord>> jobs_ended(std::int64_t since, std::int64_t until, std::size_t limit) override {
    if (limit == 0 || since >= until) return std::vector<JobRecord>{};
    // time_end 0 (not ended) is out when since is 0 too.
    std::vector<SqlParam> params{std::max<std::int64_t>(since, 1), until,
                                 static_cast<std::int64_t>(std::min<std::size_t>(limit, 1000000))};
    return listed(select_ + " WHERE `time_end` >= ? AND `time_end` < ? AND (`state` & 255) IN (" + final_state_list() +
                      ") ORDER BY `time_end`, `id_job` LIMIT ?",
                  params);
  }

  // The listings' records whole, as job() makes them: their step rows in one
  // query per kStepBatch jobs instead of one per job.
  bool lists_whole_records() const override { return true; }

  std::string name() const override { return "db"; }

 private:
  // The job rows `sql` selects, in its order, each with its steps (the
  // listings' records whole, as job() makes them).
  Result<std::vector<JobRecord>> listed(const std::string& sql, const std::vector<SqlParam>& params) {
    auto result = query(sql, params);
    if (!result) return result.error();
    std::vector<JobRecord> jobs;
    std::vector<std::uint64_t> indexes;  // job_db_inx of jobs[i], 0 when absent
    for (const auto& row : result->rows) {
      jobs.push_back(record(row));
      indexes.push_back(to_u64(at(row, "job_db_inx")).value_or(0));
    }
    if (auto steps = add_steps_of(jobs, indexes); !steps) return steps.error();
    return jobs;
  }

  Result<SqlResult> query(const std::string& sql, const std::vector<SqlParam>& params) {
    bool pooled = false;
    auto connection = borrow(pooled);
    if (!connection) return connection.error();
    auto result = connection->run(sql, params);
    if (!result && pooled && mariadb_error::connection_lost(connection->error_code())) {
      // The server restarted or timed idle connections out: the other pooled
      // ones are as dead as this one. Once more, on a new connection.
      idle_.clear();
      connection = MariaDbConnection::connect(target_);
      if (!connection) return connection.error();
      result = connection->run(sql, params);
    }
    // A connection that failed is dropped: the next call reconnects.
    if (result) {
      idle_.give_back(std::move(*connection));
    } else if (connection->error_code() == kUnknownColumn) {
      // The views of an older petricore: init-db replaces them.
      return unavailable(result.error().message +
                         " — the accounting views predate this petricore: run petricore "
                         "init-db again to update them");
    }
    return result;
  }

  Result<MariaDbConnection> borrow(bool& pooled) {
    std::optional<MariaDbConnection> idle = idle_.take();
    pooled = idle.has_value();
    if (idle) return std::move(*idle);
    return MariaDbConnection::connect(target_);
  }

  // "`a`, `b`, ...", and each column's index into `index`.
  static std::string column_list(View view, std::map<std::string, std::size_t>& index) {
    const auto& names = view_column_names(view);
    std::string columns;
    for (std::size_t i = 0; i < names.size(); ++i) {
      columns += (i ? ", " : "") + ("`" + names[i] + "`");
      index[names[i]] = i;
    }
    return columns;
  }

  const std::optional<std::string>& at(const SqlRow& row, const char* column) const { return row[column_.at(column)]; }

  // add_steps for each of `jobs` (job_db_inx in `indexes`), with the steps
  // of up to kStepBatch jobs a query (`IN (?, ...)` keeps the parameters
  // below the server's 65,535 placeholders).
  Result<bool> add_steps_of(std::vector<JobRecord>& jobs, const std::vector<std::uint64_t>& indexes) {
    constexpr std::size_t kStepBatch = 500;
    const std::size_t inx_column = step_column_.at("job_db_inx");
    for (std::size_t first = 0; first < jobs.size(); first += kStepBatch) {
      const std::size_t last = std::min(jobs.size(), first + kStepBatch);
      std::vector<SqlParam> params;
      std::string placeholders;
      for (std::size_t i = first; i < last; ++i) {
        if (indexes[i] == 0) continue;
        placeholders += params.empty() ? "?" : ", ?";
        params.emplace_back(static_cast<std::int64_t>(indexes[i]));
      }
      if (params.empty()) continue;
      auto steps = query(
          select_steps_from_ + "IN (" + placeholders + ") ORDER BY `job_db_inx`, `id_step`, `step_het_comp`", params);
      if (!steps) return steps.error();
      std::map<std::uint64_t, std::vector<SqlRow>> of_job;
      for (auto& row : steps->rows) {
        if (auto inx = to_u64(row[inx_column])) of_job[*inx].push_back(std::move(row));
      }
      for (std::size_t i = first; i < last; ++i) {
        if (indexes[i] == 0) continue;
        auto rows = of_job.find(indexes[i]);
        add_steps(jobs[i], rows == of_job.end() ? std::vector<SqlRow>{} : rows->second);
      }
    }
    return true;
  }

  // Slurm's own figures from the job's step rows (batch, extern, interactive
  // and numbered steps): TotalCPU is user + system time of all of them (as
  // sacct sums it), MaxRSS the largest step's, and the layout that of the
  // numbered (srun) step with the most tasks.
  void add_steps(JobRecord& job, const std::vector<SqlRow>& steps) const {
    auto number = [&](const SqlRow& row, const char* column) { return to_u64(row[step_column_.at(column)]); };
    std::optional<double> cpu_seconds, max_rss_bytes;
    std::uint64_t most_tasks = 0;
    std::optional<std::uint64_t> their_cpus;
    for (const auto& row : steps) {
      double seconds = static_cast<double>(number(row, "user_sec").value_or(0)) +
                       static_cast<double>(number(row, "user_usec").value_or(0)) / 1e6 +
                       static_cast<double>(number(row, "sys_sec").value_or(0)) +
                       static_cast<double>(number(row, "sys_usec").value_or(0)) / 1e6;
      cpu_seconds = cpu_seconds.value_or(0) + seconds;
      // tres_usage_in_max: TRES 2 (mem) is the step's largest task RSS, in bytes.
      auto usage = parse_tres_ids(row[step_column_.at("tres_usage_in_max")].value_or(""));
      if (auto rss = usage.find(2); rss != usage.end())
        max_rss_bytes = std::max(max_rss_bytes.value_or(0), static_cast<double>(rss->second));
      // id_step: batch -5, extern -4, interactive -6 (no unsigned number); srun steps from 0.
      bool numbered = number(row, "id_step").has_value();
      std::uint64_t tasks = number(row, "task_cnt").value_or(0);
      if (!numbered || tasks <= most_tasks) continue;
      most_tasks = tasks;
      auto alloc = parse_tres_ids(row[step_column_.at("tres_alloc")].value_or(""));
      auto cpus = alloc.find(1);
      their_cpus = cpus == alloc.end() ? std::nullopt : std::optional<std::uint64_t>(cpus->second);
    }
    job.total_cpu_seconds = cpu_seconds;
    if (max_rss_bytes) job.max_rss_mb = *max_rss_bytes / 1048576.0;
    if (most_tasks > 0) {
      job.tasks = static_cast<int>(most_tasks);
      if (their_cpus) job.cpus_per_task = static_cast<int>(std::max<std::uint64_t>(1, *their_cpus / most_tasks));
    }
  }

  JobRecord record(const SqlRow& row) const {
    JobRecord r;
    auto number = [&](const char* column) { return to_u64(at(row, column)); };
    auto text = [&](const char* column) { return at(row, column).value_or(""); };
    auto time = [&](const char* column) -> std::optional<std::int64_t> {
      auto t = number(column);
      if (!t || *t == 0) return std::nullopt;  // 0 = not yet
      return static_cast<std::int64_t>(*t);
    };

    std::uint64_t id_job = number("id_job").value_or(0);
    std::uint64_t array_job = number("id_array_job").value_or(0);
    std::uint64_t array_task = number("id_array_task").value_or(kNoValue);
    std::uint64_t het_job = number("het_job_id").value_or(0);
    std::uint64_t het_offset = number("het_job_offset").value_or(kNoValue);
    r.raw_id = std::to_string(id_job);
    if (array_job != 0 && array_task != kNoValue)
      r.job_id = std::to_string(array_job) + "_" + std::to_string(array_task);
    else if (het_job != 0 && het_offset != kNoValue)
      r.job_id = std::to_string(het_job) + "+" + std::to_string(het_offset);
    else
      r.job_id = r.raw_id;

    if (auto uid = number("id_user")) r.uid = static_cast<unsigned>(*uid);
    r.user = text("user_name");
    if (r.user.empty() && r.uid) r.user = user_name_of_uid(*r.uid).value_or(std::to_string(*r.uid));
    r.name = text("job_name");
    r.account = text("account");
    r.partition = text("partition");
    r.state = state_name(number("state").value_or(~0ull));
    r.submit = time("time_submit");
    r.start = time("time_start");
    r.end = time("time_end");
    if (auto minutes = number("timelimit"); minutes && *minutes != kNoValue && *minutes != kInfinite)
      r.time_limit_seconds = static_cast<std::int64_t>(*minutes) * 60;
    r.node_list = text("nodelist");
    if (r.node_list == "None assigned") r.node_list.clear();

    // TRES ids are fixed for cpu (1), mem in MB (2), node (4) and billing
    // (5); gres/gpu gets its id when first tracked, which the view carries.
    auto tres = parse_tres_ids(text("tres_alloc"));
    auto tres_value = [&](std::uint64_t id) -> std::optional<std::uint64_t> {
      auto found = tres.find(id);
      return found == tres.end() ? std::nullopt : std::optional<std::uint64_t>(found->second);
    };
    r.alloc_cpus = static_cast<int>(tres_value(1).value_or(0));
    if (auto mem = tres_value(2)) r.alloc_mem_mb = static_cast<double>(*mem);
    r.alloc_nodes = static_cast<int>(number("nodes_alloc").value_or(tres_value(4).value_or(0)));
    if (auto billing = tres_value(5)) r.billing = static_cast<int>(*billing);
    if (auto gpu_id = number("gpu_tres_id")) r.alloc_gpus = static_cast<int>(tres_value(*gpu_id).value_or(0));
    // mem_req: MB per node, or with MEM_PER_CPU set, MB per CPU (0 = the whole node).
    if (auto mem = number("mem_req"); mem && *mem != kNoValue64 && *mem != kInfinite64)
      r.mem_per_cpu = (*mem & kMemPerCpu) != 0;
    return r;
  }

  MariaDbTarget target_;
  std::string view_;               // db.view, for messages
  std::string select_;             // SELECT <columns> FROM `db`.`view`
  std::string select_steps_from_;  // SELECT <columns> FROM `db`.`step_view` WHERE `job_db_inx`
  std::string select_steps_;       // ... = ? ORDER BY the step
  std::map<std::string, std::size_t> column_, step_column_;
  IdlePool<MariaDbConnection> idle_{kMaxIdleConnections};
};

}  // namespace

std::unique_ptr<AccountingSource> make_db_accounting(const DbConfig& config) {
  return std::make_unique<DbAccounting>(config);
}

}  // namespace petricore::sources
