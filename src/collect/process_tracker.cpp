#include "collect/process_tracker.hpp"

#include <algorithm>

namespace petricore::collect {

namespace {

void add(ProcIo& total, const ProcIo& io) {
  total.syscr += io.syscr;
  total.syscw += io.syscw;
  total.read_bytes += io.read_bytes;
  total.write_bytes += io.write_bytes;
}

void raise_to(ProcIo& high, const ProcIo& io) {
  high.syscr = std::max(high.syscr, io.syscr);
  high.syscw = std::max(high.syscw, io.syscw);
  high.read_bytes = std::max(high.read_bytes, io.read_bytes);
  high.write_bytes = std::max(high.write_bytes, io.write_bytes);
}

}  // namespace

void ProcessTracker::begin_pass() {
  for (auto& [pid, tracked] : processes_) tracked.listed = false;
  replaced_.clear();
}

std::uint64_t ProcessTracker::seen(int pid, std::uint64_t starttime, int ppid, std::uint64_t cpu_ticks,
                                   const std::optional<ProcIo>& io) {
  Tracked& tracked = processes_[pid];
  if (tracked.starttime != starttime) {
    if (tracked.starttime != 0) replaced_.push_back(tracked);
    tracked = Tracked{};
    tracked.starttime = starttime;
    tracked.cpu_ticks = cpu_ticks;
  }
  tracked.listed = true;
  tracked.ppid = ppid;
  std::uint64_t used = cpu_ticks > tracked.cpu_ticks ? cpu_ticks - tracked.cpu_ticks : 0;
  tracked.cpu_ticks = cpu_ticks;
  if (io) tracked.io = *io;
  return used;
}

void ProcessTracker::still_listed(int pid) {
  if (auto it = processes_.find(pid); it != processes_.end()) it->second.listed = true;
}

bool ProcessTracker::reaped_inside_job(const Tracked& gone) const {
  auto parent = processes_.find(gone.ppid);
  return parent != processes_.end() && parent->second.listed;
}

ProcIo ProcessTracker::end_pass(bool listing_complete) {
  for (const Tracked& gone : replaced_)
    if (!reaped_inside_job(gone)) add(exited_io_, gone.io);
  replaced_.clear();
  for (auto it = processes_.begin(); it != processes_.end();) {
    if (!it->second.listed && listing_complete) {
      if (!reaped_inside_job(it->second)) add(exited_io_, it->second.io);
      it = processes_.erase(it);
    } else {
      ++it;
    }
  }
  ProcIo total = exited_io_;
  for (const auto& [pid, tracked] : processes_) add(total, tracked.io);
  raise_to(reported_io_, total);
  return reported_io_;
}

}  // namespace petricore::collect
