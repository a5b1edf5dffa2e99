// The accounting source of last resort: what the collector's jobs_info,
// jobs_cpus_allocated, jobs_memory_limit_mb and jobs_gpus_used series say
// about a job (ARCHITECTURE.md §3, `[accounting] source = prometheus`).
//
// It knows owner (user, uid, account), the nodes, the allocation summed over
// the nodes, and when the job's series existed; not the job's name,
// partition, time limit, or its real end state: a job whose series stopped
// more than two scrape intervals ago is COMPLETED, else RUNNING. Jobs are
// known by the numeric id the collector labels them with (slurm_job), so an
// array task (123_4) or a het-job component (123+1) is NotFound here.
#pragma once

#include "sources/accounting.hpp"

#include <memory>

namespace petricore::sources {

class PrometheusClient;

struct PrometheusAccountingOptions {
  // How far back job() and jobs_of_user() look for a job's series. The
  // cost of job() grows little with it: one coarse range query over the
  // whole lookback (at most 10,000 steps) and one exact instant query.
  double lookback_seconds = 30 * 86400.0;
};

// `prometheus` must outlive the source. The source keeps no state besides
// the options: it is as thread-safe as the client (which is).
// Throws StartupError for a lookback outside 1 hour .. 10 years.
std::unique_ptr<AccountingSource> make_prometheus_accounting(PrometheusClient& prometheus,
                                                             const PrometheusAccountingOptions& options);

}  // namespace petricore::sources
