#include "core/signals.hpp"

#include "catch.hpp"

#include <pthread.h>
#include <signal.h>

using namespace petricore;

namespace {

bool blocked(int signal) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, signal) == 1;
}

void unblock(int signal) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace

TEST_CASE("stop signals are blocked while held and given back when none came", "[signals]") {
  REQUIRE_FALSE(blocked(SIGTERM));
  {
    StopSignals stop;
    CHECK(blocked(SIGTERM));
    CHECK(blocked(SIGINT));
    CHECK(stop.wait_for(0.01) == 0);
    CHECK(stop.wait_for(0) == 0);
    CHECK(stop.wait_for(-1) == 0);
  }
  CHECK_FALSE(blocked(SIGTERM));
  CHECK_FALSE(blocked(SIGINT));
}

TEST_CASE("a stop signal is taken by waiting, and stays blocked afterwards", "[signals]") {
  {
    StopSignals stop;
    REQUIRE(pthread_kill(pthread_self(), SIGTERM) == 0);
    CHECK(stop.wait_for(5) == SIGTERM);
    REQUIRE(pthread_kill(pthread_self(), SIGINT) == 0);
    CHECK(stop.wait() == SIGINT);
  }
  // A second SIGTERM during a graceful stop must not kill the process.
  CHECK(blocked(SIGTERM));
  unblock(SIGTERM);
  unblock(SIGINT);
}

TEST_CASE("a SIGPIPE raised under SigpipeBlock is discarded", "[signals]") {
  {
    SigpipeBlock no_sigpipe;
    CHECK(blocked(SIGPIPE));
    REQUIRE(pthread_kill(pthread_self(), SIGPIPE) == 0);
  }
  // Still alive: the pending SIGPIPE was consumed before the mask came back.
  CHECK_FALSE(blocked(SIGPIPE));
  sigset_t pending;
  sigpending(&pending);
  CHECK(sigismember(&pending, SIGPIPE) == 0);
}
