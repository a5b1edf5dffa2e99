#include "model/series.hpp"

#include <algorithm>
#include <cmath>

namespace petricore::model {

std::string short_node_name(std::string_view instance) {
  if (!instance.empty() && instance.front() == '[') {  // "[v6]:port"
    const std::size_t close = instance.find(']');
    return std::string(close == std::string_view::npos ? instance : instance.substr(1, close - 1));
  }
  if (std::count(instance.begin(), instance.end(), ':') == 1) instance = instance.substr(0, instance.find(':'));
  const bool address = !instance.empty() && instance.find_first_not_of("0123456789.") == std::string_view::npos;
  if (address || instance.find(':') != std::string_view::npos) return std::string(instance);
  return std::string(instance.substr(0, instance.find('.')));
}

void downsample(std::vector<Sample>& samples, std::size_t max_points) {
  samples.erase(std::remove_if(samples.begin(), samples.end(), [](const Sample& s) { return std::isnan(s.value); }),
                samples.end());
  max_points = std::max<std::size_t>(max_points, 2);
  if (samples.size() <= max_points) return;
  const std::size_t runs = max_points / 2;
  const std::size_t n = samples.size();
  std::vector<Sample> kept;
  kept.reserve(runs * 2);
  for (std::size_t run = 0; run < runs; ++run) {
    // Run boundaries spread the remainder evenly: [n*run/runs, n*(run+1)/runs).
    const std::size_t begin = n * run / runs;
    const std::size_t end = n * (run + 1) / runs;
    auto [low, high] = std::minmax_element(samples.begin() + static_cast<std::ptrdiff_t>(begin),
                                           samples.begin() + static_cast<std::ptrdiff_t>(end),
                                           [](const Sample& a, const Sample& b) { return a.value < b.value; });
    if (low == high) {
      kept.push_back(*low);
    } else if (low < high) {
      kept.push_back(*low);
      kept.push_back(*high);
    } else {
      kept.push_back(*high);
      kept.push_back(*low);
    }
  }
  samples = std::move(kept);
}

}  // namespace petricore::model
