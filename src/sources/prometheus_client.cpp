#include "sources/prometheus_client.hpp"

#include "core/curl_library.hpp"
#include "core/encoding.hpp"
#include "core/http_url.hpp"
#include "core/log.hpp"
#include "core/startup_error.hpp"
#include "petricore_version.hpp"

#include <curl/curl.h>
#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <utility>

// Thread-safety: one PrometheusClient serves several threads at once (serve's
// workers). Each request leases a libcurl easy handle from a small pool under
// a mutex and gives it back afterwards, so requests run in parallel, never
// share a handle, and a handle's open connection is reused by the next
// request that leases it (keep-alive) instead of a new TCP handshake.

namespace petricore::sources {
namespace {

using model::Sample;
using model::Series;
namespace json = boost::json;

constexpr std::size_t max_idle_handles = 8;
constexpr std::size_t max_response_bytes = 256u << 20;  // a runaway query must not eat the host
constexpr std::size_t max_get_query_bytes = 2000;       // longer parameters go in a POST body

// Control characters (a multi-line error from a proxy) would break the
// one-line error contract.
std::string one_line(std::string_view text, std::size_t max_size = 300) {
  std::string out;
  for (char c : text.substr(0, max_size)) out += std::iscntrl(static_cast<unsigned char>(c)) ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (text.size() > max_size) out += "...";
  return out;
}

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

// Prometheus sends "NaN", "+Inf", "-Inf" and plain decimals, always as
// strings. std::from_chars is locale-independent (unlike strtod) but takes
// no leading '+'.
bool parse_sample_value(std::string_view text, double& out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

Error malformed(std::string why) {
  return unavailable("malformed response: " + std::move(why));
}

// One [<time>, "<value>"] pair.
bool decode_sample(const json::value& pair, Sample& out, std::string& why) {
  const json::array* a = pair.if_array();
  if (!a || a->size() != 2) {
    why = "a sample is not a [time, \"value\"] pair";
    return false;
  }
  json::error_code ec;
  out.time = (*a)[0].to_number<double>(ec);
  if (ec) {
    why = "a sample time is not a number";
    return false;
  }
  // Boost.JSON reads 75e6760 as infinity: no instant, and the analysis
  // would divide by durations built from it.
  if (!std::isfinite(out.time)) {
    why = "a sample time is not finite";
    return false;
  }
  const json::string* text = (*a)[1].if_string();
  if (!text) {
    why = "a sample value is not a string";
    return false;
  }
  if (!parse_sample_value(std::string_view(text->data(), text->size()), out.value)) {
    why = "sample value '" + one_line(std::string_view(text->data(), text->size()), 40) + "' is not a number";
    return false;
  }
  return true;
}

bool decode_labels(const json::value* metric, Series& out, std::string& why) {
  if (!metric) return true;  // absent: no labels
  const json::object* labels = metric->if_object();
  if (!labels) {
    why = "\"metric\" is not an object";
    return false;
  }
  for (const auto& [name, value] : *labels) {
    const json::string* text = value.if_string();
    if (!text) {
      why = "label '" + one_line(std::string_view(name.data(), name.size()), 40) + "' is not a string";
      return false;
    }
    out.labels.emplace(std::string(name.data(), name.size()), std::string(text->data(), text->size()));
  }
  return true;
}

// A "matrix" (values) or "vector" (value) element.
bool decode_series(const json::value& element, bool matrix, Series& out, std::string& why) {
  const json::object* object = element.if_object();
  if (!object) {
    why = "a result element is not an object";
    return false;
  }
  if (!decode_labels(object->if_contains("metric"), out, why)) return false;
  if (matrix) {
    // A series with native-histogram samples only has "histograms" and no
    // "values": it has no float samples for us.
    const json::value* values = object->if_contains("values");
    if (!values) return true;
    const json::array* list = values->if_array();
    if (!list) {
      why = "\"values\" is not an array";
      return false;
    }
    out.samples.reserve(list->size());
    for (const json::value& pair : *list) {
      Sample sample;
      if (!decode_sample(pair, sample, why)) return false;
      out.samples.push_back(sample);
    }
    return true;
  }
  const json::value* value = object->if_contains("value");
  if (!value) return true;  // a histogram sample
  Sample sample;
  if (!decode_sample(*value, sample, why)) return false;
  out.samples.push_back(sample);
  return true;
}

std::string string_field(const json::object& object, std::string_view key) {
  // Spelled out: Boost 1.75's json::string_view does not convert from std::string_view.
  const json::value* value = object.if_contains(json::string_view(key.data(), key.size()));
  const json::string* text = value ? value->if_string() : nullptr;
  return text ? std::string(text->data(), text->size()) : std::string();
}

Result<std::vector<Series>> decode(std::string_view body, bool& api_error);  // below

// One pooled handle and the buffers libcurl writes into while it works.
struct Connection {
  CurlEasy handle;
  std::string body;
  bool too_large = false;
  char error[CURL_ERROR_SIZE] = {};
};

size_t collect_body(char* data, size_t size, size_t count, void* user) {
  auto* connection = static_cast<Connection*>(user);
  const std::size_t n = size * count;
  if (connection->body.size() + n > max_response_bytes) {
    connection->too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  connection->body.append(data, n);
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
    c->body.clear();
    c->body.shrink_to_fit();  // an idle handle should not hold a large answer's memory
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
    c->body.clear();
    c->too_large = false;
    c->error[0] = '\0';
    ++requests;
    const auto started = std::chrono::steady_clock::now();
    const CURLcode rc = lib.easy_perform(h);
    lib.easy_setopt(h, CURLOPT_POSTFIELDS, nullptr);  // `form` is about to go away
    const std::string prefix = "Prometheus query to " + shown_url + " failed: ";
    if (rc != CURLE_OK) {
      std::string reason = c->too_large
                               ? "the answer is larger than " + std::to_string(max_response_bytes >> 20) + " MiB"
                               : std::string(lib.easy_strerror(rc));
      if (!c->too_large && c->error[0] != '\0') reason += " (" + one_line(c->error) + ")";
      give_back(std::move(c));
      return unavailable(prefix + reason);
    }
    long status = 0;
    lib.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    // The body is decoded even for an HTTP error: Prometheus explains 400,
    // 422 and 503 in the same JSON ({"status":"error","errorType",...}).
    const auto received = std::chrono::steady_clock::now();
    bool api_error = false;
    Result<std::vector<Series>> decoded = decode(c->body, api_error);
    const std::string body_start = one_line(c->body, 200);
    if (log::level() <= log::Level::Debug) {
      using ms = std::chrono::duration<double, std::milli>;
      char line[160];
      std::snprintf(line, sizeof line, "%s: HTTP %ld, %zu bytes in %.1f ms, decoded in %.1f ms: ", endpoint, status,
                    c->body.size(), ms(received - started).count(),
                    ms(std::chrono::steady_clock::now() - received).count());
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
  impl_->shown = one_line(redact_userinfo(impl_->base));
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

namespace {

// decode_query_response, also telling whether an error is Prometheus's own
// answer ({"status":"error"}) rather than a body that is not the API's.
Result<std::vector<Series>> decode(std::string_view body, bool& api_error) {
  api_error = false;
  json::error_code ec;
  // The parsed document only lives until its series are copied out: a
  // monotonic arena makes its many small allocations nearly free.
  json::monotonic_resource arena;
  const json::value document = json::parse(json::string_view(body.data(), body.size()), ec, &arena);
  if (ec) {
    if (body.empty()) return malformed("empty body");
    return malformed("not JSON (" + ec.message() + "): " + one_line(body, 80));
  }
  const json::object* root = document.if_object();
  if (!root) return malformed("not a JSON object");
  const std::string status = string_field(*root, "status");
  if (status == "error") {
    std::string type = string_field(*root, "errorType");
    std::string error = string_field(*root, "error");
    if (type.empty()) type = "error";
    api_error = true;
    return unavailable(one_line(type, 60) + ": " + (error.empty() ? "(no reason given)" : one_line(error)));
  }
  if (status != "success") return malformed("\"status\" is neither \"success\" nor \"error\"");

  if (const json::value* warnings = root->if_contains("warnings")) {
    if (const json::array* list = warnings->if_array()) {
      for (const json::value& w : *list) {
        if (const json::string* text = w.if_string()) {
          log::debug("Prometheus warning: " + one_line(std::string_view(text->data(), text->size())));
        }
      }
    }
  }

  const json::value* data_value = root->if_contains("data");
  const json::object* data = data_value ? data_value->if_object() : nullptr;
  if (!data) return malformed("no \"data\" object");
  const std::string type = string_field(*data, "resultType");
  const json::value* result = data->if_contains("result");
  if (!result) return malformed("no \"data.result\"");

  std::vector<Series> series;
  std::string why;
  if (type == "matrix" || type == "vector") {
    const json::array* elements = result->if_array();
    if (!elements) return malformed("\"data.result\" is not an array");
    series.reserve(elements->size());
    for (const json::value& element : *elements) {
      Series s;
      if (!decode_series(element, type == "matrix", s, why)) return malformed(why);
      series.push_back(std::move(s));
    }
    return series;
  }
  if (type == "scalar") {
    Series s;
    if (!decode_sample(*result, s.samples.emplace_back(), why)) return malformed(why);
    series.push_back(std::move(s));
    return series;
  }
  if (type == "string") return malformed("a string result, where series were expected");
  return malformed("unknown resultType '" + one_line(type, 40) + "'");
}

}  // namespace

Result<std::vector<Series>> decode_query_response(std::string_view body) {
  bool api_error = false;
  return decode(body, api_error);
}

}  // namespace petricore::sources
