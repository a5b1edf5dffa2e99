// Maps a request's method and path to a handler. Paths are matched segment by
// segment after percent-decoding each segment; a request whose path could
// reach outside the route tree ("..", ".", an encoded slash or NUL, a bad
// escape) is refused with 400 before any handler runs. An unknown path is 404,
// a known path with a method other than GET or HEAD is 405 with Allow; all in
// the JSON error shape.
#pragma once

#include "serve/http_types.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::serve {

// The values of a pattern's {name} segments, decoded.
using RouteParams = std::map<std::string, std::string>;
using Handler = std::function<HttpResponse(const HttpRequest&, const RouteParams&)>;

struct RouteInfo {
  std::string pattern;      // "/api/v1/jobs/{jobid}/usage"; also the metrics label
  std::string description;  // one line for the index page
  std::string example;      // an example path for the index page ("" = none)
  // Cheap and never blocks (no Prometheus, DB, LDAP): answered on the I/O
  // thread, so /healthz answers even when every worker is busy.
  bool inline_ok = false;
};

// The decoded segments of a path ("/a/b%20c/" -> {"a", "b c", ""}), or the
// reason it is refused: not starting with '/', a bad percent escape, a
// segment that is "." or "..", or one that decodes to contain '/', '\\' or NUL.
struct PathSegments {
  std::vector<std::string> segments;
  std::string error;  // empty when valid
};
PathSegments split_path(std::string_view raw_path);

// Percent-decodes `in`; `plus_is_space` for query strings. nullopt on a
// malformed escape.
std::optional<std::string> percent_decode(std::string_view in, bool plus_is_space);

class Router;

// A path resolved against a router's routes: the route it matches, with its
// parameters, or why there is none.
struct ResolvedRoute {
  const Router* router = nullptr;    // the router that resolved it
  std::string path;                  // the path resolved, as the request has it
  std::string error;                 // why the path is refused (400); "" when it is valid
  std::optional<std::size_t> route;  // the match's index in Router::routes(); none: 404
  RouteParams params;                // the match's {name} segments, decoded
  // The match's pattern, or "unmatched" (a bounded metrics label).
  std::string label = "unmatched";
  // May be answered on the I/O thread: a route marked inline_ok, or a 400 or
  // 404, which cost no blocking work either.
  bool runs_inline = true;
};

class Router {
 public:
  // Registers a GET (and HEAD) route. Pattern segments "{name}" capture one
  // decoded segment; others match literally. A trailing "/" is significant.
  void get(RouteInfo info, Handler handler);

  // Splits and decodes `path`, then matches it against the routes in the
  // order they were registered (the first match wins).
  ResolvedRoute resolve(std::string_view path) const;
  // Resolves the request's path and attaches the result to it
  // (HttpRequest::route), so that the inline check, the metrics label and
  // the dispatch below match the path once.
  void attach(HttpRequest& request) const;
  // The request's attached resolution when this router made it for its
  // path; otherwise (a request built by hand, one refused before it was
  // complete) a fresh one.
  std::shared_ptr<const ResolvedRoute> resolved(const HttpRequest& request) const;

  // The response for a request: the handler's, or 400/404/405.
  HttpResponse dispatch(const HttpRequest& request) const;

  // The matched route's pattern, or "unmatched" (a bounded metrics label).
  std::string route_name(const HttpRequest& request) const;
  // True when the request's route may run on the I/O thread.
  bool runs_inline(const HttpRequest& request) const;

  const std::vector<RouteInfo>& routes() const { return infos_; }

 private:
  struct Route {
    std::vector<std::string> pattern;  // segments
    Handler handler;
  };

  std::vector<Route> routes_;
  std::vector<RouteInfo> infos_;
};

}  // namespace petricore::serve
