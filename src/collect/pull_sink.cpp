#include "collect/pull_sink.hpp"

#include "collect/metrics.hpp"

#include "core/listen_address.hpp"
#include "core/startup_error.hpp"
#include "core/unique_fd.hpp"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace petricore::collect {
namespace {

std::string resolve_ipv4(const std::string& listen, const std::string& host) {
  in_addr numeric{};
  if (inet_pton(AF_INET, host.c_str(), &numeric) == 1) return host;
  addrinfo hints{};
  hints.ai_family = AF_INET;  // civetweb takes one numeric address
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw std::runtime_error("cannot listen on " + listen + ": cannot resolve " + host + ": " + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(found, &freeaddrinfo);
  char text[INET_ADDRSTRLEN] = {};
  const auto* address = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
  inet_ntop(AF_INET, &address->sin_addr, text, sizeof text);
  return text;
}

// core/listen_address, with a host name resolved to one IPv4 address
// (civetweb takes only numeric ones).
ListenAddress parse_listen(const std::string& listen) {
  Result<ListenAddress> parsed = parse_listen_address(listen);
  if (!parsed) {
    throw StartupError("invalid listen address '" + listen + "': " + parsed.error().message +
                       " (expected HOST:PORT, :PORT or [IPV6]:PORT)");
  }
  ListenAddress result = std::move(*parsed);
  if (!result.ipv6 && !result.host.empty()) result.host = resolve_ipv4(listen, result.host);
  return result;
}

std::string to_civetweb(const ListenAddress& address) {
  const std::string port = std::to_string(address.port);
  if (address.host.empty()) return port;
  if (address.ipv6) return "[" + address.host + "]:" + port;
  return address.host + ":" + port;
}

// civetweb only says "null context ... Possible problem binding to port" (its
// own diagnosis goes to a log callback whose type lives in a library
// prometheus-cpp's pkg-config file does not link). So bind the same address
// ourselves to learn the errno.
std::string bind_failure_reason(const ListenAddress& address, const std::string& fallback) {
  const int family = address.ipv6 ? AF_INET6 : AF_INET;
  UniqueFd fd(socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return std::strerror(errno);
  const int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // as civetweb does
  int rc = 0;
  if (address.ipv6) {
    sockaddr_in6 sa{};
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(static_cast<std::uint16_t>(address.port));
    inet_pton(AF_INET6, address.host.c_str(), &sa.sin6_addr);
    rc = bind(fd.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
  } else {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<std::uint16_t>(address.port));
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    if (!address.host.empty()) inet_pton(AF_INET, address.host.c_str(), &sa.sin_addr);
    rc = bind(fd.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
  }
  if (rc != 0) return std::strerror(errno);
  if (address.ipv6) return "the installed civetweb library was built without IPv6 support";
  return fallback;
}

// What the Exposer serves: the families of the last published pass, built
// at each scrape from its jobs (shared, immutable) outside the lock, so a
// slow scrape never delays publish() and a pass builds none for it.
class SnapshotCollectable final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::shared_ptr<const Exposition::Families> current;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      current = latest_;
    }
    return current ? current->build() : Snapshot{};
  }

  void replace(std::shared_ptr<const Exposition::Families> next) {
    std::lock_guard<std::mutex> lock(mutex_);
    latest_.swap(next);
  }  // the previous pass is freed here, after the lock is released

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Exposition::Families> latest_;
};

}  // namespace

std::string civetweb_listening_ports(const std::string& listen) {
  return to_civetweb(parse_listen(listen));
}

struct PullSink::Impl {
  // Declared before the exposer so that the server stops before the
  // collectable goes (the Exposer only holds a weak_ptr anyway).
  std::shared_ptr<SnapshotCollectable> collectable = std::make_shared<SnapshotCollectable>();
  std::unique_ptr<prometheus::Exposer> exposer;
};

PullSink::PullSink(const std::string& listen) : impl_(std::make_unique<Impl>()) {
  const ListenAddress address = parse_listen(listen);
  try {
    impl_->exposer = std::make_unique<prometheus::Exposer>(
        std::vector<std::string>{"listening_ports", to_civetweb(address), "num_threads", "2"});
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot listen on " + listen + ": " + bind_failure_reason(address, e.what()));
  }
  impl_->exposer->RegisterCollectable(impl_->collectable);
}

PullSink::~PullSink() = default;

bool PullSink::publish(const Exposition& pass) {
  impl_->collectable->replace(pass.families());
  return true;
}

std::vector<int> PullSink::listening_ports() const {
  return impl_->exposer->GetListeningPorts();
}

std::unique_ptr<Sink> make_pull_sink(const std::string& listen) {
  return std::make_unique<PullSink>(listen);
}

}  // namespace petricore::collect
