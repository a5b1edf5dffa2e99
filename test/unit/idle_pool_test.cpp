// core/idle_pool: what is given back is handed out again, newest first, up
// to the bound; the rest is closed, and clear() closes every idle one.
#include "core/idle_pool.hpp"

#include "catch.hpp"

#include <memory>
#include <set>
#include <thread>
#include <vector>

using namespace petricore;

namespace {

// A connection stand-in that counts how many were closed.
struct Handle {
  int id;
  std::shared_ptr<int> closed;
  Handle(int i, std::shared_ptr<int> c) : id(i), closed(std::move(c)) {}
  Handle(Handle&& other) noexcept : id(other.id), closed(std::move(other.closed)) {}
  Handle& operator=(Handle&&) = delete;
  ~Handle() {
    if (closed) ++*closed;
  }
};

}  // namespace

TEST_CASE("an idle pool hands back what it was given, newest first, up to its bound", "[idle_pool]") {
  auto closed = std::make_shared<int>(0);
  IdlePool<Handle> pool(2);
  CHECK_FALSE(pool.take());
  pool.give_back(Handle(1, closed));
  pool.give_back(Handle(2, closed));
  pool.give_back(Handle(3, closed));  // the pool is full: closed at once
  CHECK(*closed == 1);
  auto first = pool.take();
  REQUIRE(first);
  CHECK(first->id == 2);
  auto second = pool.take();
  REQUIRE(second);
  CHECK(second->id == 1);
  CHECK_FALSE(pool.take());
  CHECK(*closed == 1);  // those handed out are open
}

TEST_CASE("clearing an idle pool closes every idle one", "[idle_pool]") {
  auto closed = std::make_shared<int>(0);
  IdlePool<Handle> pool(4);
  for (int i = 0; i < 3; ++i) pool.give_back(Handle(i, closed));
  pool.clear();
  CHECK(*closed == 3);
  CHECK_FALSE(pool.take());
}

TEST_CASE("threads borrowing at once never share one", "[idle_pool]") {
  IdlePool<std::unique_ptr<int>> pool(8);
  for (int i = 0; i < 8; ++i) pool.give_back(std::make_unique<int>(i));
  constexpr int kThreads = 8, kRounds = 2000;
  std::vector<int> clashes(kThreads, 0);
  std::vector<std::thread> threads;
  std::vector<int> in_use(8, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        auto item = pool.take();
        if (!item) item = std::make_unique<int>(-1);  // none idle: a new one
        if (**item >= 0) {
          // Atomic-free on purpose: a second holder of one item would show
          // as a count above 1 (and as a data race under TSan).
          if (++in_use[**item] != 1) ++clashes[t];
          --in_use[**item];
        }
        pool.give_back(std::move(*item));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) CHECK(clashes[t] == 0);
}
