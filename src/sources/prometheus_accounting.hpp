// The accounting source of last resort: what the collector's jobs_info,
// jobs_cpus_allocated, jobs_memory_limit_mb and jobs_gpus_used series say
// about a job (ARCHITECTURE.md §3, `[accounting] source = prometheus`).
//
// It knows owner (user, uid, account), the nodes, the allocation summed over
// the nodes, and when the job's series existed; not the job's name,
// partition, time limit, or its real end state: a job whose series stopped
// more than two scrape intervals ago is COMPLETED, else RUNNING; the end the
// listings (jobs_of_user, jobs_ended) give is known only to within a step of
// their grid (300 s for the default 30-day lookback), job()'s to the sample.
// Jobs are known by the numeric id the collector labels them with
// (slurm_job), so an array task (123_4) or a het-job component (123+1) is
// NotFound here.
#pragma once

#include "model/series.hpp"
#include "sources/accounting.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace petricore::sources {

class PrometheusClient;

struct PrometheusAccountingOptions {
  // How far back job(), jobs_of_user() and jobs_ended() look for a job's
  // series (jobs_ended finds no end older than that). The
  // cost of job() grows little with it: one coarse range query over the
  // whole lookback (at most 10,000 steps) and one exact instant query.
  double lookback_seconds = 30 * 86400.0;
};

// jobs_ended's two pure parts, exposed for the tests (how they work:
// prometheus_accounting.cpp): the range query, on a grid of `step_seconds`,
// whose points mark where a job's jobs_info series stopped; and the records
// its answer gives for the ends in [from, to), one per job (its latest end
// there), in jobs_ended's order. Such a record knows the job's owner, its
// nodes in its last window and its end to within the step, not its start.
std::string ended_jobs_query(std::int64_t step_seconds);
std::vector<model::JobRecord> jobs_from_ends(const std::vector<model::Series>& found, std::int64_t step_seconds,
                                             std::int64_t from, std::int64_t to);

// `prometheus` must outlive the source. The source keeps no state besides
// the options: it is as thread-safe as the client (which is).
// Throws StartupError for a lookback outside 1 hour .. 10 years.
std::unique_ptr<AccountingSource> make_prometheus_accounting(PrometheusClient& prometheus,
                                                             const PrometheusAccountingOptions& options);

}  // namespace petricore::sources
