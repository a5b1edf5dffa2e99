// Running another program (sacct, and whatever else may come). The one rule:
//
//   no shell and no PATH search at run time (argv[0] is a path; look it up
//   once with find_executable), stdin from /dev/null, stdout and stderr
//   captured apart, the signal mask and dispositions reset in the child, and
//   a deadline after which the child is killed (SIGKILL) and reaped. No child
//   outlives the call, whatever the way out.
#pragma once

#include "core/result.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace petricore {

struct ProcessOutput {
  int exit_status = -1;  // WEXITSTATUS; -1 when killed by a signal
  int signal = 0;        // the terminating signal, 0 when it exited
  std::string out;
  std::string err;
  bool succeeded() const { return exit_status == 0; }
};

// Runs argv[0] by the rule above, with the caller's environment plus
// `extra_env` ("NAME=value", replacing NAME). Unavailable when it cannot be
// started, times out after `timeout_seconds`, or writes more than
// `max_output_bytes` in all; a non-zero exit is not an error here (see
// ProcessOutput). Thread-safe.
Result<ProcessOutput> run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                                  double timeout_seconds, std::size_t max_output_bytes = 64u << 20);

// `name` when it holds a '/', else the first PATH entry (default
// /usr/local/bin:/usr/bin:/bin) holding it; nullopt unless that is an
// executable regular file.
std::optional<std::string> find_executable(const std::string& name);

}  // namespace petricore
