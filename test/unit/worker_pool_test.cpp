#include "serve/worker_pool.hpp"

#include "catch.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

using namespace petricore::serve;

TEST_CASE("a worker pool runs posted tasks, and one that throws does not stop it", "[worker_pool]") {
  WorkerPool pool(2, 8);
  pool.start();
  std::atomic<int> done{0};
  REQUIRE(pool.try_post([] { throw std::runtime_error("boom"); }));
  std::promise<void> last;
  for (int i = 0; i < 4; ++i) REQUIRE(pool.try_post([&done] { ++done; }));
  REQUIRE(pool.try_post([&last] { last.set_value(); }));
  CHECK(last.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  pool.shutdown();
  CHECK(done == 4);
}

TEST_CASE("a full worker pool refuses at once, and a stopped one takes nothing", "[worker_pool]") {
  WorkerPool pool(1, 1);
  pool.start();
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::promise<void> running;
  REQUIRE(pool.try_post([gate, &running] {
    running.set_value();
    gate.wait();
  }));
  running.get_future().wait();        // the one worker is busy
  CHECK(pool.try_post([] {}));        // one may wait
  CHECK_FALSE(pool.try_post([] {}));  // the queue is full
  release.set_value();
  pool.shutdown();
  CHECK_FALSE(pool.try_post([] {}));
}

TEST_CASE("shutdown drops the queued tasks without running them", "[worker_pool]") {
  WorkerPool pool(1, 4);
  pool.start();
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::promise<void> running;
  std::atomic<bool> ran{false};
  REQUIRE(pool.try_post([gate, &running] {
    running.set_value();
    gate.wait();
  }));
  running.get_future().wait();
  REQUIRE(pool.try_post([&ran] { ran = true; }));
  std::thread stopper([&pool] { pool.shutdown(); });
  // Time for shutdown() to mark the pool stopped and take the queue before
  // the busy worker is let go.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  release.set_value();
  stopper.join();
  CHECK_FALSE(ran);
}
