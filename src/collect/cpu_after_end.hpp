// The CPU time a job used between its last reading and the removal of its
// cgroup, recovered from the cgroup above it. A cgroup's CPU counters
// (v1 cpuacct.usage, cpuacct.stat, cpuacct.usage_percpu; v2 cpu.stat) also
// hold what its children used, and keep it when a child is removed. So when
// exactly one child vanished between two readings of a parent and all its
// children, that child's share of the parent's growth is the growth less the
// growth of the children still there (and all of a new child's time): its
// final counters follow without a guess. Slurm removes a job's cgroups within
// a moment of its last process exiting, often before the next watch read.
//
// Pure: the sampler takes the readings (CgroupReader) and keeps them from
// one watch pass to the next.
#pragma once

#include "collect/cgroup_reader.hpp"

#include <map>
#include <optional>
#include <string>

namespace petricore::collect {

// One pass's readings of a parent cgroup and of each of its child cgroups
// (by directory name), taken one right after the other.
struct CpuReadings {
  CgroupCpu parent;
  std::map<std::string, CgroupCpu> children;
};

// What the child `gone` (in `before`, not in `now`) used after `before` was
// taken, as counter increments (seconds). nullopt when it cannot be told:
// `gone` was not read before, the parent's totals are missing from either
// reading, another child vanished too (their time cannot be split), or the
// arithmetic comes out clearly negative (counters reset: a cgroup
// recreated). Values a hair below zero (rounding) give zero. Per-CPU
// increments are given when both the parent and every child involved have
// per-CPU counters of the same size.
std::optional<CgroupCpu> cpu_after_last_reading(const CpuReadings& before, const CpuReadings& now,
                                                const std::string& gone);

}  // namespace petricore::collect
