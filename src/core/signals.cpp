#include "core/signals.hpp"

#include <pthread.h>

#include <cerrno>
#include <csignal>
#include <ctime>

namespace petricore {

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set_, &old_);
}

StopSignals::~StopSignals() {
  if (restore_) pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

int StopSignals::wait() const {
  int signal = 0;
  while (sigwait(&set_, &signal) != 0) {
  }
  restore_ = false;
  return signal;
}

int StopSignals::wait_for(double seconds) const {
  if (!(seconds > 0)) return 0;
  timespec timeout;
  timeout.tv_sec = static_cast<time_t>(seconds);
  timeout.tv_nsec = static_cast<long>((seconds - static_cast<double>(timeout.tv_sec)) * 1e9);
  for (;;) {
    // Linux leaves the timeout as it was on EINTR: a retry waits the whole
    // time again, which only a debugger's stops can cause.
    const int signal = ::sigtimedwait(&set_, nullptr, &timeout);
    if (signal > 0) {
      restore_ = false;
      return signal;
    }
    if (errno != EINTR) return 0;  // EAGAIN: the time is up
  }
}

void ignore_sigpipe() {
  std::signal(SIGPIPE, SIG_IGN);
}

SigpipeBlock::SigpipeBlock() {
  sigemptyset(&pipe_);
  sigaddset(&pipe_, SIGPIPE);
  sigset_t pending;
  already_pending_ = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
}

SigpipeBlock::~SigpipeBlock() {
  sigset_t pending;
  if (!already_pending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
    const timespec no_wait{};
    sigtimedwait(&pipe_, nullptr, &no_wait);
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace petricore
