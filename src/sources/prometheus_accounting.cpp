#include "sources/prometheus_accounting.hpp"

#include "core/log.hpp"
#include "core/startup_error.hpp"
#include "model/job_id.hpp"
#include "sources/accounting_factory.hpp"
#include "sources/ended_window.hpp"
#include "sources/prometheus_client.hpp"
#include "sources/promql.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

// How job(N) finds when the job's series existed, in two requests whatever
// the lookback and the job's length:
//
// 1. A coarse range query over the lookback, `sum(count_over_time(jobs_info
//    {slurm_job="N"}[S]))` with S = lookback / 10,000 (≥ 60 s, 300 s for 30
//    days): one point per window of S seconds that holds a sample. Range
//    functions count raw samples, so no sample is missed, however short the
//    job and whatever staleness markers say. The first and last windows with
//    samples, (a-S, a] and (b-S, b], bracket the job's first and last sample.
// 2. One instant query at b that reads the exact edges and the allocation:
//    the timestamps of the first and last samples from 1-second subqueries
//    over those two windows only (2 × S steps), and max_over_time over the
//    job's whole window of jobs_info (labels, sample count), of the per-node
//    allocation series and of jobs_gpus_used. The parts are told apart by a
//    `petricore_field` label added with label_replace and joined with `or`.
//
// Reading raw samples over the job's whole life instead (`jobs_info[30d]`)
// would cost a sample per node and scrape: millions for a long wide job.

namespace petricore::sources {
namespace {

using model::JobRecord;
using model::Series;

constexpr const char* kField = "petricore_field";
constexpr double kDefaultScrapeInterval = 60;  // Prometheus's own default, when a job has one sample

// jobs_of_user's grid runs 1 ms past the multiples of S. A sample on the
// left edge of a window is counted by Prometheus 2 (a range is [t-S, t]) and
// not by VictoriaMetrics or Prometheus 3 ((t-S, t]), so a job whose last
// sample sits on a multiple of S (whole-second timestamps are common:
// backfills, imports, exporters' own times) would end a window later on
// Prometheus 2. Only a sample exactly 1 ms past a multiple of S lies on the
// shifted edges; the times read back are truncated to the second again.
constexpr double kGridShift = 0.001;

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// The window of the coarse query: the lookback in at most 10,000 steps (the
// API allows 11,000 points per series), whole minutes.
std::int64_t coarse_step(double lookback_seconds) {
  const auto step = static_cast<std::int64_t>(std::ceil(lookback_seconds / 10000.0));
  return std::max<std::int64_t>(60, (step + 59) / 60 * 60);
}

std::string seconds(std::int64_t s) {
  return std::to_string(s) + "s";
}

// ceil(a / b) for b > 0 and a >= 0 (a negative a counts as 0).
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a <= 0 ? 0 : a / b + (a % b != 0);
}

// jobs_ended's first piece of its window (sources/ended_window.hpp), in
// windows of S: an hour for the default 30-day lookback.
constexpr std::int64_t kFirstEndedPiece = 12;

// "node1,node2,node3,node7" -> "node[1-3,7]", as Slurm prints node lists.
std::string compress_hostlist(const std::set<std::string>& names) {
  struct Host {
    unsigned long long number;
    std::string digits;
  };
  std::map<std::string, std::vector<Host>> by_prefix;
  std::vector<std::string> plain;
  for (const std::string& name : names) {
    std::size_t cut = name.size();
    while (cut > 0 && std::isdigit(static_cast<unsigned char>(name[cut - 1]))) --cut;
    unsigned long long number = 0;
    const auto [end, ec] = std::from_chars(name.data() + cut, name.data() + name.size(), number);
    if (cut == name.size() || ec != std::errc() || end != name.data() + name.size()) {
      plain.push_back(name);
      continue;
    }
    by_prefix[name.substr(0, cut)].push_back({number, name.substr(cut)});
  }
  std::vector<std::string> parts = plain;
  for (auto& [prefix, hosts] : by_prefix) {
    std::sort(hosts.begin(), hosts.end(), [](const Host& x, const Host& y) { return x.number < y.number; });
    if (hosts.size() == 1) {
      parts.push_back(prefix + hosts.front().digits);
      continue;
    }
    // Consecutive numbers of the same zero-padded width make one range.
    auto same_width = [](const Host& x, const Host& y) {
      const bool padded = x.digits.size() > 1 && x.digits[0] == '0';
      const bool padded_y = y.digits.size() > 1 && y.digits[0] == '0';
      return x.digits.size() == y.digits.size() || (!padded && !padded_y);
    };
    std::string ranges;
    for (std::size_t i = 0; i < hosts.size();) {
      std::size_t j = i;
      while (j + 1 < hosts.size() && hosts[j + 1].number == hosts[j].number + 1 && same_width(hosts[j], hosts[j + 1]))
        ++j;
      if (!ranges.empty()) ranges += ',';
      ranges += hosts[i].digits;
      if (j > i) ranges += "-" + hosts[j].digits;
      i = j + 1;
    }
    parts.push_back(prefix + "[" + ranges + "]");
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

std::optional<unsigned> parse_uid(const std::string& text) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The tagged part of the exact query: `expr` with petricore_field=`field`.
std::string tagged(const std::string& expr, const char* field) {
  return std::string("label_replace(") + expr + ", " + promql_string(kField) + ", " + promql_string(field) +
         ", \"\", \"\")";
}

struct Extent {
  double first = 0;  // end of the first window with samples
  double last = 0;   // end of the last one
};

void widen(std::optional<Extent>& extent, const Series& series) {
  for (const auto& sample : series.samples) {
    if (!(sample.value > 0)) continue;
    if (!extent) extent = Extent{sample.time, sample.time};
    extent->first = std::min(extent->first, sample.time);
    extent->last = std::max(extent->last, sample.time);
  }
}

class PrometheusAccounting final : public AccountingSource {
 public:
  PrometheusAccounting(PrometheusClient& prometheus, const PrometheusAccountingOptions& options)
      : prometheus_(prometheus), lookback_(options.lookback_seconds), step_(coarse_step(options.lookback_seconds)) {}

  Result<JobRecord> job(const model::JobId& id) override {
    if (id.array_task || id.het_component) {
      return not_found("job " + id.text() +
                       ": the Prometheus accounting source (jobs_info) knows jobs by their own numeric id only; "
                       "ask for the array task's or component's job id, or configure sacct or the DB view");
    }
    const std::string raw_id = std::to_string(id.job);
    const std::string match = "{slurm_job=" + promql_string(raw_id) + "}";
    const std::string info = "jobs_info" + match;
    const double now = now_seconds();

    // 1. Coarse: which windows of S seconds hold samples of the job.
    const double start = std::floor((now - lookback_) / step_) * step_;
    const double end = start + std::ceil((now - start) / step_) * step_;
    auto windows = prometheus_.query_range("sum(count_over_time(" + info + "[" + seconds(step_) + "]))", start, end,
                                           static_cast<double>(step_));
    if (!windows) return windows.error();
    std::optional<Extent> extent;
    for (const Series& s : *windows) widen(extent, s);
    if (!extent) {
      return not_found("job " + raw_id + " not found in Prometheus (no jobs_info series at " + prometheus_.url() +
                       " in the last " + lookback_text() + ")");
    }
    const auto a = static_cast<std::int64_t>(extent->first);
    const auto b = static_cast<std::int64_t>(extent->last);
    const std::string whole = "[" + seconds(b - a + step_) + "]";  // (a-S, b]
    const std::string edge = "[" + seconds(step_) + ":1s]";
    const std::string first_edge = edge + (b > a ? " offset " + seconds(b - a) : "");

    // 2. Exact: edges, owner, nodes, allocation.
    const std::string query =
        tagged("min(min_over_time(timestamp(" + info + ")" + first_edge + "))", "start") + " or " +
        tagged("max(max_over_time(timestamp(" + info + ")" + edge + "))", "end") + " or " +
        tagged("max by (instance, user, uid, account) (count_over_time(" + info + whole + "))", "node") + " or " +
        tagged("sum(max by (instance) (max_over_time(jobs_cpus_allocated" + match + whole + ")))", "cpus") + " or " +
        tagged("sum(max by (instance) (max_over_time(jobs_memory_limit_mb" + match + whole + ")))", "mem") + " or " +
        tagged("count(max by (instance, gpuid) (max_over_time(jobs_gpus_used" + match + whole + ")))", "gpus");
    auto facts = prometheus_.query(query, static_cast<double>(b));
    if (!facts) return facts.error();

    JobRecord record;
    record.job_id = raw_id;
    record.raw_id = raw_id;
    double first_sample = static_cast<double>(a - step_);  // bounds, should the exact edges be missing
    double last_sample = static_cast<double>(b);
    double samples_per_node = 0;
    std::set<std::string> nodes;
    std::string other_owner;  // a second user label: who owns the job is then not known
    for (const Series& s : *facts) {
      if (s.samples.empty() || !std::isfinite(s.samples.front().value)) continue;
      const double value = s.samples.front().value;
      const std::string& field = s.label(kField);
      if (field == "start") {
        first_sample = value;
      } else if (field == "end") {
        last_sample = value;
      } else if (field == "node") {
        nodes.insert(model::short_node_name(s.label("instance")));
        samples_per_node = std::max(samples_per_node, value);
        if (record.user.empty()) record.user = s.label("user");
        if (!record.uid) record.uid = parse_uid(s.label("uid"));
        if (record.account.empty()) record.account = s.label("account");
        if (!s.label("user").empty() && s.label("user") != record.user) other_owner = s.label("user");
      } else if (field == "cpus") {
        record.alloc_cpus = static_cast<int>(std::lround(value));
      } else if (field == "mem") {
        record.alloc_mem_mb = value;
      } else if (field == "gpus") {
        record.alloc_gpus = static_cast<int>(std::lround(value));
      }
    }
    // The labels come from the jobs' own environments (SLURM_JOB_ID names the
    // job on cgroup v2 with SLUIDs): a job exported under another's id would
    // otherwise make its owner that job's owner, and its reader.
    if (!other_owner.empty()) {
      return unavailable("job " + raw_id + ": its jobs_info series name two owners (" + record.user + " and " +
                         other_owner + "): refused, as its owner is not known; use sacct or the accounting DB");
    }
    nodes.erase("");
    record.alloc_nodes = static_cast<int>(nodes.size());
    record.node_list = compress_hostlist(nodes);
    record.start = static_cast<std::int64_t>(std::floor(first_sample));

    // The series of a job end at the collector's first pass after the job
    // ended; until two scrape intervals have passed without a sample it may
    // only be a late scrape.
    const double interval =
        samples_per_node >= 2 ? (last_sample - first_sample) / (samples_per_node - 1) : kDefaultScrapeInterval;
    if (now - last_sample < 2 * std::max(interval, 1.0)) {
      record.state = "RUNNING";
    } else {
      record.state = "COMPLETED";
      record.end = static_cast<std::int64_t>(std::ceil(last_sample));
    }
    if (a <= static_cast<std::int64_t>(start) + step_) {
      log::debug("job " + raw_id + " has series from the start of the " + lookback_text() +
                 " lookback on: it may have started earlier");
    }
    return record;
  }

  Result<std::vector<JobRecord>> jobs_of_user(const std::string& user, std::size_t limit) override {
    if (!model::valid_user_name(user)) return bad_input("not a valid user name: '" + user + "'");
    // One coarse range query, as in job(): each job's first and last window
    // of S seconds with samples, and its node count. The times are therefore
    // known to within S (5 minutes for the default 30 days); job() is exact.
    const double now = now_seconds();
    const double start = std::floor((now - lookback_) / step_) * step_;
    const double end = start + std::ceil((now - start) / step_) * step_;
    const std::string by = "slurm_job, user, uid, account";
    const std::string query = "count by (" + by + ") (max by (" + by +
                              ", instance) (count_over_time(jobs_info{user=" + promql_string(user) + "}[" +
                              seconds(step_) + "])))";
    auto found = prometheus_.query_range(query, start + kGridShift, end + kGridShift, static_cast<double>(step_));
    if (!found) return found.error();

    std::vector<JobRecord> jobs;
    for (const Series& s : *found) {
      std::optional<Extent> extent;
      widen(extent, s);
      if (!extent || s.label("slurm_job").empty()) continue;
      JobRecord record;
      record.job_id = record.raw_id = s.label("slurm_job");
      record.user = s.label("user");
      record.uid = parse_uid(s.label("uid"));
      record.account = s.label("account");
      for (const auto& sample : s.samples) {
        if (std::isfinite(sample.value))
          record.alloc_nodes = std::max(record.alloc_nodes, static_cast<int>(sample.value));
      }
      record.start = static_cast<std::int64_t>(extent->first) - step_;
      // Completed for sure when its last window ended more than two of
      // Prometheus's default scrape intervals ago.
      if (extent->last >= now - 2 * kDefaultScrapeInterval) {
        record.state = "RUNNING";
      } else {
        record.state = "COMPLETED";
        record.end = static_cast<std::int64_t>(extent->last);
      }
      jobs.push_back(std::move(record));
    }
    std::sort(jobs.begin(), jobs.end(), [](const JobRecord& x, const JobRecord& y) {
      if (x.start != y.start) return x.start > y.start;
      return x.raw_id.size() != y.raw_id.size() ? x.raw_id.size() > y.raw_id.size() : x.raw_id > y.raw_id;
    });
    if (jobs.size() > limit) jobs.resize(limit);
    return jobs;
  }

  // One range query per piece of the window (sources/ended_window.hpp) over
  // the grid of jobs_of_user, windows of S seconds (300 s for the default 30
  // days) ending at multiples of S: at each point q,
  //
  //   count by (slurm_job, user, uid, account) (max by (..., instance)
  //     (count_over_time(jobs_info[S] offset S)))
  //   unless on (slurm_job) count_over_time(jobs_info[S])
  //
  // holds the jobs that had samples in the window before q and none in the
  // window up to q: their series stopped, and a job's end is q - S, the end
  // of its last window with samples (the real last sample lies within S
  // before it, as in jobs_of_user; job() is exact). Ends are on a grid that
  // does not depend on the window asked for, so pages and windows cut the
  // jobs the same way. A point per job and pause comes back, not one per
  // window of its life: Prometheus reads each sample of the piece twice, the
  // answer stays small. A job whose series paused for longer than S shows
  // at the pause too (job() then says RUNNING), and a point is only read
  // once its window lies two scrape intervals in the past: the jobs whose
  // series stopped less than S plus two minutes ago are not listed yet.
  Result<std::vector<JobRecord>> jobs_ended(std::int64_t since, std::int64_t until, std::size_t limit) override {
    const double now = now_seconds();
    // The points q = k S (+ the grid shift) whose end q - S is in [since,
    // until) and in the lookback, and whose window lies in the past.
    const auto oldest = static_cast<std::int64_t>(now - lookback_);
    const std::int64_t first_k = ceil_div(std::max(since, oldest), step_) + 1;
    const std::int64_t last_k = std::min(
        ceil_div(until, step_), static_cast<std::int64_t>(std::floor((now - 2 * kDefaultScrapeInterval) / step_)));
    if (first_k > last_k) return std::vector<JobRecord>{};
    auto piece = [&](std::int64_t from, std::int64_t to) -> EndedPiece {
      const std::int64_t k0 = ceil_div(from, step_) + 1, k1 = ceil_div(to, step_);
      if (k0 > k1) return std::optional(std::vector<JobRecord>{});
      auto found = prometheus_.query_range(ended_jobs_query(step_), static_cast<double>(k0 * step_) + kGridShift,
                                           static_cast<double>(k1 * step_) + kGridShift, static_cast<double>(step_));
      if (!found) return found.error();
      return std::optional(jobs_from_ends(*found, step_, from, to));
    };
    // In ends: [(first_k - 1) S, (last_k - 1) S].
    return jobs_ended_in_pieces((first_k - 1) * step_, (last_k - 1) * step_ + 1, limit, kFirstEndedPiece * step_,
                                piece);
  }

  bool lists_whole_records() const override { return false; }  // coarse times, no step figures
  std::string name() const override { return "prometheus"; }

 private:
  std::string lookback_text() const {
    const double days = lookback_ / 86400.0;
    if (days >= 1 && std::fabs(days - std::round(days)) < 1e-9) return std::to_string(std::lround(days)) + " days";
    return std::to_string(std::lround(lookback_ / 3600.0)) + " hours";
  }

  PrometheusClient& prometheus_;
  const double lookback_;
  const std::int64_t step_;
};

}  // namespace

std::string ended_jobs_query(std::int64_t step_seconds) {
  const std::string by = "slurm_job, user, uid, account";
  const std::string window = "[" + seconds(step_seconds) + "]";
  return "count by (" + by + ") (max by (" + by + ", instance) (count_over_time(jobs_info" + window + " offset " +
         seconds(step_seconds) + "))) unless on (slurm_job) count_over_time(jobs_info" + window + ")";
}

std::vector<JobRecord> jobs_from_ends(const std::vector<Series>& found, std::int64_t step_seconds, std::int64_t from,
                                      std::int64_t to) {
  std::map<std::string, JobRecord> last;  // by slurm_job: the latest end in [from, to)
  for (const Series& s : found) {
    const std::string& id = s.label("slurm_job");
    if (id.empty()) continue;
    for (const auto& sample : s.samples) {
      if (!std::isfinite(sample.value) || !(sample.value > 0)) continue;
      // The point at k S (+ the grid shift) ends the window before it.
      const auto end = static_cast<std::int64_t>(std::floor(sample.time)) - step_seconds;
      if (end < from || end >= to) continue;
      JobRecord& record = last[id];
      if (record.end && *record.end >= end) continue;
      record.job_id = record.raw_id = id;
      record.user = s.label("user");
      record.uid = parse_uid(s.label("uid"));
      record.account = s.label("account");
      record.alloc_nodes = static_cast<int>(sample.value);  // those in its last window
      record.state = "COMPLETED";
      record.end = end;
    }
  }
  std::vector<JobRecord> jobs;
  for (auto& [id, record] : last) jobs.push_back(std::move(record));
  std::sort(jobs.begin(), jobs.end(), ended_earlier);
  return jobs;
}

std::unique_ptr<AccountingSource> make_prometheus_accounting(PrometheusClient& prometheus,
                                                             const PrometheusAccountingOptions& options) {
  if (!(options.lookback_seconds >= 3600 && options.lookback_seconds <= 10 * 366 * 86400.0)) {
    throw StartupError("Prometheus accounting lookback must be between 1 hour and 10 years");
  }
  return std::make_unique<PrometheusAccounting>(prometheus, options);
}

std::unique_ptr<AccountingSource> make_prometheus_accounting(PrometheusClient& prometheus) {
  return make_prometheus_accounting(prometheus, PrometheusAccountingOptions{});
}

}  // namespace petricore::sources
