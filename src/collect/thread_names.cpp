#include "collect/thread_names.hpp"

#include <algorithm>

namespace petricore::collect {

std::vector<std::pair<std::string, std::int64_t>> top_thread_names(const ThreadsByName& threads,
                                                                   std::size_t max_names) {
  std::vector<std::pair<std::string, std::int64_t>> by_name(threads.begin(), threads.end());
  // Stable: names with as many threads stay in name order, so the series a
  // job keeps do not swap between passes.
  std::stable_sort(by_name.begin(), by_name.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (by_name.size() > max_names) {
    std::int64_t other = 0;
    for (std::size_t i = max_names; i < by_name.size(); ++i) other += by_name[i].second;
    by_name.resize(max_names);
    by_name.emplace_back("other", other);
  }
  return by_name;
}

}  // namespace petricore::collect
