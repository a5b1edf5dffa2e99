#include "serve/worker_pool.hpp"

#include "core/log.hpp"

#include <exception>
#include <string>

namespace petricore::serve {

void WorkerPool::start() {
  for (std::size_t i = 0; i < threads_; ++i) pool_.emplace_back([this] { run(); });
}

bool WorkerPool::try_post(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_ || queue_.size() >= max_queued_) return false;
  queue_.push_back(std::move(task));
  ready_.notify_one();
  return true;
}

void WorkerPool::shutdown() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    dropped.swap(queue_);
  }
  ready_.notify_all();
  for (auto& t : pool_) {
    if (t.joinable()) t.join();
  }
  pool_.clear();
  // `dropped` is destroyed here, outside the lock.
}

void WorkerPool::run() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [&] { return stopped_ || !queue_.empty(); });
      if (stopped_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task();
    } catch (const std::exception& e) {
      log::error(std::string("worker task failed: ") + e.what());
    } catch (...) {
      log::error("worker task failed");
    }
  }
}

}  // namespace petricore::serve
