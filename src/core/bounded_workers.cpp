#include "core/bounded_workers.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace petricore {

namespace {

struct Worker final : BoundedWorkers::Progress {
  // Guarded by Shared::mutex.
  BoundedWorkers::Task task;
  bool has_task = false;
  bool done = false;
  bool abandoned = false;
  std::condition_variable wake;  // a task (or the pool's end) for this thread
  // Nanoseconds of the steady clock at the task's last sign of progress:
  // written without the lock, so progress costs no system call.
  mutable std::atomic<BoundedWorkers::Clock::rep> last_progress{0};

  void made() const override {
    last_progress.store(BoundedWorkers::Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  }
};

}  // namespace

struct BoundedWorkers::Shared {
  std::mutex mutex;
  std::condition_variable finished;  // some worker's task returned
  std::vector<std::shared_ptr<Worker>> workers;
  std::size_t max_threads;
  std::size_t stuck = 0;
  bool closing = false;

  explicit Shared(std::size_t n) : max_threads(n) {}

  static void loop(const std::shared_ptr<Shared>& self, const std::shared_ptr<Worker>& me) {
    std::unique_lock<std::mutex> lock(self->mutex);
    for (;;) {
      me->wake.wait(lock, [&] { return me->has_task || self->closing; });
      if (!me->has_task) return;
      Task task = std::move(me->task);
      lock.unlock();
      // An escaping exception would end the process on a detached thread;
      // the caller sees the task done, with what it left behind.
      try {
        task(*me);
      } catch (...) {
      }
      // The task's captures go now, not when the next task replaces it: the
      // caller may reuse what they shared.
      task = nullptr;
      lock.lock();
      me->has_task = false;
      me->done = true;
      if (me->abandoned) {
        me->abandoned = false;
        --self->stuck;
      }
      self->finished.notify_all();
    }
  }
};

BoundedWorkers::BoundedWorkers(std::size_t max_threads) : shared_(std::make_shared<Shared>(max_threads)) {}

BoundedWorkers::~BoundedWorkers() {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->closing = true;
  for (auto& worker : shared_->workers) worker->wake.notify_one();
}

BoundedWorkers::Outcome BoundedWorkers::run(Task task, Clock::duration budget, Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(shared_->mutex);
  std::shared_ptr<Worker> worker;
  for (auto& w : shared_->workers)
    if (!w->has_task) {
      worker = w;
      break;
    }
  if (!worker) {
    if (shared_->workers.size() >= shared_->max_threads) return Outcome::NoThread;
    worker = std::make_shared<Worker>();
    // Detached: a thread stuck in the kernel must not hold up the end of the
    // pool, nor of the process.
    std::thread(Shared::loop, shared_, worker).detach();
    shared_->workers.push_back(worker);
  }
  worker->task = std::move(task);
  worker->has_task = true;
  worker->done = false;
  worker->made();
  worker->wake.notify_one();
  for (;;) {
    Clock::time_point last(Clock::duration(worker->last_progress.load(std::memory_order_relaxed)));
    Clock::time_point until = std::min(last + budget, deadline);
    if (shared_->finished.wait_until(lock, until, [&] { return worker->done; })) return Outcome::Done;
    // Progress made while we slept moves the budget on.
    Clock::time_point now = Clock::now();
    Clock::time_point latest(Clock::duration(worker->last_progress.load(std::memory_order_relaxed)));
    if (now >= deadline || latest + budget <= now) break;
  }
  worker->abandoned = true;
  ++shared_->stuck;
  return Outcome::TimedOut;
}

std::size_t BoundedWorkers::stuck() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->stuck;
}

std::size_t BoundedWorkers::started() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->workers.size();
}

}  // namespace petricore
