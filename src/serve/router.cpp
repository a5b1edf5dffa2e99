#include "serve/router.hpp"

#include "core/log.hpp"
#include "render/json_writer.hpp"

#include <boost/json.hpp>

#include <exception>
#include <memory>

namespace petricore::serve {

// ---- http_types.hpp (small enough to live with the router) ----

namespace {

char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

const std::string* HttpRequest::header(std::string_view name) const {
  for (const auto& h : headers) {
    if (iequals(h.name, name)) return &h.value;
  }
  return nullptr;
}

const std::string* HttpRequest::query_param(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return &value;
  }
  return nullptr;
}

const std::string* HttpResponse::header(std::string_view name) const {
  for (const auto& h : headers) {
    if (iequals(h.name, name)) return &h.value;
  }
  return nullptr;
}

std::optional<std::string> percent_decode(std::string_view in, bool plus_is_space) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      int hi = hex_value(in[i + 1]);
      int lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

bool split_target(std::string_view target, std::string& path, std::vector<std::pair<std::string, std::string>>& query) {
  // Absolute form (RFC 9112 3.2.2): keep only the path and query.
  for (std::string_view scheme : {"http://", "https://"}) {
    if (target.size() >= scheme.size() && iequals(target.substr(0, scheme.size()), scheme)) {
      std::string_view rest = target.substr(scheme.size());
      std::size_t slash = rest.find_first_of("/?");
      // "http://host?q" has an empty path: "/" below.
      target = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
      break;
    }
  }
  if (std::size_t hash = target.find('#'); hash != std::string_view::npos) target = target.substr(0, hash);
  std::size_t q = target.find('?');
  path = std::string(target.substr(0, q));
  if (path.empty()) path = "/";
  query.clear();
  if (q == std::string_view::npos) return true;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    std::size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    std::size_t eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), true);
    auto value = percent_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!key || !value) return false;
    query.emplace_back(std::move(*key), std::move(*value));
  }
  return true;
}

HttpRequest make_request(std::string method, std::string_view target, std::string remote_address) {
  HttpRequest request;
  request.method = std::move(method);
  request.target = std::string(target);
  request.remote_address = std::move(remote_address);
  split_target(target, request.path, request.query);
  return request;
}

HttpResponse json_error(int status, std::string_view message) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = render::json_text(boost::json::object{{"error", message}}, render::JsonLayout::Compact) + "\n";
  return response;
}

HttpResponse json_response(std::string body, int status) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = std::move(body);
  return response;
}

HttpResponse text_response(std::string body, int status) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

const char* status_reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Content Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

// ---- the router ----

PathSegments split_path(std::string_view raw_path) {
  PathSegments result;
  if (raw_path.empty() || raw_path.front() != '/') {
    result.error = "the path must start with '/'";
    return result;
  }
  std::string_view rest = raw_path.substr(1);
  while (true) {
    std::size_t slash = rest.find('/');
    std::string_view raw = rest.substr(0, slash);
    auto decoded = percent_decode(raw, false);
    if (!decoded) {
      result.error = "malformed percent-escape in the path";
      return result;
    }
    if (*decoded == "." || *decoded == "..") {
      result.error = "'.' and '..' are not allowed in the path";
      return result;
    }
    if (decoded->find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
      result.error = "encoded '/', '\\' or NUL in the path";
      return result;
    }
    result.segments.push_back(std::move(*decoded));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  return result;
}

namespace {

std::vector<std::string> pattern_segments(const std::string& pattern) {
  // Patterns are ours, never encoded: split on '/' only.
  std::vector<std::string> out;
  std::string_view rest(pattern);
  if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  while (true) {
    std::size_t slash = rest.find('/');
    out.emplace_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  return out;
}

bool is_param(const std::string& segment) {
  return segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

void Router::get(RouteInfo info, Handler handler) {
  routes_.push_back({pattern_segments(info.pattern), std::move(handler)});
  infos_.push_back(std::move(info));
}

ResolvedRoute Router::resolve(std::string_view raw_path) const {
  ResolvedRoute resolved;
  resolved.router = this;
  resolved.path = std::string(raw_path);
  PathSegments path = split_path(raw_path);
  if (!path.error.empty()) {
    resolved.error = std::move(path.error);
    return resolved;
  }
  const std::vector<std::string>& segments = path.segments;
  for (std::size_t r = 0; r < routes_.size(); ++r) {
    const Route& route = routes_[r];
    if (route.pattern.size() != segments.size()) continue;
    RouteParams captured;
    bool ok = true;
    for (std::size_t i = 0; i < segments.size() && ok; ++i) {
      const std::string& p = route.pattern[i];
      if (is_param(p)) {
        // A parameter never matches an empty segment ("/mail/" is not a job).
        if (segments[i].empty())
          ok = false;
        else
          captured[p.substr(1, p.size() - 2)] = segments[i];
      } else {
        ok = p == segments[i];
      }
    }
    if (!ok) continue;
    resolved.route = r;
    resolved.params = std::move(captured);
    resolved.label = infos_[r].pattern;
    resolved.runs_inline = infos_[r].inline_ok;
    return resolved;
  }
  return resolved;
}

void Router::attach(HttpRequest& request) const {
  request.route = std::make_shared<const ResolvedRoute>(resolve(request.path));
}

std::shared_ptr<const ResolvedRoute> Router::resolved(const HttpRequest& request) const {
  if (request.route && request.route->router == this && request.route->path == request.path) return request.route;
  return std::make_shared<const ResolvedRoute>(resolve(request.path));
}

HttpResponse Router::dispatch(const HttpRequest& request) const {
  std::shared_ptr<const ResolvedRoute> resolution = resolved(request);
  if (!resolution->error.empty()) return json_error(400, resolution->error);
  if (!resolution->route) return json_error(404, "no such route; see / for the list");
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse response = json_error(405, "only GET and HEAD are allowed");
    response.headers.push_back({"Allow", "GET, HEAD"});
    return response;
  }
  try {
    return routes_[*resolution->route].handler(request, resolution->params);
  } catch (const std::exception& e) {
    log::error(std::string("handler of ") + request.path + " failed: " + e.what());
  } catch (...) {
    log::error("handler of " + request.path + " failed with an unknown exception");
  }
  return json_error(500, "internal error");
}

std::string Router::route_name(const HttpRequest& request) const {
  return resolved(request)->label;
}

bool Router::runs_inline(const HttpRequest& request) const {
  return resolved(request)->runs_inline;
}

}  // namespace petricore::serve
