// Counts the collector's expected failures by source (the label of
// petricore_collect_errors_total) and logs each distinct cause once, so a
// broken file read every 15 s does not flood the journal.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace petricore::collect {

// The values of the `source` label. Kept small and fixed: one per kind of
// thing that can go wrong, not per file.
namespace error_source {
inline constexpr std::string_view discovery = "discovery";  // cgroup tree walk
inline constexpr std::string_view cgroup = "cgroup";        // cgroup file unreadable or malformed
inline constexpr std::string_view proc = "proc";            // /proc file unreadable or malformed
inline constexpr std::string_view environ = "environ";      // job environment unreadable
inline constexpr std::string_view push = "push";            // Pushgateway request failed
inline constexpr std::string_view textfile = "textfile";    // textfile could not be written
}  // namespace error_source

class ErrorCounter {
 public:
  // Counts one error of `source`. `cause` identifies the kind of problem
  // (e.g. "memory.stat: malformed"); the first time a (source, cause) pair is
  // seen, `detail` is logged as a warning.
  void count(std::string_view source, std::string_view cause, std::string_view detail);

  // Total per source, all sources ever counted (zero-valued ones included
  // from the fixed list above, so dashboards see the series from the start).
  std::map<std::string, std::uint64_t> totals() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::uint64_t, std::less<>> totals_;
  std::set<std::string, std::less<>> logged_causes_;
};

}  // namespace petricore::collect
