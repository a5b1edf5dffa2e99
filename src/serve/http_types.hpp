// The request and response as the handlers see them: plain values, no
// sockets, no Beast. The server (http_server.cpp) fills an HttpRequest from
// the wire and writes an HttpResponse back; unit tests build them by hand.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace petricore::serve {

struct ResolvedRoute;  // router.hpp

struct HttpHeader {
  std::string name;
  std::string value;
};

// Case-insensitive ASCII comparison, as HTTP field names compare.
bool iequals(std::string_view a, std::string_view b);

struct HttpRequest {
  std::string method = "GET";                              // as sent: GET, HEAD, POST, ...
  std::string target;                                      // the raw request target: "/api/v1/jobs/1/usage?x=y"
  std::string path;                                        // the target's path, still percent-encoded
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  std::vector<HttpHeader> headers;
  std::string remote_address;  // peer IP as text ("127.0.0.1", "::1"); v4-mapped v6 given as v4
  int version = 11;            // 10 = HTTP/1.0, 11 = HTTP/1.1
  // The router's resolution of `path`, attached once when the request is
  // complete (HttpService::prepare, Router::attach): the server then asks
  // three things of the request (may it run inline, its response, its
  // metrics label) and each answer reads this one match.
  std::shared_ptr<const ResolvedRoute> route;

  // The first header of that name (case-insensitive), or nullptr.
  const std::string* header(std::string_view name) const;
  // The first query parameter of that name, or nullptr.
  const std::string* query_param(std::string_view name) const;
};

// Splits a raw target into path and decoded query parameters. False when the
// query is malformed (a bad percent escape); the path is left encoded: the
// router decodes it segment by segment.
bool split_target(std::string_view target, std::string& path, std::vector<std::pair<std::string, std::string>>& query);

// A request for `target` (tests and the server build requests this way).
HttpRequest make_request(std::string method, std::string_view target, std::string remote_address = "127.0.0.1");

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<HttpHeader> headers;  // extra headers (Allow, Retry-After, Cache-Control, ...)

  const std::string* header(std::string_view name) const;
};

// {"error": "<message>"} with that status: every JSON error has this shape
// (render::json_text escapes the message).
HttpResponse json_error(int status, std::string_view message);
HttpResponse json_response(std::string body, int status = 200);
HttpResponse text_response(std::string body, int status = 200);

// The reason phrase of a status ("Not Found"); "Unknown" for others.
const char* status_reason(int status);

}  // namespace petricore::serve
