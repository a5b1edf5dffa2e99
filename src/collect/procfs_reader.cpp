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
// Three per process (stat, io, fd/): a node's first ~1300 processes.
constexpr std::size_t kMaxHeldFiles = 4096;
}  // namespace

ProcfsReader::ProcfsReader(UniqueFd proc_root, ErrorCounter& errors)
    : root_(std::move(proc_root)), errors_(errors), held_(kMaxHeldFiles) {}

const char* ProcfsReader::pid_path(int pid, const char* file) {
  // to_chars: snprintf cost 7 % of a pass, called for every file of every process.
  char* end = std::to_chars(path_, path_ + 16, pid).ptr;
  *end++ = '/';
  std::size_t n = std::min(std::strlen(file), sizeof path_ - 1 - static_cast<std::size_t>(end - path_));
  std::memcpy(end, file, n);
  end[n] = '\0';
  return path_;
}

bool ProcfsReader::read(int pid, const char* file, bool hold) {
  ReadError error;
  if (hold) {
    held_path_.assign(pid_path(pid, file));
    error = held_.read(root_.get(), held_path_, buffer_, Records::One);
  } else {
    error = read_file_at(root_.get(), pid_path(pid, file), buffer_);
  }
  if (error.status == ReadStatus::Ok) return true;
  if (error.status != ReadStatus::Missing) {
    std::string_view source = std::string_view{file} == "environ" ? error_source::environ : error_source::proc;
    errors_.count(source, std::string{"unreadable "} + file,
                  std::string{"cannot read /proc/"} + path_ + ": " + describe(error));
  }
  return false;
}

void ProcfsReader::malformed(int pid, const char* file) {
  errors_.count(error_source::proc, std::string{"malformed "} + file,
                std::string{"cannot parse /proc/"} + pid_path(pid, file));
}

std::optional<ProcStat> ProcfsReader::stat(int pid) {
  if (!read(pid, "stat", true)) return std::nullopt;
  auto parsed = parse_proc_stat(buffer_);
  if (!parsed) malformed(pid, "stat");
  return parsed;
}

std::optional<ProcIo> ProcfsReader::io(int pid) {
  if (!read(pid, "io", true)) return std::nullopt;
  auto parsed = parse_proc_io(buffer_);
  if (!parsed) malformed(pid, "io");
  return parsed;
}

std::optional<ProcStatus> ProcfsReader::status(int pid) {
  if (!read(pid, "status", false)) return std::nullopt;
  auto parsed = parse_proc_status(buffer_);
  if (!parsed) malformed(pid, "status");
  return parsed;
}

std::optional<std::string> ProcfsReader::environ(int pid) {
  if (!read(pid, "environ", false)) return std::nullopt;
  return std::string{buffer_.view()};
}

std::optional<unsigned> ProcfsReader::owner_uid(int pid) {
  std::snprintf(path_, sizeof path_, "%d", pid);
  struct stat st;
  if (::fstatat(root_.get(), path_, &st, 0) != 0) return std::nullopt;
  return st.st_uid;
}

std::optional<std::string> ProcfsReader::cwd(int pid) {
  ReadError error = read_link_at(root_.get(), pid_path(pid, "cwd"), link_);
  if (error.status != ReadStatus::Ok) {
    if (error.status != ReadStatus::Missing)
      errors_.count(error_source::proc, "unreadable cwd",
                    std::string{"cannot read /proc/"} + path_ + ": " + describe(error));
    return std::nullopt;
  }
  return std::string{link_.view()};
}

void ProcfsReader::open_files(int pid, const std::function<void(std::string_view)>& visit) {
  held_path_.assign(pid_path(pid, "fd"));
  bool listed = held_.list(root_.get(), held_path_, [&](int fd_dir, std::string_view name, bool) {
    char fd_name[32];
    std::size_t n = std::min(name.size(), sizeof fd_name - 1);
    name.copy(fd_name, n);
    fd_name[n] = '\0';
    if (read_link_at(fd_dir, fd_name, link_).status != ReadStatus::Ok) return;  // closed meanwhile
    if (classify_fd_target(link_) == FdTarget::RegularFile) visit(fd_target_path(link_));
  });
  if (!listed) {
    int e = errno;
    if (classify_errno(e) != ReadStatus::Missing)
      errors_.count(error_source::proc, "unreadable fd",
                    "cannot list /proc/" + held_path_ + ": " + describe({classify_errno(e), e}));
  }
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
