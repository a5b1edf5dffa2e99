// The server in the Beast examples' three parts: the listener (accept loop),
// the session (one connection: read, dispatch, write, keep-alive, timeouts)
// and, outside this file, the router behind HttpService. The only translation
// unit that includes Beast.
#include "serve/http_server.hpp"

#include "core/log.hpp"
#include "core/open_file_limit.hpp"
#include "serve/worker_pool.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <vector>

namespace petricore::serve {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxDrainBytes = 1 << 20;  // read and dropped before closing
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

bool is_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Handlers' headers go on the wire only when they cannot split the response.
bool safe_header(const HttpHeader& h) {
  return !h.name.empty() && std::all_of(h.name.begin(), h.name.end(), is_token_char) &&
         h.value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos;
}

// The pages and SVG charts hold everything they show: one inline <style>,
// charts as data: images, no script. A browser may load nothing else for
// them, run nothing, and show them in no other site's frame, so a value
// that slipped through escaping could not load or run anything either.
constexpr const char* kDocumentPolicy =
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

bool is_document(std::string_view content_type) {
  return content_type.rfind("text/html", 0) == 0 || content_type.rfind("image/svg+xml", 0) == 0;
}

std::string address_text(const net::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6()).to_string();
  }
  return address.to_string();
}

class Session;

// Everything the listener and the sessions share. Member order matters for
// destruction: the workers go first (queued tasks own sessions), then the
// io_context (its pending handlers own sessions), and the session registry
// last (a session's destructor unregisters itself).
struct Core {
  Core(ServerOptions o, HttpService& s)
      : options(std::move(o)),
        service(s),
        ioc(static_cast<int>(std::max<std::size_t>(1, options.threads))),
        acceptor(net::make_strand(ioc)),
        accept_retry(acceptor.get_executor()),
        workers(std::max<std::size_t>(1, options.workers),
                options.max_queued != 0 ? options.max_queued : std::max<std::size_t>(32, 8 * options.workers)),
        max_connections(options.max_connections != 0 ? options.max_connections
                                                     : max_connections_for(open_file_limit())) {}

  void do_accept();
  void on_accept(beast::error_code ec, tcp::socket socket);
  // Answers 503 and closes: the server holds max_connections already.
  void refuse_connection(tcp::socket socket);

  ServerOptions options;
  HttpService& service;
  std::atomic<bool> stopping{false};

  std::mutex sessions_mutex;
  std::condition_variable sessions_gone;
  std::unordered_map<std::uint64_t, std::weak_ptr<Session>> sessions;
  std::uint64_t next_session = 0;

  net::io_context ioc;
  tcp::acceptor acceptor;
  net::steady_timer accept_retry;
  std::vector<std::thread> io_threads;
  WorkerPool workers;
  const std::size_t max_connections;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Core& core, std::uint64_t id)
      : stream_(std::move(socket)),
        buffer_(core.options.max_header_bytes + core.options.max_body_bytes + 65536),
        core_(core),
        id_(id) {
    beast::error_code ec;
    auto endpoint = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = address_text(endpoint.address());
  }

  ~Session() {
    std::lock_guard<std::mutex> lock(core_.sessions_mutex);
    core_.sessions.erase(id_);
    if (core_.sessions.empty()) core_.sessions_gone.notify_all();
  }

  void start() {
    net::dispatch(stream_.get_executor(), beast::bind_front_handler(&Session::do_read, shared_from_this()));
  }

  // At a graceful stop: a connection waiting for its next request is closed;
  // one in the middle of a request or response finishes it first.
  void stop_if_idle() {
    if (reading_ && buffer_.size() == 0 && parser_ && !parser_->got_some()) stream_.cancel();
  }

  net::any_io_executor executor() { return stream_.get_executor(); }

 private:
  void do_read() {
    if (core_.stopping) return close();
    parser_.emplace();
    parser_->header_limit(
        static_cast<std::uint32_t>(std::min<std::size_t>(core_.options.max_header_bytes, UINT32_MAX)));
    parser_->body_limit(core_.options.max_body_bytes);
    request_ = HttpRequest{};
    request_.remote_address = remote_;
    request_.path.clear();
    head_ = false;
    keep_alive_ = false;
    reading_ = true;
    stream_.expires_after(seconds(core_.options.idle_timeout_seconds));
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::on_header, shared_from_this()));
  }

  // True when `ec` ended the read; answers or closes as fits.
  bool read_failed(beast::error_code ec) {
    if (!ec) return false;
    reading_ = false;
    started_ = Clock::now();
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      refuse(431, "the request line and headers exceed " + std::to_string(core_.options.max_header_bytes) + " bytes");
    } else if (ec == http::error::body_limit) {
      refuse(413, "request bodies are limited to " + std::to_string(core_.options.max_body_bytes) + " bytes");
    } else if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
               ec != http::error::end_of_stream && ec != http::error::partial_message) {
      refuse(400, "malformed HTTP request");
    } else {
      // The peer closed, went idle past the timeout, or the server stops.
      close();
    }
    return true;
  }

  void on_header(beast::error_code ec, std::size_t) {
    if (read_failed(ec)) return;
    auto& message = parser_->get();
    std::size_t fields = static_cast<std::size_t>(std::distance(message.begin(), message.end()));
    if (fields > core_.options.max_header_count) {
      reading_ = false;
      started_ = Clock::now();
      return refuse(431, "more than " + std::to_string(core_.options.max_header_count) + " header fields");
    }
    if (parser_->is_done()) return on_request();
    // A small body: read and ignored (no route takes one).
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_body, shared_from_this()));
  }

  void on_body(beast::error_code ec, std::size_t) {
    if (read_failed(ec)) return;
    on_request();
  }

  void on_request() {
    reading_ = false;
    started_ = Clock::now();
    auto& message = parser_->get();
    request_.method = std::string(message.method_string());
    request_.target = std::string(message.target());
    request_.version = static_cast<int>(message.version());
    for (const auto& field : message) {
      request_.headers.push_back({std::string(field.name_string()), std::string(field.value())});
    }
    head_ = message.method() == http::verb::head;
    keep_alive_ = message.keep_alive();
    parser_.reset();
    if (!split_target(request_.target, request_.path, request_.query)) {
      return respond(json_error(400, "malformed query string"), false);
    }
    bool run_inline = true;
    try {
      core_.service.prepare(request_);
      run_inline = core_.service.runs_inline(request_);
    } catch (...) {
    }
    if (run_inline) return respond(safe_handle(), false);
    auto self = shared_from_this();
    bool queued = core_.workers.try_post([self] {
      // The session does nothing else until the response comes back, so
      // the worker may read request_. A request still queued when the
      // server stops is not started: it gets a prompt 503 instead.
      HttpResponse response = self->core_.stopping ? json_error(503, "the server is stopping") : self->safe_handle();
      net::post(self->executor(),
                [self, response = std::move(response)]() mutable { self->respond(std::move(response), false); });
    });
    if (!queued) {
      HttpResponse busy = json_error(503, "the server is busy; retry shortly");
      busy.headers.push_back({"Retry-After", "1"});
      respond(std::move(busy), false);
    }
  }

  HttpResponse safe_handle() {
    try {
      return core_.service.handle(request_);
    } catch (const std::exception& e) {
      log::error("request " + request_.path + " failed: " + e.what());
    } catch (...) {
      log::error("request " + request_.path + " failed");
    }
    return json_error(500, "internal error");
  }

  // A request the server refuses before any handler sees it; the connection
  // closes afterwards (its remaining bytes cannot be trusted).
  void refuse(int status, const std::string& message) { respond(json_error(status, message), true); }

  void respond(HttpResponse response, bool close_after) {
    double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
    try {
      core_.service.observe(request_, response, elapsed);
    } catch (...) {
    }
    if (response.status < 100 || response.status > 599) response.status = 500;
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(request_.version == 10 ? 10 : 11);
    res->result(static_cast<unsigned>(response.status));
    res->set(http::field::server, "petricore");
    if (safe_header({"Content-Type", response.content_type}))
      res->set(http::field::content_type, response.content_type);
    for (const auto& h : response.headers) {
      if (safe_header(h)) res->insert(h.name, h.value);
    }
    // A browser takes each answer for what its type says, never for HTML it
    // guessed (a JSON error quoting a request must not become a page).
    res->set("X-Content-Type-Options", "nosniff");
    if (is_document(response.content_type) && res->find("Content-Security-Policy") == res->end()) {
      res->set("Content-Security-Policy", kDocumentPolicy);
    }
    bool keep = keep_alive_ && !close_after && !core_.stopping;
    res->keep_alive(keep);
    if (head_) {
      res->content_length(response.body.size());
    } else {
      res->body() = std::move(response.body);
      res->prepare_payload();
    }
    stream_.expires_after(seconds(core_.options.idle_timeout_seconds));
    http::async_write(stream_, *res, [self = shared_from_this(), res, keep](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      if (!keep) return self->linger_close();
      self->do_read();
    });
  }

  // Closing right after a response while the client is still sending (a
  // refused body) makes the kernel reset the connection, and the client may
  // lose the response: send FIN, then read and drop what comes, briefly.
  void linger_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    drained_ = 0;
    stream_.expires_after(kLingerTime);
    drain();
  }

  void drain() {
    stream_.async_read_some(net::buffer(drain_buffer_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kMaxDrainBytes) return self->close();
                              self->drain();
                            });
  }

  void close() {
    reading_ = false;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Core& core_;
  const std::uint64_t id_;
  std::string remote_;
  HttpRequest request_;
  Clock::time_point started_ = Clock::now();
  bool reading_ = false;
  bool head_ = false;
  bool keep_alive_ = false;
  std::array<char, 4096> drain_buffer_{};
  std::size_t drained_ = 0;
};

void Core::do_accept() {
  acceptor.async_accept(net::make_strand(ioc), beast::bind_front_handler(&Core::on_accept, this));
}

void Core::on_accept(beast::error_code ec, tcp::socket socket) {
  if (stopping) return;  // `socket` closes here
  if (ec) {
    if (ec == net::error::operation_aborted) return;
    // Out of file descriptors and the like: wait a little, do not spin.
    log::warning("accept failed: " + ec.message());
    accept_retry.expires_after(kAcceptRetry);
    accept_retry.async_wait([this](beast::error_code wait_ec) {
      if (!wait_ec && !stopping) do_accept();
    });
    return;
  }
  std::shared_ptr<Session> session;
  {
    std::lock_guard<std::mutex> lock(sessions_mutex);
    if (sessions.size() < max_connections) {
      std::uint64_t id = next_session++;
      session = std::make_shared<Session>(std::move(socket), *this, id);
      sessions[id] = session;
    }
  }
  if (session) {
    session->start();
  } else {
    refuse_connection(std::move(socket));
  }
  do_accept();
}

void Core::refuse_connection(tcp::socket socket) {
  // A short answer fits any fresh socket's send buffer: written at once,
  // never waited for, and the descriptor is closed before the next accept.
  static constexpr const char* kWhy = "too many open connections";
  static const std::string kRefusal = [] {
    const std::string body = std::string("{\"error\": \"") + kWhy + "\"}";
    return "HTTP/1.1 503 Service Unavailable\r\nServer: petricore\r\nContent-Type: application/json\r\n"
           "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }();
  beast::error_code ec;
  socket.non_blocking(true, ec);
  if (!ec) socket.write_some(net::buffer(kRefusal), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
  HttpRequest request;
  HttpResponse response = json_error(503, kWhy);
  try {
    service.observe(request, response, 0.0);
  } catch (...) {
  }
}

}  // namespace

std::size_t max_connections_for(std::size_t fd_limit) {
  const std::size_t kept = std::max<std::size_t>(64, fd_limit / 4);
  return fd_limit > kept + 16 ? fd_limit - kept : 16;
}

namespace {

std::string endpoint_text(const std::string& host, std::uint16_t port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

}  // namespace

struct HttpServer::Impl {
  Impl(ServerOptions options, HttpService& service) : core(std::move(options), service) {}
  Core core;
  tcp::endpoint bound;  // read once after bind: the acceptor belongs to the I/O threads afterwards
  std::unique_ptr<net::executor_work_guard<net::io_context::executor_type>> work;
  bool started = false;
  bool stopped = false;
};

HttpServer::HttpServer(ServerOptions options, HttpService& service)
    : impl_(std::make_unique<Impl>(std::move(options), service)) {
  Core& core = impl_->core;
  const std::string where = endpoint_text(core.options.host, core.options.port);
  try {
    tcp::endpoint endpoint;
    if (core.options.host.empty()) {
      endpoint = tcp::endpoint(tcp::v4(), core.options.port);
    } else {
      beast::error_code ec;
      auto address = net::ip::make_address(core.options.host, ec);
      if (!ec) {
        endpoint = tcp::endpoint(address, core.options.port);
      } else {
        tcp::resolver resolver(core.ioc);
        auto results = resolver.resolve(core.options.host, std::to_string(core.options.port), ec);
        if (ec || results.empty()) {
          throw std::runtime_error("cannot listen on " + where + ": cannot resolve " + core.options.host);
        }
        endpoint = results.begin()->endpoint();
      }
    }
    core.acceptor.open(endpoint.protocol());
    core.acceptor.set_option(net::socket_base::reuse_address(true));
    core.acceptor.bind(endpoint);
    core.acceptor.listen(net::socket_base::max_listen_connections);
    impl_->bound = core.acceptor.local_endpoint();
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("cannot listen on " + where + ": " + e.code().message());
  }
}

HttpServer::~HttpServer() {
  stop();
}

std::uint16_t HttpServer::port() const {
  return impl_->bound.port();
}

std::string HttpServer::host() const {
  return address_text(impl_->bound.address());
}

void HttpServer::start() {
  if (impl_->started) return;
  impl_->started = true;
  Core& core = impl_->core;
  impl_->work = std::make_unique<net::executor_work_guard<net::io_context::executor_type>>(core.ioc.get_executor());
  net::post(core.acceptor.get_executor(), [&core] { core.do_accept(); });
  core.workers.start();
  std::size_t threads = std::max<std::size_t>(1, core.options.threads);
  for (std::size_t i = 0; i < threads; ++i) {
    core.io_threads.emplace_back([&core] {
      while (true) {
        try {
          core.ioc.run();
          return;
        } catch (const std::exception& e) {
          log::error(std::string("I/O thread: ") + e.what());
        } catch (...) {
          log::error("I/O thread: unknown exception");
        }
      }
    });
  }
}

void HttpServer::stop() {
  if (!impl_->started || impl_->stopped) return;
  impl_->stopped = true;
  Core& core = impl_->core;
  core.stopping = true;
  net::post(core.acceptor.get_executor(), [&core] {
    beast::error_code ec;
    core.acceptor.close(ec);
    core.accept_retry.cancel();
  });
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(core.sessions_mutex);
    for (auto& [id, weak] : core.sessions) {
      if (auto session = weak.lock()) live.push_back(std::move(session));
    }
  }
  for (auto& session : live) net::post(session->executor(), [session] { session->stop_if_idle(); });
  live.clear();  // outside the lock: this may be a session's last owner
  {
    std::unique_lock<std::mutex> lock(core.sessions_mutex);
    core.sessions_gone.wait_until(lock, Clock::now() + seconds(core.options.stop_deadline_seconds),
                                  [&] { return core.sessions.empty(); });
    if (!core.sessions.empty()) {
      log::warning(std::to_string(core.sessions.size()) + " connection(s) still open at the stop deadline: closed");
    }
  }
  impl_->work.reset();
  core.ioc.stop();
  for (auto& t : core.io_threads) {
    if (t.joinable()) t.join();
  }
  core.workers.shutdown();
}

}  // namespace petricore::serve
