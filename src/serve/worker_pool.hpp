// The threads that run serve's blocking handler work (Prometheus, accounting,
// LDAP) off the I/O threads. The one rule: bounded. try_post() refuses at
// once when every worker is busy and `max_queued` tasks already wait, so the
// server answers 503 instead of queueing without bound.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace petricore::serve {

class WorkerPool {
 public:
  WorkerPool(std::size_t threads, std::size_t max_queued) : threads_(threads), max_queued_(max_queued) {}
  ~WorkerPool() { shutdown(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts the threads (separate from construction: serve starts them only
  // once the port is bound).
  void start();

  // Queues `task`; false when the pool is stopped or the queue is full. A
  // task that throws is logged; the worker goes on.
  bool try_post(std::function<void()> task);

  // Takes no more tasks and drops the queued ones (destroyed outside the
  // lock: tasks may own sessions); running ones finish. Joins the threads.
  void shutdown();

 private:
  void run();

  const std::size_t threads_;
  const std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopped_ = false;
  std::vector<std::thread> pool_;
};

}  // namespace petricore::serve
