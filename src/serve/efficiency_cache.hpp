// Fleet-efficiency answers kept a minute: the sums over a million archived
// jobs take up to a second, and a page and its dashboard ask again at once.
// Keys name the exact query (its times are whole minutes, so "since=90d"
// asked twice in a minute is one key). Thread-safe; bounded.
#pragma once

#include "model/fleet_efficiency.hpp"

#include <chrono>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace petricore::serve {

using FleetEfficiencyPtr = std::shared_ptr<const model::FleetEfficiency>;

class EfficiencyCache {
 public:
  explicit EfficiencyCache(std::size_t capacity = 256, double ttl_seconds = 60)
      : capacity_(capacity),
        ttl_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(ttl_seconds))) {}

  FleetEfficiencyPtr find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    if (it->second->expires <= std::chrono::steady_clock::now()) {
      lru_.erase(it->second);
      index_.erase(it);
      return nullptr;
    }
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->value;
  }

  void put(const std::string& key, FleetEfficiencyPtr value) {
    if (capacity_ == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.erase(it->second);
      index_.erase(it);
    }
    lru_.push_front({key, std::move(value), std::chrono::steady_clock::now() + ttl_});
    index_[key] = lru_.begin();
    while (lru_.size() > capacity_) {
      index_.erase(lru_.back().key);
      lru_.pop_back();
    }
  }

 private:
  struct Entry {
    std::string key;
    FleetEfficiencyPtr value;
    std::chrono::steady_clock::time_point expires;
  };
  const std::size_t capacity_;
  const std::chrono::steady_clock::duration ttl_;
  std::mutex mutex_;
  std::list<Entry> lru_;
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace petricore::serve
