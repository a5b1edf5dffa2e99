// The petricore executable: parses the command line and the config file,
// then dispatches to a subcommand. Nothing else lives here.
#include "collect/collect_command.hpp"
#include "core/log.hpp"
#include "petricore_version.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <map>
#include <string>

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

void add_collect(CLI::App& app, petricore::collect::CollectOptions& o) {
  CLI::App* collect = app.add_subcommand("collect", "Export per-job metrics of this node's Slurm jobs (node daemon)");
  collect->add_flag("--once", o.once,
                    "Take one measurement, print the metrics to stdout and exit. CPU percent is measured "
                    "over --once-window seconds between two passes");
  collect->add_option("--once-window", o.once_window, "Seconds between the two passes of --once")
      ->capture_default_str();
  collect->add_option("--listen", o.listen,
                      "Serve /metrics on HOST:PORT or :PORT (default :9966 when no other sink is given)");
  collect->add_option("--push", o.push_url,
                      "Pushgateway base URL, e.g. http://localhost:9091 (PUT each interval, DELETE on stop)");
  collect->add_option("--push-timeout", o.push_timeout, "Seconds before a Pushgateway request is abandoned")
      ->capture_default_str();
  collect->add_option("--textfile", o.textfile,
                      "Write the metrics to this file each interval (atomic rename), e.g. for node_exporter");
  collect->add_option("--interval", o.interval, "Seconds between passes")->capture_default_str();
  collect->add_option("--instance", o.instance, "Value of the instance label (default: short host name)");
  collect->add_option("--cgroup-root", o.cgroup_root, "Where the cgroup hierarchies are mounted")
      ->capture_default_str();
  collect->add_option("--proc-root", o.proc_root, "Where procfs is mounted")->capture_default_str();
  collect->add_option("--layout", o.layout, "Job cgroup layout: auto, slurm-v1, slurm-v2 or pattern")
      ->capture_default_str();
  collect->add_option("--job-pattern", o.job_pattern,
                      "With --layout pattern: regex over cgroup paths relative to --cgroup-root, with a named group "
                      "(?<job>...) and optionally (?<uid>...)");
  collect->add_option("--scratch-prefix", o.scratch_prefixes, "Scratch file system prefix (repeatable)")
      ->capture_default_str();
  collect->add_option("--exclude-uid-file", o.exclude_uid_file, "File of UIDs, one per line, whose jobs are skipped");
  collect
      ->add_option("--max-proc-names", o.max_proc_names,
                   "jobs_thread_count names per job; the rest are summed as proc_name=\"other\"")
      ->capture_default_str();
}

// CLI11 words an unknown config key as "INI was not able to parse
// collect.intervall"; say which file and key instead.
std::string describe_config_error(CLI::App& app, const CLI::ConfigError& e) {
  std::string message = e.what();
  const std::string prefix = "INI was not able to parse ";
  std::string file = app["--config"]->as<std::string>();
  if (message.rfind(prefix, 0) != 0) return "config file " + file + ": " + message;
  std::string key = message.substr(prefix.size());
  std::string section;
  if (auto dot = key.rfind('.'); dot != std::string::npos) {
    section = key.substr(0, dot);
    key = key.substr(dot + 1);
  }
  return "config file " + file + ": unknown key '" + key + "'" + (section.empty() ? "" : " in [" + section + "]");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"petricore: how each Slurm job used the CPUs, memory, files and GPUs it asked for"};
  app.set_version_flag("--version", "petricore " PETRICORE_VERSION);
  app.set_config("--config", "/etc/petricore/petricore.toml", "TOML config file: one [section] per subcommand");
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "debug, info, warning or error")->capture_default_str();

  petricore::collect::CollectOptions collect_options;
  add_collect(app, collect_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ConfigError& e) {
    std::fprintf(stderr, "petricore: %s\n", describe_config_error(app, e).c_str());
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "petricore: %s\n", e.what());
    return kExitUsage;
  }

  static const std::map<std::string, petricore::log::Level> levels{{"debug", petricore::log::Level::Debug},
                                                                   {"info", petricore::log::Level::Info},
                                                                   {"warning", petricore::log::Level::Warning},
                                                                   {"error", petricore::log::Level::Error}};
  auto level = levels.find(log_level);
  if (level == levels.end()) {
    std::fprintf(stderr, "petricore: --log-level must be debug, info, warning or error\n");
    return kExitUsage;
  }
  petricore::log::set_level(level->second);

  try {
    if (app.got_subcommand("collect")) return petricore::collect::run_collect(collect_options);
  } catch (const petricore::collect::UsageError& e) {
    std::fprintf(stderr, "petricore: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "petricore: %s\n", e.what());
    return kExitFailure;
  }
  return kExitUsage;
}
