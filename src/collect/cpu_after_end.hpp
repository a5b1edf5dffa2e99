// The CPU time jobs used between their last reading and the removal of
// their cgroups, recovered from the cgroup above them. A cgroup's CPU
// counters (v1 cpuacct.usage, cpuacct.stat, cpuacct.usage_percpu; v2
// cpu.stat) also hold what its children used, and keep it when a child is
// removed. So between two readings of a parent and all its children, what
// the children that vanished used after the first is the parent's growth
// less the growth of the children still there (and all of a new child's
// time). One vanished alone: that is its time, without a guess. Several at
// once: each gets the time of the CPUs it alone held (v1 per-CPU counters,
// Slurm's ConstrainCores cpusets). Slurm removes a job's cgroups within a
// moment of its last process exiting, often before the next watch read.
//
// Pure: the sampler takes the readings (CgroupReader) and keeps them from
// one watch pass to the next.
#pragma once

#include "collect/cgroup_reader.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::collect {

// One pass's readings of a parent cgroup and of each of its child cgroups
// (by directory name), taken one right after the other.
struct CpuReadings {
  CgroupCpu parent;
  std::map<std::string, CgroupCpu> children;
};

// The children that went between two readings — vanished, or created anew
// under their name (their counters went down: all of the new one's time is
// the new one's) — and what they used after the first reading, together.
struct VanishedCpu {
  std::vector<std::string> children;  // their names, in order
  CgroupCpu spent;                    // counter increments, seconds, of them all
};

// nullopt when no child went, or when it cannot be told: the parent's totals
// are missing from either reading, or the arithmetic comes out clearly
// negative (the parent's counters reset). Values a hair below zero
// (rounding) give zero. Per-CPU increments are given when the parent and
// every child still there have per-CPU counters of the same size.
std::optional<VanishedCpu> cpu_of_vanished(const CpuReadings& before, const CpuReadings& now);

// One vanished child's share: all of it when it went alone. When several
// went, the increments of the CPUs it alone held (`cpus_of`: each vanished
// child's CPU ids), total and per CPU only (user and system cannot be
// split); nullopt when a cpuset is unknown or empty, the cpusets overlap,
// there are no per-CPU increments, or more than a little of the time lies
// outside all of their CPUs (the split would be a guess).
std::optional<CgroupCpu> share_of(const VanishedCpu& vanished, const std::string& child,
                                  const std::map<std::string, std::vector<int>>& cpus_of);

}  // namespace petricore::collect
