// Time series as the Prometheus HTTP API returns them: a label set and
// (time, value) samples in time order.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::model {

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

// The node behind an exporter's `instance` label: "gpu1.cluster:9445" and
// "gpu1:9445" -> "gpu1" (the collector sets the short host name, but a
// scrape without honor_labels, or a GPU exporter, leaves "host.domain:port");
// IP addresses stay whole, "[v6]:port" gives the v6 address.
std::string short_node_name(std::string_view instance);

// Reduces `samples` to at most `max_points` (>= 2) that keep the shape a
// chart shows: the samples are cut into max_points / 2 runs of consecutive
// samples and each run keeps its lowest and its highest sample, in time
// order, so peaks and dips survive. NaN values are dropped first. Does
// nothing when there are already few enough samples.
void downsample(std::vector<Sample>& samples, std::size_t max_points);

}  // namespace petricore::model
