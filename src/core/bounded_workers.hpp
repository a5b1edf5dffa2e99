// Threads for work that may never return (a read stuck in the kernel on a
// hung filesystem), so that the caller waits for it only as long as it
// chooses. run() hands a task to an idle thread and waits until the task
// ends, until it has made no progress for `budget`, or until `deadline`,
// whichever comes first. A task that does not end in time is abandoned: its
// thread stays with it and comes back to the pool if the task ever returns.
//
// Bounded: at most `max_threads` threads ever exist, started as they are
// first needed; with every one of them busy or stuck, run() refuses at once.
// Destruction never waits for a stuck thread (the threads are detached and
// share their state with the pool), so a task must own everything it touches:
// capture by value, share by std::shared_ptr, never refer to the caller's stack.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>

namespace petricore {

class BoundedWorkers {
 public:
  using Clock = std::chrono::steady_clock;

  // What a task calls to say it is still getting somewhere (e.g. after each
  // of many small reads): the budget counts from its last call.
  class Progress {
   public:
    virtual void made() const = 0;

   protected:
    ~Progress() = default;
  };
  using Task = std::function<void(const Progress&)>;

  enum class Outcome {
    Done,      // the task returned
    TimedOut,  // abandoned: its thread is stuck with it
    NoThread,  // every thread was busy or stuck; the task did not run
  };

  explicit BoundedWorkers(std::size_t max_threads);
  ~BoundedWorkers();
  BoundedWorkers(const BoundedWorkers&) = delete;
  BoundedWorkers& operator=(const BoundedWorkers&) = delete;

  // One caller at a time. A task that throws counts as done.
  Outcome run(Task task, Clock::duration budget, Clock::time_point deadline);

  // Threads running an abandoned task now.
  std::size_t stuck() const;
  // Threads started so far (never more than max_threads).
  std::size_t started() const;

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace petricore
