// Where a collection pass's metrics go. Each sink gets the whole exposition of
// one pass (metrics.hpp); series of jobs that ended are simply absent from the
// next one, so every sink drops them without bookkeeping.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace petricore::collect {

using Snapshot = std::vector<prometheus::MetricFamily>;
class Exposition;  // metrics.hpp

class Sink {
 public:
  virtual ~Sink() = default;
  // Called once per pass. Must not throw; a failure is counted and logged by
  // the sink itself (through the ErrorCounter it was given) and returns false.
  virtual bool publish(const Exposition& pass) = 0;
  // Called once on SIGTERM/SIGINT before the process exits.
  virtual void shutdown() {}
  virtual std::string name() const = 0;
};

}  // namespace petricore::collect
