#include "serve/compression.hpp"

#include "core/deflate.hpp"

#include <cstdlib>
#include <string>

namespace petricore::serve {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The q-value of one Accept-Encoding element's parameters (";q=0.5"); 1
// when absent, 0 when malformed (a client that garbles it gets identity).
double q_value(std::string_view params) {
  while (!params.empty()) {
    std::size_t semi = params.find(';');
    std::string_view param = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
      std::string text(trim(param.substr(2)));
      char* end = nullptr;
      double q = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !(q >= 0 && q <= 1)) return 0;
      return q;
    }
  }
  return 1;
}

}  // namespace

bool accepts_gzip(const HttpRequest& request) {
  const std::string* header = request.header("Accept-Encoding");
  if (!header) return false;
  std::string_view rest = *header;
  double gzip_q = -1, any_q = -1;
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view element = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    std::size_t semi = element.find(';');
    std::string_view coding = trim(element.substr(0, semi));
    double q = semi == std::string_view::npos ? 1 : q_value(element.substr(semi + 1));
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) {
      gzip_q = q;
    } else if (coding == "*") {
      any_q = q;
    }
  }
  // A named gzip wins over "*" (RFC 9110 §12.5.3).
  return gzip_q >= 0 ? gzip_q > 0 : any_q > 0;
}

bool compressible(std::string_view content_type) {
  std::string_view type = trim(content_type.substr(0, content_type.find(';')));
  auto starts = [&](std::string_view prefix) {
    return type.size() >= prefix.size() && iequals(type.substr(0, prefix.size()), prefix);
  };
  return starts("text/") || iequals(type, "application/json") || iequals(type, "application/xml") ||
         iequals(type, "image/svg+xml");
}

bool should_gzip(const HttpRequest& request, std::string_view content_type, std::size_t body_bytes) {
  return compressible(content_type) && body_bytes >= kMinCompressBytes && accepts_gzip(request);
}

void gzip_response(const HttpRequest& request, HttpResponse& response, int level) {
  if (!compressible(response.content_type)) return;
  if (!response.header("Vary")) response.headers.push_back({"Vary", "Accept-Encoding"});
  if (response.header("Content-Encoding") || !should_gzip(request, response.content_type, response.body.size())) return;
  std::string compressed = deflate_bytes(response.body, level, DeflateWrapper::Gzip);
  if (compressed.size() >= response.body.size()) return;
  response.body = std::move(compressed);
  response.headers.push_back({"Content-Encoding", "gzip"});
}

}  // namespace petricore::serve
