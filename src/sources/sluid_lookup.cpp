#include "sources/sluid_lookup.hpp"

#include "sources/prometheus_client.hpp"
#include "sources/promql.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>

namespace petricore::sources {
namespace {

// Entries kept before the map starts afresh: a bound, not a cache policy
// (SLUIDs asked for are few; each costs one query when asked again).
constexpr std::size_t kMaxKnown = 10000;

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// The lookback in at most 10,000 windows of whole minutes, as the
// Prometheus accounting source's coarse query (prometheus_accounting.cpp).
double window_seconds(double lookback_seconds) {
  const auto step = static_cast<std::int64_t>(std::ceil(lookback_seconds / 10000.0));
  return static_cast<double>(std::max<std::int64_t>(60, (step + 59) / 60 * 60));
}

}  // namespace

SluidLookup::SluidLookup(PrometheusClient& prometheus, double lookback_seconds)
    : prometheus_(prometheus), lookback_(lookback_seconds) {}

Result<model::JobId> SluidLookup::job_id(const std::string& sluid) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = known_.find(sluid); it != known_.end()) return it->second;
  }
  // Range functions count raw samples, so a job shorter than a window is
  // not missed; each slurm_job the SLUID was exported under is one series.
  const double step = window_seconds(lookback_);
  const double now = now_seconds();
  const double start = std::floor((now - lookback_) / step) * step;
  const double end = start + std::ceil((now - start) / step) * step;
  const std::string query = "count by (slurm_job) (count_over_time(jobs_info{sluid=" + promql_string(sluid) + "}[" +
                            std::to_string(static_cast<std::int64_t>(step)) + "s]))";
  auto found = prometheus_.query_range(query, start, end, step);
  if (!found) return found.error();

  std::optional<model::JobId> id;
  double latest = -1;
  bool under_sluid = false;
  for (const model::Series& s : *found) {
    if (s.samples.empty()) continue;
    const std::string& label = s.label("slurm_job");
    auto parsed = model::parse_job_id(label);
    if (!parsed || parsed->array_task || parsed->het_component) {
      under_sluid = under_sluid || label == sluid;
      continue;
    }
    // Two numbers for one SLUID would be a collector's mistake: the
    // latest one wins.
    if (s.samples.back().time > latest) {
      latest = s.samples.back().time;
      id = parsed;
    }
  }
  if (!id) {
    if (under_sluid) {
      return not_found("job " + sluid + " is known to Prometheus only by its SLUID: the collector has not read its " +
                       "numeric job id (SLURM_JOB_ID) yet; ask for the job id, or again later");
    }
    return not_found("job " + sluid + " not found in Prometheus (no jobs_info series with sluid=\"" + sluid + "\" at " +
                     prometheus_.url() + " in the last " +
                     std::to_string(static_cast<long>(std::lround(lookback_ / 86400.0))) + " days)");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (known_.size() >= kMaxKnown) known_.clear();
  known_.emplace(sluid, *id);
  return *id;
}

}  // namespace petricore::sources
