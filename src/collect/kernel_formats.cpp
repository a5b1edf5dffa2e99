#include "collect/kernel_formats.hpp"

#include <string.h>  // memrchr (GNU)

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <system_error>

namespace petricore::collect {
namespace {

// Highest CPU id accepted in a CPU list. The kernel's NR_CPUS tops out at 8192;
// the bound keeps a garbage range such as "0-2000000000" from allocating gigabytes.
constexpr int kMaxCpuId = 65535;

constexpr std::string_view kDeletedSuffix = " (deleted)";

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim_left(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

std::string_view trim_right(std::string_view s) {
  std::size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  return s.substr(0, n);
}

std::string_view trim(std::string_view s) {
  return trim_right(trim_left(s));
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Parses the whole of s as a decimal integer of type T: no sign for unsigned
// types, no '+', no surrounding whitespace, no overflow.
template <typename T>
bool parse_whole(std::string_view s, T& out) {
  if (s.empty()) return false;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  T value{};
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last) return false;
  out = value;
  return true;
}

// Splits text into '\n'-terminated lines; the last line may lack its '\n'.
class Lines {
 public:
  explicit Lines(std::string_view text) : rest_(text) {}
  bool next(std::string_view& line) {
    if (rest_.empty()) return false;
    const std::size_t pos = rest_.find('\n');
    if (pos == std::string_view::npos) {
      line = rest_;
      rest_ = {};
    } else {
      line = rest_.substr(0, pos);
      rest_.remove_prefix(pos + 1);
    }
    return true;
  }

 private:
  std::string_view rest_;
};

// Splits text into runs of non-whitespace characters.
class Tokens {
 public:
  explicit Tokens(std::string_view text) : rest_(text) {}
  bool next(std::string_view& token) {
    rest_ = trim_left(rest_);
    if (rest_.empty()) return false;
    std::size_t n = 0;
    while (n < rest_.size() && !is_space(rest_[n])) ++n;
    token = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }

 private:
  std::string_view rest_;
};

// Calls fn(key, value) for each non-blank line of a flat-keyed file. With
// colon == false a line is "key value" (cgroup files), with colon == true it is
// "key: value" (/proc/<pid>/status, /proc/<pid>/io). The value is trimmed.
// Stops and returns false as soon as fn returns false.
template <typename Fn>
bool for_each_key_value(std::string_view text, bool colon, Fn&& fn) {
  Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (trim(line).empty()) continue;
    std::string_view key;
    std::string_view value;
    if (colon) {
      const std::size_t pos = line.find(':');
      if (pos == std::string_view::npos) {
        key = line;
      } else {
        key = line.substr(0, pos);
        value = trim(line.substr(pos + 1));
      }
    } else {
      std::size_t pos = 0;
      while (pos < line.size() && !is_blank(line[pos])) ++pos;
      key = line.substr(0, pos);
      value = trim(line.substr(pos));
    }
    if (!fn(key, value)) return false;
  }
  return true;
}

// Reads the unsigned values of the keys in `wanted` from a "key value" file
// (a colon after each key when `colon`) into the slot of the same index.
// Other keys are ignored. False when a wanted value is not a number.
template <std::size_t N>
bool read_u64_fields(std::string_view text, bool colon, const std::array<std::string_view, N>& wanted,
                     std::array<std::optional<std::uint64_t>, N>& slots) {
  return for_each_key_value(text, colon, [&](std::string_view key, std::string_view value) {
    for (std::size_t i = 0; i < N; ++i) {
      // Size and first character before memcmp: many of memory.stat's keys
      // share a length with a wanted one, few also its first letter.
      if (key.size() != wanted[i].size() || key.empty() || key[0] != wanted[i][0] || key != wanted[i]) continue;
      std::uint64_t v = 0;
      if (!parse_whole(value, v)) return false;
      slots[i] = v;
      return true;
    }
    return true;
  });
}

// "123 kB" as found in /proc/<pid>/status.
bool parse_kib(std::string_view value, std::uint64_t& out) {
  if (!ends_with(value, "kB")) return false;
  value.remove_suffix(2);
  const std::string_view number = trim_right(value);
  // A separator between the number and the unit is required ("123kB" is not
  // the kernel's format).
  if (number.size() == value.size()) return false;
  return parse_whole(number, out);
}

// One item of a CPU list: "N" or "N-M".
bool parse_cpu_item(std::string_view item, int& lo, int& hi) {
  const std::size_t dash = item.find('-');
  if (dash == std::string_view::npos) {
    if (!parse_whole(item, lo)) return false;
    hi = lo;
  } else {
    if (!parse_whole(trim(item.substr(0, dash)), lo)) return false;
    if (!parse_whole(trim(item.substr(dash + 1)), hi)) return false;
  }
  return lo >= 0 && hi >= lo && hi <= kMaxCpuId;
}

void append_int(std::string& out, int value) {
  char buf[16];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, value);
  if (ec == std::errc()) out.append(buf, ptr);
}

}  // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  text = trim(text);
  if (text.empty()) return cpus;
  bool sorted = true;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    int lo = 0;
    int hi = 0;
    if (!parse_cpu_item(item, lo, hi)) return std::nullopt;
    if (!cpus.empty() && lo <= cpus.back()) sorted = false;
    for (int cpu = lo; cpu <= hi; ++cpu) cpus.push_back(cpu);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (!sorted) {
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  }
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& input) {
  const std::vector<int>* cpus = &input;
  std::vector<int> normalized;
  if (!std::is_sorted(input.begin(), input.end()) || std::adjacent_find(input.begin(), input.end()) != input.end()) {
    normalized = input;
    std::sort(normalized.begin(), normalized.end());
    normalized.erase(std::unique(normalized.begin(), normalized.end()), normalized.end());
    cpus = &normalized;
  }
  std::string out;
  const std::size_t n = cpus->size();
  // Negative values are not CPU ids; they sort first and are skipped.
  std::size_t i = static_cast<std::size_t>(std::lower_bound(cpus->begin(), cpus->end(), 0) - cpus->begin());
  while (i < n) {
    const int lo = (*cpus)[i];
    std::size_t j = i;
    while (j + 1 < n && (*cpus)[j + 1] == (*cpus)[j] + 1) ++j;
    const int hi = (*cpus)[j];
    if (!out.empty()) out.push_back(',');
    append_int(out, lo);
    if (hi != lo) {
      out.push_back('-');
      append_int(out, hi);
    }
    i = j + 1;
  }
  return out;
}

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  std::uint64_t value = 0;
  if (!parse_whole(trim_right(text), value)) return std::nullopt;
  return value;
}

std::optional<MemoryMax> parse_memory_max(std::string_view text) {
  const std::string_view value = trim_right(text);
  if (value == "max") return MemoryMax{std::nullopt};
  std::uint64_t bytes = 0;
  if (!parse_whole(value, bytes)) return std::nullopt;
  return MemoryMax{bytes};
}

std::optional<std::vector<std::uint64_t>> parse_cpuacct_usage_percpu(std::string_view text) {
  std::vector<std::uint64_t> usage;
  Tokens tokens(text);
  std::string_view token;
  while (tokens.next(token)) {
    std::uint64_t value = 0;
    if (!parse_whole(token, value)) return std::nullopt;
    usage.push_back(value);
  }
  if (usage.empty()) return std::nullopt;
  return usage;
}

std::optional<CpuacctStat> parse_cpuacct_stat(std::string_view text) {
  std::array<std::optional<std::uint64_t>, 2> v;
  if (!read_u64_fields<2>(text, false, {"user", "system"}, v) || !v[0] || !v[1]) return std::nullopt;
  return CpuacctStat{*v[0], *v[1]};
}

std::optional<CpuStat> parse_cpu_stat(std::string_view text) {
  std::array<std::optional<std::uint64_t>, 3> v;
  if (!read_u64_fields<3>(text, false, {"usage_usec", "user_usec", "system_usec"}, v) || !v[0] || !v[1] || !v[2])
    return std::nullopt;
  return CpuStat{*v[0], *v[1], *v[2]};
}

std::optional<std::uint64_t> parse_cgroup_descendants(std::string_view text) {
  // The kernel writes this key first; the file runs on with a line per
  // controller (6.x), which the general loop would walk through.
  constexpr std::string_view kKey = "nr_descendants ";
  if (text.substr(0, kKey.size()) == kKey) {
    std::string_view rest = text.substr(kKey.size());
    std::uint64_t value = 0;
    if (parse_whole(trim_right(rest.substr(0, rest.find('\n'))), value)) return value;
    return std::nullopt;
  }
  std::array<std::optional<std::uint64_t>, 1> v;
  if (!read_u64_fields<1>(text, false, {"nr_descendants"}, v)) return std::nullopt;
  return v[0];
}

std::optional<MemoryStat> parse_memory_stat(std::string_view text) {
  // v1 local (rss, shmem, ...) and hierarchical (total_*) keys; v2 anon,
  // shmem, file, kernel and the parts of kernel older kernels list alone.
  enum {
    kRss,
    kTotalRss,
    kAnon,
    kShmem,
    kTotalShmem,
    kCache,
    kTotalCache,
    kFile,
    kSwap,
    kTotalSwap,
    kKernel,
    kKernelStack,
    kPagetables,
    kPercpu,
    kSock,
    kSlab,
    kCount
  };
  std::array<std::optional<std::uint64_t>, kCount> v;
  if (!read_u64_fields<kCount>(text, false,
                               {"rss", "total_rss", "anon", "shmem", "total_shmem", "cache", "total_cache", "file",
                                "swap", "total_swap", "kernel", "kernel_stack", "pagetables", "percpu", "sock", "slab"},
                               v))
    return std::nullopt;
  auto first_of = [&](int a, int b) { return v[a] ? v[a] : v[b]; };
  MemoryStat stat;
  bool v2 = !v[kTotalRss] && !v[kRss] && v[kAnon];
  if (auto anon = first_of(kTotalRss, kRss))
    stat.anon = *anon;
  else if (v2)
    stat.anon = *v[kAnon];
  else
    return std::nullopt;
  stat.shmem = first_of(kTotalShmem, kShmem).value_or(0);
  if (!v2) {
    stat.cache = first_of(kTotalCache, kCache);
    stat.swap = first_of(kTotalSwap, kSwap);
    return stat;
  }
  stat.cache = v[kFile];
  if (v[kKernel]) {
    stat.kernel = v[kKernel];
  } else if (v[kKernelStack] || v[kPagetables] || v[kSlab]) {
    std::uint64_t sum = 0;
    // Saturating: a file that is not the kernel's must not wrap to a small figure.
    for (int part : {kKernelStack, kPagetables, kPercpu, kSock, kSlab}) {
      const std::uint64_t add = v[part].value_or(0);
      sum =
          add > std::numeric_limits<std::uint64_t>::max() - sum ? std::numeric_limits<std::uint64_t>::max() : sum + add;
    }
    stat.kernel = sum;
  }
  return stat;
}

std::optional<std::vector<int>> parse_pid_list(std::string_view text) {
  std::vector<int> pids;
  Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    line = trim(line);
    if (line.empty()) continue;
    int pid = 0;
    if (!parse_whole(line, pid) || pid <= 0) return std::nullopt;
    pids.push_back(pid);
  }
  return pids;
}

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  // "pid (comm) state ppid ..."; comm may hold anything, including ") ".
  // memrchr: string_view::rfind walks back a character at a time over the
  // ~250 bytes after comm, a third of this parser's cost.
  const std::size_t lparen = text.find('(');
  const void* last_paren = text.empty() ? nullptr : ::memrchr(text.data(), ')', text.size());
  const std::size_t rparen = last_paren ? static_cast<std::size_t>(static_cast<const char*>(last_paren) - text.data())
                                        : std::string_view::npos;
  if (lparen == std::string_view::npos || rparen == std::string_view::npos || rparen < lparen || lparen < 2 ||
      text[lparen - 1] != ' ') {
    return std::nullopt;
  }
  ProcStat stat;
  if (!parse_whole(text.substr(0, lparen - 1), stat.pid) || stat.pid <= 0) return std::nullopt;

  std::string_view rest = text.substr(rparen + 1);
  if (rest.empty() || rest.front() != ' ') return std::nullopt;

  constexpr int kLastRequired = 24;  // rss
  constexpr int kProcessor = 39;
  // One pass of raw pointers over the fields (this runs for every process of
  // every job on every pass): the ones used are parsed, every other one is
  // checked to be an integer as it is skipped. Anything at or below ' '
  // separates (the kernel writes single spaces and a final newline).
  const char* p = rest.data();
  const char* const end = p + rest.size();
  auto token_end = [&](const char* q) {
    while (q<end&& static_cast<unsigned char>(*q)> ' ') ++q;
    return q;
  };
  int field = 3;
  for (; field <= kProcessor; ++field) {
    while (p < end && static_cast<unsigned char>(*p) <= ' ') ++p;
    if (p == end) break;
    const char* const start = p;
    bool ok = true;
    auto parse_field = [&](auto& into) {
      p = token_end(p);
      return parse_whole(std::string_view(start, static_cast<std::size_t>(p - start)), into);
    };
    switch (field) {
      case 3:
        p = token_end(p);
        ok = p - start == 1 && ((*start >= 'A' && *start <= 'Z') || (*start >= 'a' && *start <= 'z'));
        stat.state = *start;
        break;
      case 4:
        ok = parse_field(stat.ppid);
        break;
      case 14:
        ok = parse_field(stat.utime);
        break;
      case 15:
        ok = parse_field(stat.stime);
        break;
      case 20:
        ok = parse_field(stat.num_threads);
        break;
      case 22:
        ok = parse_field(stat.starttime);
        break;
      case 24:
        ok = parse_field(stat.rss_pages);
        break;
      case kProcessor:
        ok = parse_field(stat.processor);
        break;
      default: {
        if (*p == '-') ++p;
        const char* const digits = p;
        while (p < end && is_digit(*p)) ++p;
        ok = p != digits && (p == end || static_cast<unsigned char>(*p) <= ' ');
        break;
      }
    }
    if (!ok) return std::nullopt;
  }
  if (field <= kLastRequired) return std::nullopt;  // truncated before rss
  stat.comm.assign(text.substr(lparen + 1, rparen - lparen - 1));
  return stat;
}

std::optional<ProcStatus> parse_proc_status(std::string_view text) {
  ProcStatus status;
  bool have_tgid = false;
  const bool ok = for_each_key_value(text, true, [&](std::string_view key, std::string_view value) {
    if (key == "Tgid") {
      have_tgid = parse_whole(value, status.tgid) && status.tgid > 0;
      return have_tgid;
    }
    if (key == "Uid") {
      // "real effective saved filesystem"; only the real uid is kept.
      Tokens ids(value);
      std::string_view real;
      return ids.next(real) && parse_whole(real, status.uid) && status.uid >= 0;
    }
    if (key == "RssAnon") return parse_kib(value, status.rss_anon_kib);
    if (key == "RssShmem") return parse_kib(value, status.rss_shmem_kib);
    if (key == "Threads") return parse_whole(value, status.threads) && status.threads >= 0;
    return true;
  });
  if (!ok || !have_tgid) return std::nullopt;
  return status;
}

std::optional<ProcIo> parse_proc_io(std::string_view text) {
  // read_u64_fields' rules ("key: value" lines, blank lines skipped, the used
  // and the known keys must hold numbers, other keys ignored) with the seven
  // keys told apart by length first: this runs for every process on every
  // pass, and the general loop cost three times as much.
  std::array<std::optional<std::uint64_t>, 4> v;  // syscr, syscw, read_bytes, write_bytes
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const auto* newline = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* const eol = newline ? newline : end;
    std::string_view line(p, static_cast<std::size_t>(eol - p));
    p = newline ? newline + 1 : end;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos && trim(line).empty()) continue;
    const std::string_view key = line.substr(0, colon);
    int slot = -1;
    bool known = false;
    switch (key.size()) {
      case 5:
        if (key == "syscr") {
          slot = 0;
        } else if (key == "syscw") {
          slot = 1;
        } else {
          known = key == "rchar" || key == "wchar";
        }
        break;
      case 10:
        if (key == "read_bytes") slot = 2;
        break;
      case 11:
        if (key == "write_bytes") slot = 3;
        break;
      case 21:
        known = key == "cancelled_write_bytes";
        break;
      default:
        break;
    }
    if (slot < 0 && !known) continue;
    const std::string_view value = colon == std::string_view::npos ? std::string_view{} : trim(line.substr(colon + 1));
    std::uint64_t number = 0;
    if (!parse_whole(value, number)) return std::nullopt;
    if (slot >= 0) v[static_cast<std::size_t>(slot)] = number;
  }
  if (!v[0] || !v[1] || !v[2] || !v[3]) return std::nullopt;
  return ProcIo{*v[0], *v[1], *v[2], *v[3]};
}

std::optional<std::string> environ_value(std::string_view environ, std::string_view key) {
  if (key.empty()) return std::nullopt;
  while (!environ.empty()) {
    const std::size_t end = environ.find('\0');
    const std::string_view entry = environ.substr(0, end);
    if (entry.size() > key.size() && entry[key.size()] == '=' && starts_with(entry, key)) {
      return std::string(entry.substr(key.size() + 1));
    }
    if (end == std::string_view::npos) break;
    environ.remove_prefix(end + 1);
  }
  return std::nullopt;
}

std::vector<std::string> split_gpu_list(std::string_view text) {
  std::vector<std::string> ids;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    if (!item.empty()) ids.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return ids;
}

FdTarget classify_fd_target(std::string_view target) {
  const std::string_view path = fd_target_path(target);
  if (path.empty() || path.front() != '/') return FdTarget::Other;
  if (starts_with(path, "/memfd:")) return FdTarget::Other;
  // /dev/shm holds real tmpfs files (MPI shared-memory segments), not devices.
  if (path_is_under(path, "/dev/shm") && path.size() > 9) return FdTarget::RegularFile;
  if (path_is_under(path, "/dev") || path_is_under(path, "/proc") || path_is_under(path, "/sys")) {
    return FdTarget::Other;
  }
  return FdTarget::RegularFile;
}

std::string_view fd_target_path(std::string_view target) {
  if (ends_with(target, kDeletedSuffix)) target.remove_suffix(kDeletedSuffix.size());
  return target;
}

bool path_is_under(std::string_view path, std::string_view prefix) {
  if (prefix.empty()) return false;
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  if (prefix.empty()) return !path.empty() && path.front() == '/';  // prefix was "/"
  if (!starts_with(path, prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

}  // namespace petricore::collect
