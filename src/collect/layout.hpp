// Finds the jobs in a cgroup tree. A layout knows how one scheduler names its
// job cgroups; `discover` returns every job it finds with the directories the
// sampler reads, relative to the cgroup root.
//
// Recognised without configuration (LayoutKind::Auto tries them all):
//   v1  <ctrl>/slurm/uid_U/job_J/step_S/task_T   and  <ctrl>/slurm_<node>/...
//   v2  [unified/]<slice>/slurmstepd.scope/<job>/step_S/...
//       and [unified/]<slice>/<node>_slurmstepd.scope/<job>/...
//       where <slice> is any top-level *.slice (system.slice, or what
//       Slurm 25.11's CgroupSlice names) and <job> is job_J or, as Slurm
//       26.05 names it by default, the job's SLUID (model/sluid.hpp). The
//       scope's `system` directory (slurmstepd's waiting area) is no job;
//       a SLUID-like name that is not a valid SLUID is skipped (debug log).
//       Steps (step_batch, step_extern, step_0, het step_0+1,
//       step_interactive) and their leaves (user/task_N, the task_special
//       of processes pam_slurm_adopt adopted) are all the job's.
// The v2 scopes are listed every pass; the root and its slices, where the
// scopes are looked for, every 30 s (a scope is made by slurmd's first start,
// not per job), and at the next pass when none was found or one went.
// Hybrid hosts (v1 controllers plus a v2 mount at <root>/unified) are covered
// because both kinds are searched. Other schedulers: LayoutKind::Pattern with
// a regular expression over directory paths relative to the cgroup root.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

enum class CgroupVersion { V1, V2 };

// One job's cgroup directories, relative to the cgroup root. An empty string
// means the job has no cgroup in that controller (e.g. no memory cgroup).
struct JobCgroups {
  // Decimal digits, as Slurm prints it; for a job directory named by its
  // SLUID, the canonical SLUID (the collector exports it under the numeric
  // id once the job's environment gives it).
  std::string job_id;
  std::string sluid;            // the canonical SLUID, empty for job_J directories
  std::optional<unsigned> uid;  // from uid_U in the path when present
  CgroupVersion version = CgroupVersion::V1;
  std::string cpu_dir;     // v1 cpuacct job dir; v2 job dir
  std::string memory_dir;  // v1 memory job dir; v2 job dir
  std::string cpuset_dir;  // v1 cpuset job dir; v2 job dir
  // The job dir of the one hierarchy whose subtree's cgroup.procs list all of
  // the job's processes (v1: freezer, the proctrack/cgroup hierarchy, else the
  // first of cpuacct, memory, cpuset, pids, devices that has the job).
  std::string process_dir;
};

enum class LayoutKind { Auto, SlurmV1, SlurmV2, Pattern };

class Layout {
 public:
  virtual ~Layout() = default;
  // Jobs found under the cgroup root `root_fd`, sorted by job id, one entry per
  // job (all steps and tasks merged). Unreadable directories are counted as
  // discovery errors; they never abort the walk.
  virtual std::vector<JobCgroups> discover(int root_fd, ErrorCounter& errors) const = 0;
};

// Builds a layout. For Pattern, `job_pattern` is an ECMAScript regular
// expression matched against whole relative directory paths
// ("cpuacct/torque/12345.server"); it must contain a named group `job`
// (written (?<job>...) or (?P<job>...)) and may contain `uid`. Throws
// StartupError with a one-line reason when the pattern is invalid.
std::unique_ptr<Layout> make_layout(LayoutKind kind, const std::string& job_pattern = {});

// Parses "auto", "slurm-v1", "slurm-v2", "pattern".
std::optional<LayoutKind> parse_layout_kind(const std::string& text);

}  // namespace petricore::collect
