#include "collect/collect_command.hpp"

#include "collect/error_counter.hpp"
#include "collect/exported_jobs.hpp"
#include "collect/gpu_rocm.hpp"
#include "collect/held_files.hpp"
#include "collect/layout.hpp"
#include "collect/metrics.hpp"
#include "collect/pull_sink.hpp"
#include "collect/push_sink.hpp"
#include "collect/sampler.hpp"
#include "collect/textfile_sink.hpp"
#include "core/log.hpp"
#include "core/signals.hpp"

#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

namespace petricore::collect {

std::set<unsigned> read_uid_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--exclude-uid-file " + path + ": " + std::strerror(errno));
  std::set<unsigned> uids;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    auto last = line.find_last_not_of(" \t\r");
    std::string_view text = std::string_view{line}.substr(first, last - first + 1);
    unsigned uid = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), uid);
    if (r.ec != std::errc{} || r.ptr != text.data() + text.size())
      throw UsageError("--exclude-uid-file " + path + ":" + std::to_string(number) + ": not a UID: '" +
                       std::string{text} + "'");
    uids.insert(uid);
  }
  return uids;
}

std::string short_hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  std::string host = name;
  return host.substr(0, host.find('.'));
}

namespace {

void require_directory(const std::string& option, const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw UsageError(option + " " + path + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) throw UsageError(option + " " + path + ": not a directory");
}

void validate(CollectOptions& o) {
  require_directory("--cgroup-root", o.cgroup_root);
  require_directory("--proc-root", o.proc_root);
  if (!(o.interval > 0) || !std::isfinite(o.interval))
    throw UsageError("--interval must be a positive number of seconds");
  if (!(o.watch_interval >= 0) || !std::isfinite(o.watch_interval))
    throw UsageError("--watch-interval must be 0 (off) or a positive number of seconds");
  if (o.pass_timeout < 0) o.pass_timeout = o.interval;
  if (!(o.pass_timeout > 0) || !std::isfinite(o.pass_timeout) || o.pass_timeout > 86400)
    throw UsageError("--pass-timeout must be a positive number of seconds, at most 86400");
  if (o.linger < 0) o.linger = 2 * o.interval;
  if (!std::isfinite(o.linger) || o.linger > 86400) throw UsageError("--linger must be between 0 and 86400 seconds");
  if (!(o.once_window > 0) || o.once_window > 60) throw UsageError("--once-window must be between 0 and 60 seconds");
  if (!(o.push_timeout > 0)) throw UsageError("--push-timeout must be a positive number of seconds");
  if (o.max_proc_names == 0) throw UsageError("--max-proc-names must be at least 1");
  if (o.nvml_library.empty()) throw UsageError("--nvml-library must name a library, or be none");
  for (const auto& prefix : o.scratch_prefixes)
    if (prefix.empty() || prefix[0] != '/')
      throw UsageError("--scratch-prefix must be an absolute path: '" + prefix + "'");
  if (o.instance.empty()) o.instance = short_hostname();
  if (!o.once && o.listen.empty() && o.push_url.empty() && o.textfile.empty()) o.listen = ":9966";
}

}  // namespace

int run_collect(CollectOptions o) {
  validate(o);
  auto kind = parse_layout_kind(o.layout);
  if (!kind) throw UsageError("--layout must be one of auto, slurm-v1, slurm-v2, pattern (got '" + o.layout + "')");
  std::unique_ptr<Layout> layout = make_layout(*kind, o.job_pattern);  // throws StartupError
  if (!o.job_pattern.empty() && *kind != LayoutKind::Pattern) throw UsageError("--job-pattern needs --layout pattern");

  SamplerOptions sampler_options;
  sampler_options.scratch_prefixes = o.scratch_prefixes;
  sampler_options.max_proc_names = o.max_proc_names;
  sampler_options.pass_timeout = o.pass_timeout;
  if (!o.exclude_uid_file.empty()) sampler_options.excluded_uids = read_uid_file(o.exclude_uid_file);
  if (o.nvml_library != "none") sampler_options.nvml_library = o.nvml_library;
  if (o.rocm_smi_library.empty())
    sampler_options.rocm_smi_libraries = default_rocm_libraries();
  else if (o.rocm_smi_library != "none")
    sampler_options.rocm_smi_libraries = {o.rocm_smi_library};

  // One malloc arena: the HTTP threads would otherwise each get their own,
  // about 0.6 MiB of resident memory apiece on a busy node, for no gain at
  // one scrape every few seconds.
  ::mallopt(M_ARENA_MAX, 1);
  // Before the sinks start their threads (core/signals.hpp).
  StopSignals stop_signals;
  ErrorCounter errors;
  // Room for the files the sampler keeps open between passes (held_files.hpp).
  raise_open_file_limit(kSamplerOpenFileLimit);
  Sampler sampler(o.cgroup_root, o.proc_root, std::move(layout), sampler_options, errors);

  // A bad sink setting throws StartupError (exit 2).
  std::vector<std::unique_ptr<Sink>> sinks;
  if (o.once) sinks.push_back(make_stdout_sink());
  if (!o.listen.empty()) sinks.push_back(make_pull_sink(o.listen));
  if (!o.push_url.empty())
    sinks.push_back(make_push_sink({o.push_url, "jobs_exporter", o.instance, o.push_timeout}, errors));
  if (!o.textfile.empty()) sinks.push_back(make_textfile_sink(o.textfile, errors));
  // A listen address that cannot be bound is a runtime failure (exit 1), left
  // to propagate as std::runtime_error.

  ExportedJobs exported(o.linger);
  auto publish = [&](double now, double pass_seconds) {
    SelfMetrics self;
    self.collect_duration_seconds = pass_seconds;
    self.errors_by_source = errors.totals();
    self.skipped_by_reason = sampler.skipped();
    self.running_jobs = exported.running();
    const Exposition pass(exported.current(now), o.instance, std::move(self));
    bool ok = true;
    for (auto& sink : sinks) ok = sink->publish(pass) && ok;
    return ok;
  };
  auto full_pass = [&](double now) {
    exported.set_running(sampler.sample(now));
    for (JobSample& final_sample : sampler.take_ended()) exported.end(std::move(final_sample), now);
    return monotonic_seconds() - now;
  };

  if (o.once) {
    // CPU percent needs two passes: measure over a short window.
    full_pass(monotonic_seconds());
    if (int sig = stop_signals.wait_for(o.once_window)) return 128 + sig;
    double now = monotonic_seconds();
    return publish(now, full_pass(now)) ? 0 : 1;
  }

  char every[96];
  if (o.watch_interval > 0)
    std::snprintf(every, sizeof every, "%g s (watching job ends every %g s, ended jobs exported for %g s)", o.interval,
                  o.watch_interval, o.linger);
  else
    std::snprintf(every, sizeof every, "%g s", o.interval);
  log::info(std::string{"collecting every "} + every + " as instance " + o.instance);
  // Both loops run at a fixed rate: a slow pass does not shift the schedule;
  // missed slots are skipped. A watch tick that would fall within half a
  // watch interval of the next full pass is left to it.
  double next_full = monotonic_seconds();
  double next_watch = next_full + o.watch_interval;
  double last_pass_seconds = 0;
  auto advance = [](double& next, double every, double now) {
    next += every;
    if (next < now) next = now + every - std::fmod(now - next, every);
  };
  for (;;) {
    double now = monotonic_seconds();
    if (now >= next_full) {
      last_pass_seconds = full_pass(now);
      publish(now, last_pass_seconds);
      advance(next_full, o.interval, monotonic_seconds());
      next_watch = now + o.watch_interval;
    } else if (o.watch_interval > 0 && now >= next_watch) {
      std::vector<JobSample> started = sampler.watch(now);
      std::vector<JobSample> ended = sampler.take_ended();
      bool changed = !started.empty() || !ended.empty();
      for (JobSample& sample : started) exported.start(std::move(sample));
      for (JobSample& final_sample : ended) exported.end(std::move(final_sample), now);
      // A start or an end is published at once: the push sink PUTs, the
      // others replace what a scrape reads.
      if (changed) publish(now, last_pass_seconds);
      advance(next_watch, o.watch_interval, monotonic_seconds());
    }
    double wake = next_full;
    if (o.watch_interval > 0 && next_watch <= next_full - o.watch_interval / 2) wake = next_watch;
    if (int sig = stop_signals.wait_for(wake - monotonic_seconds())) {
      log::info(std::string{"stopping on "} + ::strsignal(sig));
      for (auto& sink : sinks) sink->shutdown();
      if (std::size_t stuck = sampler.stuck_readers()) {
        // Exit-time work (static destructors, a sanitizer's leak check,
        // which stops every thread) must not wait on a thread stuck in the
        // kernel: the sinks are done, so the process ends here.
        log::info(std::to_string(stuck) + " /proc reader thread(s) stuck on a hung file system are left behind");
        std::fflush(nullptr);
        std::_Exit(0);
      }
      return 0;
    }
  }
}

}  // namespace petricore::collect
