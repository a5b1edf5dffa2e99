#include "sources/job_archive.hpp"

#include "core/deflate.hpp"

#include <charconv>
#include <cstdlib>
#include <utility>

namespace petricore::sources {
namespace {

// The columns of a record, in the order of kColumns; the JSON and the
// series last, where the summaries leave them out.
constexpr const char* kColumns =
    "job_id, version, display_id, name, user_name, uid, account, partition_name, state, submit_time, start_time, "
    "end_time, time_limit_s, alloc_cpus, alloc_mem_mb, alloc_nodes, node_list, alloc_gpus, cpu_time_s, "
    "memory_resident_mb, gpu_utilization_mean, findings, warning, from_metrics, archived_at";
constexpr std::size_t kColumnCount = 25;
// A job JSON is some kB; a stored one that inflates past this is broken.
constexpr std::size_t kMaxJson = 64u << 20;
// A record's versions written in a race: how many the writer tries.
constexpr int kVersionTries = 5;

SqlParam optional_int(const std::optional<std::int64_t>& v) {
  return v ? SqlParam(*v) : SqlParam(nullptr);
}
SqlParam optional_real(const std::optional<double>& v) {
  return v ? SqlParam(*v) : SqlParam(nullptr);
}

std::optional<std::int64_t> integer(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::int64_t v = 0;
  auto r = std::from_chars(text->data(), text->data() + text->size(), v);
  if (r.ec != std::errc{}) return std::nullopt;
  return v;
}

std::optional<double> real(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  // strtod: from_chars for doubles is not in GCC 10's library, which EL9 builds with.
  char* end = nullptr;
  double v = std::strtod(text->c_str(), &end);
  if (end != text->c_str() + text->size()) return std::nullopt;
  return v;
}

std::string text(const std::optional<std::string>& value) {
  return value.value_or(std::string());
}

// "rule:severity,rule:severity"; rules and severities are identifiers.
std::string findings_text(const std::vector<std::pair<std::string, std::string>>& findings) {
  std::string out;
  for (const auto& [rule, severity] : findings) out += (out.empty() ? "" : ",") + rule + ":" + severity;
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_findings(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    std::size_t colon = item.find(':');
    if (colon != std::string::npos) out.emplace_back(item.substr(0, colon), item.substr(colon + 1));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

model::ArchivedJob from_row(const SqlRow& row) {
  model::ArchivedJob a;
  model::JobRecord& j = a.job;
  j.raw_id = text(row[0]);
  a.version = static_cast<int>(integer(row[1]).value_or(0));
  j.job_id = text(row[2]);
  j.name = text(row[3]);
  j.user = text(row[4]);
  if (auto uid = integer(row[5])) j.uid = static_cast<unsigned>(*uid);
  j.account = text(row[6]);
  j.partition = text(row[7]);
  j.state = text(row[8]);
  j.submit = integer(row[9]);
  j.start = integer(row[10]);
  j.end = integer(row[11]);
  j.time_limit_seconds = integer(row[12]);
  j.alloc_cpus = static_cast<int>(integer(row[13]).value_or(0));
  j.alloc_mem_mb = real(row[14]);
  j.alloc_nodes = static_cast<int>(integer(row[15]).value_or(0));
  j.node_list = text(row[16]);
  j.alloc_gpus = static_cast<int>(integer(row[17]).value_or(0));
  a.cpu_time_seconds = real(row[18]);
  a.memory_resident_mb = real(row[19]);
  a.gpu_utilization_mean = real(row[20]);
  a.findings = parse_findings(text(row[21]));
  a.warning = integer(row[22]).value_or(0) != 0;
  a.from_metrics = integer(row[23]).value_or(0) != 0;
  a.archived_at = integer(row[24]).value_or(0);
  if (row.size() > kColumnCount) a.usage_json = inflate_bytes(text(row[kColumnCount]), kMaxJson).value_or("");
  if (row.size() > kColumnCount + 1) a.series = text(row[kColumnCount + 1]);
  return a;
}

}  // namespace

JobArchive::JobArchive(SqlDatabase& db, std::string cluster) : db_(db), cluster_(std::move(cluster)) {}

Result<int> JobArchive::store(const model::ArchivedJob& a) {
  const model::JobRecord& j = a.job;
  std::int64_t job_id = 0;
  auto r = std::from_chars(j.raw_id.data(), j.raw_id.data() + j.raw_id.size(), job_id);
  if (j.raw_id.empty() || r.ec != std::errc{} || r.ptr != j.raw_id.data() + j.raw_id.size())
    return bad_input("job " + j.job_id + ": no numeric job id to archive it under");
  if (!j.end) return bad_input("job " + j.job_id + " has not ended: only finished jobs are archived");

  for (int attempt = 0; attempt < kVersionTries; ++attempt) {
    auto newest =
        db_.run("SELECT MAX(version) FROM archived_jobs WHERE cluster = ? AND job_id = ?", {cluster_, job_id});
    if (!newest) return newest.error();
    const int version =
        static_cast<int>((newest->rows.empty() ? std::nullopt : integer(newest->rows[0][0])).value_or(0)) + 1;
    std::vector<SqlParam> params{cluster_,
                                 job_id,
                                 std::int64_t{version},
                                 j.job_id,
                                 j.name,
                                 j.user,
                                 j.uid ? SqlParam(std::int64_t{*j.uid}) : SqlParam(nullptr),
                                 j.account,
                                 j.partition,
                                 j.state,
                                 optional_int(j.submit),
                                 optional_int(j.start),
                                 *j.end,
                                 optional_int(j.time_limit_seconds),
                                 std::int64_t{j.alloc_cpus},
                                 optional_real(j.alloc_mem_mb),
                                 std::int64_t{j.alloc_nodes},
                                 j.node_list,
                                 std::int64_t{j.alloc_gpus},
                                 optional_real(a.cpu_time_seconds),
                                 optional_real(a.memory_resident_mb),
                                 optional_real(a.gpu_utilization_mean),
                                 findings_text(a.findings),
                                 std::int64_t{a.warning ? 1 : 0},
                                 std::int64_t{a.from_metrics ? 1 : 0},
                                 a.archived_at,
                                 SqlBlob{deflate_bytes(a.usage_json, 9, DeflateWrapper::Zlib)},
                                 a.series.empty() ? SqlParam(nullptr) : SqlParam(SqlBlob{a.series})};
    // One statement: the row is whole or absent, never half-written.
    auto inserted = db_.run(std::string("INSERT INTO archived_jobs (cluster, ") + kColumns +
                                ", usage_json_z, series) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            params);
    if (inserted) return version;
    // Another writer stored this version first: the next one is ours.
    if (!db_.last_error_was_duplicate()) return inserted.error();
  }
  return unavailable(db_.describe() + ": job " + j.job_id + ": lost the race for a new version " +
                     std::to_string(kVersionTries) + " times");
}

Result<std::optional<model::ArchivedJob>> JobArchive::latest(std::int64_t job_id) {
  auto rows = db_.run(std::string("SELECT ") + kColumns +
                          ", usage_json_z, series FROM archived_jobs WHERE cluster = ? AND job_id = ? "
                          "ORDER BY version DESC LIMIT 1",
                      {cluster_, job_id});
  if (!rows) return rows.error();
  if (rows->rows.empty()) return std::optional<model::ArchivedJob>();
  return std::optional<model::ArchivedJob>(from_row(rows->rows[0]));
}

Result<std::vector<model::ArchivedJob>> JobArchive::versions(std::int64_t job_id) {
  auto rows = db_.run(
      std::string("SELECT ") + kColumns + " FROM archived_jobs WHERE cluster = ? AND job_id = ? ORDER BY version",
      {cluster_, job_id});
  if (!rows) return rows.error();
  std::vector<model::ArchivedJob> out;
  for (const SqlRow& row : rows->rows) out.push_back(from_row(row));
  return out;
}

Result<bool> JobArchive::has(std::int64_t job_id) {
  auto rows = db_.run("SELECT 1 FROM archived_jobs WHERE cluster = ? AND job_id = ? LIMIT 1", {cluster_, job_id});
  if (!rows) return rows.error();
  return !rows->rows.empty();
}

Result<std::vector<model::ArchivedJob>> JobArchive::jobs_of_user(const std::string& user, std::int64_t since,
                                                                 std::int64_t until, std::size_t limit) {
  // The newest version of each job: the version no other row of it exceeds.
  auto rows = db_.run(std::string("SELECT ") + kColumns +
                          " FROM archived_jobs a WHERE cluster = ? AND user_name = ? AND end_time >= ? AND end_time < ?"
                          " AND version = (SELECT MAX(version) FROM archived_jobs b WHERE b.cluster = a.cluster"
                          " AND b.job_id = a.job_id) ORDER BY end_time DESC, job_id DESC LIMIT ?",
                      {cluster_, user, since, until, static_cast<std::int64_t>(limit)});
  if (!rows) return rows.error();
  std::vector<model::ArchivedJob> out;
  for (const SqlRow& row : rows->rows) out.push_back(from_row(row));
  return out;
}

Result<std::optional<std::string>> JobArchive::setting(const std::string& name) {
  auto rows = db_.run("SELECT value FROM archive_meta WHERE name = ?", {cluster_ + "/" + name});
  if (!rows) return rows.error();
  if (rows->rows.empty() || !rows->rows[0][0]) return std::optional<std::string>();
  return std::optional<std::string>(*rows->rows[0][0]);
}

Result<bool> JobArchive::set_setting(const std::string& name, const std::string& value) {
  auto done = db_.run("REPLACE INTO archive_meta (name, value) VALUES (?, ?)", {cluster_ + "/" + name, value});
  if (!done) return done.error();
  return true;
}

}  // namespace petricore::sources
