// "Who owns job N, when did it run, what did it ask for, which jobs does user
// U have, which jobs ended in this hour": answered by sacct, by the
// restricted DB view, or, when neither is configured, by the jobs_info series
// in Prometheus. Each source has its own timeouts and reports failures as
// Error values, never by throwing.
#pragma once

#include "core/result.hpp"
#include "model/job_id.hpp"
#include "model/job_record.hpp"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace petricore::sources {

class AccountingSource {
 public:
  virtual ~AccountingSource() = default;
  // Error::Kind::NotFound for an unknown job, Unavailable when the source
  // failed (with the source and the reason in the message).
  virtual Result<model::JobRecord> job(const model::JobId& id) = 0;
  // The user's jobs, newest first, at most `limit`.
  virtual Result<std::vector<model::JobRecord>> jobs_of_user(const std::string& user, std::size_t limit) = 0;
  // The jobs that ended in [since, until) (epoch seconds: the window is on
  // the END time) in a final state (COMPLETED, FAILED, TIMEOUT, CANCELLED,
  // OUT_OF_MEMORY, NODE_FAIL, PREEMPTED, DEADLINE, BOOT_FAIL), ordered by end,
  // then numeric job id (raw_id), ascending; at most `limit`. The caller
  // pages by asking again from the last end it got (the jobs sharing that end
  // come again; should all `limit` share it, ask with a larger limit). Array
  // tasks and het-job components are jobs of their own, as job() knows them;
  // steps fold into their job and are never listed. Where
  // lists_whole_records(), each record is the one job() gives for its id.
  // Unavailable when the source failed. A record that reaches accounting
  // late (slurmdbd was down) shows in a later call over the same window.
  // jobs_info knows ends only to within its grid's step, lists a job once
  // that step and two minutes have passed, and may list a job at a pause of
  // its series too (prometheus_accounting.cpp): job() tells.
  virtual Result<std::vector<model::JobRecord>> jobs_ended(std::int64_t since, std::int64_t until,
                                                           std::size_t limit) = 0;
  // True when each record jobs_of_user and jobs_ended list is the one job()
  // gives for its id (steps folded in: TotalCPU, MaxRSS, the task layout), so
  // a caller can analyse it without looking the job up again: sacct and the
  // DB view. False for jobs_info, whose listings know a job's times only to
  // within a step.
  virtual bool lists_whole_records() const = 0;
  virtual std::string name() const = 0;  // "sacct", "db", "prometheus"
};

// jobs_ended's order: by end (a record without one last), then by numeric
// job id (raw_id; one that is not a number last).
inline bool ended_earlier(const model::JobRecord& a, const model::JobRecord& b) {
  auto number = [](const std::string& text) {
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty() ? value : UINT64_MAX;
  };
  const std::int64_t a_end = a.end.value_or(INT64_MAX), b_end = b.end.value_or(INT64_MAX);
  if (a_end != b_end) return a_end < b_end;
  return number(a.raw_id) < number(b.raw_id);
}

}  // namespace petricore::sources
