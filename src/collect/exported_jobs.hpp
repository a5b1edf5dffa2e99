// Which job samples the sinks export: the running jobs, and each ended job's
// final sample for `linger` seconds after the collector saw it end, so that
// a scrape (of /metrics, the textfile or the Pushgateway) taken after the end
// still finds the job's last readings. A job running again under the same id
// (a requeue) is exported as running, its lingering sample dropped.
#pragma once

#include "collect/job_sample.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace petricore::collect {

class ExportedJobs {
 public:
  explicit ExportedJobs(double linger_seconds) : linger_(linger_seconds) {}

  // A full pass: `running` replaces the running jobs.
  void set_running(std::vector<JobSample> running);
  // A job the watch saw start (its first full sample).
  void start(JobSample sample);
  // A job that ended, with its final sample: it leaves the running jobs and
  // lingers until `now` + linger.
  void end(JobSample final_sample, double now);

  // What to export at `now`: the running jobs, then the lingering ones, by
  // job id; lingering samples whose time is up are dropped.
  std::vector<JobSample> current(double now);
  std::size_t running() const { return running_.size(); }
  std::size_t lingering() const { return lingering_.size(); }

 private:
  struct Lingering {
    JobSample sample;
    double until = 0;
  };
  double linger_;
  std::map<std::string, JobSample> running_;
  std::map<std::string, Lingering> lingering_;
};

}  // namespace petricore::collect
