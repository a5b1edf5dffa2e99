// Analysed jobs kept in memory so that repeated requests cost no Prometheus
// or accounting query. Thread-safe; bounded (least recently used goes first).
//
//  * A finished job's report no longer changes once it is settled (analysed
//    past the query's after-end stretch, when the final samples are in):
//    it stays until evicted. Before that it is kept like a running job's.
//  * A running (or pending) job's report is kept only `running_ttl_seconds`
//    (default 5 s): enough to absorb a dashboard polling several routes at
//    once, short enough that its numbers stay current. 0 = never kept.
//  * Failures are never kept: Prometheus may be back on the next request.
//  * Concurrent requests for the same job wait for one analysis instead of
//    each starting their own.
//  * The series' samples are kept for the charts, reduced to at most
//    kChartSamples per series (model::downsample keeps each run's lowest
//    and highest sample, so peaks survive): a chart is about 900 pixels
//    wide. A long multi-node job still weighs megabytes, so the cache is
//    bounded in bytes as well as in entries: the least recently used entries
//    go until both bounds hold (an entry larger than the whole byte bound is
//    not kept at all).
#pragma once

#include "core/result.hpp"
#include "model/job_report.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace petricore::serve {

struct CachedReport {
  model::JobReport report;  // series with at most kChartSamples samples each
  std::string json;         // render::job_json(report), rendered once
  std::size_t bytes = 0;    // approximate memory held (samples, labels, JSON)
  bool finished() const { return report.usage.job.finished(); }
  bool settled() const { return report.settled; }
};
using CachedReportPtr = std::shared_ptr<const CachedReport>;

struct CacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;
  std::size_t entries = 0;
  std::size_t bytes = 0;
};

// Samples kept per series in a cached report.
constexpr std::size_t kChartSamples = 1000;

class ResultCache {
 public:
  using Clock = std::chrono::steady_clock;
  // `capacity` entries and `max_bytes` bytes at most (CachedReport::bytes);
  // `capacity` 0 disables caching (every request is analysed).
  explicit ResultCache(std::size_t capacity, double running_ttl_seconds = 5,
                       std::size_t max_bytes = std::size_t{256} << 20);

  // The cached entry for `key`, or nullptr. Counts a hit when found; misses
  // are counted when an analysis runs (get_or_compute), so a request that is
  // refused before analysing (403) counts neither.
  CachedReportPtr find(const std::string& key);

  // Keeps `entry` (finished: until evicted; running: for the TTL).
  void put(const std::string& key, CachedReportPtr entry);

  // find(), else run `compute` once for all concurrent callers of `key`
  // and put() its value. Errors go to every waiting caller, are not kept.
  // A caller that waited for another's analysis counts as a hit.
  using Compute = std::function<Result<CachedReportPtr>()>;
  Result<CachedReportPtr> get_or_compute(const std::string& key, const Compute& compute);

  CacheStats stats() const;

  // The id of the most recently used finished job in the cache, or "" (the
  // index page's example links use it, so they work on this host).
  std::string recent_finished_key() const;

  // Builds an entry: renders the JSON with `render`, then downsamples the
  // series to kChartSamples and counts the bytes.
  static CachedReportPtr make_entry(model::JobReport report,
                                    const std::function<std::string(const model::JobReport&)>& render);

 private:
  struct Entry {
    std::string key;
    CachedReportPtr value;
    Clock::time_point expires;  // max() for finished jobs
  };
  struct Flight {
    bool done = false;
    std::optional<Result<CachedReportPtr>> result;
  };

  CachedReportPtr find_locked(const std::string& key, Clock::time_point now);
  void put_locked(const std::string& key, CachedReportPtr entry, Clock::time_point now);

  const std::size_t capacity_;
  const Clock::duration running_ttl_;
  const std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable flight_done_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::map<std::string, std::shared_ptr<Flight>> flights_;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t evictions_ = 0;
};

}  // namespace petricore::serve
