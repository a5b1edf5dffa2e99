// jobs_thread_count by process name: a job can run thousands of differently
// named processes, so only the names with the most threads get a series of
// their own and the rest are summed under "other", keeping the label set of a
// job small and bounded.
//
// Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace petricore::collect {

// Threads by process name (comm), as summed over a job's processes.
using ThreadsByName = std::map<std::string, std::int64_t>;

// The `max_names` names with the most threads, most first (ties in name
// order), then ("other", the sum of the rest) when there are more names than
// that.
std::vector<std::pair<std::string, std::int64_t>> top_thread_names(const ThreadsByName& threads, std::size_t max_names);

}  // namespace petricore::collect
