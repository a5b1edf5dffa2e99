#include "sources/job_archive.hpp"

#include "core/deflate.hpp"
#include "sources/archive_dictionary.hpp"
#include "sources/archive_schema.hpp"

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
  if (row.size() > kColumnCount)
    a.usage_json = inflate_bytes(text(row[kColumnCount]), kMaxJson, archive_json_dictionaries()).value_or("");
  if (row.size() > kColumnCount + 1) a.series = text(row[kColumnCount + 1]);
  return a;
}

}  // namespace

JobArchive::JobArchive(SqlDatabase& db, std::string cluster) : db_(db), cluster_(std::move(cluster)) {}

Result<std::int64_t> JobArchive::finding_mask(const model::ArchivedJob& a) {
  std::int64_t mask = 0;
  for (const auto& finding : a.findings) {
    auto known = finding_bits_.find(finding.first);
    if (known == finding_bits_.end()) {
      auto bit = finding_bit(db_, finding.first);
      if (!bit) return bit.error();
      if (!*bit) continue;
      known = finding_bits_.emplace(finding.first, **bit).first;
    }
    mask |= std::int64_t{1} << known->second;
  }
  return mask;
}

Result<int> JobArchive::store(const model::ArchivedJob& a) {
  return store_version(a, false);
}

Result<int> JobArchive::store_first(const model::ArchivedJob& a) {
  return store_version(a, true);
}

Result<int> JobArchive::store_version(const model::ArchivedJob& a, bool first_only) {
  const model::JobRecord& j = a.job;
  const std::optional<std::int64_t> numeric_id = j.numeric_raw_id();
  if (!numeric_id) return bad_input("job " + j.job_id + ": no numeric job id to archive it under");
  const std::int64_t job_id = *numeric_id;
  if (!j.end) return bad_input("job " + j.job_id + " has not ended: only finished jobs are archived");
  auto mask = finding_mask(a);
  if (!mask) return mask.error();
  const JobFigures figures = job_figures(a);

  for (int attempt = 0; attempt < kVersionTries; ++attempt) {
    auto newest =
        db_.run("SELECT MAX(version) FROM archived_jobs WHERE cluster = ? AND job_id = ?", {cluster_, job_id});
    if (!newest) return newest.error();
    const int version =
        static_cast<int>((newest->rows.empty() ? std::nullopt : integer(newest->rows[0][0])).value_or(0)) + 1;
    if (first_only && version != 1) return 0;
    std::vector<SqlParam> params{
        cluster_, job_id, std::int64_t{version}, j.job_id, j.name, j.user,
        j.uid ? SqlParam(std::int64_t{*j.uid}) : SqlParam(nullptr), j.account, j.partition, j.state,
        optional_int(j.submit), optional_int(j.start), *j.end, optional_int(j.time_limit_seconds),
        std::int64_t{j.alloc_cpus}, optional_real(j.alloc_mem_mb), std::int64_t{j.alloc_nodes}, j.node_list,
        std::int64_t{j.alloc_gpus}, optional_real(a.cpu_time_seconds), optional_real(a.memory_resident_mb),
        optional_real(a.gpu_utilization_mean), findings_text(a.findings), std::int64_t{a.warning ? 1 : 0},
        std::int64_t{a.from_metrics ? 1 : 0}, a.archived_at,
        SqlBlob{deflate_with_dictionary(a.usage_json, 9, archive_json_dictionary())},
        a.series.empty() ? SqlParam(nullptr) : SqlParam(SqlBlob{a.series}),
        // A first version is in force at once; a later one once the flag moves.
        std::int64_t{version == 1 ? 1 : 0}, *mask, figures.core_s, figures.core_s_known, figures.core_s_wasted,
        figures.mem_mb_s_requested, figures.mem_mb_s_used, figures.gpu_s, figures.gpu_s_idle};
    // One statement: the row is whole or absent, never half-written.
    std::string sql = std::string("INSERT INTO archived_jobs (cluster, ") + kColumns +
                      ", usage_json_z, series, latest, finding_mask, core_s, core_s_known, core_s_wasted,"
                      " mem_mb_s_requested, mem_mb_s_used, gpu_s, gpu_s_idle) VALUES (?";
    for (std::size_t i = 1; i < params.size(); ++i) sql += ", ?";
    auto inserted = db_.run(sql + ")", params);
    if (!inserted) {
      // Another writer stored this version first: the next one is ours.
      if (db_.last_error_was_duplicate()) {
        if (first_only) return 0;
        continue;
      }
      return inserted.error();
    }
    if (version == 1) return version;
    // The flag moves to the newest version in one statement: readers see the
    // version before or this one, never both or neither. The newest, not
    // ours: a writer that stored a newer one and moved the flag before us
    // keeps it.
    auto moved = db_.run(
        "UPDATE archived_jobs SET latest = CASE WHEN version = (SELECT MAX(b.version) FROM archived_jobs b"
        " WHERE b.cluster = archived_jobs.cluster AND b.job_id = archived_jobs.job_id) THEN 1 ELSE 0 END"
        " WHERE cluster = ? AND job_id = ?",
        {cluster_, job_id});
    if (!moved)
      return unavailable(moved.error().message + " (job " + j.job_id + "'s version " + std::to_string(version) +
                         " is stored, the one before stays in force)");
    return version;
  }
  return unavailable(db_.describe() + ": job " + j.job_id + ": lost the race for a new version " +
                     std::to_string(kVersionTries) + " times");
}

Result<std::optional<model::ArchivedJob>> JobArchive::latest(std::int64_t job_id) {
  auto rows = db_.run(std::string("SELECT ") + kColumns +
                          ", usage_json_z, series FROM archived_jobs WHERE cluster = ? AND job_id = ? AND latest = 1 "
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
  // archived_jobs_user_window finds them and their order.
  auto rows = db_.run(std::string("SELECT ") + kColumns +
                          " FROM archived_jobs WHERE cluster = ? AND latest = 1 AND user_name = ? AND end_time >= ?"
                          " AND end_time < ? ORDER BY end_time DESC, job_id DESC LIMIT ?",
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
