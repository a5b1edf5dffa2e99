// Signals, handled one way throughout. The rules:
//
// * No signal handlers. The stop signals (SIGTERM, SIGINT) are blocked in the
//   main thread before any other thread starts, so every thread inherits the
//   mask, and the main thread takes them synchronously (sigwait,
//   sigtimedwait): shutdown code runs as ordinary code, not in a handler.
// * SIGPIPE is ignored by the petricore process (main): a peer that closed a
//   socket gives an error on that write instead of killing a daemon. Library
//   code that cannot rely on that (it may run in another program) blocks it
//   around its writes with SigpipeBlock.
#pragma once

#include <signal.h>

namespace petricore {

// Blocks SIGTERM and SIGINT in this thread (and so in every thread started
// after it) for its lifetime. The old mask comes back at destruction unless a
// stop signal was received: then it stays blocked, so that a second SIGTERM
// during the graceful stop cannot kill the process on its way to its exit
// status.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Waits for a stop signal; returns it (SIGTERM or SIGINT).
  int wait() const;
  // Waits up to `seconds`; returns the stop signal received, or 0 when none
  // came in time (or `seconds` is not positive).
  int wait_for(double seconds) const;

 private:
  sigset_t set_{};
  sigset_t old_{};
  mutable bool restore_ = true;
};

// SIGPIPE to SIG_IGN for the whole process.
void ignore_sigpipe();

// Blocks SIGPIPE in this thread for its lifetime; a SIGPIPE raised meanwhile
// (by this thread's writes: the signal is thread-directed) is discarded.
class SigpipeBlock {
 public:
  SigpipeBlock();
  ~SigpipeBlock();
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool already_pending_ = false;
};

}  // namespace petricore
