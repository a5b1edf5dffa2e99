// Tasks that block for real, in the kernel: a read() of an empty pipe, the
// way a read of a file on a dead NFS server blocks. Each test writes to the
// pipe at its end, so no thread outlives it.
#include "core/bounded_workers.hpp"

#include "catch.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

using petricore::BoundedWorkers;
using Clock = BoundedWorkers::Clock;
using namespace std::chrono_literals;

namespace {

// A pipe whose reads block until release().
struct Gate {
  int fds[2] = {-1, -1};
  Gate() { REQUIRE(::pipe(fds) == 0); }
  ~Gate() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  // A task that blocks in read(2) until released; it owns a dup of the read end.
  BoundedWorkers::Task blocking_task(std::shared_ptr<std::atomic<int>> returned = nullptr) const {
    int fd = ::dup(fds[0]);
    return [fd, returned](const BoundedWorkers::Progress&) {
      char c;
      (void)!::read(fd, &c, 1);
      ::close(fd);
      if (returned) ++*returned;
    };
  }
  void release(int tasks) const {
    for (int i = 0; i < tasks; ++i) REQUIRE(::write(fds[1], "x", 1) == 1);
  }
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Waits (bounded) until no thread is stuck.
bool unstuck(const BoundedWorkers& workers) {
  for (int i = 0; i < 500 && workers.stuck() > 0; ++i) std::this_thread::sleep_for(10ms);
  return workers.stuck() == 0;
}

}  // namespace

TEST_CASE("a task that returns in time is done, on a reused thread", "[bounded_workers]") {
  BoundedWorkers workers(4);
  auto ran = std::make_shared<std::atomic<int>>(0);
  for (int i = 0; i < 3; ++i)
    CHECK(workers.run([ran](const BoundedWorkers::Progress&) { ++*ran; }, 5s, Clock::now() + 10s) ==
          BoundedWorkers::Outcome::Done);
  CHECK(*ran == 3);
  CHECK(workers.started() == 1);
  CHECK(workers.stuck() == 0);
}

TEST_CASE("a task blocked in the kernel past its budget is abandoned, and its thread comes back when it returns",
          "[bounded_workers]") {
  Gate gate;
  BoundedWorkers workers(2);
  auto returned = std::make_shared<std::atomic<int>>(0);
  auto start = Clock::now();
  CHECK(workers.run(gate.blocking_task(returned), 100ms, Clock::now() + 10s) == BoundedWorkers::Outcome::TimedOut);
  double waited = seconds_since(start);
  CHECK(waited >= 0.09);
  CHECK(waited < 2.0);
  CHECK(workers.stuck() == 1);
  // The other thread serves meanwhile.
  CHECK(workers.run([](const BoundedWorkers::Progress&) {}, 1s, Clock::now() + 10s) == BoundedWorkers::Outcome::Done);
  CHECK(workers.started() == 2);
  gate.release(1);
  CHECK(unstuck(workers));
  CHECK(*returned == 1);
  // Two threads, both free again: no third is started.
  CHECK(workers.run([](const BoundedWorkers::Progress&) {}, 1s, Clock::now() + 10s) == BoundedWorkers::Outcome::Done);
  CHECK(workers.started() == 2);
}

TEST_CASE("the deadline cuts a task short of its budget", "[bounded_workers]") {
  Gate gate;
  BoundedWorkers workers(1);
  auto start = Clock::now();
  CHECK(workers.run(gate.blocking_task(), 30s, Clock::now() + 100ms) == BoundedWorkers::Outcome::TimedOut);
  CHECK(seconds_since(start) < 2.0);
  gate.release(1);
  CHECK(unstuck(workers));
}

TEST_CASE("a task that reports progress keeps its budget", "[bounded_workers]") {
  BoundedWorkers workers(1);
  // Six steps of 40 ms under a 150 ms budget: 240 ms in all, never 150 ms quiet.
  auto task = [](const BoundedWorkers::Progress& progress) {
    for (int i = 0; i < 6; ++i) {
      std::this_thread::sleep_for(40ms);
      progress.made();
    }
  };
  CHECK(workers.run(task, 150ms, Clock::now() + 10s) == BoundedWorkers::Outcome::Done);
}

TEST_CASE("with every thread stuck, run refuses at once and starts no more threads", "[bounded_workers]") {
  Gate gate;
  BoundedWorkers workers(2);
  for (int i = 0; i < 2; ++i)
    CHECK(workers.run(gate.blocking_task(), 50ms, Clock::now() + 10s) == BoundedWorkers::Outcome::TimedOut);
  auto start = Clock::now();
  bool ran = false;
  CHECK(workers.run([&ran](const BoundedWorkers::Progress&) { ran = true; }, 1s, Clock::now() + 10s) ==
        BoundedWorkers::Outcome::NoThread);
  CHECK(seconds_since(start) < 0.5);
  CHECK_FALSE(ran);
  CHECK(workers.started() == 2);
  CHECK(workers.stuck() == 2);
  gate.release(2);
  CHECK(unstuck(workers));
}

TEST_CASE("destroying the workers does not wait for a stuck thread", "[bounded_workers]") {
  Gate gate;
  auto returned = std::make_shared<std::atomic<int>>(0);
  auto start = Clock::now();
  {
    BoundedWorkers workers(1);
    CHECK(workers.run(gate.blocking_task(returned), 50ms, Clock::now() + 10s) == BoundedWorkers::Outcome::TimedOut);
  }
  CHECK(seconds_since(start) < 1.0);
  // The detached thread finishes its task later, on its own.
  gate.release(1);
  for (int i = 0; i < 500 && *returned == 0; ++i) std::this_thread::sleep_for(10ms);
  CHECK(*returned == 1);
}

TEST_CASE("a task that throws counts as done and leaves its thread usable", "[bounded_workers]") {
  BoundedWorkers workers(1);
  CHECK(workers.run([](const BoundedWorkers::Progress&) { throw 42; }, 1s, Clock::now() + 10s) ==
        BoundedWorkers::Outcome::Done);
  CHECK(workers.run([](const BoundedWorkers::Progress&) {}, 1s, Clock::now() + 10s) == BoundedWorkers::Outcome::Done);
  CHECK(workers.started() == 1);
}
