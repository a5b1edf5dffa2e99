#include "collect/layout.hpp"

#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"
#include "core/log.hpp"
#include "core/startup_error.hpp"
#include "model/sluid.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <regex>
#include <stdexcept>
#include <utility>

namespace petricore::collect {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "job_123" -> "123"; anything else -> empty.
std::string_view numeric_suffix(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return {};
  std::string_view rest = name.substr(prefix.size());
  return all_digits(rest) ? rest : std::string_view{};
}

std::optional<unsigned> parse_uid(std::string_view digits) {
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  unsigned value = 0;
  for (char c : digits) value = value * 10 + static_cast<unsigned>(c - '0');
  return value;
}

// Job ids sort numerically when they are numbers.
bool job_id_less(const std::string& a, const std::string& b) {
  if (a.size() != b.size() && all_digits(a) && all_digits(b)) return a.size() < b.size();
  return a < b;
}

// The subdirectories of `dirfd`, a directory just opened (`listing`: how its
// filesystem is listed, file_reader.hpp).
std::vector<std::string> subdirectories(int dirfd, ListOptions listing) {
  std::vector<std::string> names;
  listing.directories_only = true;
  list_directory(
      dirfd, [&](std::string_view name, bool) { names.emplace_back(name); }, listing);
  return names;
}

// The cgroup root's entries, listed once a pass for both Slurm layouts: the
// v1 controllers (symlinks such as cpuacct -> cpu,cpuacct included), the v2
// slices and a hybrid host's `unified`. Only names found here are opened, so
// a pure v2 host costs no failed open of each v1 controller, and v1 none of
// `unified`.
struct RootEntry {
  std::string name;
  bool is_directory = false;
};
struct RootListing {
  std::vector<RootEntry> entries;
  // Which listing of a RootListingCache this is (0: not a cached one).
  std::uint64_t generation = 0;
  // The root's filesystem: cgroup2 on a v2 host, whose directories are then
  // all listed the kernel's way; tmpfs holding v1's controller mounts.
  KernelFilesystem fs = KernelFilesystem::None;
};
// The cgroup root's filesystem, asked once: a layout serves one sampler,
// whose root fd stays open for its lifetime.
class RootFilesystem {
 public:
  KernelFilesystem of(int root_fd) const {
    if (root_fd != fd_) {
      fd_ = root_fd;
      fs_ = kernel_filesystem(root_fd);
    }
    return fs_;
  }

 private:
  mutable int fd_ = -1;
  mutable KernelFilesystem fs_ = KernelFilesystem::None;
};

RootListing root_entries(int root_fd, KernelFilesystem fs) {
  RootListing root;
  root.fs = fs;
  // The root fd is the sampler's, listed every pass: rewound. Its own
  // files (cgroup.*, cpu.*, ...) are never looked up.
  list_directory(root_fd,
                 [&](std::string_view name, bool is_directory) {
                   root.entries.push_back({std::string{name}, is_directory});
                 },
                 {true, fresh_listing(root.fs).short_read_ends, false, true});
  return root;
}
// The cgroup root's listing, reused for kRelistRoot: the root holds the v1
// controllers' mounts or the v2 slices and a hybrid host's `unified`, made at
// boot or by a unit's first start, where jobs come and go in the directories
// below, which are listed every pass. expire() has the next get() list anew.
class RootListingCache {
 public:
  static constexpr std::chrono::seconds kRelistRoot{30};

  const RootListing& get(int root_fd) const {
    const auto now = std::chrono::steady_clock::now();
    if (root_fd != fd_ || expired_ || now - listed_at_ >= kRelistRoot) {
      listing_ = root_entries(root_fd, fs_.of(root_fd));
      listing_.generation = ++generation_;
      fd_ = root_fd;
      listed_at_ = now;
      expired_ = false;
    }
    return listing_;
  }
  void expire() const { expired_ = true; }

 private:
  RootFilesystem fs_;
  mutable RootListing listing_;
  mutable std::uint64_t generation_ = 0;
  mutable int fd_ = -1;
  mutable std::chrono::steady_clock::time_point listed_at_;
  mutable bool expired_ = true;
};

bool has_entry(const RootListing& root, std::string_view name) {
  return std::any_of(root.entries.begin(), root.entries.end(), [&](const RootEntry& e) { return e.name == name; });
}

void count_unreadable(ErrorCounter& errors, const std::string& path) {
  int e = errno;
  if (classify_errno(e) == ReadStatus::Missing) return;  // removed while walking
  errors.count(error_source::discovery, "unreadable directory",
               "cannot read cgroup directory " + path + ": " + std::strerror(e));
}

// Where one job was seen in one v1 hierarchy.
using ControllerDirs = std::map<std::string, std::string>;  // controller -> job dir

struct V1Job {
  std::optional<unsigned> uid;
  ControllerDirs dirs;
};

// v1 controller directories as mounted by distributions: separate, or the
// combined "cpu,cpuacct" (with "cpu" and "cpuacct" as symlinks to it).
const char* const kV1Controllers[] = {"freezer", "cpuacct", "cpu,cpuacct", "memory", "cpuset", "pids", "devices"};

bool is_slurm_v1_root(std::string_view name) {
  return name == "slurm" || (name.size() > 6 && name.compare(0, 6, "slurm_") == 0);
}

// The job_<id> directories among `names`, the subdirectories of `path`.
void add_v1_jobs(const std::vector<std::string>& names, const std::string& path, const std::string& controller,
                 std::optional<unsigned> uid, std::map<std::string, V1Job>& jobs) {
  for (const auto& name : names) {
    std::string_view id = numeric_suffix(name, "job_");
    if (id.empty()) continue;
    V1Job& job = jobs[std::string{id}];
    if (!job.uid) job.uid = uid;
    job.dirs.emplace(controller, path + "/" + name);
  }
}

class SlurmV1Layout : public Layout {
 public:
  std::vector<JobCgroups> discover(int root_fd, ErrorCounter& errors) const override {
    return discover_in(root_fd, root_entries(root_fd, root_fs_.of(root_fd)), errors);
  }
  std::vector<JobCgroups> discover_in(int root_fd, const RootListing& top, ErrorCounter& errors) const {
    std::map<std::string, V1Job> jobs;
    for (const char* controller : kV1Controllers) {
      if (!has_entry(top, controller)) continue;  // controller not mounted: normal
      auto controller_fd = open_directory_at(root_fd, controller);
      if (!controller_fd) continue;  // controller not mounted: normal
      // Each controller is a mount of its own (cgroupfs on a host).
      ListOptions listing = fresh_listing(kernel_filesystem(controller_fd->get()));
      for (const auto& root_name : subdirectories(controller_fd->get(), listing)) {
        if (!is_slurm_v1_root(root_name)) continue;
        std::string root_path = std::string{controller} + "/" + root_name;
        auto slurm_fd = open_directory_at(root_fd, root_path.c_str());
        if (!slurm_fd) {
          count_unreadable(errors, root_path);
          continue;
        }
        std::vector<std::string> names = subdirectories(slurm_fd->get(), listing);
        add_v1_jobs(names, root_path, controller, std::nullopt, jobs);
        for (const auto& uid_name : names) {
          std::string_view uid = numeric_suffix(uid_name, "uid_");
          if (uid.empty()) continue;
          std::string uid_path = root_path + "/" + uid_name;
          auto uid_fd = open_directory_at(root_fd, uid_path.c_str());
          if (!uid_fd) {
            count_unreadable(errors, uid_path);
            continue;
          }
          add_v1_jobs(subdirectories(uid_fd->get(), listing), uid_path, controller, parse_uid(uid), jobs);
        }
      }
    }
    std::vector<JobCgroups> result;
    for (auto& [id, job] : jobs) {
      JobCgroups cg;
      cg.job_id = id;
      cg.uid = job.uid;
      cg.version = CgroupVersion::V1;
      auto dir = [&](std::initializer_list<const char*> controllers) -> std::string {
        for (const char* c : controllers) {
          auto it = job.dirs.find(c);
          if (it != job.dirs.end()) return it->second;
        }
        return {};
      };
      cg.cpu_dir = dir({"cpuacct", "cpu,cpuacct"});
      cg.memory_dir = dir({"memory"});
      cg.cpuset_dir = dir({"cpuset"});
      cg.process_dir = dir({"freezer", "cpuacct", "cpu,cpuacct", "memory", "cpuset", "pids", "devices"});
      result.push_back(std::move(cg));
    }
    return result;
  }

 private:
  RootFilesystem root_fs_;
};

bool is_slurmstepd_scope(std::string_view name) {
  constexpr std::string_view scope = "slurmstepd.scope";
  if (name == scope) return true;
  return name.size() > scope.size() + 1 && name.substr(name.size() - scope.size()) == scope &&
         name[name.size() - scope.size() - 1] == '_';
}

bool ends_with(std::string_view name, std::string_view suffix) {
  return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

// A v2 job directory: "job_<id>", or (Slurm 26.05's default) the job's SLUID.
// Anything else in a slurmstepd scope (its `system` waiting area) is no job.
std::optional<JobCgroups> v2_job(const std::string& scope_path, const std::string& name) {
  JobCgroups cg;
  if (std::string_view id = numeric_suffix(name, "job_"); !id.empty()) {
    cg.job_id = std::string{id};
  } else if (auto sluid = model::parse_sluid(name)) {
    cg.job_id = cg.sluid = *sluid;
  } else {
    if (model::sluid_like(name)) log::debug("skipping " + scope_path + "/" + name + ": not a valid SLUID");
    return std::nullopt;
  }
  cg.version = CgroupVersion::V2;
  cg.cpu_dir = cg.memory_dir = cg.cpuset_dir = cg.process_dir = scope_path + "/" + name;
  return cg;
}

class SlurmV2Layout : public Layout {
 public:
  std::vector<JobCgroups> discover(int root_fd, ErrorCounter& errors) const override {
    bool rescan = false;
    std::vector<JobCgroups> jobs = discover_in(root_fd, root_.get(root_fd), errors, rescan);
    if (rescan) root_.expire();
    return jobs;
  }
  // The slurmstepd scopes are looked for in the slices of each new listing
  // of the root (every pass for an uncached one) and listed every pass.
  // `rescan` is set when the root should be listed afresh next time: no
  // scope found yet (slurmd not started), or one gone or unreadable.
  std::vector<JobCgroups> discover_in(int root_fd, const RootListing& top, ErrorCounter& errors, bool& rescan) const {
    if (top.generation == 0 || top.generation != scopes_generation_) {
      scopes_ = find_scopes(root_fd, top, errors, rescan);
      scopes_generation_ = top.generation;
    }
    if (scopes_.empty()) rescan = true;
    std::map<std::string, JobCgroups> jobs;
    for (const Scope& scope : scopes_) {
      auto scope_fd = open_directory_at(root_fd, scope.path.c_str());
      if (!scope_fd) {
        count_unreadable(errors, scope.path);
        rescan = true;
        continue;
      }
      for (const auto& name : subdirectories(scope_fd->get(), scope.listing)) {
        auto cg = v2_job(scope.path, name);
        if (cg && !jobs.count(cg->job_id)) jobs.emplace(cg->job_id, std::move(*cg));
      }
    }
    std::vector<JobCgroups> result;
    for (auto& [id, cg] : jobs) result.push_back(std::move(cg));
    return result;
  }

 private:
  struct Scope {
    std::string path;     // below the root: <slice>/[<node>_]slurmstepd.scope
    ListOptions listing;  // its filesystem's
  };
  // The unified hierarchy is the root itself on a pure v2 host, and
  // <root>/unified on a hybrid one. Slurm puts its scopes in the slice
  // that CgroupSlice names (25.11 on; system.slice before), so every
  // top-level slice is looked into: a root holds a handful.
  static std::vector<Scope> find_scopes(int root_fd, const RootListing& top, ErrorCounter& errors, bool& rescan) {
    std::vector<Scope> scopes;
    ListOptions listing = fresh_listing(top.fs);
    for (const RootEntry& entry : top.entries)
      if (entry.is_directory && ends_with(entry.name, ".slice"))
        scan_slice(root_fd, entry.name, listing, scopes, errors, rescan);
    if (has_entry(top, "unified")) {
      if (auto unified_fd = open_directory_at(root_fd, "unified")) {
        ListOptions unified = fresh_listing(kernel_filesystem(unified_fd->get()));
        for (const auto& slice : subdirectories(unified_fd->get(), unified))
          if (ends_with(slice, ".slice")) scan_slice(root_fd, "unified/" + slice, unified, scopes, errors, rescan);
      }
    }
    return scopes;
  }
  static void scan_slice(int root_fd, const std::string& slice_path, ListOptions listing, std::vector<Scope>& scopes,
                         ErrorCounter& errors, bool& rescan) {
    auto slice_fd = open_directory_at(root_fd, slice_path.c_str());
    if (!slice_fd) {
      count_unreadable(errors, slice_path);
      rescan = true;
      return;
    }
    for (const auto& scope : subdirectories(slice_fd->get(), listing))
      if (is_slurmstepd_scope(scope)) scopes.push_back({slice_path + "/" + scope, listing});
  }
  RootListingCache root_;
  mutable std::vector<Scope> scopes_;
  mutable std::uint64_t scopes_generation_ = 0;
};

// Both Slurm layouts; a job seen in v1 controllers wins over a v2 twin, since
// only v1 then holds its CPU and memory accounting.
class AutoLayout : public Layout {
 public:
  std::vector<JobCgroups> discover(int root_fd, ErrorCounter& errors) const override {
    const RootListing& top = root_.get(root_fd);
    bool rescan = false;
    std::vector<JobCgroups> result = v1_.discover_in(root_fd, top, errors);
    std::vector<JobCgroups> v2 = v2_.discover_in(root_fd, top, errors, rescan);
    // A v1 host has no scope: its root is listed every pass, as before.
    if (rescan) root_.expire();
    for (auto& job : v2) {
      bool known =
          std::any_of(result.begin(), result.end(), [&](const JobCgroups& j) { return j.job_id == job.job_id; });
      if (!known) result.push_back(std::move(job));
    }
    return result;
  }

 private:
  SlurmV1Layout v1_;
  SlurmV2Layout v2_;
  RootListingCache root_;
};

// std::regex has no named groups: rewrite (?<name>..) and (?P<name>..) as
// plain groups and remember which capture index each name got.
struct CompiledPattern {
  std::regex regex;
  std::size_t job_group = 0;
  std::size_t uid_group = 0;  // 0 = none
};

CompiledPattern compile_pattern(const std::string& pattern) {
  std::string plain;
  std::map<std::string, std::size_t> named;
  std::size_t group_count = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      plain += c;
      plain += pattern[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      plain += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      plain += c;
      continue;
    }
    if (c == '(') {
      std::string_view rest = std::string_view{pattern}.substr(i + 1);
      std::size_t name_start = 0;
      if (rest.rfind("?P<", 0) == 0)
        name_start = 3;
      else if (rest.rfind("?<", 0) == 0 && rest.size() > 2 && rest[2] != '=' && rest[2] != '!')
        name_start = 2;
      if (name_start != 0) {
        std::size_t close = rest.find('>', name_start);
        if (close == std::string_view::npos) throw StartupError("--job-pattern: unterminated group name");
        named[std::string{rest.substr(name_start, close - name_start)}] = ++group_count;
        plain += '(';
        i += close + 1;
        continue;
      }
      if (rest.empty() || rest[0] != '?') ++group_count;
    }
    plain += c;
  }
  CompiledPattern compiled;
  try {
    compiled.regex = std::regex(plain, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw StartupError("--job-pattern: invalid regular expression '" + pattern + "': " + e.what());
  }
  auto job = named.find("job");
  if (job == named.end()) throw StartupError("--job-pattern: needs a named group for the job id, e.g. (?<job>[0-9]+)");
  compiled.job_group = job->second;
  if (auto uid = named.find("uid"); uid != named.end()) compiled.uid_group = uid->second;
  return compiled;
}

class PatternLayout : public Layout {
 public:
  explicit PatternLayout(const std::string& pattern) : pattern_(compile_pattern(pattern)) {}

  std::vector<JobCgroups> discover(int root_fd, ErrorCounter& errors) const override {
    std::map<std::string, JobCgroups> jobs;
    walk(root_fd, root_fd, "", 0, jobs, errors);
    std::vector<JobCgroups> result;
    for (auto& [id, cg] : jobs) result.push_back(std::move(cg));
    return result;
  }

 private:
  static constexpr int kMaxDepth = 8;

  void walk(int root_fd, int dirfd, const std::string& path, int depth, std::map<std::string, JobCgroups>& jobs,
            ErrorCounter& errors) const {
    // The root fd is the sampler's (rewound); below it the pattern may cross
    // mounts (v1's controllers under a tmpfs), so no filesystem is assumed.
    ListOptions listing = depth == 0 ? ListOptions{} : fresh_listing(KernelFilesystem::None);
    for (const auto& name : subdirectories(dirfd, listing)) {
      std::string child = path.empty() ? name : path + "/" + name;
      std::smatch match;
      if (std::regex_match(child, match, pattern_.regex) && match[pattern_.job_group].length() > 0) {
        record(child, match, jobs);
        continue;  // a job's own subtree holds steps, not other jobs
      }
      if (depth + 1 >= kMaxDepth) continue;
      auto child_fd = open_directory_at(root_fd, child.c_str());
      if (!child_fd) {
        count_unreadable(errors, child);
        continue;
      }
      walk(root_fd, child_fd->get(), child, depth + 1, jobs, errors);
    }
  }

  void record(const std::string& path, const std::smatch& match, std::map<std::string, JobCgroups>& jobs) const {
    std::string id = match[pattern_.job_group].str();
    JobCgroups& cg = jobs[id];
    cg.job_id = id;
    if (pattern_.uid_group != 0 && !cg.uid) cg.uid = parse_uid(match[pattern_.uid_group].str());
    std::string_view first = std::string_view{path}.substr(0, path.find('/'));
    bool v1 = std::find(std::begin(kV1Controllers), std::end(kV1Controllers), first) != std::end(kV1Controllers);
    if (!v1) {
      cg.version = CgroupVersion::V2;
      cg.cpu_dir = cg.memory_dir = cg.cpuset_dir = cg.process_dir = path;
      return;
    }
    cg.version = CgroupVersion::V1;
    if ((first == "cpuacct" || first == "cpu,cpuacct") && cg.cpu_dir.empty()) cg.cpu_dir = path;
    if (first == "memory") cg.memory_dir = path;
    if (first == "cpuset") cg.cpuset_dir = path;
    if (cg.process_dir.empty() || first == "freezer") cg.process_dir = path;
  }

  CompiledPattern pattern_;
};

// Every layout returns its jobs in numeric job id order.
template <typename Inner>
class SortedLayout : public Layout {
 public:
  template <typename... Args>
  explicit SortedLayout(Args&&... args) : inner_(std::forward<Args>(args)...) {}
  std::vector<JobCgroups> discover(int root_fd, ErrorCounter& errors) const override {
    std::vector<JobCgroups> jobs = inner_.discover(root_fd, errors);
    std::sort(jobs.begin(), jobs.end(),
              [](const JobCgroups& a, const JobCgroups& b) { return job_id_less(a.job_id, b.job_id); });
    return jobs;
  }

 private:
  Inner inner_;
};

}  // namespace

std::unique_ptr<Layout> make_layout(LayoutKind kind, const std::string& job_pattern) {
  switch (kind) {
    case LayoutKind::Auto:
      return std::make_unique<SortedLayout<AutoLayout>>();
    case LayoutKind::SlurmV1:
      return std::make_unique<SortedLayout<SlurmV1Layout>>();
    case LayoutKind::SlurmV2:
      return std::make_unique<SortedLayout<SlurmV2Layout>>();
    case LayoutKind::Pattern:
      if (job_pattern.empty()) throw StartupError("--layout pattern needs --job-pattern REGEX");
      return std::make_unique<SortedLayout<PatternLayout>>(job_pattern);
  }
  return nullptr;
}

std::optional<LayoutKind> parse_layout_kind(const std::string& text) {
  if (text == "auto") return LayoutKind::Auto;
  if (text == "slurm-v1") return LayoutKind::SlurmV1;
  if (text == "slurm-v2") return LayoutKind::SlurmV2;
  if (text == "pattern") return LayoutKind::Pattern;
  return std::nullopt;
}

}  // namespace petricore::collect
