#include "serve/result_cache.hpp"

#include <exception>
#include <utility>

namespace petricore::serve {

ResultCache::ResultCache(std::size_t capacity, double running_ttl_seconds)
    : capacity_(capacity),
      running_ttl_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(running_ttl_seconds > 0 ? running_ttl_seconds : 0))) {}

CachedReportPtr ResultCache::make_entry(analysis::JobReport report,
                                        const std::function<std::string(const analysis::JobReport&)>& render) {
  auto entry = std::make_shared<CachedReport>();
  entry->json = render(report);
  // Keep which metrics and label sets exist (renderers ask "was it
  // measured?"), drop the samples, which are the bulk.
  for (auto& [metric, list] : report.usage.series) {
    for (auto& series : list) std::vector<analysis::Sample>().swap(series.samples);
  }
  entry->report = std::move(report);
  return entry;
}

CachedReportPtr ResultCache::find_locked(const std::string& key, Clock::time_point now) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  if (it->second->expires <= now) {
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
  if (!entry->finished()) {
    if (running_ttl_ <= Clock::duration::zero()) return;
    expires = now + running_ttl_;
  }
  if (auto it = index_.find(key); it != index_.end()) {
    it->second->value = std::move(entry);
    it->second->expires = expires;
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.push_front({key, std::move(entry), expires});
  index_[key] = lru_.begin();
  while (lru_.size() > capacity_) {
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

CacheStats ResultCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {hits_, misses_, evictions_, lru_.size()};
}

}  // namespace petricore::serve
