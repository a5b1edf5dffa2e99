// sacct: the parser on real Slurm 22.05 output and hand-made cases
// (test/fixtures/sacct/README.md), running a command without a shell, and the
// sacct accounting source against stand-in sacct scripts; the jobs_info
// source's listing of ended jobs (its pure parts).
#include "sources/sacct.hpp"
#include "sources/accounting_factory.hpp"
#include "sources/prometheus_accounting.hpp"
#include "sources/prometheus_client.hpp"
#include "test_fixtures.hpp"
#include "utc_zone.hpp"

#include "catch.hpp"
#include "job_record_checks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <utility>

namespace fs = std::filesystem;
using petricore::Error;
using petricore::model::JobRecord;
using petricore::model::parse_job_id;
using namespace petricore::sources;

namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(petricore::test::fixtures_dir() / "sacct" / name);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A recorded output with its header line: the header gives the columns.
std::vector<JobRecord> parse_with_header(const std::string& text) {
  std::string header = text.substr(0, text.find('\n'));
  std::vector<std::string> fields;
  std::stringstream split(header);
  for (std::string f; std::getline(split, f, '|');) fields.push_back(f);
  auto records = parse_sacct(text.substr(header.size() + 1), fields);
  REQUIRE(records.ok());
  return *records;
}

std::vector<JobRecord> parse_fixture(const std::string& name) {
  auto records = parse_sacct(read_fixture(name), sacct_fields());
  REQUIRE(records.ok());
  return *records;
}

JobRecord pick(const std::vector<JobRecord>& records, const std::string& id) {
  auto job = select_job(records, *parse_job_id(id));
  REQUIRE(job.ok());
  return *job;
}

// A stand-in sacct: a shell script in a temp directory.
class FakeSacct {
 public:
  // `as_is`: the body runs alone (one that never prints records, and must be
  // the process run_process kills).
  explicit FakeSacct(const std::string& body, bool as_is = false) {
    dir_ = fs::temp_directory_path() / ("petricore-sacct-" + std::to_string(::getpid()) + "-" + std::to_string(++n_));
    fs::create_directories(dir_);
    path_ = (dir_ / "sacct").string();
    if (as_is) {
      std::ofstream(path_) << "#!/bin/sh\n" << body << "\n";
      ::chmod(path_.c_str(), 0755);
      return;
    }
    // Like sacct, it separates fields with --delimiter's text: the fixtures'
    // '|'s up to the last column (JobName) become it.
    std::ofstream(path_)
        << "#!/bin/sh\n"
        << "delimiter='|'\n"
        << "for a in \"$@\"; do case \"$a\" in --delimiter=*) delimiter=${a#--delimiter=};; esac; done\n"
        << "out=$(mktemp)\n"
        << "(\n"
        << body << "\n) >\"$out\"\n"
        << "status=$?\n"
        << "awk -v d=\"$delimiter\" -v n=" << sacct_fields().size() - 1
        << " '{s=$0; o=\"\"; for (i=0; i<n && (p=index(s,\"|\"))>0; i++) {o=o substr(s,1,p-1) d; "
           "s=substr(s,p+1)} print o s}' \"$out\"\n"
        << "rm -f \"$out\"\n"
        << "exit $status\n";
    ::chmod(path_.c_str(), 0755);
  }
  ~FakeSacct() { fs::remove_all(dir_); }
  const std::string& path() const { return path_; }
  fs::path dir() const { return dir_; }

 private:
  static inline int n_ = 0;
  fs::path dir_;
  std::string path_;
};

}  // namespace

TEST_CASE("real sacct output of a finished job: allocation line with its steps folded in", "[sacct]") {
  petricore::test::UtcZone utc;  // sacct's default times are local; the recorded cluster ran in UTC
  auto records = parse_with_header(read_fixture("real-demo-job1.txt"));
  REQUIRE(records.size() == 1);  // 1.batch, 1.extern, 1.0 are steps
  const JobRecord& job = records[0];
  CHECK(job.job_id == "1");
  CHECK(job.raw_id == "1");
  CHECK(job.name == "busy");
  CHECK(job.user == "alice");
  CHECK(job.uid == 1001u);
  CHECK(job.account == "research");
  CHECK(job.partition == "debug");
  CHECK(job.state == "COMPLETED");
  // The same instants slurmdbd stored (realstack_job_table row of job 1).
  CHECK(job.submit == 1795975755);
  CHECK(job.start == 1795975755);
  CHECK(job.end == 1795975776);
  CHECK(job.finished());
  CHECK(job.alloc_cpus == 2);
  CHECK(job.alloc_mem_mb == Approx(256));
  CHECK(job.alloc_nodes == 1);  // no NNodes column here: from AllocTRES node=1
  CHECK(job.billing == 2);
  CHECK(job.alloc_gpus == 0);
  CHECK(job.node_list == "vm");
  CHECK(job.total_cpu_seconds == Approx(14.742));
  REQUIRE(job.max_rss_mb);
  CHECK(*job.max_rss_mb == Approx(102904.0 / 1024));  // the batch step's 102904K, not the 108K of the others
  CHECK_FALSE(job.time_limit_seconds);                // not asked for in that --format
}

TEST_CASE("real end states: OUT_OF_MEMORY, FAILED, 'CANCELLED by 0' and COMPLETED", "[sacct]") {
  auto records = parse_with_header(read_fixture("real-end-states.txt"));
  REQUIRE(records.size() == 4);
  CHECK(pick(records, "4").state == "OUT_OF_MEMORY");
  CHECK(pick(records, "5").state == "FAILED");
  CHECK(pick(records, "6").state == "CANCELLED");
  CHECK(pick(records, "7").state == "COMPLETED");
  CHECK(pick(records, "7").user == "root");
  CHECK(pick(records, "6").max_rss_mb == Approx(216.0 / 1024));
  CHECK(pick(records, "4").max_rss_mb == Approx(80.0 / 1024));  // the batch's "0", the extern's 80K
  // No AllocTRES in that format: ReqMem stands in.
  CHECK(pick(records, "5").alloc_mem_mb == Approx(32));
}

TEST_CASE("real output in petricore's own format: steps, a '|' in the job name, epoch times", "[sacct]") {
  auto records = parse_fixture("real-steps-and-pipe-in-name.txt");
  REQUIRE(records.size() == 1);
  const JobRecord& job = records[0];
  CHECK(job.name == "plain|name");
  CHECK(job.state == "COMPLETED");
  CHECK(job.submit == 1795989439);
  CHECK(job.start == 1795989440);
  CHECK(job.end == 1795989445);
  CHECK(job.time_limit_seconds == 600);
  CHECK(job.alloc_mem_mb == Approx(64));
  CHECK(job.max_rss_mb == Approx(58184.0 / 1024));  // the batch step's python3
  CHECK(job.total_cpu_seconds == Approx(0.24));
}

TEST_CASE("real array: `-j 2` lists the tasks; 2 is the task that kept the array's number", "[sacct]") {
  auto records = parse_fixture("real-array.txt");
  REQUIRE(records.size() == 3);
  CHECK(pick(records, "2").job_id == "2_3");
  CHECK(pick(records, "2_1").raw_id == "6");
  CHECK(pick(records, "2_2").raw_id == "7");
  CHECK_FALSE(pick(records, "2_1").time_limit_seconds);  // UNLIMITED
  CHECK(pick(records, "2_3").max_rss_mb == Approx(216.0 / 1024));
}

TEST_CASE("real het job cancelled before it started: Start None, nothing allocated by TRES", "[sacct]") {
  auto records = parse_fixture("real-het-cancelled.txt");
  REQUIRE(records.size() == 2);
  JobRecord second = pick(records, "3+1");
  CHECK(second.raw_id == "4");
  CHECK(second.state == "CANCELLED");  // "CANCELLED by 0"
  CHECK_FALSE(second.start);
  CHECK(second.end == 1795989473);
  CHECK_FALSE(second.time_limit_seconds);  // Partition_Limit
  CHECK(second.node_list.empty());         // None assigned
  CHECK_FALSE(second.billing);
  CHECK(pick(records, "3").job_id == "3+0");
}

TEST_CASE("real running job: End Unknown, steps without MaxRSS yet", "[sacct]") {
  auto records = parse_fixture("real-running.txt");
  REQUIRE(records.size() == 1);
  CHECK(records[0].state == "RUNNING");
  CHECK(records[0].running());
  CHECK(records[0].time_limit_seconds == 525600 * 60);
  CHECK_FALSE(records[0].max_rss_mb);
}

TEST_CASE("array tasks: selected by 123_4, or by the raw id a task kept", "[sacct]") {
  auto records = parse_fixture("array.txt");
  REQUIRE(records.size() == 3);
  JobRecord task2 = pick(records, "210_2");
  CHECK(task2.raw_id == "212");
  CHECK(task2.state == "FAILED");
  CHECK(task2.max_rss_mb == Approx(60));
  CHECK(task2.total_cpu_seconds == Approx(29.1));
  CHECK(pick(records, "210_1").max_rss_mb == Approx(50));  // 51200K, not the extern's 108K
  // "210" names the array; its own number went to the task started last.
  CHECK(pick(records, "210").job_id == "210_3");
  CHECK(pick(records, "211").job_id == "210_1");
  CHECK(pick(records, "210_3").total_cpu_seconds == Approx(60));
  auto missing = select_job(records, *parse_job_id("210_9"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == Error::Kind::NotFound);
}

TEST_CASE("heterogeneous job components 123+0 and 123+1", "[sacct]") {
  auto records = parse_fixture("het.txt");
  REQUIRE(records.size() == 2);
  JobRecord second = pick(records, "230+1");
  CHECK(second.raw_id == "231");
  CHECK(second.alloc_cpus == 2);
  CHECK(second.alloc_mem_mb == Approx(200));
  CHECK(second.max_rss_mb == Approx(150));
  CHECK(pick(records, "230").job_id == "230+0");  // the leader kept the job's number
  CHECK(pick(records, "230+0").max_rss_mb == Approx(20));
}

TEST_CASE("running job: End Unknown, no time limit, MaxRSS from the running step", "[sacct]") {
  auto records = parse_fixture("running.txt");
  REQUIRE(records.size() == 1);
  const JobRecord& job = records[0];
  CHECK(job.state == "RUNNING");
  CHECK(job.start == 1795976010);
  CHECK_FALSE(job.end);
  CHECK(job.running());
  CHECK(job.elapsed_seconds(1795976070) == 60);
  CHECK_FALSE(job.time_limit_seconds);  // UNLIMITED
  CHECK(job.alloc_nodes == 2);
  CHECK(job.node_list == "node[01-02]");
  CHECK(job.alloc_mem_mb == Approx(4096));
  CHECK(job.max_rss_mb == Approx(1536));
  CHECK(job.name == "still running");
}

TEST_CASE("multi-day GPU job: 1-02:03:04, gres/gpu, G sizes, a '|' in the job name", "[sacct]") {
  auto records = parse_fixture("gpu-multiday.txt");
  REQUIRE(records.size() == 1);
  const JobRecord& job = records[0];
  CHECK(job.name == "train|a|b");
  CHECK(job.user == "pcbob");
  CHECK(job.state == "TIMEOUT");
  CHECK(job.total_cpu_seconds == Approx(86400 + 2 * 3600 + 3 * 60 + 4));
  CHECK(job.time_limit_seconds == 2880 * 60);
  CHECK(*job.elapsed_seconds(0) == 2880 * 60);
  CHECK(job.alloc_gpus == 2);  // gres/gpu, not gres/gpu + gres/gpu:fake
  CHECK(job.alloc_cpus == 8);
  CHECK(job.billing == 10);
  CHECK(job.alloc_mem_mb == Approx(16384));
  CHECK(job.max_rss_mb == Approx(15360));
}

TEST_CASE("a user's allocations: pending job, CANCELLED by <uid>, old per-node ReqMem", "[sacct]") {
  auto records = parse_fixture("user-allocations.txt");
  REQUIRE(records.size() == 4);
  CHECK(pick(records, "301").state == "CANCELLED");
  JobRecord pending = pick(records, "303");
  CHECK(pending.state == "PENDING");
  CHECK_FALSE(pending.start);
  CHECK_FALSE(pending.running());
  CHECK_FALSE(pending.time_limit_seconds);  // Partition_Limit
  CHECK(pending.node_list.empty());         // "None assigned"
  CHECK(pending.alloc_cpus == 0);
  CHECK(pending.alloc_mem_mb == Approx(8000));  // 4000Mn on 2 nodes
  CHECK(pick(records, "5001").name == "train|a|b");
}

TEST_CASE("empty sacct output is an empty list, and an unknown job is NotFound", "[sacct]") {
  auto records = parse_sacct("", sacct_fields());
  REQUIRE(records.ok());
  CHECK(records->empty());
  auto job = select_job(*records, *parse_job_id("99"));
  REQUIRE_FALSE(job.ok());
  CHECK(job.error().kind == Error::Kind::NotFound);
  CHECK(job.error().message.find("99") != std::string::npos);
}

TEST_CASE("output that does not have the expected columns is Unavailable", "[sacct]") {
  auto records = parse_sacct("sacct: unrecognized option\nonly|three|fields\n", sacct_fields());
  REQUIRE_FALSE(records.ok());
  CHECK(records.error().kind == Error::Kind::Unavailable);
  CHECK(records.error().message.find("unexpected output") != std::string::npos);
  // One short line among good ones (a job name with a newline) is skipped.
  std::string mixed = read_fixture("het.txt") + "broken|line\n";
  auto some = parse_sacct(mixed, sacct_fields());
  REQUIRE(some.ok());
  CHECK(some->size() == 2);
}

TEST_CASE("sacct durations", "[sacct]") {
  CHECK(parse_sacct_duration("00:14.742") == Approx(14.742));
  CHECK(parse_sacct_duration("00:00:00") == Approx(0));
  CHECK(parse_sacct_duration("02:03:04") == Approx(7384));
  CHECK(parse_sacct_duration("1-02:03:04") == Approx(93784));
  CHECK(parse_sacct_duration("12-00:00:00") == Approx(12 * 86400));
  CHECK(parse_sacct_duration("59:59.5") == Approx(3599.5));
  for (const char* bad : {"", "12", "UNLIMITED", "1:2:3:4", "a:b", "1-", "x-01:00:00", "-1:00", "01:-2", "1.5:00"})
    CHECK_FALSE(parse_sacct_duration(bad));
}

// The inputs below are the fuzzer's (test/fuzz/regressions/sacct/): each
// once overflowed, dereferenced an empty optional or let NaN/Inf through.
namespace {
std::string sacct_line(const std::string& time_limit, const std::string& tres, const std::string& total_cpu,
                       const std::string& max_rss = "") {
  return "7|7|al|1000|acc|p|COMPLETED|1795900000|1795900100|1795900200|" + time_limit + "|1|" + tres + "|1M|1|n1|" +
         total_cpu + "|" + max_rss + "||job\n";
}
}  // namespace

TEST_CASE("a time limit too large for seconds in 64 bits is no limit", "[sacct][fuzz]") {
  auto records = parse_sacct(sacct_line("153722867280912931", "cpu=1", "00:01"), sacct_fields());
  REQUIRE(records.ok());
  REQUIRE(records->size() == 1);
  CHECK_FALSE(records->front().time_limit_seconds);
  auto fits = parse_sacct(sacct_line("153722867280912930", "cpu=1", "00:01"), sacct_fields());
  REQUIRE(fits.ok());
  CHECK(fits->front().time_limit_seconds == std::int64_t{153722867280912930} * 60);
  CHECK_FALSE(parse_sacct(sacct_line("-5", "cpu=1", "00:01"), sacct_fields())->front().time_limit_seconds);
}

TEST_CASE("a duration whose hours do not fit an int is not a duration", "[sacct][fuzz]") {
  CHECK_FALSE(parse_sacct_duration("9999999999:00"));
  CHECK_FALSE(parse_sacct_duration("1-9999999999:00:00"));
  CHECK_FALSE(parse_sacct_duration("9999999999-00:00:00"));
  auto records = parse_sacct(sacct_line("60", "cpu=1", "9999999999:00"), sacct_fields());
  REQUIRE(records.ok());
  CHECK_FALSE(records->front().total_cpu_seconds);
}

TEST_CASE("typed GPU counts that sum past an int are capped, not overflowed", "[sacct][fuzz]") {
  auto records =
      parse_sacct(sacct_line("60", "cpu=1,gres/gpu:a=1073741824,gres/gpu:b=1073741824", "00:01"), sacct_fields());
  REQUIRE(records.ok());
  CHECK(records->front().alloc_gpus == 1 << 30);
  auto negative = parse_sacct(sacct_line("60", "cpu=1,gres/gpu:a=-3,gres/gpu:b=2", "00:01"), sacct_fields());
  CHECK(negative->front().alloc_gpus == 2);
}

TEST_CASE("sizes that read as NaN or infinity are no size", "[sacct][fuzz]") {
  for (const char* bad : {"nanM", "infK", "-nanG", "1e308P", "nan", "inf", "1e400"}) {
    INFO(bad);
    CHECK_FALSE(parse_sacct_size_mb(bad));
  }
  std::string text = sacct_line("60", "cpu=1,mem=nanM", "00:01", "infK") +
                     "7.0|7.0|||acc||COMPLETED|1795900100|1795900100|1795900200||1|cpu=1||1|n1|00:01|1e308P|1|job\n";
  auto records = parse_sacct(text, sacct_fields());
  REQUIRE(records.ok());
  const JobRecord& job = records->front();
  CHECK(job.alloc_mem_mb == Approx(1));  // ReqMem's 1M stands in for the NaN
  CHECK_FALSE(job.max_rss_mb);
}

TEST_CASE("a job name with a newline cannot forge a record under a delimiter drawn for the run", "[sacct]") {
  const std::string d = "|0123456789abcdef|";
  auto with = [&](std::string line) {
    for (std::size_t at = 0, n = 0; n < 19 && (at = line.find('|', at)) != std::string::npos; ++n)
      line.replace(at, 1, d), at += d.size();
    return line;
  };
  // The owner of job 7 named it "evil\n8|8|root|...": a whole record in the
  // form sacct would print with "|".
  const std::string forged =
      "8|8|root|0|acc|p|COMPLETED|1795900000|1795900100|1795900200|60|64|cpu=64|1M|1|n1|00:01|||x";
  std::string text =
      with("7|7|al|1000|acc|p|COMPLETED|1795900000|1795900100|1795900200|60|1|cpu=1|1M|1|n1|00:01|||") + "evil\n" +
      forged + "\n" +
      with("9|9|bo|1001|acc|p|COMPLETED|1795900000|1795900100|1795900200|60|2|cpu=2|1M|1|n1|00:01|||ok") + "\n";
  auto records = parse_sacct(text, sacct_fields(), d);
  REQUIRE(records.ok());
  REQUIRE(records->size() == 2);
  CHECK(records->at(0).job_id == "7");
  CHECK(records->at(0).name == "evil " + forged);  // one line, the forgery only its text
  CHECK(records->at(1).job_id == "9");
  CHECK(records->at(1).name == "ok");
  // With "|" the forged line would be a record: why sacct_accounting draws a delimiter.
  auto plain = parse_sacct(
      "7|7|al|1000|acc|p|COMPLETED|1795900000|1795900100|1795900200|60|1|cpu=1|1M|1|n1|00:01|||two\nlines\n",
      sacct_fields());
  REQUIRE(plain.ok());
  REQUIRE(plain->size() == 1);
  CHECK(plain->front().name == "two lines");
}

TEST_CASE("records whose JobID or JobIDRaw is not a job's, and steps of another raw number, are skipped", "[sacct]") {
  const std::string rest = "|al|1000|acc|p|COMPLETED|1795900000|1795900100|1795900200|60|1|cpu=1|1M|1|n1|00:01|";
  auto records = parse_sacct("x7|7" + rest + "||a\n7|7x" + rest + "||b\n7|7" + rest + "||c\n7.0|8.0" + rest +
                                 "999M|1|c\n7.1|7.1" + rest + "5M|1|c\n",
                             sacct_fields());
  REQUIRE(records.ok());
  REQUIRE(records->size() == 1);
  CHECK(records->front().name == "c");
  CHECK(records->front().max_rss_mb == Approx(5));  // not 7.0's, whose raw number is 8
  CHECK(sacct_delimiter() != sacct_delimiter());
  CHECK(std::regex_match(sacct_delimiter(), std::regex(R"(\|[0-9a-f]{16}\|)")));
}

TEST_CASE("sacct sizes in MiB", "[sacct]") {
  CHECK(parse_sacct_size_mb("102904K") == Approx(100.4921875));
  CHECK(parse_sacct_size_mb("256M") == Approx(256));
  CHECK(parse_sacct_size_mb("1.50G") == Approx(1536));
  CHECK(parse_sacct_size_mb("2T") == Approx(2 * 1024 * 1024));
  CHECK(parse_sacct_size_mb("0") == Approx(0));
  CHECK(parse_sacct_size_mb("1048576") == Approx(1));  // bare number: bytes
  for (const char* bad : {"", "M", "12Q", "-5M", "1,5G", "lots"}) CHECK_FALSE(parse_sacct_size_mb(bad));
}

TEST_CASE("sacct times: epoch seconds, local ISO time, Unknown", "[sacct]") {
  petricore::test::UtcZone utc;
  CHECK(parse_sacct_time("1795975755") == 1795975755);
  CHECK(parse_sacct_time("2026-11-29T18:09:15") == 1795975755);
  for (const char* none : {"Unknown", "None", "", "0", "2026-11-29 18:09:15", "2026-11-29T18:09", "soon"})
    CHECK_FALSE(parse_sacct_time(none));
}

TEST_CASE("sacct command lines: fixed format, no shell words, the user's window", "[sacct]") {
  auto job = sacct_job_args("/usr/bin/sacct", *parse_job_id("123_4"), "|x|");
  CHECK(job ==
        std::vector<std::string>{"/usr/bin/sacct", "--parsable2", "--noheader",
                                 "--format=JobID,JobIDRaw,User,UID,Account,Partition,State,Submit,Start,End,"
                                 "TimelimitRaw,AllocCPUS,AllocTRES,ReqMem,NNodes,NodeList,TotalCPU,MaxRSS,NTasks,"
                                 "JobName",
                                 "--jobs=123_4", "--delimiter=|x|"});
  petricore::test::UtcZone utc;
  auto user = sacct_user_args("sacct", "alice", 1795975755, "|x|");
  REQUIRE(user.size() == 8);  // steps included: no --allocations
  CHECK(user[4] == "--user=alice");
  CHECK(user[5] == "--starttime=2026-11-29T18:09:15");
  CHECK(user[6] == "--endtime=now");
  CHECK(user[7] == "--delimiter=|x|");
  CHECK(sacct_environment() == std::vector<std::string>{"SLURM_TIME_FORMAT=%s"});
}

TEST_CASE("sacct source: runs sacct with the fixed arguments and SLURM_TIME_FORMAT", "[sacct]") {
  FakeSacct sacct(
      "printf '%s\\n' \"$@\" >\"$(dirname \"$0\")/args\"\n"
      "echo \"$SLURM_TIME_FORMAT\" >\"$(dirname \"$0\")/env\"\n"
      "cat '" +
      (petricore::test::fixtures_dir() / "sacct" / "het.txt").string() + "'");
  auto source = make_sacct_accounting(sacct.path(), 10);
  CHECK(source->name() == "sacct");
  auto job = source->job(*parse_job_id("230+1"));
  REQUIRE(job.ok());
  CHECK(job->raw_id == "231");
  std::ifstream args(sacct.dir() / "args"), env(sacct.dir() / "env");
  std::vector<std::string> seen;
  for (std::string line; std::getline(args, line);) seen.push_back(line);
  REQUIRE(seen.size() == 5);
  CHECK(seen[2].rfind("--format=JobID,JobIDRaw,", 0) == 0);
  CHECK(seen[3] == "--jobs=230+1");
  CHECK(std::regex_match(seen[4], std::regex(R"(--delimiter=\|[0-9a-f]{16}\|)")));
  std::string format;
  std::getline(env, format);
  CHECK(format == "%s");
}

TEST_CASE("sacct source: an unknown job is NotFound, sacct's own error Unavailable", "[sacct]") {
  FakeSacct empty("exit 0");
  auto none = make_sacct_accounting(empty.path(), 10)->job(*parse_job_id("42"));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().kind == Error::Kind::NotFound);

  FakeSacct down(
      "echo 'sacct: error: slurm_persist_conn_open_without_init: failed to open persistent connection' >&2\n"
      "echo 'sacct: error: Problem talking to the database: Connection refused' >&2\nexit 1");
  auto failed = make_sacct_accounting(down.path(), 10)->job(*parse_job_id("42"));
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().kind == Error::Kind::Unavailable);
  CHECK(failed.error().message == down.path() +
                                      " failed (exit status 1): sacct: error: Problem talking to the database: "
                                      "Connection refused");
  CHECK(failed.error().message.find('\n') == std::string::npos);

  FakeSacct quiet_error("echo 'sacct: error: Problem talking to the database: Connection refused' >&2");
  auto quiet = make_sacct_accounting(quiet_error.path(), 10)->jobs_of_user("alice", 10);
  REQUIRE_FALSE(quiet.ok());
  CHECK(quiet.error().kind == Error::Kind::Unavailable);

  FakeSacct hung("exec sleep 30", true);
  auto start = std::chrono::steady_clock::now();
  auto slow = make_sacct_accounting(hung.path(), 0.3)->job(*parse_job_id("42"));
  REQUIRE_FALSE(slow.ok());
  CHECK(slow.error().message.find("timed out") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("sacct source: a user's jobs newest first, at most the limit", "[sacct]") {
  FakeSacct sacct("printf '%s\\n' \"$@\" >\"$(dirname \"$0\")/args\"\ncat '" +
                  (petricore::test::fixtures_dir() / "sacct" / "user-allocations.txt").string() + "'");
  auto source = make_sacct_accounting(sacct.path(), 10);
  auto jobs = source->jobs_of_user("pcbob", 3);
  REQUIRE(jobs.ok());
  REQUIRE(jobs->size() == 3);
  CHECK((*jobs)[0].job_id == "303");
  CHECK((*jobs)[1].job_id == "302");
  CHECK((*jobs)[2].job_id == "301");
  CHECK(source->lists_whole_records());
  std::ifstream args(sacct.dir() / "args");
  std::string all((std::istreambuf_iterator<char>(args)), std::istreambuf_iterator<char>());
  CHECK(all.find("--noheader\n--format=JobID,JobIDRaw,") != std::string::npos);
  CHECK(all.find("\n--user=pcbob\n--starttime=") != std::string::npos);
  CHECK(all.find("--allocations") == std::string::npos);

  auto bad = source->jobs_of_user("alice;rm -rf /", 3);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == Error::Kind::BadInput);
}

TEST_CASE("sacct source: jobs submitted in the same second, newest first by the number submitted under", "[sacct]") {
  // Real: 1, array 2 (tasks got raw ids 6, 7 and 2), het 3 (raw 3, 4) and 5, all in one second.
  FakeSacct sacct("cat '" + (petricore::test::fixtures_dir() / "sacct" / "real-user-allocations.txt").string() + "'");
  auto jobs = make_sacct_accounting(sacct.path(), 10)->jobs_of_user("root", 100);
  REQUIRE(jobs.ok());
  std::vector<std::string> ids;
  for (const auto& j : *jobs) ids.push_back(j.job_id);
  CHECK(ids == std::vector<std::string>{"5", "3+1", "3+0", "2_3", "2_2", "2_1", "1"});
}

TEST_CASE("sacct source: each listed record is the one job() gives, steps folded in", "[sacct]") {
  // Real Slurm 22.05 output (record_user_listing.sh): the user listing and
  // `--jobs=N` for each of its three jobs print the same lines.
  const auto dir = petricore::test::fixtures_dir() / "sacct";
  FakeSacct listing("cat '" + (dir / "real-user-listing.txt").string() + "'");
  FakeSacct one_job("cat '" + (dir / "real-user-listing-jobs.txt").string() + "'");
  auto listed = make_sacct_accounting(listing.path(), 10)->jobs_of_user("petricore-e2e", 10);
  REQUIRE(listed.ok());
  std::vector<std::string> ids;
  for (const auto& j : *listed) ids.push_back(j.job_id);
  CHECK(ids == std::vector<std::string>{"2285002", "2285001", "2285000"});
  auto source = make_sacct_accounting(one_job.path(), 10);
  for (const auto& from_list : *listed) {
    auto alone = source->job(*parse_job_id(from_list.job_id));
    REQUIRE(alone.ok());
    petricore::test::check_same_record(from_list, *alone);
  }
  // The step figures are there: TotalCPU over the steps, MaxRSS, the layout.
  const auto& tasks2 = (*listed)[2];
  REQUIRE(tasks2.total_cpu_seconds);
  CHECK(*tasks2.total_cpu_seconds == Approx(1.476));
  REQUIRE(tasks2.max_rss_mb);
  CHECK(*tasks2.max_rss_mb == Approx(116.0 / 1024));
  CHECK(tasks2.tasks == 2);
  CHECK(tasks2.cpus_per_task == 1);
  CHECK((*listed)[0].name == "two|steps");
  CHECK((*listed)[1].tasks == std::nullopt);  // a batch script alone
}

TEST_CASE("sacct source: a user sacct does not know is NotFound", "[sacct]") {
  // Real sacct 22.05: `sacct -u nosuchuser` exits 1 with this line.
  FakeSacct sacct("echo 'sacct: error: Invalid user id: nosuchuser' >&2\nexit 1");
  auto jobs = make_sacct_accounting(sacct.path(), 10)->jobs_of_user("nosuchuser", 10);
  REQUIRE_FALSE(jobs.ok());
  CHECK(jobs.error().kind == Error::Kind::NotFound);
  CHECK(jobs.error().message == "sacct: Invalid user id: nosuchuser");
}

namespace {

// PATH for the duration of a test.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) {
    if (const char* p = std::getenv("PATH")) saved_ = p;
    ::setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() { ::setenv("PATH", saved_.c_str(), 1); }

 private:
  std::string saved_;
};

std::string source_name(const AccountingOptions& options) {
  PrometheusClient prometheus(PrometheusConfig{"http://127.0.0.1:9", 1});
  return make_accounting(options, prometheus)->name();
}

}  // namespace

TEST_CASE("accounting factory: auto takes the DB, else sacct on PATH, else Prometheus", "[sacct]") {
  FakeSacct sacct("exit 0");
  AccountingOptions options;
  {
    ScopedPath path(sacct.dir().string() + ":/usr/bin:/bin");
    CHECK(source_name(options) == "sacct");
  }
  {
    ScopedPath path("/nonexistent");
    CHECK(source_name(options) == "prometheus");
    options.sacct = sacct.path();  // a configured path needs no PATH
    CHECK(source_name(options) == "sacct");
    std::ofstream(sacct.dir() / "db-password") << "secret\n";
    std::filesystem::permissions(sacct.dir() / "db-password",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    options.db.host = "127.0.0.1";
    options.db.password_file = (sacct.dir() / "db-password").string();
    CHECK(source_name(options) == "db");  // connects lazily: nothing listens there
  }
}

TEST_CASE("accounting factory: bad options are std::invalid_argument in one line", "[sacct]") {
  ScopedPath path("/nonexistent");
  AccountingOptions options;
  options.source = "slurmdb";
  CHECK_THROWS_WITH(source_name(options), "unknown accounting source 'slurmdb' (auto, sacct, db or prometheus)");
  options.source = "sacct";
  CHECK_THROWS_WITH(source_name(options), "accounting source sacct: sacct not found on PATH");
  options.sacct = "/nonexistent/sacct";
  CHECK_THROWS_WITH(source_name(options), "accounting source sacct: /nonexistent/sacct is not an executable file");
  options.source = "auto";
  CHECK_THROWS_AS(source_name(options), std::invalid_argument);  // a configured sacct that is not there
  options.source = "db";
  CHECK_THROWS_WITH(source_name(options), Catch::Contains("needs [accounting.db] host or socket"));
  options.db.socket = "/run/mysqld/mysqld.sock";
  options.db.password_file = "/nonexistent/password";
  CHECK_THROWS_WITH(source_name(options),
                    "[accounting.db] password_file /nonexistent/password: No such file or directory");
  options.db.password_file = "/etc/hostname";
  options.db.view = "user_job_view; DROP TABLE x";
  CHECK_THROWS_WITH(source_name(options), Catch::Contains("is not a plain identifier"));
}

TEST_CASE("the task layout comes from the numbered step with the most tasks", "[sacct]") {
  auto records = parse_fixture("real-layouts.txt");
  JobRecord tasks2 = pick(records, "6930000");
  CHECK(tasks2.tasks == 2);
  CHECK(tasks2.cpus_per_task == 1);
  // sacct prints the total since 21.08: it cannot tell --mem-per-cpu from --mem.
  CHECK_FALSE(tasks2.mem_per_cpu);
  CHECK(tasks2.alloc_mem_mb == Approx(200));
  JobRecord cpt2 = pick(records, "6930002");
  CHECK(cpt2.tasks == 1);
  CHECK(cpt2.cpus_per_task == 2);
  // The batch and extern steps (one task each) do not tell -n from -c.
  JobRecord batch_only = pick(records, "6930001");
  CHECK_FALSE(batch_only.tasks);
  CHECK_FALSE(batch_only.cpus_per_task);
  CHECK(batch_only.total_cpu_seconds == Approx(2.991));
}

TEST_CASE("the old per-node and per-CPU ReqMem suffixes tell the request's form", "[sacct]") {
  auto records = parse_fixture("user-allocations.txt");
  bool saw_per_node = false;
  for (const auto& r : records)
    if (r.mem_per_cpu && !*r.mem_per_cpu) saw_per_node = true;  // "4000Mn"
  CHECK(saw_per_node);
}

// ---- jobs_ended ------------------------------------------------------------

namespace {

// TZ=`zone` while a test needs it (without the zone's file the C library
// falls back to UTC, and the checks that hold for every zone still hold).
class ScopedZone {
 public:
  explicit ScopedZone(const char* zone) {
    if (const char* tz = std::getenv("TZ")) saved_ = tz;
    ::setenv("TZ", zone, 1);
    ::tzset();
  }
  ~ScopedZone() {
    if (saved_)
      ::setenv("TZ", saved_->c_str(), 1);
    else
      ::unsetenv("TZ");
    ::tzset();
  }

 private:
  std::optional<std::string> saved_;
};

std::vector<std::string> ids_of(const std::vector<JobRecord>& jobs) {
  std::vector<std::string> ids;
  for (const auto& j : jobs) ids.push_back(j.job_id);
  return ids;
}

// The --starttime and --endtime of each run of a stand-in sacct that
// appends its arguments to `calls` (one line per run).
std::vector<std::pair<std::string, std::string>> windows_asked(const fs::path& calls) {
  std::vector<std::pair<std::string, std::string>> windows;
  std::ifstream in(calls);
  for (std::string line; std::getline(in, line);) {
    auto value = [&](const std::string& option) {
      std::size_t at = line.find(" " + option + "=");
      if (at == std::string::npos) return std::string();
      at += option.size() + 2;
      return line.substr(at, line.find(' ', at) - at);
    };
    windows.emplace_back(value("--starttime"), value("--endtime"));
  }
  return windows;
}

// A stand-in sacct that logs its arguments, one line a run, and prints the
// fixture `name` (after `before`, shell lines run first).
std::string logging_sacct(const std::string& name, const std::string& before = "") {
  return "echo \"$*\" >>\"$(dirname \"$0\")/calls\"\n" + before + "cat '" +
         (petricore::test::fixtures_dir() / "sacct" / name).string() + "'";
}

}  // namespace

TEST_CASE("sacct command line for ended jobs: every user, the final states, the window in local time", "[sacct]") {
  petricore::test::UtcZone utc;
  auto args = sacct_ended_args("/usr/bin/sacct", 1795975755, 1795979355, "|x|");
  REQUIRE(args.size() == 9);  // steps included: no --allocations
  CHECK(args[0] == "/usr/bin/sacct");
  CHECK(args[3].rfind("--format=JobID,JobIDRaw,", 0) == 0);
  CHECK(args[4] == "--allusers");
  CHECK(args[5] == "--state=BOOT_FAIL,CANCELLED,COMPLETED,DEADLINE,FAILED,NODE_FAIL,OUT_OF_MEMORY,PREEMPTED,TIMEOUT");
  CHECK(args[6] == "--starttime=2026-11-29T18:09:15");
  CHECK(args[7] == "--endtime=2026-11-29T19:09:15");
  CHECK(args[8] == "--delimiter=|x|");
  CHECK(sacct_final_states().size() == 9);
}

TEST_CASE("sacct time bounds: the hour that repeats in autumn widens the window by an hour", "[sacct]") {
  ScopedZone berlin("Europe/Berlin");
  // 2026-10-25: 02:30 local is 00:30 UTC (summer time) and 01:30 UTC.
  for (std::int64_t t : {std::int64_t{1792888200}, std::int64_t{1792891800}}) {
    CAPTURE(t);
    auto lower = parse_sacct_time(sacct_time_bound(t, true));
    auto upper = parse_sacct_time(sacct_time_bound(t, false));
    REQUIRE(lower);
    REQUIRE(upper);
    CHECK(*lower <= t);
    CHECK(*upper >= t);
    CHECK(t - *lower <= 3600);
    CHECK(*upper - t <= 3600);
  }
  // Elsewhere the bound is the time itself.
  CHECK(parse_sacct_time(sacct_time_bound(1795975755, true)) == 1795975755);
  CHECK(parse_sacct_time(sacct_time_bound(1795975755, false)) == 1795975755);
  petricore::test::UtcZone utc;
  CHECK(sacct_time_bound(1792888200, true) == "2026-10-25T00:30:00");
}

TEST_CASE("ended jobs: final states only, the window half-open, by end then raw id", "[sacct]") {
  // Real: 1, array 2 (tasks raw 6, 7, 2), het 3 (raw 3, 4) cancelled at
  // the same second, 5 still running.
  auto records = parse_fixture("real-user-allocations.txt");
  CHECK(ids_of(select_ended(records, 1795989442, 1795989473)) == std::vector<std::string>{"2_1", "2_2", "1", "2_3"});
  CHECK(ids_of(select_ended(records, 1795989443, 1795989474)) ==
        std::vector<std::string>{"2_2", "1", "2_3", "3+0", "3+1"});
  CHECK(select_ended(records, 1795989474, 1895989474).empty());  // 5 is running
  CHECK(select_ended(records, 1795989445, 1795989445).empty());
  // CANCELLED by <uid> and TIMEOUT are final; PENDING is not.
  CHECK(ids_of(select_ended(parse_fixture("user-allocations.txt"), 0, 1900000000)) ==
        std::vector<std::string>{"301", "302", "5001"});
}

TEST_CASE("sacct source: jobs ended in a window, each the record job() gives", "[sacct]") {
  FakeSacct sacct(logging_sacct("real-user-listing.txt"));
  auto source = make_sacct_accounting(sacct.path(), 10);
  petricore::test::UtcZone utc;
  auto jobs = source->jobs_ended(1796175760, 1796175762, 10);
  REQUIRE(jobs.ok());
  CHECK(ids_of(*jobs) == std::vector<std::string>{"2285000", "2285001"});  // 2285002 ends at 1796175762
  auto asked = windows_asked(sacct.dir() / "calls");
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].first == "2026-12-02T01:42:40");
  CHECK(asked[0].second == "2026-12-02T01:42:42");
  std::ifstream calls(sacct.dir() / "calls");
  std::string line;
  std::getline(calls, line);
  CHECK(line.find(" --allusers --state=BOOT_FAIL,") != std::string::npos);
  CHECK(line.find("--allocations") == std::string::npos);
  // Steps folded in as job() folds them.
  FakeSacct one_job("cat '" + (petricore::test::fixtures_dir() / "sacct" / "real-user-listing-jobs.txt").string() +
                    "'");
  auto alone = make_sacct_accounting(one_job.path(), 10);
  for (const auto& listed : *jobs) {
    auto job = alone->job(*parse_job_id(listed.job_id));
    REQUIRE(job.ok());
    petricore::test::check_same_record(listed, *job);
  }
  REQUIRE((*jobs)[0].total_cpu_seconds);
  CHECK(*(*jobs)[0].total_cpu_seconds == Approx(1.476));
  CHECK((*jobs)[0].tasks == 2);
  auto one = source->jobs_ended(1796175760, 1796175763, 1);
  REQUIRE(one.ok());
  CHECK(ids_of(*one) == std::vector<std::string>{"2285000"});
  auto none = source->jobs_ended(1796175763, 1796175763, 10);
  REQUIRE(none.ok());
  CHECK(none->empty());
  CHECK(windows_asked(sacct.dir() / "calls").size() == 2);  // an empty window asks nothing
}

TEST_CASE("sacct source: real jobs ended in a window, by end then raw id, each as job() gives it", "[sacct]") {
  // Real Slurm 22.05 (record_jobs_ended.sh): the window [1796323840,
  // 1796323854) as sacct_ended_args asks for it. `early` ended before it,
  // `late` ran through it and ended after: sacct's --state with -S/-E left
  // both out. Three jobs ended in the same second; array task 1812004_1 got
  // raw id 1812006, task _2 kept the array's.
  const auto dir = petricore::test::fixtures_dir() / "sacct";
  const std::vector<std::string> in_window{"1812002", "1812003", "1812005", "1812004_1", "1812004_2"};
  FakeSacct ended(logging_sacct("real-ended.txt"));
  auto jobs = make_sacct_accounting(ended.path(), 10)->jobs_ended(1796323840, 1796323854, 100);
  REQUIRE(jobs.ok());
  CHECK(ids_of(*jobs) == in_window);
  // Each listed record is the one job() gives (steps folded in).
  FakeSacct one_job("cat '" + (dir / "real-ended-jobs.txt").string() + "'");
  auto alone = make_sacct_accounting(one_job.path(), 10);
  for (const auto& listed : *jobs) {
    auto job = alone->job(*parse_job_id(listed.job_id));
    REQUIRE(job.ok());
    petricore::test::check_same_record(listed, *job);
  }
  CHECK((*jobs)[1].state == "FAILED");
  CHECK((*jobs)[2].state == "CANCELLED");
  CHECK((*jobs)[3].raw_id == "1812006");
  REQUIRE((*jobs)[0].total_cpu_seconds);
  CHECK(*(*jobs)[0].total_cpu_seconds == Approx(0.231));
  CHECK((*jobs)[0].tasks == 1);
  // Should sacct print more than the window (all seven jobs), the window
  // is still exact, and half-open.
  auto every = alone->jobs_ended(1796323840, 1796323854, 100);
  REQUIRE(every.ok());
  CHECK(ids_of(*every) == in_window);
  auto at_845 = alone->jobs_ended(1796323845, 1796323848, 100);
  REQUIRE(at_845.ok());
  CHECK(ids_of(*at_845) == std::vector<std::string>{"1812002", "1812003", "1812005", "1812004_1"});
  auto before_845 = alone->jobs_ended(1796323836, 1796323845, 100);
  REQUIRE(before_845.ok());
  CHECK(ids_of(*before_845) == std::vector<std::string>{"1812000"});
  auto all = alone->jobs_ended(1796323800, 1796323902, 100);
  REQUIRE(all.ok());
  CHECK(all->size() == 7);
  CHECK(all->back().job_id == "1812001");
}

TEST_CASE("sacct source: a long window is asked piece by piece until the limit", "[sacct]") {
  petricore::test::UtcZone utc;
  // Every end of the fixture lies in 1795989442 .. 1795989473.
  const std::int64_t since = 1795989442 - 3600, until = 1795989442 + 3600;
  {
    FakeSacct sacct(logging_sacct("real-user-allocations.txt"));
    auto jobs = make_sacct_accounting(sacct.path(), 10)->jobs_ended(since, until, 100);
    REQUIRE(jobs.ok());
    CHECK(ids_of(*jobs) == std::vector<std::string>{"2_1", "2_2", "1", "2_3", "3+0", "3+1"});
    // 15 minutes, doubled while a piece finds few: 30 min, 1 h, then the rest.
    using Window = std::pair<std::string, std::string>;
    CHECK(windows_asked(sacct.dir() / "calls") == std::vector<Window>{{"2026-11-29T20:57:22", "2026-11-29T21:12:22"},
                                                                      {"2026-11-29T21:12:22", "2026-11-29T21:42:22"},
                                                                      {"2026-11-29T21:42:22", "2026-11-29T22:42:22"},
                                                                      {"2026-11-29T22:42:22", "2026-11-29T22:57:22"}});
  }
  {
    FakeSacct sacct(logging_sacct("real-user-allocations.txt"));
    auto jobs = make_sacct_accounting(sacct.path(), 10)->jobs_ended(since, until, 3);
    REQUIRE(jobs.ok());
    CHECK(ids_of(*jobs) == std::vector<std::string>{"2_1", "2_2", "1"});
    CHECK(windows_asked(sacct.dir() / "calls").size() == 3);  // none after the piece that filled the limit
  }
}

TEST_CASE("sacct source: a piece whose output overflows is asked again in halves", "[sacct]") {
  petricore::test::UtcZone utc;
  const std::string flood = "head -c 67108865 /dev/zero\nexit 0\n";
  FakeSacct once(logging_sacct(
      "real-user-allocations.txt",
      "if [ ! -e \"$(dirname \"$0\")/flooded\" ]; then touch \"$(dirname \"$0\")/flooded\"; " + flood + "fi\n"));
  auto jobs = make_sacct_accounting(once.path(), 10)->jobs_ended(1795989442, 1795989562, 10);
  REQUIRE(jobs.ok());
  CHECK(ids_of(*jobs) == std::vector<std::string>{"2_1", "2_2", "1", "2_3", "3+0", "3+1"});
  using Window = std::pair<std::string, std::string>;
  CHECK(windows_asked(once.dir() / "calls") == std::vector<Window>{{"2026-11-29T21:57:22", "2026-11-29T21:59:22"},
                                                                   {"2026-11-29T21:57:22", "2026-11-29T21:58:22"},
                                                                   {"2026-11-29T21:58:22", "2026-11-29T21:59:22"}});
  // A minute that still overflows is an error naming sacct.
  FakeSacct always(logging_sacct("real-user-allocations.txt", flood));
  auto failed = make_sacct_accounting(always.path(), 10)->jobs_ended(1795989442, 1795989562, 10);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().kind == Error::Kind::Unavailable);
  CHECK(failed.error().message == always.path() + ": wrote more than 64 MiB (killed)");
  CHECK(windows_asked(always.dir() / "calls").size() == 2);
}

TEST_CASE("sacct source: ended jobs when sacct fails are Unavailable", "[sacct]") {
  FakeSacct down("echo 'sacct: error: Problem talking to the database: Connection refused' >&2\nexit 1");
  auto jobs = make_sacct_accounting(down.path(), 10)->jobs_ended(1795989442, 1795989562, 10);
  REQUIRE_FALSE(jobs.ok());
  CHECK(jobs.error().kind == Error::Kind::Unavailable);
  CHECK(jobs.error().message.find("Connection refused") != std::string::npos);
}

// ---- the jobs_info source's jobs_ended: its two pure parts -----------------

TEST_CASE("jobs_info: the query whose points mark where a job's series stopped", "[sacct]") {
  CHECK(ended_jobs_query(300) ==
        "count by (slurm_job, user, uid, account) (max by (slurm_job, user, uid, account, instance) "
        "(count_over_time(jobs_info[300s] offset 300s))) unless on (slurm_job) count_over_time(jobs_info[300s])");
}

TEST_CASE("jobs_info: a job's end is the window before its latest point, ends in [from, to)", "[sacct]") {
  using petricore::model::Series;
  auto series = [](const std::string& job, const std::string& user, std::vector<double> times, double nodes) {
    Series s;
    s.labels = {{"slurm_job", job}, {"user", user}, {"uid", "1001"}, {"account", "research"}};
    for (double t : times) s.samples.push_back({t + 0.001, nodes});  // the grid's 1 ms shift
    return s;
  };
  // 42 paused (the point at 1800) and ended (2400); 7 and 43 ended at the
  // same time; 9 ends before the window, 10 at its end (excluded).
  std::vector<Series> found{series("42", "alice", {1800, 2400}, 2), series("43", "bob", {1500}, 1),
                            series("7", "carol", {1500}, 1),        series("9", "dave", {900}, 1),
                            series("10", "erin", {2700}, 1),        series("", "nobody", {1500}, 1)};
  auto jobs = jobs_from_ends(found, 300, 1200, 2400);
  REQUIRE(ids_of(jobs) == std::vector<std::string>{"7", "43", "42"});
  CHECK(jobs[0].end == 1200);
  CHECK(jobs[2].end == 2100);  // the latest point in the window
  CHECK(jobs[2].raw_id == "42");
  CHECK(jobs[2].user == "alice");
  CHECK(jobs[2].uid == 1001u);
  CHECK(jobs[2].account == "research");
  CHECK(jobs[2].alloc_nodes == 2);
  CHECK(jobs[2].state == "COMPLETED");
  CHECK_FALSE(jobs[2].start);
  CHECK(ids_of(jobs_from_ends(found, 300, 600, 1200)) == std::vector<std::string>{"9"});
  CHECK(jobs_from_ends(found, 300, 2500, 2700).empty());
}
