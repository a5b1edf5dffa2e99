// The accounting source that asks sacct (sources/sacct.hpp). Each call runs
// one sacct process (jobs_ended one per piece of its window, one at a time);
// nothing is shared between calls, so it is thread-safe.
#include "sources/accounting_factory.hpp"
#include "sources/ended_window.hpp"
#include "sources/sacct.hpp"

#include <algorithm>
#include <ctime>
#include <tuple>

namespace petricore::sources {
namespace {

using model::JobRecord;

// How far back jobs_of_user looks: sacct without -S lists only today's jobs.
constexpr std::int64_t kUserWindowSeconds = 30 * 86400;

// jobs_ended's first piece of its window (sources/ended_window.hpp): sacct
// prints a quarter of an hour of a busy cluster's jobs quickly.
constexpr std::int64_t kFirstEndedPiece = 15 * 60;
// Times beyond year 9999 do not print as sacct reads them.
constexpr std::int64_t kLatestTime = 253402300799;

std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  std::size_t newline = text.find_last_of("\r\n", end);
  std::size_t begin = newline == std::string::npos ? 0 : newline + 1;
  return text.substr(begin, end + 1 - begin);
}

std::tuple<std::int64_t, std::uint32_t, std::uint32_t> newest_key(const JobRecord& r) {
  // "123_[4-9]" (pending tasks) does not parse: its leading number still does.
  auto id = model::parse_job_id(r.job_id);
  if (!id) id = model::parse_job_id(r.job_id.substr(0, r.job_id.find_first_of("_+")));
  std::uint32_t job = id ? id->job : 0;
  std::uint32_t sub = id ? id->array_task.value_or(id->het_component.value_or(0)) : 0;
  return {r.submit.value_or(0), job, sub};
}

class SacctAccounting final : public AccountingSource {
 public:
  SacctAccounting(std::string path, double timeout_seconds) : path_(std::move(path)), timeout_(timeout_seconds) {}

  Result<JobRecord> job(const model::JobId& id) override {
    const std::string delimiter = sacct_delimiter();
    auto out = run(sacct_job_args(path_, id, delimiter));
    if (!out) return out.error();
    auto records = parse_sacct(*out, sacct_fields(), delimiter);
    if (!records) return records.error();
    return select_job(*records, id);
  }

  Result<std::vector<JobRecord>> jobs_of_user(const std::string& user, std::size_t limit) override {
    if (!model::valid_user_name(user)) return bad_input("invalid user name '" + user.substr(0, 64) + "'");
    std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    const std::string delimiter = sacct_delimiter();
    auto out = run(sacct_user_args(path_, user, now - kUserWindowSeconds, delimiter));
    if (!out) return out.error();
    auto records = parse_sacct(*out, sacct_fields(), delimiter);
    if (!records) return records.error();
    std::vector<JobRecord> jobs = std::move(*records);
    // Newest first: by submit time, then by the number the user submitted
    // under (an array's or het job's own, not the raw id a task got when it
    // started), then by task or component.
    std::stable_sort(jobs.begin(), jobs.end(),
                     [](const JobRecord& a, const JobRecord& b) { return newest_key(a) > newest_key(b); });
    if (jobs.size() > limit) jobs.resize(limit);
    return jobs;
  }

  Result<std::vector<JobRecord>> jobs_ended(std::int64_t since, std::int64_t until, std::size_t limit) override {
    auto piece = [&](std::int64_t from, std::int64_t to) -> EndedPiece {
      const std::string delimiter = sacct_delimiter();
      auto out = run(sacct_ended_args(path_, from, to, delimiter));
      if (!out) {
        // A piece so full that sacct's output overflowed: halves of it.
        bool overflowed = out.error().message.find("wrote more than") != std::string::npos;
        if (overflowed && to - from > kSmallestEndedPiece) return std::optional<std::vector<JobRecord>>();
        return out.error();
      }
      auto records = parse_sacct(*out, sacct_fields(), delimiter);
      if (!records) return records.error();
      // sacct's window includes both ends; select_ended makes it [from, to).
      return std::optional(select_ended(std::move(*records), from, to));
    };
    return jobs_ended_in_pieces(std::max<std::int64_t>(since, 0), std::min(until, kLatestTime), limit, kFirstEndedPiece,
                                piece);
  }

  // The listings have the step lines job() reads, folded the same way.
  bool lists_whole_records() const override { return true; }
  std::string name() const override { return "sacct"; }

 private:
  // sacct's stdout, or Unavailable with its own last error line.
  Result<std::string> run(const std::vector<std::string>& args) {
    auto result = run_process(args, sacct_environment(), timeout_);
    if (!result) return result.error();
    const ProcessOutput& p = *result;
    std::string reason = last_line(p.err);
    // sacct checks -u against this host's users before asking slurmdbd.
    if (reason.find("Invalid user id") != std::string::npos)
      return not_found("sacct: " + reason.substr(reason.find("Invalid")));
    if (!p.succeeded()) {
      std::string how = p.signal != 0 ? "killed by signal " + std::to_string(p.signal)
                                      : "exit status " + std::to_string(p.exit_status);
      return unavailable(path_ + " failed (" + how + ")" + (reason.empty() ? "" : ": " + reason));
    }
    // Exit 0 with only an error on stderr (no job lines) is still a failure.
    if (p.out.find_first_not_of(" \t\r\n") == std::string::npos && reason.find("error") != std::string::npos)
      return unavailable(path_ + ": " + reason);
    return p.out;
  }

  std::string path_;
  double timeout_;
};

}  // namespace

std::unique_ptr<AccountingSource> make_sacct_accounting(const std::string& sacct_path, double timeout_seconds) {
  return std::make_unique<SacctAccounting>(sacct_path, timeout_seconds);
}

}  // namespace petricore::sources
