// serve/http_server on a real server over loopback sockets: its cap on open
// connections (one past max_connections is answered 503 and closed before
// anything is read, the open ones go on being served, a place freed is taken
// again; the default cap follows the open-file limit), and the headers it
// adds to every answer.
#include "serve/http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "catch.hpp"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

using namespace petricore;
using namespace petricore::serve;

namespace {

class OkService : public HttpService {
 public:
  void prepare(HttpRequest&) const override {}
  HttpResponse handle(const HttpRequest&) override { return HttpResponse{200, "text/plain", "ok", {}}; }
  bool runs_inline(const HttpRequest&) const override { return true; }
  void observe(const HttpRequest&, const HttpResponse& response, double) override {
    if (response.status == 503) ++refused;
  }
  std::atomic<int> refused{0};
};

// Answers "ok" as the type its path names.
class TypedService : public HttpService {
 public:
  void prepare(HttpRequest&) const override {}
  HttpResponse handle(const HttpRequest& request) override {
    HttpResponse response{200, "application/json", "ok", {}};
    if (request.path == "/page") response.content_type = "text/html; charset=utf-8";
    if (request.path == "/chart.svg") response.content_type = "image/svg+xml";
    if (request.path == "/own") {
      response.content_type = "text/html; charset=utf-8";
      response.headers.push_back({"Content-Security-Policy", "default-src 'self'"});
    }
    return response;
  }
  bool runs_inline(const HttpRequest&) const override { return true; }
  void observe(const HttpRequest&, const HttpResponse&, double) override {}
};

// A connected loopback socket, closed with the object.
class Client {
 public:
  explicit Client(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void send(const std::string& text) { REQUIRE(::write(fd_, text.data(), text.size()) == ssize_t(text.size())); }
  // What arrives until the peer closes or `ms` pass without data.
  std::string receive(int ms = 2000) {
    std::string out;
    char buffer[4096];
    pollfd p{fd_, POLLIN, 0};
    while (::poll(&p, 1, ms) > 0) {
      ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n <= 0) break;
      out.append(buffer, static_cast<std::size_t>(n));
      if (out.find("\r\n\r\nok") != std::string::npos) break;  // a whole answer of OkService
    }
    return out;
  }

 private:
  int fd_;
};

const std::string kGet = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

}  // namespace

TEST_CASE("a connection past max_connections gets 503 and the open ones are still served", "[http_server]") {
  OkService service;
  ServerOptions options;
  options.port = 0;
  options.max_connections = 2;
  HttpServer server(options, service);
  server.start();
  {
    Client first(server.port()), second(server.port());
    // Both are sessions once a request went through each.
    first.send(kGet);
    CHECK(first.receive().find("200 OK") != std::string::npos);
    second.send(kGet);
    CHECK(second.receive().find("200 OK") != std::string::npos);

    Client third(server.port());
    const std::string refusal = third.receive();
    CHECK(refusal.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0) == 0);
    CHECK(refusal.find("Retry-After: 1\r\n") != std::string::npos);
    CHECK(refusal.find("{\"error\": \"too many open connections\"}") != std::string::npos);
    // Counted just after the refusal is sent: the client may read it first.
    for (int i = 0; i < 100 && service.refused == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(service.refused == 1);

    first.send(kGet);  // keep-alive: the first is still served
    CHECK(first.receive().find("200 OK") != std::string::npos);
  }
  // The places are free again (the sessions end as their peers close).
  std::string answer;
  for (int i = 0; i < 50 && answer.find("200 OK") == std::string::npos; ++i) {
    Client again(server.port());
    again.send(kGet);
    answer = again.receive();
    if (answer.find("200 OK") == std::string::npos) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(answer.find("200 OK") != std::string::npos);
  server.stop();
}

TEST_CASE("the default connection cap keeps a quarter of the open-file limit, at least 64", "[http_server]") {
  CHECK(max_connections_for(1024) == 768);
  CHECK(max_connections_for(65536) == 49152);
  CHECK(max_connections_for(200) == 136);  // 64 kept
  CHECK(max_connections_for(64) == 16);    // never below 16
}

TEST_CASE("every answer forbids type sniffing; pages and SVG charts may load and run nothing else", "[http_server]") {
  TypedService service;
  ServerOptions options;
  options.port = 0;
  HttpServer server(options, service);
  server.start();
  const std::string policy =
      "Content-Security-Policy: default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; "
      "frame-ancestors 'none'; base-uri 'none'\r\n";
  auto get = [&](const std::string& path) {
    Client client(server.port());
    client.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
    return client.receive();
  };
  for (const char* path : {"/page", "/chart.svg", "/json", "/own"}) {
    INFO(path);
    const std::string answer = get(path);
    CHECK(answer.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    CHECK(answer.find("X-Content-Type-Options: nosniff\r\n") != std::string::npos);
  }
  CHECK(get("/page").find(policy) != std::string::npos);
  CHECK(get("/chart.svg").find(policy) != std::string::npos);
  CHECK(get("/json").find("Content-Security-Policy") == std::string::npos);  // not a document
  const std::string own = get("/own");  // a handler's own policy is kept, not doubled
  CHECK(own.find("Content-Security-Policy: default-src 'self'\r\n") != std::string::npos);
  CHECK(own.find(policy) == std::string::npos);
  server.stop();
}
