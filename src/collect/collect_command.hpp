// `petricore collect`: the node daemon. Options come from the command line or
// the [collect] section of the config file (main.cpp wires them); this module
// validates them, runs the passes and feeds the sinks.
#pragma once

#include "core/startup_error.hpp"

#include <cstddef>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace petricore::collect {

struct CollectOptions {
  bool once = false;
  double once_window = 1.0;  // seconds between the two passes of --once
  std::string listen;        // HOST:PORT for /metrics; empty = off
  std::string push_url;      // Pushgateway base URL; empty = off
  double push_timeout = 5.0;
  std::string textfile;  // path; empty = off
  double interval = 15.0;
  // The light loop between full passes (Sampler::watch); 0 turns it off.
  double watch_interval = 1.0;
  // How long a full pass may take (sampler.hpp); negative means the
  // default, the interval.
  double pass_timeout = -1;
  // How long an ended job's final series stay exported; negative means the
  // default, 2 x interval.
  double linger = -1;
  std::string instance;  // default: short hostname
  std::string cgroup_root = "/sys/fs/cgroup";
  std::string proc_root = "/proc";
  std::string layout = "auto";
  std::string job_pattern;
  std::vector<std::string> scratch_prefixes{"/scratch", "/localscratch"};
  std::string exclude_uid_file;
  std::size_t max_proc_names = 16;
  // The GPU libraries, dlopen()ed on first use; "none" turns a source off.
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string rocm_smi_library;  // empty: librocm_smi64.so.7, then .6, then .5
};

// Bad options or configuration: core/startup_error.hpp (exit status 2).
using UsageError = StartupError;

// Reads a file of UIDs, one per line ('#' starts a comment). Throws UsageError.
std::set<unsigned> read_uid_file(const std::string& path);

// The short host name (up to the first dot).
std::string short_hostname();

// Runs the command; returns the process exit status. Throws UsageError for bad
// options (checked before anything starts).
int run_collect(CollectOptions options);

}  // namespace petricore::collect
