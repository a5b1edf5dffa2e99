// "Who owns job N, when did it run, what did it ask for, which jobs does user
// U have": answered by sacct, by the restricted DB view, or, when neither is
// configured, by the jobs_info series in Prometheus. Each source has its own
// timeouts and reports failures as Error values, never by throwing.
#pragma once

#include "core/result.hpp"
#include "model/job_id.hpp"
#include "model/job_record.hpp"

#include <cstddef>
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
  // True when each record jobs_of_user lists is the one job() gives for its
  // id (steps folded in: TotalCPU, MaxRSS, the task layout), so a caller can
  // analyse it without looking the job up again: sacct and the DB view. False
  // for jobs_info, whose listing knows a job's times only to within a step.
  virtual bool lists_whole_records() const = 0;
  virtual std::string name() const = 0;  // "sacct", "db", "prometheus"
};

}  // namespace petricore::sources
