#include "sources/sacct.hpp"

#include "sources/accounting.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <random>

namespace petricore::sources {
namespace {

using model::JobRecord;

std::string first_line(std::string_view text) {
  std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  text.remove_prefix(begin);
  return std::string(text.substr(0, text.find_first_of("\r\n")));
}

// ---- parsing helpers ----

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    std::size_t at = text.find(sep);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

template <typename Number>
std::optional<Number> parse_number(std::string_view text) {
  text = trim(text);
  Number value{};
  if (text.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// AllocCPUS, NNodes, NTasks: a negative one is not a count.
std::optional<int> parse_count(std::string_view text) {
  auto n = parse_number<int>(text);
  if (n && *n < 0) return std::nullopt;
  return n;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The columns the parser understands, by their --format names.
enum Column {
  kJobId,
  kJobIdRaw,
  kJobName,
  kUser,
  kUid,
  kAccount,
  kPartition,
  kState,
  kSubmit,
  kStart,
  kEnd,
  kTimelimitRaw,
  kTimelimit,
  kAllocCpus,
  kAllocTres,
  kReqMem,
  kNNodes,
  kNodeList,
  kTotalCpu,
  kMaxRss,
  kNTasks,
  kColumnCount
};

const std::map<std::string, Column>& column_names() {
  static const std::map<std::string, Column> names{
      {"jobid", kJobId},
      {"jobidraw", kJobIdRaw},
      {"jobname", kJobName},
      {"user", kUser},
      {"uid", kUid},
      {"account", kAccount},
      {"partition", kPartition},
      {"state", kState},
      {"submit", kSubmit},
      {"start", kStart},
      {"end", kEnd},
      {"timelimitraw", kTimelimitRaw},
      {"timelimit", kTimelimit},
      {"alloccpus", kAllocCpus},
      {"alloctres", kAllocTres},
      {"reqmem", kReqMem},
      {"nnodes", kNNodes},
      {"nodelist", kNodeList},
      {"totalcpu", kTotalCpu},
      {"maxrss", kMaxRss},
      {"ntasks", kNTasks},
  };
  return names;
}

// One line's fields by column; absent columns read as "".
class Fields {
 public:
  Fields(const std::array<int, kColumnCount>& index, std::vector<std::string_view> values)
      : index_(index), values_(std::move(values)) {}
  std::string_view operator[](Column c) const {
    int i = index_[c];
    return i < 0 ? std::string_view{} : trim(values_[static_cast<std::size_t>(i)]);
  }
  bool has(Column c) const { return index_[c] >= 0; }

 private:
  const std::array<int, kColumnCount>& index_;
  std::vector<std::string_view> values_;
};

// Splits one record into exactly `columns` fields, re-joining a JobName that
// contained the delimiter (it then has more fields than columns: only with
// "|", which job names may hold); nullopt when short.
std::optional<std::vector<std::string_view>> split_record(std::string_view record, std::string_view delimiter,
                                                          std::size_t columns, int name_index) {
  std::vector<std::string_view> parts;
  for (;;) {
    std::size_t at = record.find(delimiter);
    parts.push_back(record.substr(0, at));
    if (at == std::string_view::npos) break;
    record.remove_prefix(at + delimiter.size());
  }
  if (parts.size() == columns) return parts;
  if (parts.size() < columns || name_index < 0) return std::nullopt;
  // JobName spans parts[name_index .. name_index + extra]: one string_view
  // over the original text from its first to its last piece.
  std::size_t first = static_cast<std::size_t>(name_index);
  std::size_t extra = parts.size() - columns;
  const char* begin = parts[first].data();
  const char* end = parts[first + extra].data() + parts[first + extra].size();
  std::vector<std::string_view> joined(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(first));
  joined.emplace_back(begin, static_cast<std::size_t>(end - begin));
  joined.insert(joined.end(), parts.begin() + static_cast<std::ptrdiff_t>(first + extra + 1), parts.end());
  return joined;
}

// The records of sacct's output. sacct prints every field as it is, a job's
// name too, so a name may hold newlines: a line without the delimiter goes
// on the record before it (its last column). With a delimiter no name can
// hold (sacct_delimiter), a forged record inside a name is therefore only
// part of that name; with "|" each line that has one starts a record.
// Lines before the first record are returned in `stray`.
std::vector<std::string_view> split_records(std::string_view text, std::string_view delimiter,
                                            std::vector<std::string_view>& stray) {
  std::vector<std::string_view> records;
  const char* record_begin = nullptr;
  const char* record_end = nullptr;
  auto close = [&] {
    if (record_begin)
      records.push_back(trim(std::string_view(record_begin, static_cast<std::size_t>(record_end - record_begin))));
    record_begin = nullptr;
  };
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.find(delimiter) != std::string_view::npos) {
      close();
      record_begin = line.data();
    } else if (!record_begin || trim(line).empty()) {
      // Blank lines count only when a later line of the same name follows.
      if (!record_begin && !trim(line).empty()) stray.push_back(line);
      continue;
    }
    record_end = line.data() + line.size();
  }
  close();
  return records;
}

// JobID as sacct writes it: "123", "123_4", "123_[4-9]", "123+1", with
// ".batch", ".0" for steps. JobIDRaw: the number, and the step.
bool plausible_job_id(std::string_view id) {
  return !id.empty() && id.front() >= '0' && id.front() <= '9' && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '.' || c == '[' || c == ']' ||
           c == '-' || c == ',' || c == '%';
  });
}

bool plausible_raw_id(std::string_view raw) {
  std::string_view number = raw.substr(0, raw.find('.'));
  std::string_view step = number.size() < raw.size() ? raw.substr(number.size() + 1) : std::string_view("0");
  return all_digits(number) && !step.empty() && std::all_of(step.begin(), step.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '+';
         });
}

// AllocTRES: "billing=2,cpu=2,gres/gpu=2,mem=256M,node=1".
struct Tres {
  std::optional<int> cpu, nodes, billing, gpus;
  std::optional<double> mem_mb;
};

Tres parse_tres(std::string_view text) {
  constexpr long long kMostCounted = 1 << 30;  // beyond any real count, and summable without overflow
  Tres tres;
  long long typed_gpus = 0;
  bool any_typed_gpu = false;
  for (std::string_view item : split(text, ',')) {
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = trim(item.substr(0, eq));
    std::string_view value = trim(item.substr(eq + 1));
    if (key == "mem") {
      tres.mem_mb = parse_sacct_size_mb(value);
      continue;
    }
    auto number = parse_number<long long>(value);
    if (!number) continue;
    if (*number < 0) continue;
    int n = static_cast<int>(std::min(*number, kMostCounted));
    if (key == "cpu")
      tres.cpu = n;
    else if (key == "node")
      tres.nodes = n;
    else if (key == "billing")
      tres.billing = n;
    else if (key == "gres/gpu")
      tres.gpus = n;
    else if (key.rfind("gres/gpu:", 0) == 0) {
      typed_gpus = std::min(typed_gpus + n, kMostCounted);
      any_typed_gpu = true;
    }
  }
  // Untyped gres/gpu already counts every GPU; typed ones only stand in when
  // it is not tracked (AccountingStorageTRES lists just gres/gpu:<type>).
  if (!tres.gpus && any_typed_gpu) tres.gpus = static_cast<int>(typed_gpus);
  return tres;
}

// ReqMem: "256M" (the total since Slurm 21.08, whatever the request's form),
// or "4000Mn" / "4000Mc" per node or per CPU in older versions, whose suffix
// also tells the form (`per_cpu`).
std::optional<double> parse_req_mem(std::string_view text, int nodes, int cpus, std::optional<bool>& per_cpu) {
  double factor = 1;
  if (!text.empty() && (text.back() == 'n' || text.back() == 'c')) {
    per_cpu = text.back() == 'c';
    factor = text.back() == 'n' ? std::max(nodes, 1) : std::max(cpus, 1);
    text.remove_suffix(1);
  }
  auto mb = parse_sacct_size_mb(text);
  if (!mb || *mb <= 0 || !std::isfinite(*mb * factor)) return std::nullopt;
  return *mb * factor;
}

// A numbered step ("123.0", "123_4.2", "123+1.0"), not batch, extern or interactive.
bool numbered_step(std::string_view step) {
  return !step.empty() && step.front() >= '0' && step.front() <= '9';
}

std::optional<std::int64_t> parse_time_limit(const Fields& f) {
  if (f.has(kTimelimitRaw)) {
    // Slurm keeps minutes in 32 bits; anything that cannot be seconds in 64 is not a limit.
    auto minutes = parse_number<std::int64_t>(f[kTimelimitRaw]);
    if (minutes && *minutes >= 0 && *minutes <= std::numeric_limits<std::int64_t>::max() / 60) return *minutes * 60;
    return std::nullopt;  // UNLIMITED, Partition_Limit, empty
  }
  if (auto seconds = parse_sacct_duration(f[kTimelimit])) return static_cast<std::int64_t>(*seconds);
  return std::nullopt;
}

JobRecord parse_allocation(const Fields& f) {
  JobRecord r;
  r.job_id = std::string(f[kJobId]);
  r.raw_id = std::string(f[kJobIdRaw]);
  if (r.raw_id.empty() && all_digits(r.job_id)) r.raw_id = r.job_id;
  // A name may hold line breaks (split_records): shown on one line, and never
  // a new header line in a mail.
  r.name = std::string(f[kJobName]);
  std::replace_if(
      r.name.begin(), r.name.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  r.user = std::string(f[kUser]);
  if (auto uid = parse_number<unsigned>(f[kUid])) r.uid = *uid;
  r.account = std::string(f[kAccount]);
  r.partition = std::string(f[kPartition]);
  std::string_view state = f[kState];
  r.state = std::string(state.substr(0, state.find(' ')));  // "CANCELLED by 0"
  r.submit = parse_sacct_time(f[kSubmit]);
  r.start = parse_sacct_time(f[kStart]);
  r.end = parse_sacct_time(f[kEnd]);
  r.time_limit_seconds = parse_time_limit(f);
  r.node_list = std::string(f[kNodeList]);
  if (r.node_list == "None assigned") r.node_list.clear();

  Tres tres = parse_tres(f[kAllocTres]);
  r.alloc_cpus = parse_count(f[kAllocCpus]).value_or(tres.cpu.value_or(0));
  if (r.alloc_cpus == 0 && tres.cpu) r.alloc_cpus = *tres.cpu;
  r.alloc_nodes = parse_count(f[kNNodes]).value_or(tres.nodes.value_or(0));
  if (r.alloc_nodes == 0 && tres.nodes) r.alloc_nodes = *tres.nodes;
  auto requested = parse_req_mem(f[kReqMem], r.alloc_nodes, r.alloc_cpus, r.mem_per_cpu);
  r.alloc_mem_mb = tres.mem_mb ? tres.mem_mb : requested;
  r.alloc_gpus = tres.gpus.value_or(0);
  r.billing = tres.billing;
  r.total_cpu_seconds = parse_sacct_duration(f[kTotalCpu]);
  r.max_rss_mb = parse_sacct_size_mb(f[kMaxRss]);  // empty on allocation lines; the steps fill it in
  return r;
}

}  // namespace

// ---- the command line ----

const std::vector<std::string>& sacct_fields() {
  static const std::vector<std::string> fields{
      "JobID",  "JobIDRaw", "User",     "UID",          "Account",   "Partition", "State",
      "Submit", "Start",    "End",      "TimelimitRaw", "AllocCPUS", "AllocTRES", "ReqMem",
      "NNodes", "NodeList", "TotalCPU", "MaxRSS",       "NTasks",    "JobName",
  };
  return fields;
}

std::string sacct_delimiter() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device random;
  std::string delimiter = "|";
  for (int i = 0; i < 4; ++i) {
    std::uint32_t bits = random();
    for (int j = 0; j < 4; ++j, bits >>= 4) delimiter += kHex[bits & 0xf];
  }
  return delimiter + "|";
}

const std::vector<std::string>& sacct_environment() {
  static const std::vector<std::string> env{"SLURM_TIME_FORMAT=%s"};
  return env;
}

namespace {

std::vector<std::string> sacct_common_args(const std::string& sacct) {
  std::string format = "--format=";
  for (const auto& f : sacct_fields()) format += (format.size() > 9 ? "," : "") + f;
  // Sizes keep sacct's default exact units ("102904K", "256M"): the parser
  // reads any suffix, and --units=M would round small values to "0.10M".
  return {sacct, "--parsable2", "--noheader", format};
}

}  // namespace

std::vector<std::string> sacct_job_args(const std::string& sacct, const model::JobId& id,
                                        const std::string& delimiter) {
  auto args = sacct_common_args(sacct);
  args.push_back("--jobs=" + id.text());
  args.push_back("--delimiter=" + delimiter);
  return args;
}

std::vector<std::string> sacct_user_args(const std::string& sacct, const std::string& user, std::int64_t since,
                                         const std::string& delimiter) {
  auto args = sacct_common_args(sacct);
  for (std::string a : {"--user=" + user, "--starttime=" + sacct_time_bound(since, true), std::string("--endtime=now"),
                        "--delimiter=" + delimiter})
    args.push_back(std::move(a));
  return args;
}

const std::vector<std::string>& sacct_final_states() {
  static const std::vector<std::string> states{"BOOT_FAIL", "CANCELLED",     "COMPLETED", "DEADLINE", "FAILED",
                                               "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT"};
  return states;
}

std::vector<std::string> sacct_ended_args(const std::string& sacct, std::int64_t since, std::int64_t until,
                                          const std::string& delimiter) {
  auto args = sacct_common_args(sacct);
  std::string states = "--state=";
  for (const auto& state : sacct_final_states()) states += (states.size() > 8 ? "," : "") + state;
  for (std::string a : {std::string("--allusers"), states, "--starttime=" + sacct_time_bound(since, true),
                        "--endtime=" + sacct_time_bound(until, false), "--delimiter=" + delimiter})
    args.push_back(std::move(a));
  return args;
}

std::string sacct_time_bound(std::int64_t epoch, bool lower) {
  auto text = [](std::int64_t t) {
    std::time_t time = static_cast<std::time_t>(t);
    std::tm local{};
    char out[32] = "";
    if (::localtime_r(&time, &local)) std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S", &local);
    return std::string(out);
  };
  std::string bound = text(epoch);
  // Read back as sacct will (mktime with tm_isdst = -1).
  auto read = parse_sacct_time(bound);
  if (read && lower && *read > epoch) return text(epoch - 3600);
  if (read && !lower && *read < epoch) return text(epoch + 3600);
  return bound;
}

// ---- parsing ----

std::optional<double> parse_sacct_duration(std::string_view text) {
  text = trim(text);
  double days = 0;
  if (std::size_t dash = text.find('-'); dash != std::string_view::npos) {
    auto d = parse_number<int>(text.substr(0, dash));
    if (!d || !all_digits(text.substr(0, dash))) return std::nullopt;
    days = *d;
    text.remove_prefix(dash + 1);
  }
  std::vector<std::string_view> parts = split(text, ':');
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  double seconds = 0;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    // All digits can still be too many for an int.
    auto part = parse_number<int>(parts[i]);
    if (!all_digits(parts[i]) || !part) return std::nullopt;
    seconds = seconds * 60 + *part;
  }
  std::string_view last = parts.back();
  std::size_t dot = last.find('.');
  if (!all_digits(last.substr(0, dot))) return std::nullopt;
  if (dot != std::string_view::npos && !all_digits(last.substr(dot + 1))) return std::nullopt;
  auto secs = parse_number<double>(last);
  if (!secs) return std::nullopt;
  return days * 86400 + seconds * 60 + *secs;
}

std::optional<double> parse_sacct_size_mb(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  double factor = 1.0 / (1024 * 1024);  // no suffix: bytes
  if (text.back() < '0' || text.back() > '9') {
    static constexpr std::string_view kUnits = "KMGTP";
    std::size_t power = kUnits.find(text.back());
    if (power == std::string_view::npos) return std::nullopt;
    factor = std::pow(1024.0, static_cast<double>(power)) / 1024;  // K = 1/1024 MiB, M = 1, G = 1024 ...
    text.remove_suffix(1);
  }
  // from_chars reads "nan" and "inf" too, and a huge number times P is inf.
  auto value = parse_number<double>(text);
  if (!value || !std::isfinite(*value) || *value < 0 || !std::isfinite(*value * factor)) return std::nullopt;
  return *value * factor;
}

std::optional<std::int64_t> parse_sacct_time(std::string_view text) {
  text = trim(text);
  if (all_digits(text)) {
    auto epoch = parse_number<std::int64_t>(text);
    if (!epoch || *epoch == 0) return std::nullopt;
    return epoch;
  }
  // sacct's default: local time, "2026-11-29T18:09:15".
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  auto part = [&](std::size_t at, std::size_t len) { return parse_number<int>(text.substr(at, len)); };
  auto y = part(0, 4), mo = part(5, 2), d = part(8, 2), h = part(11, 2), mi = part(14, 2), s = part(17, 2);
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  std::tm tm{};
  tm.tm_year = *y - 1900;
  tm.tm_mon = *mo - 1;
  tm.tm_mday = *d;
  tm.tm_hour = *h;
  tm.tm_min = *mi;
  tm.tm_sec = *s;
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<std::int64_t>(t);
}

Result<std::vector<JobRecord>> parse_sacct(std::string_view text, const std::vector<std::string>& fields,
                                           std::string_view delimiter) {
  std::array<int, kColumnCount> index;
  index.fill(-1);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    auto known = column_names().find(lower(trim(fields[i])));
    if (known != column_names().end()) index[known->second] = static_cast<int>(i);
  }
  if (index[kJobId] < 0) return bad_input("sacct output: the format has no JobID column");
  if (delimiter.empty()) return bad_input("sacct output: no field delimiter");

  std::vector<JobRecord> records;
  std::map<std::string, std::size_t, std::less<>> by_id;  // allocation JobID → records index
  std::vector<std::string_view> stray;
  const std::vector<std::string_view> texts = split_records(text, delimiter, stray);
  std::string bad_line = stray.empty() ? std::string() : first_line(stray.front());
  for (std::string_view record : texts) {
    auto values = split_record(record, delimiter, fields.size(), index[kJobName]);
    std::optional<Fields> parsed;
    if (values) parsed.emplace(index, std::move(*values));
    // Every record names a job and its raw number, or it is not sacct's.
    if (!parsed || !plausible_job_id((*parsed)[kJobId]) ||
        (!(*parsed)[kJobIdRaw].empty() && !plausible_raw_id((*parsed)[kJobIdRaw]))) {
      if (bad_line.empty()) bad_line = first_line(record);
      continue;
    }
    const Fields& f = *parsed;
    std::string_view id = f[kJobId];
    if (std::size_t dot = id.find('.'); dot != std::string_view::npos) {
      // A step of an allocation listed before it, with the allocation's raw number.
      auto owner = by_id.find(id.substr(0, dot));
      if (owner == by_id.end()) continue;
      JobRecord& job = records[owner->second];
      std::string_view raw = f[kJobIdRaw];
      if (!raw.empty() && !job.raw_id.empty() && raw.substr(0, raw.find('.')) != job.raw_id) continue;
      if (auto rss = parse_sacct_size_mb(f[kMaxRss]))
        job.max_rss_mb = job.max_rss_mb ? std::max(*job.max_rss_mb, *rss) : *rss;
      // The layout: the numbered step with the most tasks (srun -n).
      auto tasks = parse_count(f[kNTasks]);
      auto cpus = parse_count(f[kAllocCpus]);
      if (numbered_step(id.substr(dot + 1)) && tasks && *tasks > 0 && (!job.tasks || *tasks > *job.tasks)) {
        job.tasks = *tasks;
        job.cpus_per_task = std::max(1, cpus.value_or(*tasks) / *tasks);
      }
      continue;
    }
    by_id[std::string(id)] = records.size();
    records.push_back(parse_allocation(f));
  }
  if (records.empty() && !bad_line.empty())
    return unavailable("sacct: unexpected output (" + std::to_string(fields.size()) +
                       " columns expected): " + bad_line.substr(0, 200));
  return records;
}

std::vector<JobRecord> select_ended(std::vector<JobRecord> records, std::int64_t since, std::int64_t until) {
  const auto& finals = sacct_final_states();
  auto outside = [&](const JobRecord& r) {
    return !r.end || *r.end < since || *r.end >= until ||
           std::find(finals.begin(), finals.end(), r.state) == finals.end();
  };
  records.erase(std::remove_if(records.begin(), records.end(), outside), records.end());
  std::sort(records.begin(), records.end(), ended_earlier);
  return records;
}

Result<JobRecord> select_job(const std::vector<JobRecord>& records, const model::JobId& id) {
  const std::string text = id.text();
  for (const auto& r : records)
    if (r.job_id == text) return r;
  if (!id.array_task && !id.het_component)
    for (const auto& r : records)
      if (r.raw_id == text) return r;
  return not_found("job " + text + " not found in Slurm accounting (sacct)");
}

}  // namespace petricore::sources
