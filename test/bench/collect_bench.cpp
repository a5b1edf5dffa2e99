// Benchmark of one collection pass (see README.md). Not a test: it prints
// figures and never fails on a timing.
//
//   collect_bench measure [--passes N] [--warmup N] [--only sampler|baseline] [--no-watch]
//                         [--cgroup-root DIR] [--proc-root DIR]
//       Alternates the real pass (Sampler::sample + render_text, as the
//       daemon hands its sinks) with a raw-read baseline making only the system calls
//       the metric set needs, and prints CPU and wall time per pass and RSS;
//       then times as many watch passes (Sampler::watch) on the same node.
//   collect_bench churn --worker PATH --root NAME --files DIR [--cycles N]
//                       [--cgroup-root DIR] [--proc-root DIR]
//       Creates and removes one job per cycle (bench_worker with 1 process),
//       with a pass after each step, and prints RSS, open fds, series count
//       and tracked jobs along the way.
#include "collect/error_counter.hpp"
#include "collect/exposition.hpp"
#include "collect/held_files.hpp"
#include "collect/layout.hpp"
#include "collect/metrics.hpp"
#include "collect/sampler.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_TOGGLE_COLLECT
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pc = petricore::collect;

namespace {

// ---- measurement helpers ---------------------------------------------------

struct Cpu {
  double user_ms = 0, sys_ms = 0, wall_ms = 0;
};

Cpu now_cpu() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  timespec wall{};
  ::clock_gettime(CLOCK_MONOTONIC, &wall);
  Cpu c;
  c.user_ms = static_cast<double>(ru.ru_utime.tv_sec) * 1e3 + static_cast<double>(ru.ru_utime.tv_usec) / 1e3;
  c.sys_ms = static_cast<double>(ru.ru_stime.tv_sec) * 1e3 + static_cast<double>(ru.ru_stime.tv_usec) / 1e3;
  c.wall_ms = static_cast<double>(wall.tv_sec) * 1e3 + static_cast<double>(wall.tv_nsec) / 1e6;
  return c;
}

Cpu operator-(const Cpu& a, const Cpu& b) {
  return {a.user_ms - b.user_ms, a.sys_ms - b.sys_ms, a.wall_ms - b.wall_ms};
}
Cpu& operator+=(Cpu& a, const Cpu& b) {
  a.user_ms += b.user_ms;
  a.sys_ms += b.sys_ms;
  a.wall_ms += b.wall_ms;
  return a;
}

// A "Vm...:" field of /proc/self/status, in KiB.
long status_kib(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "re");
  if (!f) return -1;
  char line[256];
  long value = -1;
  std::size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, field, n) == 0 && line[n] == ':') {
      value = std::strtol(line + n + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return value;
}

int open_fd_count() {
  int n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return -1;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n - 1;  // the listing's own fd
}

// Lines of the text exposition that are samples (not # HELP / # TYPE).
std::size_t sample_lines(const std::string& text) {
  std::size_t n = 0;
  for (std::size_t at = 0; at < text.size();) {
    if (text[at] != '#') ++n;
    std::size_t end = text.find('\n', at);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return n;
}

// ---- the real pass -----------------------------------------------------------

struct PassResult {
  std::size_t jobs = 0, processes = 0, threads = 0, open_files = 0, series = 0, text_bytes = 0;
  Cpu total, sample, render;                                 // the parts when split
  std::shared_ptr<const pc::Exposition::Families> families;  // kept when asked: what a pull scrape builds from
};

// One pass as the daemon makes it, timed as the baseline's is, by one pair
// of readings (a reading costs a system call, which under TCG is a visible
// part of a small node's pass); `split` adds one between the sampling and
// the text, for the passes that show the two parts.
__attribute__((noinline)) PassResult real_pass(pc::Sampler& sampler, pc::ErrorCounter& errors, bool split = false,
                                               bool keep_families = false) {
  PassResult r;
  Cpu t0 = now_cpu();
  double start = pc::monotonic_seconds();
  std::vector<pc::JobSample> jobs = sampler.sample(start);
  // As the daemon does: the final samples of jobs that ended are taken and
  // exported with the running ones.
  for (pc::JobSample& final_sample : sampler.take_ended()) jobs.push_back(std::move(final_sample));
  Cpu t1 = split ? now_cpu() : Cpu{};
  pc::SelfMetrics self;
  self.collect_duration_seconds = pc::monotonic_seconds() - start;
  self.errors_by_source = errors.totals();
  r.jobs = jobs.size();
  for (const auto& j : jobs) {
    r.processes += static_cast<std::size_t>(j.processes);
    r.open_files += static_cast<std::size_t>(j.opened_files);
    for (const auto& [name, n] : j.threads_by_name) r.threads += static_cast<std::size_t>(n);
  }
  {
    // What the daemon hands its sinks: the text rendered once
    // (metrics.hpp), freed with the pass's jobs at the pass's end.
    const pc::Exposition pass(std::move(jobs), "bench", std::move(self));
    r.text_bytes = pass.text().size();
    r.series = sample_lines(pass.text());
    if (keep_families) r.families = pass.families();
  }
  Cpu t2 = now_cpu();
  r.total = t2 - t0;
  if (split) {
    r.sample = t1 - t0;
    r.render = t2 - t1;
  }
  return r;
}

// ---- the raw-read baseline ---------------------------------------------------
// The system calls the metric set needs and nothing else: discovery of the
// job directories, the cgroup files, each process's stat, io, fd links and
// cwd, and (once per job) cpuset.cpus and environ; on a v2 hierarchy the v2
// files (cpu.stat, memory.*, cpuset.cpus.effective) and /proc/stat once a pass. openat on held directory
// fds, one reused buffer, raw getdents64, no parsing beyond the pid lists.

class Baseline {
 public:
  Baseline(const std::string& cgroup_root, const std::string& proc_root) {
    cg_ = ::open(cgroup_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    proc_ = ::open(proc_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cg_ < 0 || proc_ < 0) throw std::runtime_error("baseline: cannot open the roots");
    buffer_.resize(1 << 16);
  }
  ~Baseline() {
    ::close(cg_);
    ::close(proc_);
  }

  // Returns the number of processes visited.
  __attribute__((noinline)) std::size_t pass() {
    jobs_.clear();
    // A unified (v2) hierarchy has cgroup.controllers at its root (a
    // fixture's may not) and no per-controller directories.
    const bool v2 = ::faccessat(cg_, "cgroup.controllers", F_OK, 0) == 0 || ::faccessat(cg_, "memory", F_OK, 0) != 0;
    if (v2)
      discover_v2();
    else
      discover();
    // v2 attributes CPU time to cores from /proc/stat's per-CPU ticks.
    if (v2 && !jobs_.empty()) read_at(proc_, "stat");
    std::size_t processes = 0;
    for (auto& [id, dirs] : jobs_) {
      const std::string& cpu = dirs[1];
      const std::string& mem = dirs[2];
      const std::string& cpuset = dirs[3];
      const std::string& procs = !dirs[0].empty() ? dirs[0] : cpu;
      if (v2) {
        read_at(cg_, (cpu + "/cpu.stat").c_str());
        read_at(cg_, (mem + "/memory.stat").c_str());
        read_at(cg_, (mem + "/memory.max").c_str());
        read_at(cg_, (mem + "/memory.current").c_str());
        read_at(cg_, (mem + "/memory.swap.current").c_str());
        read_at(cg_, (mem + "/memory.peak").c_str());
      } else {
        if (!cpu.empty()) {
          read_at(cg_, (cpu + "/cpuacct.usage").c_str());
          read_at(cg_, (cpu + "/cpuacct.stat").c_str());
          read_at(cg_, (cpu + "/cpuacct.usage_percpu").c_str());
        }
        if (!mem.empty()) {
          read_at(cg_, (mem + "/memory.stat").c_str());
          read_at(cg_, (mem + "/memory.limit_in_bytes").c_str());
          read_at(cg_, (mem + "/memory.max_usage_in_bytes").c_str());
        }
      }
      bool first_time = known_.insert(id).second;
      if (first_time && !cpuset.empty())
        read_at(cg_, (cpuset + (v2 ? "/cpuset.cpus.effective" : "/cpuset.cpus")).c_str());
      pids_.clear();
      int job_fd = ::openat(cg_, procs.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (job_fd >= 0) {
        collect_pids(job_fd, 0);
        ::close(job_fd);
      }
      for (int pid : pids_) {
        ++processes;
        char path[64];
        std::snprintf(path, sizeof path, "%d/stat", pid);
        read_at(proc_, path);
        std::snprintf(path, sizeof path, "%d/io", pid);
        read_at(proc_, path);
        std::snprintf(path, sizeof path, "%d/fd", pid);
        int fd_dir = ::openat(proc_, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_dir >= 0) {
          for_each_entry(fd_dir,
                         [&](const char* name, unsigned char) { ::readlinkat(fd_dir, name, link_, sizeof link_); });
          ::close(fd_dir);
        }
        std::snprintf(path, sizeof path, "%d/cwd", pid);
        ::readlinkat(proc_, path, link_, sizeof link_);
        if (first_time) {
          std::snprintf(path, sizeof path, "%d/environ", pid);
          read_at(proc_, path);
          first_time = false;
        }
      }
    }
    // Forget jobs that ended (so their cached facts are re-read if reused).
    for (auto it = known_.begin(); it != known_.end();) it = jobs_.count(*it) ? std::next(it) : known_.erase(it);
    return processes;
  }

 private:
  void read_at(int dirfd, const char* path) {
    int fd = ::openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    while (::read(fd, buffer_.data(), buffer_.size()) > 0) {
    }
    ::close(fd);
  }

  template <typename F>
  void for_each_entry(int dirfd, F&& visit) {
    ::lseek(dirfd, 0, SEEK_SET);
    for (;;) {
      long n = ::syscall(SYS_getdents64, dirfd, dents_, sizeof dents_);
      if (n <= 0) return;
      for (long off = 0; off < n;) {
        auto* d = reinterpret_cast<dirent64*>(dents_ + off);
        off += d->d_reclen;
        if (d->d_name[0] == '.' && (d->d_name[1] == '\0' || (d->d_name[1] == '.' && d->d_name[2] == '\0'))) continue;
        visit(d->d_name, d->d_type);
      }
    }
  }

  void collect_pids(int dirfd, int depth) {
    int fd = ::openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ssize_t n;
      std::size_t used = 0;
      while ((n = ::read(fd, buffer_.data() + used, buffer_.size() - used)) > 0) used += static_cast<std::size_t>(n);
      ::close(fd);
      int pid = 0;
      for (std::size_t i = 0; i < used; ++i) {
        char c = buffer_[i];
        if (c >= '0' && c <= '9')
          pid = pid * 10 + (c - '0');
        else if (pid)
          pids_.push_back(pid), pid = 0;
      }
    }
    if (depth >= 5) return;
    std::vector<std::string> children;
    // `slurm` leaves (v2) hold slurmstepd itself, not the job's processes.
    for_each_entry(dirfd, [&](const char* name, unsigned char type) {
      if (type == DT_DIR && std::strcmp(name, "slurm") != 0) children.emplace_back(name);
    });
    for (const auto& child : children) {
      int child_fd = ::openat(dirfd, child.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (child_fd < 0) continue;
      collect_pids(child_fd, depth + 1);
      ::close(child_fd);
    }
  }

  // <ctrl>/slurm*/uid_*/job_* in the controllers the metric set uses.
  void discover() {
    static const char* const controllers[] = {"freezer", "cpuacct", "memory", "cpuset"};
    for (int c = 0; c < 4; ++c) {
      int ctrl = ::openat(cg_, controllers[c], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (ctrl < 0) continue;
      std::vector<std::string> roots;
      for_each_entry(ctrl, [&](const char* name, unsigned char type) {
        if (type == DT_DIR && std::strncmp(name, "slurm", 5) == 0) roots.emplace_back(name);
      });
      for (const auto& root : roots) {
        int root_fd = ::openat(ctrl, root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0) continue;
        std::vector<std::string> uids;
        for_each_entry(root_fd, [&](const char* name, unsigned char type) {
          if (type == DT_DIR && std::strncmp(name, "uid_", 4) == 0) uids.emplace_back(name);
        });
        for (const auto& uid : uids) {
          int uid_fd = ::openat(root_fd, uid.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
          if (uid_fd < 0) continue;
          for_each_entry(uid_fd, [&](const char* name, unsigned char type) {
            if (type == DT_DIR && std::strncmp(name, "job_", 4) == 0)
              jobs_[name + 4][static_cast<std::size_t>(c)] =
                  std::string{controllers[c]} + "/" + root + "/" + uid + "/" + name;
          });
          ::close(uid_fd);
        }
        ::close(root_fd);
      }
      ::close(ctrl);
    }
  }

  // v2: <any>.slice/[<node>_]slurmstepd.scope/job_<id> (or a SLUID,
  // s + 13 characters), one directory for every controller.
  void discover_v2() {
    std::vector<std::string> slices;
    for_each_entry(cg_, [&](const char* name, unsigned char type) {
      std::string_view n = name;
      if (type == DT_DIR && n.size() > 6 && n.substr(n.size() - 6) == ".slice") slices.emplace_back(name);
    });
    for (const auto& slice : slices) {
      int slice_fd = ::openat(cg_, slice.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (slice_fd < 0) continue;
      std::vector<std::string> scopes;
      for_each_entry(slice_fd, [&](const char* name, unsigned char type) {
        std::string_view n = name, suffix = "slurmstepd.scope";
        if (type == DT_DIR && n.size() >= suffix.size() && n.substr(n.size() - suffix.size()) == suffix)
          scopes.emplace_back(name);
      });
      for (const auto& scope : scopes) {
        int scope_fd = ::openat(slice_fd, scope.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (scope_fd < 0) continue;
        for_each_entry(scope_fd, [&](const char* name, unsigned char type) {
          std::string_view n = name;
          bool job = n.rfind("job_", 0) == 0 || (n.size() == 14 && (n[0] == 's' || n[0] == 'S'));
          if (type != DT_DIR || !job) return;
          std::string dir = slice + "/" + scope + "/" + name;
          jobs_[name] = {dir, dir, dir, dir};
        });
        ::close(scope_fd);
      }
      ::close(slice_fd);
    }
  }

  int cg_ = -1, proc_ = -1;
  std::string buffer_;
  alignas(8) char dents_[32768];
  char link_[4096];
  std::map<std::string, std::array<std::string, 4>> jobs_;  // id -> freezer, cpuacct, memory, cpuset dir
  std::set<std::string> known_;
  std::vector<int> pids_;
};

// ---- options -----------------------------------------------------------------

struct Options {
  std::string mode;
  int passes = 20, warmup = 2, cycles = 1000;
  std::string only;   // "", "sampler", "baseline"
  bool watch = true;  // false: full passes only (to count their system calls)
  std::string cgroup_root = "/sys/fs/cgroup", proc_root = "/proc";
  std::string worker, root, files;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: collect_bench measure [--passes N] [--warmup N] [--only sampler|baseline] [--no-watch]\n"
               "                             [--cgroup-root DIR] [--proc-root DIR]\n"
               "       collect_bench churn --worker PATH --root NAME --files DIR [--cycles N]\n"
               "                           [--cgroup-root DIR] [--proc-root DIR]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  if (argc < 2) usage();
  Options o;
  o.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--passes")
      o.passes = std::atoi(value().c_str());
    else if (a == "--warmup")
      o.warmup = std::atoi(value().c_str());
    else if (a == "--cycles")
      o.cycles = std::atoi(value().c_str());
    else if (a == "--only")
      o.only = value();
    else if (a == "--no-watch")
      o.watch = false;
    else if (a == "--cgroup-root")
      o.cgroup_root = value();
    else if (a == "--proc-root")
      o.proc_root = value();
    else if (a == "--worker")
      o.worker = value();
    else if (a == "--root")
      o.root = value();
    else if (a == "--files")
      o.files = value();
    else
      usage();
  }
  if (o.mode != "measure" && o.mode != "churn") usage();
  if (o.mode == "churn" && (o.worker.empty() || o.root.empty() || o.files.empty())) usage();
  if (o.passes < 1 || o.warmup < 0 || o.cycles < 0) usage();
  return o;
}

// measure: the production layout (auto), every job on the node. churn: only
// the benchmark's own root, so other jobs on the host do not move the figures.
std::unique_ptr<pc::Sampler> make_sampler(const Options& o, pc::ErrorCounter& errors) {
  auto layout = o.mode == "churn"
                    ? pc::make_layout(pc::LayoutKind::Pattern, "(freezer|cpuacct|memory|cpuset)/" + o.root +
                                                                   "/uid_(?<uid>[0-9]+)/job_(?<job>[0-9]+)")
                    : pc::make_layout(pc::LayoutKind::Auto);
  return std::make_unique<pc::Sampler>(o.cgroup_root, o.proc_root, std::move(layout), pc::SamplerOptions{}, errors);
}

std::uint64_t total_errors(const pc::ErrorCounter& errors) {
  std::uint64_t n = 0;
  for (const auto& [source, count] : errors.totals()) n += count;
  return n;
}

// ---- measure -----------------------------------------------------------------

int measure(const Options& o) {
  pc::raise_open_file_limit(pc::kSamplerOpenFileLimit);  // as `petricore collect` does
  pc::ErrorCounter errors;
  auto sampler = make_sampler(o, errors);
  Baseline baseline(o.cgroup_root, o.proc_root);
  bool run_sampler = o.only != "baseline", run_baseline = o.only != "sampler";
  long rss_start = status_kib("VmRSS");

  for (int i = 0; i < o.warmup; ++i) {
    if (run_sampler) real_pass(*sampler, errors);
    if (run_baseline) baseline.pass();
  }
  Cpu s_total, b_total, sample_total, render_total;
  PassResult last;
  std::size_t baseline_processes = 0;
  CALLGRIND_TOGGLE_COLLECT;
  for (int i = 0; i < o.passes; ++i) {
    // Alternate the order so neither always runs with the other's warm caches.
    for (int k = 0; k < 2; ++k) {
      bool sampler_turn = (k == 0) == (i % 2 == 0);
      if (sampler_turn && run_sampler) {
        last = real_pass(*sampler, errors);
        s_total += last.total;
      } else if (!sampler_turn && run_baseline) {
        Cpu t0 = now_cpu();
        baseline_processes = baseline.pass();
        b_total += now_cpu() - t0;
      }
    }
  }
  CALLGRIND_TOGGLE_COLLECT;
  double n = o.passes;
  long rss = status_kib("VmRSS"), hwm = status_kib("VmHWM");

  std::printf(
      "node: %zu jobs, %zu processes, %zu threads, %zu open regular files (sampler view); "
      "baseline visited %zu processes\n",
      last.jobs, last.processes, last.threads, last.open_files, baseline_processes);
  std::printf("exposition: %zu series, %zu bytes; collector errors counted: %llu\n", last.series, last.text_bytes,
              static_cast<unsigned long long>(total_errors(errors)));
  std::printf("per pass, mean of %d passes after %d warm-up passes, the two alternating:\n", o.passes, o.warmup);
  std::printf("  %-40s %9s %9s %9s %9s\n", "", "CPU ms", "user ms", "sys ms", "wall ms");
  auto row = [&](const char* name, const Cpu& c) {
    std::printf("  %-40s %9.2f %9.2f %9.2f %9.2f\n", name, (c.user_ms + c.sys_ms) / n, c.user_ms / n, c.sys_ms / n,
                c.wall_ms / n);
  };
  if (run_sampler) {
    row("petricore pass (sample+text)", s_total);
    // The parts, from as many passes again, each timed in two.
    for (int i = 0; i < o.passes; ++i) {
      PassResult split = real_pass(*sampler, errors, true);
      sample_total += split.sample;
      render_total += split.render;
    }
    row("  Sampler::sample (passes timed apart)", sample_total);
    row("  render_text (passes timed apart)", render_total);
    Cpu r0 = now_cpu();
    for (int i = 0; i < 100; ++i) now_cpu();
    Cpu readings = now_cpu() - r0;
    std::printf("  (one CPU/wall reading, getrusage + clock_gettime: %.1f us CPU)\n",
                (readings.user_ms + readings.sys_ms) * 1e3 / 101);
    // Not part of a pass: the families a pull scrape builds from a pass's
    // jobs, as many times as there were passes.
    last = real_pass(*sampler, errors, false, true);
    Cpu t0 = now_cpu();
    std::size_t families = 0;
    for (int i = 0; i < o.passes && last.families; ++i) families += last.families->build().size();
    Cpu snapshot_total = now_cpu() - t0;
    row("build_snapshot per pull scrape", snapshot_total);
    if (families == 0) std::printf("  (no families built)\n");
  }
  if (run_baseline) row("raw-read baseline", b_total);
  if (run_sampler && run_baseline) {
    double s = s_total.user_ms + s_total.sys_ms, b = b_total.user_ms + b_total.sys_ms;
    std::printf("  CPU ratio petricore / baseline: %.2f (target <= 1.5); wall ratio %.2f\n", b > 0 ? s / b : 0.0,
                b_total.wall_ms > 0 ? s_total.wall_ms / b_total.wall_ms : 0.0);
    if (last.processes > 0)
      std::printf("  per process: petricore %.1f us CPU, baseline %.1f us CPU\n",
                  s * 1e3 / n / static_cast<double>(last.processes),
                  b * 1e3 / n / static_cast<double>(std::max<std::size_t>(baseline_processes, 1)));
  }
  if (run_sampler && o.watch) {
    // The watch between full passes (Sampler::watch): cgroup files only.
    // Its first call after the full passes finds every job known.
    Cpu w_total;
    std::size_t started = 0;
    for (int i = 0; i < o.passes; ++i) {
      Cpu t0 = now_cpu();
      started += sampler->watch(pc::monotonic_seconds()).size();
      w_total += now_cpu() - t0;
    }
    std::size_t ended = sampler->take_ended().size();
    double w = w_total.user_ms + w_total.sys_ms;
    row("watch (light pass, every 1 s)", w_total);
    std::printf(
        "  watch: %.2f %% of one core at a 1 s watch interval (target <= 2 %%); %.1f %% of a full pass's CPU; "
        "%zu jobs started, %zu ended during the watches\n",
        w / n / 10.0, s_total.user_ms + s_total.sys_ms > 0 ? 100 * w / (s_total.user_ms + s_total.sys_ms) : 0.0,
        started, ended);
  }
  std::printf("collect_bench process: VmRSS %.1f MiB after the passes (%.1f MiB before the first), VmHWM %.1f MiB\n",
              static_cast<double>(rss) / 1024.0, static_cast<double>(rss_start) / 1024.0,
              static_cast<double>(hwm) / 1024.0);
  std::printf("Sampler::tracked_jobs() = %zu\n", sampler->tracked_jobs());
  return 0;
}

// ---- churn -------------------------------------------------------------------

// Starts one bench_worker job with 1 process; returns its pid once it is set up.
pid_t start_job(const Options& o, const std::string& job_id, const std::string& fifo, int fifo_fd) {
  std::string env_job = "SLURM_JOB_ID=" + job_id;
  std::vector<std::string> args = {o.worker, o.cgroup_root, o.root, job_id, "1", o.files, fifo};
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string{"fork: "} + std::strerror(errno));
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    char* envp[] = {env_job.data(), const_cast<char*>("SLURM_JOB_ACCOUNT=bench"), const_cast<char*>("SLURM_JOB_GPUS=0"),
                    nullptr};
    ::execve(o.worker.c_str(), argv.data(), envp);
    ::_exit(127);
  }
  pollfd p{fifo_fd, POLLIN, 0};
  if (::poll(&p, 1, 10000) != 1) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    throw std::runtime_error("bench_worker for job " + job_id + " not ready after 10 s");
  }
  char line[64];
  if (::read(fifo_fd, line, sizeof line) <= 0) throw std::runtime_error("ready fifo closed");
  return pid;
}

void remove_job(const Options& o, pid_t pid, const std::string& job_id) {
  ::kill(-pid, SIGKILL);
  int status;
  ::waitpid(pid, &status, 0);
  std::string job = o.root + "/uid_0/job_" + job_id;
  for (const char* ctrl : {"cpuacct", "memory", "cpuset", "freezer"}) {
    std::string base = o.cgroup_root + "/" + ctrl + "/" + job;
    for (const std::string& d : {base + "/step_batch/task_0", base + "/step_batch", base}) {
      for (int attempt = 0; attempt < 200; ++attempt) {
        if (::rmdir(d.c_str()) == 0 || errno == ENOENT) break;
        if (errno != EBUSY) throw std::runtime_error("rmdir " + d + ": " + std::strerror(errno));
        ::usleep(1000);  // the killed task is still leaving the cgroup
      }
    }
  }
  for (int f = 0; f < 8; ++f) ::unlink((o.files + "/j" + job_id + "_p00_f" + std::to_string(f)).c_str());
}

int churn(const Options& o) {
  pc::ErrorCounter errors;
  auto sampler = make_sampler(o, errors);
  std::string fifo = o.files + "/churn.fifo";
  ::unlink(fifo.c_str());
  if (::mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + fifo + ": " + std::strerror(errno));
  int fifo_fd = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (fifo_fd < 0) throw std::runtime_error("open " + fifo + ": " + std::strerror(errno));

  const std::set<int> report_at = {0, 1, 10, 100, 500, o.cycles};
  std::printf(
      "churn: %d cycles of (create a job with 1 process, pass, kill + remove it, pass), one Sampler\n"
      "       (layout: pattern over %s only; the report pass runs after the cycle's removal)\n",
      o.cycles, o.root.c_str());
  std::printf("  %7s %10s %10s %8s %8s %12s %8s %10s\n", "cycle", "VmRSS KiB", "VmHWM KiB", "fds", "series",
              "tracked_jobs", "errors", "ms/cycle");
  long base_id = static_cast<long>(::getpid()) * 10000;
  Cpu start = now_cpu();
  int last_report = 0;
  Cpu last_time = start;
  auto report = [&](int cycle) {
    PassResult r = real_pass(*sampler, errors);
    Cpu now = now_cpu();
    double ms = cycle > last_report ? (now.wall_ms - last_time.wall_ms) / (cycle - last_report) : 0.0;
    std::printf("  %7d %10ld %10ld %8d %8zu %12zu %8llu %10.2f\n", cycle, status_kib("VmRSS"), status_kib("VmHWM"),
                open_fd_count(), r.series, sampler->tracked_jobs(),
                static_cast<unsigned long long>(total_errors(errors)), ms);
    std::fflush(stdout);
    last_report = cycle;
    last_time = now_cpu();
  };
  report(0);
  for (int cycle = 1; cycle <= o.cycles; ++cycle) {
    std::string id = std::to_string(base_id + cycle);
    pid_t pid = start_job(o, id, fifo, fifo_fd);
    PassResult with = real_pass(*sampler, errors);
    if (with.jobs == 0) std::printf("  warning: cycle %d: the new job was not seen\n", cycle);
    remove_job(o, pid, id);
    real_pass(*sampler, errors);
    if (report_at.count(cycle)) report(cycle);
  }
  ::close(fifo_fd);
  ::unlink(fifo.c_str());
  std::printf("Sampler::tracked_jobs() at the end: %zu (expected 0)\n", sampler->tracked_jobs());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    return o.mode == "measure" ? measure(o) : churn(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collect_bench: %s\n", e.what());
    return 1;
  }
}
