// A bounded stack of idle connections (or any movable resource) that
// threads borrow from and give back: a borrower that finds none makes a new
// one, so calls run in parallel, each on its own; one given back when the
// pool is full is closed. The mutex guards the pool only, never a call
// that uses what was borrowed.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace petricore {

template <typename T>
class IdlePool {
 public:
  explicit IdlePool(std::size_t max_idle) : max_idle_(max_idle) {}

  // The most recently given back, or nullopt when none is idle.
  std::optional<T> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.empty()) return std::nullopt;
    std::optional<T> item(std::move(idle_.back()));
    idle_.pop_back();
    return item;
  }

  // Kept for the next borrower, or closed (destroyed) when max_idle are kept.
  void give_back(T item) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (idle_.size() < max_idle_) {
      idle_.push_back(std::move(item));
      return;
    }
    lock.unlock();  // closing may take a round trip: not under the lock
  }

  // Closes every idle one (they are as dead as one found dead), after the lock.
  void clear() {
    std::vector<T> dead;
    std::lock_guard<std::mutex> lock(mutex_);
    dead.swap(idle_);
  }

 private:
  const std::size_t max_idle_;
  std::mutex mutex_;
  std::vector<T> idle_;
};

}  // namespace petricore
