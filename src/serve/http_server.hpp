// The HTTP/1.x server of `petricore serve`: Boost.Beast and Asio live only in
// http_server.cpp. It accepts connections on `threads` I/O threads, reads one
// request at a time per connection (keep-alive, HTTP/1.0 and 1.1), enforces
// the limits, and hands each request to an HttpService. Requests that may
// block (Prometheus, accounting, LDAP) run on a bounded pool of `workers`
// threads; when every worker is busy and the queue is full the server answers
// 503 at once instead of queueing without bound.
//
// Limits and what breaks them:
//   request line + headers > max_header_bytes  -> 431, connection closed
//   more than max_header_count header fields   -> 431, connection closed
//   a body larger than max_body_bytes          -> 413, connection closed
//   (GET needs no body; a small one is read and ignored)
//   malformed request                          -> 400, connection closed
//   no complete request within idle_timeout    -> connection closed
//   (also between keep-alive requests; a response write is bounded the same)
//   max_connections open already               -> 503 and closed at once
//   (before reading anything: a flood of idle connections cannot take
//   every file descriptor, and the ones open keep being served)
#pragma once

#include "core/listen_address.hpp"  // ServerOptions host and port come from one
#include "serve/http_types.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace petricore::serve {

// What the server calls; implemented by the application (serve_command.cpp)
// over the router. Handlers never see sockets.
class HttpService {
 public:
  virtual ~HttpService() = default;
  // Called once for each complete request, before the three calls below, on
  // the I/O thread: the place to attach to the request what they share (the
  // router's resolution of its path).
  virtual void prepare(HttpRequest& request) const = 0;
  // Builds the response; may block when runs_inline() said false. Runs on a
  // worker thread or an I/O thread, concurrently with other calls.
  virtual HttpResponse handle(const HttpRequest& request) = 0;
  // True when handle() is cheap and never blocks for this request: it then
  // runs on the I/O thread and is never refused for lack of workers.
  virtual bool runs_inline(const HttpRequest& request) const = 0;
  // Every response the server sends, its own refusals (431, 503, ...)
  // included, with the seconds from the complete request (or the refusal) to
  // the response being ready. `request` may be partly filled for refusals.
  virtual void observe(const HttpRequest& request, const HttpResponse& response, double seconds) = 0;
};

struct ServerOptions {
  std::string host = "127.0.0.1";  // an IP literal, "localhost", or "" for all IPv4 interfaces
  std::uint16_t port = 0;          // 0 = any free port (see HttpServer::port())
  std::size_t threads = 2;         // I/O threads
  std::size_t workers = 4;         // threads for blocking handlers
  std::size_t max_queued = 0;      // requests waiting for a worker; 0 = max(32, 8 x workers)
  std::size_t max_header_bytes = 16384;
  std::size_t max_header_count = 64;
  std::size_t max_body_bytes = 1024;
  double idle_timeout_seconds = 30;
  std::size_t max_connections = 0;    // open at once; 0 = from the file descriptor limit (max_connections_for)
  double stop_deadline_seconds = 10;  // graceful stop: in-flight requests get this long
};

// The connections a server may hold open under the process's file
// descriptor limit `fd_limit`, leaving room for what else it opens
// (Prometheus, the databases, LDAP, files): a quarter, at least 64, kept.
std::size_t max_connections_for(std::size_t fd_limit);

class HttpServer {
 public:
  // Binds and listens at once, so a port in use is known before start():
  // throws std::runtime_error ("cannot listen on HOST:PORT: <reason>").
  // `service` must outlive the server.
  HttpServer(ServerOptions options, HttpService& service);
  ~HttpServer();  // stop() if still running
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const;  // the bound port (useful with port 0)
  std::string host() const;    // the bound address as text

  // Starts the I/O threads and the workers; returns at once.
  void start();
  // Graceful stop: stops accepting, closes idle connections, lets requests
  // in flight finish and their responses be written, up to
  // stop_deadline_seconds; then closes the rest and joins every thread (a
  // handler already running is waited for: its own timeouts bound it).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace petricore::serve
