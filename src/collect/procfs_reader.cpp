#include "collect/procfs_reader.hpp"

#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace petricore::collect {

namespace {
// /proc/stat (slow_reads.hpp holds the processes' files).
constexpr std::size_t kMaxHeldFiles = 4;
}  // namespace

ProcfsReader::ProcfsReader(UniqueFd proc_root, ErrorCounter& errors)
    : root_(std::move(proc_root)), errors_(errors), held_(kMaxHeldFiles) {}

std::optional<unsigned> ProcfsReader::owner_uid(int pid) {
  std::snprintf(path_, sizeof path_, "%d", pid);
  struct stat st;
  if (::fstatat(root_.get(), path_, &st, 0) != 0) return std::nullopt;
  return st.st_uid;
}

std::vector<std::uint64_t> ProcfsReader::cpu_busy_ticks() {
  std::vector<std::uint64_t> busy;
  held_path_.assign("stat");
  ReadError error = held_.read(root_.get(), held_path_, buffer_, Records::One);
  if (error.status != ReadStatus::Ok) {
    errors_.count(error_source::proc, "unreadable stat", "cannot read /proc/stat: " + describe(error));
    return busy;
  }
  std::string_view text = buffer_;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 || line[3] < '0' || line[3] > '9') continue;
    // cpuN user nice system idle iowait irq softirq steal ...
    const char* p = line.data() + 3;
    const char* e = line.data() + line.size();
    unsigned cpu = 0;
    auto r = std::from_chars(p, e, cpu);
    if (r.ec != std::errc{}) continue;
    p = r.ptr;
    std::uint64_t fields[8] = {};
    for (auto& f : fields) {
      while (p < e && *p == ' ') ++p;
      r = std::from_chars(p, e, f);
      p = r.ptr;
    }
    if (busy.size() <= cpu) busy.resize(cpu + 1, 0);
    busy[cpu] = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7];
  }
  return busy;
}

}  // namespace petricore::collect
