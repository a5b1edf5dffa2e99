// Counts the processes whose reads a collection pass left out so that it
// could not be stalled (the label of petricore_collect_skipped_total). A
// skip is not an error: the job is still exported, with its cgroup numbers,
// only what those reads would have added (open files, scratch use, the job
// environment) waits for a later pass. Used by the sampling thread alone.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace petricore::collect {

// The values of the `reason` label, fixed and few.
namespace skip_reason {
// The process was in uninterruptible sleep (state D in /proc/<pid>/stat),
// most often waiting on a hung network filesystem: a read of its fd targets,
// cwd or environment could wait with it.
inline constexpr std::string_view d_state = "d_state";
// A read of the process did not answer within its budget (it was abandoned
// and the process is left alone until that read returns), or every reader
// thread is stuck on such a read.
inline constexpr std::string_view timeout = "timeout";
// The pass ran out of its time (--pass-timeout) before the process's turn.
inline constexpr std::string_view pass_timeout = "pass_timeout";
}  // namespace skip_reason

class SkipCounter {
 public:
  void count(std::string_view reason) { ++totals_[std::string{reason}]; }

  // Every reason, zero-valued ones included, so dashboards see the series
  // from the start.
  std::map<std::string, std::uint64_t> totals() const;

 private:
  std::map<std::string, std::uint64_t> totals_;
};

}  // namespace petricore::collect
