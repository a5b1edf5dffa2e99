#include "collect/push_sink.hpp"

#include "collect/exposition.hpp"
#include "collect/metrics.hpp"
#include "core/curl_library.hpp"
#include "core/encoding.hpp"
#include "core/http_url.hpp"
#include "core/log.hpp"
#include "core/startup_error.hpp"
#include "petricore_version.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace petricore::collect {
namespace {

// The base URL without trailing slashes; throws StartupError.
std::string validated_push_url(const std::string& url) {
  std::string base = validated_base_url(url, "push URL");
  // libcurl's own parser, so that a malformed URL is a start-up error rather
  // than a failed push every interval.
  const CurlLibrary& curl = curl_library();
  std::unique_ptr<CURLU, decltype(curl.url_cleanup)> parsed(curl.url(), curl.url_cleanup);
  if (!parsed) throw std::runtime_error("cannot parse URLs (out of memory)");
  const CURLUcode rc = curl.url_set(parsed.get(), CURLUPART_URL, base.c_str(), 0);
  if (rc != CURLUE_OK) {
    throw StartupError("push URL '" + redact_userinfo(base) + "' is malformed: " + curl.url_strerror(rc));
  }
  return base;
}

// "/<label>/<value>" in the form the Pushgateway's grouping-key paths accept.
std::string grouping_segment(std::string_view label, std::string_view value) {
  std::string out = "/";
  out += label;
  if (value.empty()) {
    out += "@base64/=";  // the Pushgateway's spelling of an empty value
  } else if (value.find('/') != std::string_view::npos) {
    out += "@base64/";
    out += base64url(value);
  } else {
    out += '/';
    out += percent_encode(value);
  }
  return out;
}

// Keeps the start of the answer's body: the Pushgateway explains a 400 there.
size_t keep_body_start(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  constexpr std::size_t max_kept = 300;
  const std::size_t n = size * count;
  if (body->size() < max_kept) body->append(data, std::min(n, max_kept - body->size()));
  return n;
}

std::string first_line(std::string_view text) {
  const std::size_t end = text.find_first_of("\r\n");
  return std::string(text.substr(0, end));
}

class PushSink final : public Sink {
 public:
  PushSink(const PushTarget& target, ErrorCounter& errors)
      : url_(push_group_url(target)), log_url_(redact_userinfo(url_)), errors_(errors) {
    curl_.reset(lib_.easy_init());
    if (!curl_) throw std::runtime_error("cannot create a libcurl handle");

    std::string content_type = "Content-Type: ";
    content_type += text_content_type;
    append_header(content_type.c_str());
    // No "Expect: 100-continue" round trip for large bodies.
    append_header("Expect:");

    const long timeout_ms = std::max(1L, std::lround(target.timeout_seconds * 1000.0));
    CURL* h = curl_.get();
    lib_.easy_setopt(h, CURLOPT_URL, url_.c_str());
    lib_.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts; we have threads
    lib_.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    lib_.easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    lib_.easy_setopt(h, CURLOPT_USERAGENT, "petricore/" PETRICORE_VERSION);
    lib_.easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer_);
    lib_.easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_body_start);
    lib_.easy_setopt(h, CURLOPT_WRITEDATA, &response_body_);
  }

  bool publish(const Exposition& pass) override {
    const std::string& body = pass.text();
    CURL* h = curl_.get();
    lib_.easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    lib_.easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
    lib_.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    lib_.easy_setopt(h, CURLOPT_HTTPHEADER, headers_.get());
    const bool ok = perform("push to ", "");
    // The body is about to go out of scope: do not leave libcurl pointing at it.
    lib_.easy_setopt(h, CURLOPT_POSTFIELDS, nullptr);
    if (ok) {
      if (failures_ > 0) {
        log::info("push to " + log_url_ + " works again after " + std::to_string(failures_) + " failed attempt(s)");
      } else if (!pushed_once_) {
        log::info("pushing to " + log_url_);
      }
      failures_ = 0;
      pushed_once_ = true;
    } else {
      ++failures_;
    }
    return ok;
  }

  void shutdown() override {
    CURL* h = curl_.get();
    lib_.easy_setopt(h, CURLOPT_HTTPGET, 1L);  // forget any request body
    lib_.easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
    lib_.easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
    // Its own causes: a failed DELETE must be logged even when pushes
    // already failed the same way, since it leaves stale series behind.
    if (perform("deleting push group ", "DELETE ")) log::info("deleted push group " + log_url_);
  }

  std::string name() const override { return "push"; }

 private:
  void append_header(const char* header) {
    curl_slist* list = lib_.slist_append(headers_.get(), header);
    if (!list) throw std::runtime_error("cannot build HTTP headers (out of memory)");
    if (!headers_) headers_.reset(list);  // later appends return the same head
  }

  // Runs the request set up on the handle; on failure counts and logs it,
  // with `what` ("push to ") starting the logged sentence and
  // `cause_prefix` telling apart the causes of different requests.
  bool perform(const char* what, const char* cause_prefix) {
    response_body_.clear();
    error_buffer_[0] = '\0';
    const CURLcode rc = lib_.easy_perform(curl_.get());
    if (rc != CURLE_OK) {
      std::string detail = std::string(what) + log_url_ + " failed: " + lib_.easy_strerror(rc);
      if (error_buffer_[0] != '\0') detail += std::string(" (") + error_buffer_ + ")";
      // The cause is the stable curl_easy_strerror text, not the error
      // buffer, which carries timings and would defeat log-once.
      errors_.count(error_source::push, std::string(cause_prefix) + lib_.easy_strerror(rc), detail);
      return false;
    }
    long status = 0;
    lib_.easy_getinfo(curl_.get(), CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300) return true;
    const std::string cause = std::string(cause_prefix) + "HTTP " + std::to_string(status);
    std::string detail = std::string(what) + log_url_ + " failed: HTTP " + std::to_string(status);
    const std::string reason = first_line(response_body_);
    if (!reason.empty()) detail += ": " + reason;
    errors_.count(error_source::push, cause, detail);
    return false;
  }

  const CurlLibrary& lib_ = curl_library();
  const std::string url_;
  const std::string log_url_;
  ErrorCounter& errors_;
  CurlEasy curl_;
  CurlSlist headers_;
  std::string response_body_;
  char error_buffer_[CURL_ERROR_SIZE] = {};
  unsigned long failures_ = 0;
  bool pushed_once_ = false;
};

}  // namespace

std::string push_group_url(const PushTarget& target) {
  std::string url = validated_push_url(target.base_url);
  if (target.job.empty()) throw StartupError("push job name must not be empty");
  if (!(target.timeout_seconds > 0 && target.timeout_seconds <= 86400)) {
    throw StartupError("push timeout must be between 0 and 86400 seconds");
  }
  url += "/metrics";
  url += grouping_segment("job", target.job);
  url += grouping_segment("instance", target.instance);
  return url;
}

std::unique_ptr<Sink> make_push_sink(const PushTarget& target, ErrorCounter& errors) {
  return std::make_unique<PushSink>(target, errors);
}

}  // namespace petricore::collect
