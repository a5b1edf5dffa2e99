// The Pushgateway sink: every pass replaces the node's whole group
// (job/<job>/instance/<instance>) with one HTTP PUT, so the series of jobs that
// ended are gone from the Pushgateway as soon as the next pass is pushed — no
// DELETE between passes, hence no moment without data. shutdown() deletes the
// group, so a node that stops collecting does not leave stale values behind.
//
// Built on libcurl rather than prometheus::Gateway, which has no timeouts and
// reports success without any I/O when nothing is registered.
#pragma once

#include "collect/error_counter.hpp"
#include "collect/sink.hpp"

#include <memory>
#include <string>

namespace petricore::collect {

struct PushTarget {
  std::string base_url;  // e.g. http://pushgateway:9091 (http:// or https://)
  std::string job = "jobs_exporter";
  std::string instance;
  double timeout_seconds = 5.0;  // connect timeout and whole-request timeout
};

// The group URL: <base_url without trailing '/'>/metrics/job/<job>/instance/<instance>.
// Label values are percent-escaped; a value that is empty or contains '/' uses
// the Pushgateway's `<label>@base64/<base64url value>` form, because a '/' is
// not safe in a path segment even when escaped.
// Throws StartupError (one-line message) when base_url does not start
// with http:// or https://, has no host, or carries a query or fragment, when
// job is empty, or when timeout_seconds is not in (0, 86400].
std::string push_group_url(const PushTarget& target);

// Validates the target as push_group_url does (throwing StartupError)
// and holds one libcurl handle, so the connection is kept alive across passes.
// publish() PUTs the pass's text exposition with Content-Type
// `text/plain; version=0.0.4`; a 2xx answer is success. Anything else (HTTP
// status, timeout, refused connection) is counted as error_source::push in
// `errors`, logged once per cause, and publish() returns false; the next pass
// simply tries again. shutdown() DELETEs the group (logged at info level;
// counted on failure). Credentials in base_url (http://user:pass@host) are
// used but never logged.
// `errors` must outlive the sink. Not thread-safe: one caller at a time.
// libcurl's global initialisation is done here, once per process.
std::unique_ptr<Sink> make_push_sink(const PushTarget& target, ErrorCounter& errors);

}  // namespace petricore::collect
