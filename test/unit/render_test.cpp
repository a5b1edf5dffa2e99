// The renderers: job JSON and mail compared with golden files under
// test/fixtures/render/ (PETRICORE_REGENERATE=1 rewrites them, see the
// README there), the JSON's §5 keys and types, the mail's last line, and the
// terminal text with and without a tty.
#include "golden_jobs.hpp"
#include "render/job_render.hpp"
#include "render/json_writer.hpp"
#include "sample_jobs.hpp"
#include "test_fixtures.hpp"

#include <boost/json.hpp>
#include "catch.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

using namespace petricore;
using namespace petricore::analysis;
using namespace petricore::model;
namespace json = boost::json;

namespace {

using namespace petricore::test::golden;

const std::string kPdfUrl = "https://petricore.example.org/pdf/";

struct Case {
  const char* name;
  JobReport (*build)();
  bool with_pdf_link;
};
const Case kCases[] = {
    {"serial", serial_job, true},
    {"gpu", gpu_job, true},
    {"oom_no_metrics", oom_without_metrics, false},
    {"running", running_job, false},
    {"page_cache", test::page_cache_job, false},
    {"accounting_only", test::accounting_only_job, false},
    {"gpu_own", test::gpu_training_job, true},
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Equal to the golden file, or — with PETRICORE_REGENERATE=1 — written to it.
void check_golden(const std::string& file, const std::string& actual) {
  auto path = test::fixtures_dir() / "render" / file;
  const char* regenerate = std::getenv("PETRICORE_REGENERATE");
  if (regenerate != nullptr && std::string(regenerate) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    WARN("regenerated " << path.string());
    return;
  }
  INFO("golden file " << path.string() << " (PETRICORE_REGENERATE=1 rewrites it)");
  REQUIRE(std::filesystem::exists(path));
  CHECK(read_file(path) == actual);
}

std::string pdf_link(const Case& c, const JobReport& report) {
  return c.with_pdf_link ? kPdfUrl + report.usage.job.job_id : "";
}

std::string last_line(const std::string& text) {
  std::string trimmed = text;
  if (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
  return trimmed.substr(trimmed.rfind('\n') + 1);
}

// Runs of whitespace as one space: wrapped text compares with the original.
std::string collapsed(const std::string& text) {
  return std::regex_replace(text, std::regex("\\s+"), " ");
}

void require_keys(const json::value& value, std::initializer_list<const char*> keys) {
  REQUIRE(value.is_object());
  for (const char* key : keys) {
    INFO("key " << key);
    CHECK(value.as_object().contains(key));
  }
}

// The object's keys, in order.
std::vector<std::string> keys_of(const json::value& value) {
  std::vector<std::string> keys;
  for (const auto& member : value.as_object()) keys.emplace_back(member.key());
  return keys;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The text's lines that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("job JSON and mail match their golden files", "[render]") {
  for (const Case& c : kCases) {
    SECTION(c.name) {
      JobReport report = c.build();
      check_golden(std::string("job_") + c.name + ".json", render::job_json(report));
      check_golden(std::string("mail_") + c.name + ".txt", render::mail_text(report, pdf_link(c, report)));
    }
  }
}

TEST_CASE("job JSON parses and carries every key of the contract", "[render]") {
  for (const Case& c : kCases) {
    SECTION(c.name) {
      JobReport report = c.build();
      std::string text = render::job_json(report);
      json::value doc = json::parse(text);

      // Numbers as people write them: no NaN, no exponent form.
      CHECK_FALSE(std::regex_search(text, std::regex("[0-9][eE][-+]?[0-9]")));
      CHECK_FALSE(std::regex_search(text, std::regex("[:,\\[]\\s*-?(nan|inf|NaN|Infinity)", std::regex::icase)));
      if (report.usage.no_usage()) {
        // One key says why: no usage sections, no list repeating it.
        CHECK(keys_of(doc) == std::vector<std::string>{"jobid", "sponsor", "username", "runtime", "state", "start",
                                                       "end", "alloc_tres", "no_usage", "findings", "warning"});
        continue;
      }
      REQUIRE(doc.at("missing").is_array());
      CHECK(doc.at("missing").as_array().size() == report.usage.missing.size());
      CHECK(keys_of(doc) == std::vector<std::string>{"jobid", "sponsor", "username", "runtime", "state", "start", "end",
                                                     "uses_scratch", "alloc_tres", "threads", "cpu", "ram", "gpu", "io",
                                                     "missing", "findings", "warning"});
      CHECK(doc.at("jobid").is_number());
      CHECK(doc.at("uses_scratch").is_bool());
      CHECK(doc.at("warning").as_bool() == report.warning);
      CHECK(doc.at("threads").is_object());
      require_keys(doc.at("alloc_tres"), {"billing", "alloc_cpu", "alloc_mem", "alloc_nodes", "alloc_gpu"});
      const json::value& cpu = doc.at("cpu");
      require_keys(cpu, {"available", "used", "time_core", "time_total", "avg_usage_job", "max_usage_job", "user_time",
                         "system_time"});
      require_keys(cpu.at("available"), {"amount", "unit"});
      require_keys(cpu.at("used"), {"amount", "unit"});
      require_keys(cpu.at("time_total"), {"time", "unit", "source"});
      require_keys(cpu.at("avg_usage_job"), {"usage", "lowest_expected_usage", "unit", "source"});
      require_keys(cpu.at("max_usage_job"), {"usage", "unit"});
      require_keys(cpu.at("user_time"), {"time", "unit"});
      require_keys(cpu.at("system_time"), {"time", "unit"});
      for (const auto& core : cpu.at("time_core").as_array())
        require_keys(core, {"core", "time", "unit", "percent_of_total"});
      const json::value& ram = doc.at("ram");
      require_keys(ram, {"used", "available", "peak", "breakdown"});
      require_keys(ram.at("used"), {"amount", "unit", "usage", "source"});
      require_keys(ram.at("available"), {"amount", "unit"});
      require_keys(ram.at("peak"), {"amount", "unit"});
      require_keys(ram.at("breakdown"), {"anon", "shmem", "file", "kernel", "swap", "unit"});
      CHECK(ram.at("breakdown").at("unit").as_string() == "MB");
      // A source exactly where there is a figure.
      CHECK(cpu.at("time_total").at("time").is_null() == cpu.at("time_total").at("source").is_null());
      CHECK(ram.at("used").at("amount").is_null() == ram.at("used").at("source").is_null());
      const json::value& gpu = doc.at("gpu");
      CHECK(keys_of(gpu) == std::vector<std::string>{"alloc_gpu", "utilization", "memory", "power"});
      CHECK(keys_of(gpu.at("utilization")) == std::vector<std::string>{"mean", "max", "per_gpu"});
      REQUIRE(gpu.at("utilization").at("per_gpu").is_array());
      for (const auto& one : gpu.at("utilization").at("per_gpu").as_array())
        CHECK(keys_of(one) == std::vector<std::string>{"node", "gpuid", "mean", "max", "memory_peak_mb",
                                                       "memory_total_mb", "power_mean_w"});
      CHECK(keys_of(gpu.at("memory")) == std::vector<std::string>{"peak_mb", "total_mb"});
      CHECK(keys_of(gpu.at("power")) == std::vector<std::string>{"mean_w", "energy_wh"});
      const json::value& io = doc.at("io");
      require_keys(io, {"opened_files", "read", "write"});
      require_keys(io.at("read"), {"amount", "unit", "count"});
      require_keys(io.at("write"), {"amount", "unit", "count"});
      REQUIRE(doc.at("findings").as_array().size() == report.findings.size());
      for (const auto& finding : doc.at("findings").as_array())
        require_keys(finding, {"rule", "severity", "message", "advice", "value", "threshold", "unit"});
    }
  }
}

TEST_CASE("job JSON types: ids, instants, units and unknowns", "[render]") {
  json::value serial = json::parse(render::job_json(serial_job()));
  CHECK(serial.at("jobid").as_int64() == 51234);
  CHECK(serial.at("start").as_string() == "2026-11-29T18:09:15Z");
  CHECK(serial.at("end").as_string() == "2026-11-29T18:19:17Z");
  CHECK(serial.at("runtime").as_string() == "00:10:02");
  CHECK(serial.at("alloc_tres").at("alloc_mem").as_int64() == 8000);
  CHECK(serial.at("cpu").at("avg_usage_job").at("lowest_expected_usage").as_int64() == 320);
  // used: the resident peak (jobs_rss); peak: the cgroup's, page cache included.
  CHECK(serial.at("ram").at("used").at("amount").as_int64() == 1500);
  CHECK(serial.at("ram").at("used").at("usage").as_double() == Approx(1500.0 / 8000).epsilon(1e-3));
  CHECK(serial.at("ram").at("used").at("source").as_string() == "metrics");
  CHECK(serial.at("ram").at("peak").at("amount").as_double() == Approx(1550.5));
  CHECK(serial.at("ram").at("breakdown").at("anon").is_null());  // not exported
  CHECK(serial.at("cpu").at("time_total").at("source").as_string() == "metrics");
  CHECK(serial.at("cpu").at("avg_usage_job").at("source").as_string() == "metrics");
  CHECK(serial.at("missing").as_array().empty());
  double percent_sum = 0;
  for (const auto& core : serial.at("cpu").at("time_core").as_array())
    percent_sum += core.at("percent_of_total").to_number<double>();
  CHECK(percent_sum == Approx(100).margin(0.05));

  // Without GPUs: the GPU keys are there, unknown.
  const json::value& no_gpu = serial.at("gpu");
  CHECK(no_gpu.at("alloc_gpu").as_object().empty());
  CHECK(no_gpu.at("utilization").at("mean").is_null());
  CHECK(no_gpu.at("utilization").at("max").is_null());
  CHECK(no_gpu.at("utilization").at("per_gpu").as_array().empty());
  CHECK(no_gpu.at("memory").at("peak_mb").is_null());
  CHECK(no_gpu.at("power").at("energy_wh").is_null());

  // Another exporter's utilisation: per GPU, without memory or power.
  json::value gpu = json::parse(render::job_json(gpu_job()));
  CHECK(gpu.at("gpu").at("alloc_gpu").at("gpu02").as_array().at(0).to_number<int>() == 1);
  CHECK(gpu.at("uses_scratch").as_bool());
  const json::value& exporter = gpu.at("gpu").at("utilization");
  CHECK(exporter.at("mean").as_int64() == 0);
  CHECK(exporter.at("max").as_int64() == 0);
  REQUIRE(exporter.at("per_gpu").as_array().size() == 2);
  CHECK(exporter.at("per_gpu").as_array()[1].at("node").as_string() == "gpu02");
  CHECK(exporter.at("per_gpu").as_array()[1].at("gpuid").as_int64() == 1);
  CHECK(exporter.at("per_gpu").as_array()[1].at("memory_peak_mb").is_null());
  CHECK(gpu.at("gpu").at("memory").at("peak_mb").is_null());

  // petricore's own series.
  json::value own = json::parse(render::job_json(test::gpu_training_job()));
  const json::value& g = own.at("gpu");
  CHECK(g.at("alloc_gpu").at("gpu03").as_array().size() == 2);
  const double busy0 = 9090.0 / 241;  // 61 samples at 90 %, 180 at 20 %
  CHECK(g.at("utilization").at("mean").to_number<double>() == Approx((busy0 + 30) / 2).margin(0.005));
  CHECK(g.at("utilization").at("max").as_int64() == 90);
  const json::value& first = g.at("utilization").at("per_gpu").as_array().at(0);
  CHECK(first.at("node").as_string() == "gpu03");
  CHECK(first.at("gpuid").as_int64() == 0);
  CHECK(first.at("mean").to_number<double>() == Approx(busy0).margin(0.005));
  CHECK(first.at("memory_peak_mb").as_int64() == 12000);
  CHECK(first.at("memory_total_mb").as_int64() == 40960);
  CHECK(first.at("power_mean_w").to_number<double>() == Approx(80 + 2 * busy0).margin(0.005));
  CHECK(g.at("memory").at("peak_mb").as_int64() == 21000);  // both GPUs at their peak at the end
  CHECK(g.at("memory").at("total_mb").as_int64() == 81920);
  CHECK(g.at("power").at("mean_w").to_number<double>() == Approx(220 + 2 * busy0).margin(0.005));
  // About an hour at ~295 W.
  CHECK(g.at("power").at("energy_wh").to_number<double>() == Approx(220 + 2 * busy0).epsilon(0.01));
  REQUIRE(own.at("findings").as_array().size() == 1);
  CHECK(own.at("findings").as_array()[0].at("rule").as_string() == "gpu_efficiency");
  CHECK(own.at("findings").as_array()[0].at("severity").as_string() == "warning");

  json::value oom = json::parse(render::job_json(oom_without_metrics()));
  CHECK(oom.at("jobid").as_int64() == 51253);  // JobIDRaw, what slurm_job labels carry
  CHECK(oom.at("no_usage").is_string());

  json::value running = json::parse(render::job_json(running_job()));
  CHECK(running.at("end").is_null());
  CHECK(running.at("runtime").as_string() == "00:02:00");
  // No CPU time sampled, and a running job has no TotalCPU yet.
  CHECK(running.at("cpu").at("time_total").at("time").is_null());
  CHECK(running.at("cpu").at("time_total").at("source").is_null());
  CHECK(running.at("cpu").at("avg_usage_job").at("usage").is_null());
  CHECK(running.at("cpu").at("avg_usage_job").at("source").is_null());
  CHECK(running.at("cpu").at("used").at("amount").is_null());
  CHECK(running.at("ram").at("used").at("usage").is_null());  // no allocation known
  CHECK(running.at("io").at("read").at("amount").is_null());
  CHECK(running.at("io").at("opened_files").is_null());
  REQUIRE(running.at("missing").as_array().size() == 1);
  CHECK(running.at("missing").as_array()[0].as_string().subview().rfind("CPU time: ", 0) == 0);
}

TEST_CASE("the mail ends with the WARNING line the mail wrappers read", "[render]") {
  for (const Case& c : kCases) {
    SECTION(c.name) {
      JobReport report = c.build();
      std::string mail = render::mail_text(report, pdf_link(c, report));
      CHECK(last_line(mail) == (report.warning ? "WARNING=true" : "WARNING=false"));
      CHECK(mail.rfind("----------General Data----------\n", 0) == 0);
      // A job of which nothing is known has the General section alone.
      for (const char* header :
           {"----------I/O Data----------", "----------Usage Data----------", "----------Thread Data----------"})
        CHECK((mail.find(header) != std::string::npos) == !report.usage.no_usage());
      for (const Finding& f : report.findings) {
        CHECK(collapsed(mail).find(collapsed(f.message)) != std::string::npos);
        CHECK(collapsed(mail).find(collapsed(f.advice)) != std::string::npos);
      }
      CHECK((mail.find(kPdfUrl) != std::string::npos) == c.with_pdf_link);
    }
  }
  JobReport quiet = serial_job();
  quiet.findings.clear();
  quiet.warning = false;
  CHECK(last_line(render::mail_text(quiet, "")) == "WARNING=false");
}

TEST_CASE("terminal text: no escape codes without a tty, bars and colour with one", "[render]") {
  for (const Case& c : kCases) {
    SECTION(c.name) {
      JobReport report = c.build();
      std::string plain = render::terminal_text(report, false);
      CHECK(plain.find('\033') == std::string::npos);
      CHECK(plain.find("█") == std::string::npos);
      CHECK(plain.find(report.usage.job.job_id) != std::string::npos);
      for (const Finding& f : report.findings) {
        CHECK(collapsed(plain).find(f.rule + ": " + collapsed(f.message)) != std::string::npos);
        CHECK(collapsed(plain).find(collapsed(f.advice)) != std::string::npos);
      }
    }
  }
  std::string tty = render::terminal_text(serial_job(), true);
  CHECK(tty.find('\033') != std::string::npos);
  std::string uncoloured = std::regex_replace(tty, std::regex("\033\\[[0-9;]*m"), "");
  CHECK(uncoloured.find("CPU   ██░░░░░░░░  25 %") != std::string::npos);
}

TEST_CASE("GPU figures in the text and the mail only for a job with GPUs", "[render]") {
  JobReport report = test::gpu_training_job();
  std::string mail = render::mail_text(report, "");
  INFO(mail);
  CHECK(lines_starting(mail, "GPU utilisation: ") ==
        std::vector<std::string>{"GPU utilisation: 33.9 % on average per GPU, 90 % at most"});
  CHECK(lines_starting(mail, "GPU memory: ") ==
        std::vector<std::string>{"GPU memory: 21000 MB at peak of 81920 MB (25.6 %)"});
  CHECK(lines_starting(mail, "GPU power: ").size() == 1);
  CHECK(lines_starting(mail, "  gpu03 GPU 0: 37.7 % on average, 90 % at most; memory 12000 of").size() == 1);
  CHECK(lines_starting(mail, "  gpu03 GPU 1: 30 % on average").size() == 1);
  // The GPU lines sit in the Usage section.
  CHECK(mail.find("GPU utilisation") > mail.find("----------Usage Data----------"));
  CHECK(mail.find("GPU utilisation") < mail.find("----------Thread Data----------"));

  std::string text = render::terminal_text(report, false);
  INFO(text);
  CHECK(lines_starting(text, "  GPUs      ") ==
        std::vector<std::string>{"  GPUs      gpu03: 0 1, utilisation 33.9 % mean per GPU, 90 % max"});
  CHECK(lines_starting(text, "  GPU mem   21000 MB at peak of 81920 MB (25.6 %)").size() == 1);
  CHECK(lines_starting(text, "  GPU power ").size() == 1);
  CHECK(lines_starting(text, "            gpu03 GPU 1: 30 % on average").size() == 1);
  std::string tty = std::regex_replace(render::terminal_text(report, true), std::regex("\033\\[[0-9;]*m"), "");
  CHECK(tty.find("GPU   ███░░░░░░░  34 %") != std::string::npos);

  for (JobReport cpu_only : {serial_job(), running_job(), test::page_cache_job(), test::accounting_only_job()}) {
    CHECK(render::mail_text(cpu_only, "").find("GPU") == std::string::npos);
    CHECK(render::terminal_text(cpu_only, true).find("GPU") == std::string::npos);
  }
}

TEST_CASE("figures from Slurm accounting say so in the JSON, the text and the mail", "[render]") {
  JobReport report = test::accounting_only_job();
  REQUIRE(report.usage.no_metrics());
  REQUIRE_FALSE(report.usage.no_usage());

  json::value doc = json::parse(render::job_json(report));
  CHECK_FALSE(doc.as_object().contains("no_usage"));
  const json::value& cpu = doc.at("cpu");
  CHECK(cpu.at("time_total").at("time").as_int64() == 18);
  CHECK(cpu.at("time_total").at("source").as_string() == "accounting");
  CHECK(cpu.at("avg_usage_job").at("usage").as_int64() == 90);  // 18 s over 20 s
  CHECK(cpu.at("avg_usage_job").at("source").as_string() == "accounting");
  CHECK(cpu.at("max_usage_job").at("usage").is_null());  // no sampled rate
  const json::value& ram = doc.at("ram");
  CHECK(ram.at("used").at("amount").as_int64() == 700);
  CHECK(ram.at("used").at("usage").as_double() == Approx(0.35));
  CHECK(ram.at("used").at("source").as_string() == "accounting");
  CHECK(ram.at("peak").at("amount").is_null());
  for (const char* part : {"anon", "shmem", "file", "kernel", "swap"}) CHECK(ram.at("breakdown").at(part).is_null());
  CHECK(doc.at("missing").as_array().empty());

  std::string text = render::terminal_text(report, false);
  INFO(text);
  CHECK(text.find("  Metrics   no samples; figures from Slurm accounting\n") != std::string::npos);
  CHECK(text.find("  CPU       90 % mean (90 % per core) (from Slurm accounting)\n") != std::string::npos);
  CHECK(text.find("  CPU time  18 s (from Slurm accounting)\n") != std::string::npos);
  CHECK(text.find("  Memory    700 MB resident at peak (35 % of 2000 MB) (from Slurm accounting)\n") !=
        std::string::npos);
  CHECK(text.find("I/O") == std::string::npos);  // nothing sampled to show
  CHECK(text.find("unknown") == std::string::npos);

  std::string mail = render::mail_text(report, "");
  INFO(mail);
  CHECK(mail.find("No samples were recorded; the figures below are from Slurm accounting.\n") != std::string::npos);
  CHECK(mail.find("CPU time: 18 s (from Slurm accounting)\n") != std::string::npos);
  CHECK(mail.find("Memory: 700 MB resident at peak of 2000 MB allocated (35 %) (from Slurm accounting)\n") !=
        std::string::npos);
  CHECK(count_of(mail, "(from Slurm accounting)") == 3);
}

TEST_CASE("a job of which nothing is known has one no_usage key and one line", "[render]") {
  JobReport report = test::no_usage_job();
  REQUIRE(report.usage.no_usage());
  REQUIRE(report.usage.missing.size() == 1);
  const std::string& why = report.usage.missing.front();

  json::value doc = json::parse(render::job_json(report));
  CHECK(doc.at("no_usage").as_string() == why);
  for (const char* key : {"uses_scratch", "threads", "cpu", "ram", "gpu", "io", "missing"}) {
    INFO(key);
    CHECK_FALSE(doc.as_object().contains(key));
  }
  // The identity and the allocation stay.
  CHECK(doc.at("jobid").as_int64() == 4302);
  CHECK(doc.at("runtime").as_string() == "00:00:20");
  CHECK(doc.at("alloc_tres").at("alloc_mem").as_int64() == 2000);
  CHECK(doc.at("warning").is_bool());

  std::string text = render::terminal_text(report, false);
  INFO(text);
  CHECK(text.find("  Usage     " + why + "\n") != std::string::npos);
  CHECK(count_of(text, why) == 1);
  for (const char* label :
       {"  CPU ", "  CPU time", "  Memory", "  I/O", "  GPUs", "  Threads", "  Metrics", "  Missing"}) {
    INFO(label);
    CHECK(lines_starting(text, label).empty());
  }
  CHECK(text.find("unknown") == std::string::npos);
  CHECK(text.find("null") == std::string::npos);

  std::string mail = render::mail_text(report, "");
  INFO(mail);
  CHECK(collapsed(mail).find(collapsed(why)) != std::string::npos);
  CHECK(mail.find("unknown") == std::string::npos);
  CHECK(last_line(mail) == (report.warning ? "WARNING=true" : "WARNING=false"));
}

TEST_CASE("resident memory and the reclaimable page cache apart in every text face", "[render]") {
  JobReport report = test::page_cache_job();
  json::value doc = json::parse(render::job_json(report));
  const json::value& ram = doc.at("ram");
  CHECK(ram.at("used").at("amount").as_int64() == 3);
  CHECK(ram.at("used").at("usage").as_double() == Approx(3.0 / 4000).margin(1e-4));
  CHECK(ram.at("used").at("source").as_string() == "metrics");
  CHECK(ram.at("peak").at("amount").as_int64() == 516);
  const json::value& parts = ram.at("breakdown");
  CHECK(parts.at("anon").as_double() == Approx(2.5));
  CHECK(parts.at("shmem").as_double() == Approx(0.5));
  CHECK(parts.at("file").as_int64() == 510);
  CHECK(parts.at("kernel").as_int64() == 3);
  CHECK(parts.at("swap").is_null());  // not exported
  CHECK(parts.at("unit").as_string() == "MB");

  std::string text = render::terminal_text(report, false);
  INFO(text);
  CHECK(text.find("  Memory    3 MB resident at peak (0.1 % of 4000 MB); with page cache 516 MB (reclaimable)\n") !=
        std::string::npos);
  std::string mail = render::mail_text(report, "");
  INFO(mail);
  CHECK(mail.find("Memory: 3 MB resident at peak of 4000 MB allocated (0.1 %)\n") != std::string::npos);
  CHECK(mail.find("With page cache: 516 MB at peak (the cache is reclaimable)\n") != std::string::npos);

  // A page cache under 1 MB above the resident peak is not worth a mention.
  JobReport serial = serial_job();
  serial.usage.memory_peak_mb = 1500.5;
  CHECK(lines_starting(render::terminal_text(serial, false), "  Memory") ==
        std::vector<std::string>{"  Memory    1500 MB resident at peak (18.8 % of 8000 MB)"});
  std::string serial_mail = render::mail_text(serial, "");
  CHECK(lines_starting(serial_mail, "Memory:") ==
        std::vector<std::string>{"Memory: 1500 MB resident at peak of 8000 MB allocated (18.8 %)"});
  CHECK(lines_starting(serial_mail, "With page cache").empty());
}

TEST_CASE("the text and the mail list the figures that are missing and why", "[render]") {
  JobReport report = running_job();
  REQUIRE(report.usage.missing.size() == 1);
  const std::string& why = report.usage.missing.front();
  CHECK(render::terminal_text(report, false).find("  Missing   " + why + "\n") != std::string::npos);
  CHECK(collapsed(render::mail_text(report, "")).find("Missing: " + collapsed(why)) != std::string::npos);
}

TEST_CASE("json_text: one writer, three layouts", "[render]") {
  using petricore::render::json_text;
  using petricore::render::JsonLayout;
  namespace json = boost::json;
  json::value doc = json::object{
      {"user", {{"name", "alice"}, {"uid", 1001}}},
      {"tags", json::array{"a", "b"}},
      {"jobs", json::array{json::object{{"id", 1}}, json::object{{"id", 2}}}},
      {"none", json::array{}},
      {"mean", 12.5},
  };
  CHECK(json_text(doc, JsonLayout::Compact) ==
        R"({"user":{"name":"alice","uid":1001},"tags":["a","b"],"jobs":[{"id":1},{"id":2}],"none":[],"mean":12.5})");
  CHECK(json_text(doc, JsonLayout::Records) ==
        "{\n"
        "  \"user\": {\"name\": \"alice\", \"uid\": 1001},\n"
        "  \"tags\": [\"a\", \"b\"],\n"
        "  \"jobs\": [\n"
        "    {\"id\": 1},\n"
        "    {\"id\": 2}\n"
        "  ],\n"
        "  \"none\": [],\n"
        "  \"mean\": 12.5\n"
        "}");
  CHECK(json_text(json::object{{"a", json::array{1}}, {"b", json::object{}}}, JsonLayout::Pretty) ==
        "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}");
}

TEST_CASE("json_text: strings stay valid JSON and UTF-8; doubles read plainly", "[render]") {
  using petricore::render::json_text;
  using petricore::render::JsonLayout;
  namespace json = boost::json;
  CHECK(json_text(json::value("a \"b\" \\ c\n\x7f"), JsonLayout::Compact) == R"("a \"b\" \\ c\u000a\u007f")");
  CHECK(json_text(json::value("bad \xff byte, caf\xc3\xa9"), JsonLayout::Compact) ==
        "\"bad \\ufffd byte, caf\xc3\xa9\"");
  CHECK(json_text(json::object{{"k\x01", 0.1}}, JsonLayout::Compact) == R"({"k\u0001":0.1})");
  CHECK(json_text(json::value(1234.5678), JsonLayout::Compact) == "1234.5678");
  CHECK(json_text(json::value(std::nan("")), JsonLayout::Compact) == "null");
}
