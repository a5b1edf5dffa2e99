// The pull sink: an HTTP server answering GET /metrics with the latest
// published snapshot (prometheus-cpp's Exposer on civetweb). A scrape never
// triggers a collection pass; it reads what the last pass published, so a
// scrape costs the same whatever the scrape interval. prometheus-cpp adds its
// own exposer_* families (scrape counts, bytes, latencies) to every answer.
#pragma once

#include "collect/sink.hpp"

#include <memory>
#include <string>
#include <vector>

namespace petricore::collect {

// Converts a --listen value to civetweb's `listening_ports` syntax:
//   "HOST:PORT"   -> "A.B.C.D:PORT" (a host name is resolved to its first IPv4 address)
//   ":PORT"       -> "PORT"          (all IPv4 addresses)
//   "[V6]:PORT"   -> "[V6]:PORT"     (only if civetweb was built with IPv6;
//                                     Debian 12's civetweb 1.15 was not)
// PORT is 0..65535; 0 picks a free port (see PullSink::listening_ports).
// Throws StartupError on a malformed value and std::runtime_error
// when HOST cannot be resolved, both with a one-line message.
std::string civetweb_listening_ports(const std::string& listen);

class PullSink final : public Sink {
 public:
  // Starts listening at once. Throws StartupError for a malformed
  // `listen`, std::runtime_error "cannot listen on <listen>: <reason>" when
  // the address cannot be bound (in use, not local, no permission).
  explicit PullSink(const std::string& listen);
  // Stops the server. Blocks up to ~2 s once a scrape has been served
  // (civetweb waits for its worker threads).
  ~PullSink() override;
  PullSink(const PullSink&) = delete;
  PullSink& operator=(const PullSink&) = delete;

  // Replaces what is served; the previous pass, with the series of jobs that
  // ended since, is no longer served. Never fails. Thread-safe against
  // concurrent scrapes, which build the families from the pass's jobs.
  bool publish(const Exposition& pass) override;
  std::string name() const override { return "pull"; }

  // The bound ports, in order (the real port when 0 was asked for).
  std::vector<int> listening_ports() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A PullSink as a Sink (same exceptions as the PullSink constructor).
std::unique_ptr<Sink> make_pull_sink(const std::string& listen);

}  // namespace petricore::collect
