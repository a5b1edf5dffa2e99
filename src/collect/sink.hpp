// Where a collection pass's metrics go. Each sink gets the whole snapshot of
// one pass; series of jobs that ended are simply absent from the next snapshot,
// so every sink drops them without bookkeeping.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace petricore::collect {

using Snapshot = std::vector<prometheus::MetricFamily>;

class Sink {
 public:
  virtual ~Sink() = default;
  // Called once per pass. Must not throw; a failure is counted and logged by
  // the sink itself (through the ErrorCounter it was given) and returns false.
  virtual bool publish(const Snapshot& snapshot) = 0;
  // Called once on SIGTERM/SIGINT before the process exits.
  virtual void shutdown() {}
  virtual std::string name() const = 0;
};

}  // namespace petricore::collect
