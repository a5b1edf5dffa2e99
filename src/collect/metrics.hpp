// Turns one pass's JobSamples into the jobs_* metric families of the metric
// contract (ARCHITECTURE.md §4), plus jobs_info, the allocation families and
// the collector's self-metrics. The metrics are rebuilt from the jobs they
// are given each time, so a job left out (one that ended, once its linger
// time is up: exported_jobs.hpp) is absent from every sink.
//
// Two renderings of the same families, in the same order: prometheus-cpp
// objects (build_snapshot, for the pull endpoint's Exposer) and the text
// exposition written straight from the samples (render_text, for every
// other sink), which is the bytes serialize_text(build_snapshot(...)) gives
// at a fraction of the cost: a pass builds no prometheus-cpp object.
#pragma once

#include "collect/job_sample.hpp"
#include "collect/sink.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace petricore::collect {

struct SelfMetrics {
  double collect_duration_seconds = 0;
  std::map<std::string, std::uint64_t> errors_by_source;
  std::map<std::string, std::uint64_t> skipped_by_reason;  // processes left out of a pass (skip_counter.hpp)
  // petricore_jobs: the running jobs, when `jobs` also holds ended ones
  // (lingering); else jobs.size().
  std::optional<std::size_t> running_jobs;
};

Snapshot build_snapshot(const std::vector<JobSample>& jobs, const std::string& instance, const SelfMetrics& self);

// The text exposition (exposition.hpp's format) of the same families.
std::string render_text(const std::vector<JobSample>& jobs, const std::string& instance, const SelfMetrics& self);

// One pass's metrics as every sink gets them: the text, rendered once for
// all, and the prometheus-cpp families, built only when asked (the pull
// endpoint asks at each scrape, from the pass's jobs, which it shares).
class Exposition {
 public:
  // What families are built from, kept by a pull sink until the next pass.
  class Families {
   public:
    virtual ~Families() = default;
    virtual Snapshot build() const = 0;
  };

  Exposition(std::vector<JobSample> jobs, std::string instance, SelfMetrics self);
  // Ready families (tests, tools): the text is serialize_text's.
  Exposition(Snapshot families);  // NOLINT(google-explicit-constructor): a Snapshot publishes as it is

  const std::string& text() const { return text_; }
  const std::shared_ptr<const Families>& families() const { return families_; }

 private:
  std::shared_ptr<const Families> families_;
  std::string text_;
};

}  // namespace petricore::collect
