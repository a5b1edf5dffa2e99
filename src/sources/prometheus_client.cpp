#include "sources/prometheus_client.hpp"

#include "sources/prometheus_answer.hpp"

#include "core/curl_library.hpp"
#include "core/encoding.hpp"
#include "core/http_url.hpp"
#include "core/log.hpp"
#include "core/one_line.hpp"
#include "core/startup_error.hpp"
#include "petricore_version.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

// Thread-safety: one PrometheusClient serves several threads at once (serve's
// workers). Each request leases a libcurl easy handle from a small pool under
// a mutex and gives it back afterwards, so requests run in parallel, never
// share a handle, and a handle's open connection is reused by the next
// request that leases it (keep-alive) instead of a new TCP handshake.

namespace petricore::sources {
namespace {

using model::Series;

constexpr std::size_t max_idle_handles = 8;
constexpr std::size_t max_response_bytes = 256u << 20;  // a runaway query must not eat the host
constexpr std::size_t max_get_query_bytes = 2000;       // longer parameters go in a POST body

// Epoch seconds and durations as Prometheus parses them: a decimal float,
// millisecond precision (its own resolution).
std::string seconds_text(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}

using Params = std::vector<std::pair<const char*, std::string>>;

// Every request also says nocache=1, which Prometheus, Thanos and Mimir
// ignore. VictoriaMetrics reads it as "answer this request as asked": left
// to cache, it moves an instant query within 30 s of now
// (-search.latencyOffset) 30 s back, so a running job's last 30 s go unseen
// (with a short scrape interval it reads as ended), and it rounds a range
// query of 50 steps or more out to multiples of the step, so a job's points
// would lie on other instants than Prometheus's (README, "Other stores than
// Prometheus").
constexpr const char* kNoCache = "nocache";

std::string form_encode(const Params& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (!out.empty()) out += '&';
    out += key;
    out += '=';
    out += percent_encode(value);  // application/x-www-form-urlencoded, as Prometheus reads it
  }
  return out;
}

// One pooled handle, and the answer its bytes are decoded into as libcurl
// receives them.
struct Connection {
  CurlEasy handle;
  std::optional<PrometheusAnswer> answer;  // the body, decoded as it arrives
  bool too_large = false;
  bool not_json = false;  // the body stopped being JSON: the rest was not read
  char error[CURL_ERROR_SIZE] = {};
};

// Returning less than was given aborts the transfer with CURLE_WRITE_ERROR.
size_t collect_body(char* data, size_t size, size_t count, void* user) {
  auto* connection = static_cast<Connection*>(user);
  const std::size_t n = size * count;
  if (connection->answer->size() + n > max_response_bytes) {
    connection->too_large = true;
    return 0;
  }
  if (!connection->answer->feed(std::string_view(data, n))) {
    connection->not_json = true;
    return 0;
  }
  return n;
}

}  // namespace

struct PrometheusClient::Impl {
  std::string base;   // validated, no trailing '/'
  std::string shown;  // base with credentials redacted, for messages
  long timeout_ms = 10000;
  std::atomic<int> requests{0};
  std::mutex mutex;  // guards idle
  std::vector<std::unique_ptr<Connection>> idle;

  // A handle for one request: an idle one (its connection may still be
  // open) or a new one. Loading libcurl may fail: that is a dependency
  // failure of this request, not a crash.
  Result<std::unique_ptr<Connection>> lease() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!idle.empty()) {
        std::unique_ptr<Connection> c = std::move(idle.back());
        idle.pop_back();
        return c;
      }
    }
    const CurlLibrary* lib = nullptr;
    try {
      lib = &curl_library();
    } catch (const std::exception& e) {
      return unavailable(std::string("cannot query Prometheus: ") + e.what());
    }
    auto c = std::make_unique<Connection>();
    c->handle.reset(lib->easy_init());
    if (!c->handle) return unavailable("cannot query Prometheus: cannot create a libcurl handle");
    CURL* h = c->handle.get();
    lib->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts: we run in threads
    lib->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    lib->easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    lib->easy_setopt(h, CURLOPT_USERAGENT, "petricore/" PETRICORE_VERSION);
    lib->easy_setopt(h, CURLOPT_ERRORBUFFER, c->error);
    lib->easy_setopt(h, CURLOPT_WRITEFUNCTION, collect_body);
    lib->easy_setopt(h, CURLOPT_WRITEDATA, c.get());
    lib->easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    // No Accept-Encoding: gzip would shrink a job's range answer about
    // ninefold, but Prometheus then spends 80-140 ms compressing the 0.5 MB
    // of a 4-node hour, while sending it uncompressed takes ~4 ms even over
    // a 1 Gb/s link (measured, test/bench/analysis_bench.sh).
    return c;
  }

  void give_back(std::unique_ptr<Connection> c) {
    c->answer.reset();  // an idle handle holds no answer's memory
    std::lock_guard<std::mutex> lock(mutex);
    if (idle.size() < max_idle_handles) idle.push_back(std::move(c));
  }

  Result<std::vector<Series>> run(const char* endpoint, const Params& params) {
    const std::string url = base + endpoint;
    const std::string shown_url = shown + endpoint;
    auto leased = lease();
    if (!leased) return leased.error();
    std::unique_ptr<Connection> c = std::move(leased.value());
    const CurlLibrary& lib = curl_library();  // loaded by lease()
    CURL* h = c->handle.get();

    // GET is what every proxy and cache in front of Prometheus allows; a
    // POST body (which the API accepts for the same endpoints) avoids URL
    // length limits for long queries.
    const std::string form = form_encode(params);
    std::string get_url;
    if (form.size() <= max_get_query_bytes) {
      get_url = url + "?" + form;
      lib.easy_setopt(h, CURLOPT_HTTPGET, 1L);
      lib.easy_setopt(h, CURLOPT_URL, get_url.c_str());
    } else {
      lib.easy_setopt(h, CURLOPT_URL, url.c_str());
      lib.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(form.size()));
      lib.easy_setopt(h, CURLOPT_POSTFIELDS, form.c_str());  // form-encoded is libcurl's default type
    }
    c->answer.emplace();
    c->too_large = false;
    c->not_json = false;
    c->error[0] = '\0';
    ++requests;
    const auto started = std::chrono::steady_clock::now();
    const CURLcode rc = lib.easy_perform(h);
    lib.easy_setopt(h, CURLOPT_POSTFIELDS, nullptr);  // `form` is about to go away
    const std::string prefix = "Prometheus query to " + shown_url + " failed: ";
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && c->not_json)) {
      std::string reason = c->too_large
                               ? "the answer is larger than " + std::to_string(max_response_bytes >> 20) + " MiB"
                               : std::string(lib.easy_strerror(rc));
      if (!c->too_large && c->error[0] != '\0') reason += " (" + one_line(c->error, 300) + ")";
      give_back(std::move(c));
      return unavailable(prefix + reason);
    }
    long status = 0;
    lib.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    // The body is decoded even for an HTTP error: Prometheus explains 400,
    // 422 and 503 in the same JSON ({"status":"error","errorType",...}).
    const auto received = std::chrono::steady_clock::now();
    PrometheusAnswer& answer = *c->answer;
    Result<std::vector<Series>> decoded = answer.finish();
    const bool api_error = answer.api_error();
    const std::string body_start = one_line(answer.start(), 200) + (answer.size() > answer.start().size() ? "..." : "");
    if (log::level() <= log::Level::Debug) {
      using ms = std::chrono::duration<double, std::milli>;
      char line[160];
      std::snprintf(line, sizeof line, "%s: HTTP %ld, %zu bytes received and decoded in %.1f ms: ", endpoint, status,
                    answer.size(), ms(received - started).count());
      log::debug(line + (decoded ? std::to_string(decoded->size()) + " series" : decoded.error().message) + " for " +
                 one_line(params.front().second, 160));
    }
    give_back(std::move(c));
    if (status >= 200 && status < 300) {
      if (decoded) return decoded;
      return unavailable(prefix + decoded.error().message);
    }
    std::string reason = "HTTP " + std::to_string(status);
    if (api_error) {
      reason += ", " + decoded.error().message;  // Prometheus's own errorType and error
    } else if (!body_start.empty()) {
      reason += ": " + body_start;  // a proxy's page
    }
    return unavailable(prefix + reason);
  }
};

PrometheusClient::PrometheusClient(PrometheusConfig config) : impl_(std::make_unique<Impl>()) {
  impl_->base = validated_base_url(config.url, "Prometheus URL");
  impl_->shown = one_line(redact_userinfo(impl_->base), 300);
  if (!(config.timeout_seconds > 0 && config.timeout_seconds <= 86400)) {
    throw StartupError("Prometheus timeout must be between 0 and 86400 seconds");
  }
  impl_->timeout_ms = std::max(1L, std::lround(config.timeout_seconds * 1000.0));
  // Load libcurl now (~15-25 ms with its TLS libraries) rather than in the
  // first request, which a server should answer as fast as the others. A
  // failure to load is reported by that first request instead.
  try {
    curl_library();
  } catch (const std::exception&) {
  }
}

PrometheusClient::~PrometheusClient() = default;

Result<std::vector<Series>> PrometheusClient::query_range(const std::string& promql, double start, double end,
                                                          double step) {
  if (!(step > 0) || !(end >= start)) {
    return bad_input("range query needs start <= end and a positive step (got start " + seconds_text(start) + ", end " +
                     seconds_text(end) + ", step " + seconds_text(step) + ")");
  }
  return impl_->run("/api/v1/query_range", {{"query", promql},
                                            {"start", seconds_text(start)},
                                            {"end", seconds_text(end)},
                                            {"step", seconds_text(step)},
                                            {kNoCache, "1"}});
}

Result<std::vector<Series>> PrometheusClient::query(const std::string& promql, double time) {
  return impl_->run("/api/v1/query", {{"query", promql}, {"time", seconds_text(time)}, {kNoCache, "1"}});
}

int PrometheusClient::requests() const {
  return impl_->requests.load();
}

const std::string& PrometheusClient::url() const {
  return impl_->shown;
}

}  // namespace petricore::sources
