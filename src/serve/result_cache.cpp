#include "serve/result_cache.hpp"

#include "model/series.hpp"

#include <exception>
#include <utility>

namespace petricore::serve {

ResultCache::ResultCache(std::size_t capacity, double running_ttl_seconds, std::size_t max_bytes)
    : capacity_(capacity),
      running_ttl_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(running_ttl_seconds > 0 ? running_ttl_seconds : 0))),
      max_bytes_(max_bytes) {}

CachedReportPtr ResultCache::make_entry(model::JobReport report,
                                        const std::function<std::string(const model::JobReport&)>& render) {
  auto entry = std::make_shared<CachedReport>();
  entry->json = render(report);
  // Rough but proportional: the samples are the bulk; a map node costs
  // about 64 bytes beyond its strings.
  std::size_t bytes = sizeof(CachedReport) + entry->json.size();
  for (auto& [metric, list] : report.usage.series) {
    bytes += metric.size() + 64;
    for (auto& series : list) {
      model::downsample(series.samples, kChartSamples);
      series.samples.shrink_to_fit();
      bytes += sizeof(model::Series) + series.samples.size() * sizeof(model::Sample);
      for (const auto& [name, value] : series.labels) bytes += name.size() + value.size() + 64;
    }
  }
  for (auto& series : report.usage.gpu_utilization_series) {
    model::downsample(series.samples, kChartSamples);
    series.samples.shrink_to_fit();
    bytes += sizeof(model::Series) + series.samples.size() * sizeof(model::Sample);
  }
  entry->bytes = bytes;
  entry->report = std::move(report);
  return entry;
}

CachedReportPtr ResultCache::find_locked(const std::string& key, Clock::time_point now) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  if (it->second->expires <= now) {
    bytes_ -= it->second->value->bytes;
    lru_.erase(it->second);
    index_.erase(it);
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->value;
}

void ResultCache::put_locked(const std::string& key, CachedReportPtr entry, Clock::time_point now) {
  if (capacity_ == 0 || !entry) return;
  Clock::time_point expires = Clock::time_point::max();
  if (!entry->settled()) {
    if (running_ttl_ <= Clock::duration::zero()) return;
    expires = now + running_ttl_;
  }
  if (entry->bytes > max_bytes_) return;
  if (auto it = index_.find(key); it != index_.end()) {
    bytes_ -= it->second->value->bytes;
    bytes_ += entry->bytes;
    it->second->value = std::move(entry);
    it->second->expires = expires;
    lru_.splice(lru_.begin(), lru_, it->second);
  } else {
    bytes_ += entry->bytes;
    lru_.push_front({key, std::move(entry), expires});
    index_[key] = lru_.begin();
  }
  // The entry just put is at the front and fits alone, so this stops before it.
  while (lru_.size() > capacity_ || bytes_ > max_bytes_) {
    bytes_ -= lru_.back().value->bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
    ++evictions_;
  }
}

CachedReportPtr ResultCache::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  CachedReportPtr hit = find_locked(key, Clock::now());
  if (hit) ++hits_;
  return hit;
}

void ResultCache::put(const std::string& key, CachedReportPtr entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  put_locked(key, std::move(entry), Clock::now());
}

Result<CachedReportPtr> ResultCache::get_or_compute(const std::string& key, const Compute& compute) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (CachedReportPtr hit = find_locked(key, Clock::now())) {
    ++hits_;
    return hit;
  }
  if (auto it = flights_.find(key); it != flights_.end()) {
    std::shared_ptr<Flight> flight = it->second;
    flight_done_.wait(lock, [&] { return flight->done; });
    ++hits_;
    return *flight->result;
  }
  auto flight = std::make_shared<Flight>();
  flights_[key] = flight;
  ++misses_;
  lock.unlock();

  // The flight must end whatever happens, or its waiters wait forever.
  std::exception_ptr failure;
  std::optional<Result<CachedReportPtr>> result;
  try {
    result.emplace(compute());
  } catch (...) {
    failure = std::current_exception();
    result.emplace(Error{Error::Kind::Unavailable, "the analysis failed"});
  }

  lock.lock();
  if (result->ok()) put_locked(key, result->value(), Clock::now());
  flight->result = result;
  flight->done = true;
  flights_.erase(key);
  lock.unlock();
  flight_done_.notify_all();
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

std::string ResultCache::recent_finished_key() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& entry : lru_) {
    if (entry.value->finished()) return entry.key;
  }
  return "";
}

CacheStats ResultCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {hits_, misses_, evictions_, lru_.size(), bytes_};
}

}  // namespace petricore::serve
