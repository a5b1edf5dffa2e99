// Time series as the Prometheus HTTP API returns them: a label set and
// (time, value) samples in time order.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace petricore::analysis {

struct Sample {
  double time = 0;   // epoch seconds
  double value = 0;  // NaN and ±Inf are kept as Prometheus sends them
};

struct Series {
  std::map<std::string, std::string> labels;  // __name__ included when the API gives it
  std::vector<Sample> samples;

  const std::string& label(const std::string& name) const {
    static const std::string empty;
    auto it = labels.find(name);
    return it == labels.end() ? empty : it->second;
  }
};

}  // namespace petricore::analysis
