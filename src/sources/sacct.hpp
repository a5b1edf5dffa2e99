// sacct, Slurm's accounting command: its command line (run with
// core/subprocess) and a pure parser from its
// `--parsable2` text to JobRecords. The accounting source built on these is
// make_sacct_accounting() (sources/accounting_factory.hpp).
#pragma once

#include "core/result.hpp"
#include "core/subprocess.hpp"
#include "model/job_id.hpp"
#include "model/job_record.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::sources {

// Running it: core/subprocess.hpp (run_process, find_executable).

// ---- sacct's command line --------------------------------------------------

// The columns petricore asks for, in --format order. JobName comes last: a
// newline in it continues the record (parse_sacct), and with the "|" of
// recorded outputs a '|' inside it can be put back together.
const std::vector<std::string>& sacct_fields();

// Environment for sacct: SLURM_TIME_FORMAT=%s makes Submit/Start/End epoch
// seconds, so no time zone is involved in reading them.
const std::vector<std::string>& sacct_environment();

// A field delimiter for one sacct run: 16 random hex digits between '|'s.
// sacct prints each field as it is, with no escaping: a job name (which the
// job's owner chooses) may hold '|' and newlines, and so could hold a whole
// forged record. It cannot hold a delimiter drawn after it was chosen, so
// each run asks for a new one (--delimiter) and parses with it.
std::string sacct_delimiter();

// `sacct --parsable2 --noheader --format=<sacct_fields> --jobs=<id>
// --delimiter=<delimiter>`, steps included (MaxRSS and TotalCPU live on the
// step lines).
std::vector<std::string> sacct_job_args(const std::string& sacct, const model::JobId& id, const std::string& delimiter);

// `sacct ... -u <user> -S <since> -E now`, steps included as for one job, so
// each listed record is the one sacct_job_args would give (TotalCPU, MaxRSS,
// the task layout). `since` is epoch seconds, written as local time the way
// sacct reads -S.
std::vector<std::string> sacct_user_args(const std::string& sacct, const std::string& user, std::int64_t since,
                                         const std::string& delimiter);

// The final states, as sacct names them: what jobs_ended lists.
const std::vector<std::string>& sacct_final_states();

// `sacct ... --allusers --state=<sacct_final_states> -S <since> -E <until>`,
// steps included as for one job. With --state, -S/-E select by END time:
// slurmdbd asks for `state = X AND time_end BETWEEN since AND until` (both
// ends included), where without it they select every job eligible or running
// in the window. The exact half-open window is select_ended's business.
// --allusers: without it sacct lists only the caller's own jobs (unless root
// or SlurmUser; PrivateData=jobs still hides others' from a plain user).
std::vector<std::string> sacct_ended_args(const std::string& sacct, std::int64_t since, std::int64_t until,
                                          const std::string& delimiter);

// `epoch` as sacct reads -S and -E: local time to the second. In the hour
// that repeats when summer time ends, the text names two instants and sacct
// may take the other one, an hour off: then the bound moves out by an hour
// (earlier for the `lower` bound, later for the upper one), so that the
// window sacct searches still holds the one asked for.
std::string sacct_time_bound(std::int64_t epoch, bool lower);

// ---- Parsing sacct's output ------------------------------------------------

// Parses `--parsable2` output (no header) whose columns are `fields` (names
// as given to --format, any case; unknown names are ignored), separated by
// `delimiter`, into one record per allocation, in output order. A line
// without the delimiter continues the record before it (a job name with a
// newline; the name shows it as a space); a record whose JobID or JobIDRaw
// is not a job's, or that has too few columns, is skipped. Step records
// ("123.batch", "123_4.0", "123+1.extern", with the allocation's raw number)
// fold into their allocation: MaxRSS becomes the maximum over the steps, and
// the numbered step with the most tasks (NTasks) gives the layout (tasks,
// its AllocCPUS per task). Understood: running jobs (End "Unknown"), arrays
// ("123_4", raw id from JobIDRaw), heterogeneous components ("123+1"),
// "CANCELLED by 0" → CANCELLED, AllocTRES billing/cpu/mem/node/gres/gpu,
// sizes with K/M/G/T suffixes, durations "MM:SS.mmm", "HH:MM:SS" and
// "D-HH:MM:SS", times as epoch seconds or as sacct's local
// "YYYY-MM-DDTHH:MM:SS". Counts, sizes and durations that are negative, not
// finite or beyond 64 bits read as unknown. Unavailable when the text has
// lines but none parses.
Result<std::vector<model::JobRecord>> parse_sacct(std::string_view text, const std::vector<std::string>& fields,
                                                  std::string_view delimiter = "|");

// The record `id` asks for among parsed records: the allocation whose JobID
// is `id` as written, else (for a plain number) the one whose raw id is it:
// an array task or heterogeneous leader that kept the job's own number.
// NotFound when there is none.
Result<model::JobRecord> select_job(const std::vector<model::JobRecord>& records, const model::JobId& id);

// The records of `records` in a final state (sacct_final_states) whose end
// is in [since, until), by end, then numeric job id (raw_id), as jobs_ended
// lists them.
std::vector<model::JobRecord> select_ended(std::vector<model::JobRecord> records, std::int64_t since,
                                           std::int64_t until);

// Small parsers, exposed for the tests.
// "00:14.742", "02:03:04", "1-02:03:04" → seconds; nullopt for anything else.
std::optional<double> parse_sacct_duration(std::string_view text);
// "102904K", "256M", "1.50G", "0" → MiB (K, M, G, T, P are powers of 1024,
// as Slurm counts). A bare number is bytes.
std::optional<double> parse_sacct_size_mb(std::string_view text);
// Epoch seconds ("1795975755") or local "2026-11-29T18:09:15"; nullopt for
// "Unknown", "None", "" and 0.
std::optional<std::int64_t> parse_sacct_time(std::string_view text);

}  // namespace petricore::sources
