#include "collect/error_counter.hpp"
#include "collect/exposition.hpp"
#include "collect/metrics.hpp"
#include "collect/pull_sink.hpp"
#include "collect/push_sink.hpp"
#include "collect/textfile_sink.hpp"

#include <curl/curl.h>
#include "catch.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace petricore::collect;

namespace {

prometheus::MetricFamily rss_family(const std::string& job, double mib) {
  prometheus::MetricFamily family;
  family.name = "jobs_rss";
  family.help = "Resident memory of the job (MiB)";
  family.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric sample;
  sample.label = {{"instance", "n1"}, {"slurm_job", job}};
  sample.gauge.value = mib;
  family.metric.push_back(sample);
  return family;
}

Snapshot snapshot_of(const std::string& job, double mib) {
  return {rss_family(job, mib)};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh directory under TMPDIR, removed (with its plain files) at scope end.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/sinks_test.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    // Only what the tests create: files and one level of directories.
    std::system(("rm -rf '" + path_ + "'").c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    std::string out;
    FILE* ls = ::popen(("ls -A '" + path_ + "'").c_str(), "r");
    char line[512];
    while (ls && std::fgets(line, sizeof line, ls)) {
      std::string name(line);
      if (!name.empty() && name.back() == '\n') name.pop_back();
      names.push_back(name);
    }
    if (ls) ::pclose(ls);
    return names;
  }

 private:
  std::string path_;
};

class Socket {
 public:
  explicit Socket(int fd = -1) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket& operator=(Socket&&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// A loopback TCP socket bound to a kernel-chosen port; `listening` makes it
// accept connections (the port is then busy), else it only reserves a number.
Socket bound_socket(bool listening, int* port) {
  Socket s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = 0;
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    throw std::runtime_error("bind failed");
  }
  if (listening && ::listen(s.get(), 16) != 0) throw std::runtime_error("listen failed");
  socklen_t len = sizeof sa;
  ::getsockname(s.get(), reinterpret_cast<sockaddr*>(&sa), &len);
  *port = ntohs(sa.sin_port);
  return s;
}

int free_port() {
  int port = 0;
  bound_socket(false, &port);  // closed again at once: nobody listens there
  return port;
}

struct Request {
  std::string method;
  std::string path;
  std::string headers;  // raw header block, lower-cased
  std::string body;
};

// A minimal HTTP/1.1 server on 127.0.0.1 for the push sink: records each
// request, answers `status` with an empty body, keeps connections alive.
class FakeHttpServer {
 public:
  explicit FakeHttpServer(int status) : status_(status), listener_(bound_socket(true, &port_)) {
    thread_ = std::thread([this] { run(); });
  }
  ~FakeHttpServer() {
    stop_ = true;
    thread_.join();
  }
  int port() const { return port_; }
  void set_status(int status) { status_ = status; }
  std::vector<Request> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  int connections() const { return connections_; }

 private:
  void run() {
    std::vector<Socket> clients;
    std::vector<std::string> buffers;
    std::vector<bool> closed;
    while (!stop_) {
      std::vector<pollfd> fds{{listener_.get(), POLLIN, 0}};
      for (std::size_t i = 0; i < clients.size(); ++i) {
        fds.push_back({closed[i] ? -1 : clients[i].get(), POLLIN, 0});  // poll skips fd -1
      }
      if (::poll(fds.data(), fds.size(), 50) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        clients.emplace_back(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        buffers.emplace_back();
        closed.push_back(false);
        ++connections_;
      }
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
        char chunk[4096];
        const ssize_t n = ::read(fds[i].fd, chunk, sizeof chunk);
        if (n <= 0) {
          closed[i - 1] = true;
          continue;
        }
        buffers[i - 1].append(chunk, static_cast<std::size_t>(n));
        serve_complete_requests(fds[i].fd, buffers[i - 1]);
      }
    }
  }

  void serve_complete_requests(int fd, std::string& buffer) {
    for (;;) {
      const std::size_t head_end = buffer.find("\r\n\r\n");
      if (head_end == std::string::npos) return;
      Request r;
      std::istringstream line(buffer.substr(0, buffer.find("\r\n")));
      line >> r.method >> r.path;
      r.headers = buffer.substr(0, head_end);
      for (char& c : r.headers) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::size_t length = 0;
      const std::size_t cl = r.headers.find("content-length:");
      if (cl != std::string::npos) length = std::stoul(r.headers.substr(cl + 15));
      if (buffer.size() < head_end + 4 + length) return;
      r.body = buffer.substr(head_end + 4, length);
      buffer.erase(0, head_end + 4 + length);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(r);
      }
      const std::string answer =
          "HTTP/1.1 " + std::to_string(status_.load()) + " Whatever\r\nContent-Length: 11\r\n\r\nbad things\n";
      if (::write(fd, answer.data(), answer.size()) < 0) return;
    }
  }

  std::atomic<int> status_;
  int port_ = 0;
  Socket listener_;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  mutable std::mutex mutex_;
  std::vector<Request> requests_;
  std::thread thread_;
};

size_t append_to_string(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// GET with libcurl; the body, or "" with *status = 0 when the request failed.
std::string http_get(const std::string& url, long* status) {
  curl_global_init(CURL_GLOBAL_DEFAULT);  // reference-counted; cheap after the first
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> h(curl_easy_init(), &curl_easy_cleanup);
  std::string body;
  curl_easy_setopt(h.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(h.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h.get(), CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(h.get(), CURLOPT_WRITEFUNCTION, append_to_string);
  curl_easy_setopt(h.get(), CURLOPT_WRITEDATA, &body);
  *status = 0;
  if (curl_easy_perform(h.get()) != CURLE_OK) return "";
  curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, status);
  return body;
}

}  // namespace

// ---------------------------------------------------------------- exposition

TEST_CASE("text exposition has HELP, TYPE and one line per sample", "[sinks]") {
  Snapshot snapshot = snapshot_of("123", 512.5);
  prometheus::ClientMetric second;
  second.label = {{"instance", "n1"}, {"slurm_job", "124"}};
  second.gauge.value = 3;
  snapshot[0].metric.push_back(second);
  CHECK(serialize_text(snapshot) ==
        "# HELP jobs_rss Resident memory of the job (MiB)\n"
        "# TYPE jobs_rss gauge\n"
        "jobs_rss{instance=\"n1\",slurm_job=\"123\"} 512.5\n"
        "jobs_rss{instance=\"n1\",slurm_job=\"124\"} 3\n");
}

TEST_CASE("text exposition escapes label values", "[sinks]") {
  Snapshot snapshot = snapshot_of("a\"b\\c\nd", 1);
  CHECK(serialize_text(snapshot).find("slurm_job=\"a\\\"b\\\\c\\nd\"} 1\n") != std::string::npos);
}

TEST_CASE("text exposition of an empty snapshot is empty", "[sinks]") {
  CHECK(serialize_text({}).empty());
}

TEST_CASE("text exposition writes values as printf's %.16g, as prometheus-cpp 1.0 does", "[sinks]") {
  std::vector<double> values = {0,
                                -0.0,
                                1e15 - 1,
                                -1e15 + 1,
                                1e16 - 2,
                                123456789012345.0,
                                -42,
                                1056,
                                1,
                                -1,
                                0.1,
                                512.5,
                                100.0 / 3,
                                1e15,
                                1e16,
                                1e17,
                                9.223372036854775807e18,
                                1.5e-7,
                                1e-5,
                                1e21,
                                4.9e-324,
                                1.7976931348623157e308};
  std::uint64_t bits = 0x9e3779b97f4a7c15;
  for (int i = 0; i < 2000; ++i) {  // and arbitrary finite doubles
    bits = bits * 6364136223846793005u + 1442695040888963407u;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) values.push_back(d);
    values.push_back(static_cast<double>(bits % 100000000000u) / 1000.0);
    values.push_back(static_cast<double>(bits % 10000000000000000u));  // whole numbers up to 1e16
  }
  for (double v : values) {
    Snapshot snapshot = snapshot_of("1", v);
    char expected[64];
    std::snprintf(expected, sizeof expected, "slurm_job=\"1\"} %.16g\n", v);
    INFO(expected);
    CHECK(serialize_text(snapshot).find(expected) != std::string::npos);
  }
  Snapshot special = snapshot_of("1", std::nan(""));
  special[0].metric[0].timestamp_ms = 1700000000123;
  prometheus::ClientMetric up = special[0].metric[0], down = up;
  up.gauge.value = std::numeric_limits<double>::infinity();
  up.timestamp_ms = 0;
  down.gauge.value = -std::numeric_limits<double>::infinity();
  special[0].metric.push_back(up);
  special[0].metric.push_back(down);
  CHECK(serialize_text(special) ==
        "# HELP jobs_rss Resident memory of the job (MiB)\n"
        "# TYPE jobs_rss gauge\n"
        "jobs_rss{instance=\"n1\",slurm_job=\"1\"} Nan 1700000000123\n"
        "jobs_rss{instance=\"n1\",slurm_job=\"1\"} +Inf\n"
        "jobs_rss{instance=\"n1\",slurm_job=\"1\"} -Inf 1700000000123\n");
}

TEST_CASE("text exposition: counters, untyped, no labels, empty families, HELP escaped", "[sinks]") {
  Snapshot snapshot(3);
  snapshot[0].name = "petricore_collect_errors_total";
  snapshot[0].help = "a \\ and a\nnewline";
  snapshot[0].type = prometheus::MetricType::Counter;
  prometheus::ClientMetric errors;
  errors.counter.value = 7;
  snapshot[0].metric.push_back(errors);
  snapshot[1].name = "plain";
  snapshot[1].type = prometheus::MetricType::Untyped;
  prometheus::ClientMetric plain;
  plain.untyped.value = 0.25;
  plain.label = {{"empty", ""}};
  snapshot[1].metric.push_back(plain);
  snapshot[2].name = "nothing_yet";
  snapshot[2].type = prometheus::MetricType::Gauge;
  CHECK(serialize_text(snapshot) ==
        "# HELP petricore_collect_errors_total a \\\\ and a\\nnewline\n"
        "# TYPE petricore_collect_errors_total counter\n"
        "petricore_collect_errors_total 7\n"
        "# TYPE plain untyped\n"
        "plain{empty=\"\"} 0.25\n"
        "# TYPE nothing_yet gauge\n");
}

// ---------------------------------------------------------------- textfile

TEST_CASE("textfile sink replaces the file with the exposition, leaving no temp file", "[sinks]") {
  TempDir dir;
  const std::string path = dir.path() + "/jobs.prom";
  ErrorCounter errors;
  auto sink = make_textfile_sink(path, errors);
  CHECK(sink->name() == "textfile");

  REQUIRE(sink->publish(snapshot_of("111", 1)));
  CHECK(read_file(path) == serialize_text(snapshot_of("111", 1)));
  const Snapshot second = snapshot_of("222", 2);
  REQUIRE(sink->publish(second));
  CHECK(read_file(path) == serialize_text(second));
  CHECK(dir.entries() == std::vector<std::string>{"jobs.prom"});

  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0644);
  CHECK(errors.totals().at("textfile") == 0);
}

TEST_CASE("textfile sink mode is 0644 whatever the umask", "[sinks]") {
  TempDir dir;
  const std::string path = dir.path() + "/jobs.prom";
  ErrorCounter errors;
  const mode_t old_umask = ::umask(077);
  const bool ok = make_textfile_sink(path, errors)->publish(snapshot_of("1", 1));
  ::umask(old_umask);
  REQUIRE(ok);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0644);
}

TEST_CASE("textfile sink counts an error when the directory does not exist", "[sinks]") {
  TempDir dir;
  ErrorCounter errors;
  auto sink = make_textfile_sink(dir.path() + "/missing/jobs.prom", errors);
  CHECK_FALSE(sink->publish(snapshot_of("111", 1)));
  CHECK_FALSE(sink->publish(snapshot_of("111", 1)));
  CHECK(errors.totals().at("textfile") == 2);
  CHECK(dir.entries().empty());
}

TEST_CASE("textfile sink keeps the old file when the temp file cannot be created", "[sinks]") {
  TempDir dir;
  const std::string path = dir.path() + "/jobs.prom";
  write_file(path, "old content\n");
  // A directory squatting on the temp name makes open() fail with EISDIR;
  // unlike a read-only directory, this also fails for root.
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  REQUIRE(::mkdir(temp.c_str(), 0755) == 0);
  ErrorCounter errors;
  CHECK_FALSE(make_textfile_sink(path, errors)->publish(snapshot_of("111", 1)));
  CHECK(errors.totals().at("textfile") == 1);
  CHECK(read_file(path) == "old content\n");
}

TEST_CASE("textfile sink removes its temp file when the rename fails", "[sinks]") {
  TempDir dir;
  const std::string path = dir.path() + "/jobs.prom";
  REQUIRE(::mkdir(path.c_str(), 0755) == 0);  // rename() of a file over a directory fails
  write_file(path + "/keep", "x");
  ErrorCounter errors;
  CHECK_FALSE(make_textfile_sink(path, errors)->publish(snapshot_of("111", 1)));
  CHECK(errors.totals().at("textfile") == 1);
  CHECK(dir.entries() == std::vector<std::string>{"jobs.prom"});
}

TEST_CASE("textfile sink counts an error in a read-only directory", "[sinks]") {
  if (::geteuid() == 0) {
    WARN("running as root: permissions do not apply, read-only case not tested");
    return;
  }
  TempDir dir;
  const std::string path = dir.path() + "/jobs.prom";
  write_file(path, "old content\n");
  REQUIRE(::chmod(dir.path().c_str(), 0555) == 0);
  ErrorCounter errors;
  const bool ok = make_textfile_sink(path, errors)->publish(snapshot_of("111", 1));
  ::chmod(dir.path().c_str(), 0755);
  CHECK_FALSE(ok);
  CHECK(errors.totals().at("textfile") == 1);
  CHECK(read_file(path) == "old content\n");
}

TEST_CASE("stdout sink writes the exposition to standard output", "[sinks]") {
  TempDir dir;
  const std::string captured = dir.path() + "/stdout";
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int file = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(saved >= 0);
  REQUIRE(file >= 0);
  ::dup2(file, STDOUT_FILENO);
  ::close(file);
  auto sink = make_stdout_sink();
  const bool ok = sink->publish(snapshot_of("111", 1));
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  CHECK(ok);
  CHECK(sink->name() == "stdout");
  CHECK(read_file(captured) == serialize_text(snapshot_of("111", 1)));
}

// ---------------------------------------------------------------- push

TEST_CASE("push group URL escapes the grouping key and drops trailing slashes", "[sinks]") {
  PushTarget target;
  target.base_url = "http://pgw:9091//";
  target.instance = "node01";
  CHECK(push_group_url(target) == "http://pgw:9091/metrics/job/jobs_exporter/instance/node01");
  target.instance = "node 01%";
  CHECK(push_group_url(target) == "http://pgw:9091/metrics/job/jobs_exporter/instance/node%2001%25");
  target.instance = "a/b";  // base64url of "a/b"
  CHECK(push_group_url(target) == "http://pgw:9091/metrics/job/jobs_exporter/instance@base64/YS9i");
  target.instance = "";
  CHECK(push_group_url(target) == "http://pgw:9091/metrics/job/jobs_exporter/instance@base64/=");
  target.base_url = "https://user:secret@pgw.example.org/prefix/";
  target.job = "j";
  target.instance = "n";
  CHECK(push_group_url(target) == "https://user:secret@pgw.example.org/prefix/metrics/job/j/instance/n");
}

TEST_CASE("push sink rejects a base URL that is not http or https", "[sinks]") {
  ErrorCounter errors;
  PushTarget target;
  target.instance = "n1";
  for (const char* url : {"", "localhost:9091", "ftp://pgw:9091", "http://", "https:///x", "http://pgw:9091/?a=b",
                          "http://pgw:9091/#x", "http://pgw:99999", "http://u:p@ss@pgw:9091"}) {
    target.base_url = url;
    INFO("base_url: " << url);
    CHECK_THROWS_AS(make_push_sink(target, errors), std::invalid_argument);
  }
  target.base_url = "HTTP://pgw:9091";
  CHECK_NOTHROW(make_push_sink(target, errors));
  target.timeout_seconds = 0;
  CHECK_THROWS_AS(make_push_sink(target, errors), std::invalid_argument);
  target.timeout_seconds = 5;
  target.job = "";
  CHECK_THROWS_AS(make_push_sink(target, errors), std::invalid_argument);

  try {
    target.job = "jobs_exporter";
    target.base_url = "pgw:9091";
    make_push_sink(target, errors);
    FAIL("no exception for base_url " << target.base_url);
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    CHECK(message.find("pgw:9091") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
  try {
    target.base_url = "ftp://user:secret@pgw:9091";
    make_push_sink(target, errors);
    FAIL("no exception for base_url " << target.base_url);
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("secret") == std::string::npos);
  }
}

TEST_CASE("push to a closed port fails quickly and counts a push error", "[sinks]") {
  ErrorCounter errors;
  PushTarget target;
  target.base_url = "http://127.0.0.1:" + std::to_string(free_port());
  target.instance = "n1";
  target.timeout_seconds = 2;
  auto sink = make_push_sink(target, errors);
  CHECK(sink->name() == "push");
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(sink->publish(snapshot_of("111", 1)));
  CHECK_FALSE(sink->publish(snapshot_of("111", 1)));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK(errors.totals().at("push") == 2);
  sink->shutdown();  // the DELETE fails too, and is counted
  CHECK(errors.totals().at("push") == 3);
}

TEST_CASE("push to an unresponsive server gives up after the timeout", "[sinks]") {
  int port = 0;
  // Listening but never accepting: the connection completes (backlog), the
  // answer never comes.
  Socket silent = bound_socket(true, &port);
  ErrorCounter errors;
  PushTarget target;
  target.base_url = "http://127.0.0.1:" + std::to_string(port);
  target.instance = "n1";
  target.timeout_seconds = 0.3;
  auto sink = make_push_sink(target, errors);
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(sink->publish(snapshot_of("111", 1)));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(elapsed >= std::chrono::milliseconds(250));
  CHECK(elapsed < std::chrono::seconds(2));
  CHECK(errors.totals().at("push") == 1);
}

TEST_CASE("push sink PUTs the exposition to the group URL on one connection", "[sinks]") {
  FakeHttpServer server(200);
  ErrorCounter errors;
  PushTarget target;
  target.base_url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  target.instance = "node 1";
  auto sink = make_push_sink(target, errors);

  REQUIRE(sink->publish(snapshot_of("111", 1)));
  server.set_status(202);
  REQUIRE(sink->publish(snapshot_of("222", 2)));
  server.set_status(202);
  sink->shutdown();

  const auto requests = server.requests();
  REQUIRE(requests.size() == 3);
  for (const auto& r : requests) {
    CHECK(r.path == "/metrics/job/jobs_exporter/instance/node%201");
  }
  CHECK(requests[0].method == "PUT");
  CHECK(requests[0].headers.find("\r\ncontent-type: text/plain; version=0.0.4") != std::string::npos);
  CHECK(requests[0].body == serialize_text(snapshot_of("111", 1)));
  CHECK(requests[1].method == "PUT");
  CHECK(requests[1].body == serialize_text(snapshot_of("222", 2)));
  CHECK(requests[2].method == "DELETE");
  CHECK(requests[2].body.empty());
  CHECK(server.connections() == 1);  // keep-alive: one handle, one connection
  CHECK(errors.totals().at("push") == 0);
}

TEST_CASE("push sink counts a non-2xx answer as a push error", "[sinks]") {
  FakeHttpServer server(400);
  ErrorCounter errors;
  PushTarget target;
  target.base_url = "http://127.0.0.1:" + std::to_string(server.port());
  target.instance = "n1";
  auto sink = make_push_sink(target, errors);
  CHECK_FALSE(sink->publish(snapshot_of("111", 1)));
  CHECK(errors.totals().at("push") == 1);
  server.set_status(204);
  CHECK(sink->publish(snapshot_of("111", 1)));  // recovers on the next pass
  CHECK(errors.totals().at("push") == 1);
}

// ---------------------------------------------------------------- pull

TEST_CASE("listen addresses convert to civetweb's listening_ports", "[sinks]") {
  CHECK(civetweb_listening_ports(":9966") == "9966");
  CHECK(civetweb_listening_ports("127.0.0.1:0") == "127.0.0.1:0");
  CHECK(civetweb_listening_ports("0.0.0.0:9966") == "0.0.0.0:9966");
  CHECK(civetweb_listening_ports("localhost:9966") == "127.0.0.1:9966");
  CHECK(civetweb_listening_ports("[::1]:9966") == "[::1]:9966");
  for (const char* bad : {"", "9966", "host:", ":", ":65536", ":99999999", ":-1", ":12a", "::1:9966", "[::1]9966",
                          "[::1]:", "[zz]:1", "[::1"}) {
    INFO("listen: " << bad);
    CHECK_THROWS_AS(civetweb_listening_ports(bad), std::invalid_argument);
  }
  CHECK_THROWS_AS(civetweb_listening_ports("no-such-host.invalid:9966"), std::runtime_error);
}

TEST_CASE("pull sink reports a busy port in one line", "[sinks]") {
  int port = 0;
  Socket busy = bound_socket(true, &port);
  const std::string listen = "127.0.0.1:" + std::to_string(port);
  try {
    PullSink sink(listen);
    FAIL("listening on a busy port succeeded");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "cannot listen on " + listen + ": Address already in use");
  }
}

// One PullSink for the whole binary: its destructor blocks ~2 s after a scrape.
TEST_CASE("pull sink serves the latest snapshot and drops the previous one", "[sinks]") {
  PullSink sink("127.0.0.1:0");
  CHECK(sink.name() == "pull");
  const auto ports = sink.listening_ports();
  REQUIRE(ports.size() == 1);
  REQUIRE(ports[0] > 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(ports[0]) + "/metrics";

  long status = 0;
  std::string body = http_get(url, &status);
  CHECK(status == 200);  // before the first pass: served, without job series
  CHECK(body.find("jobs_rss") == std::string::npos);

  REQUIRE(sink.publish(snapshot_of("111", 512)));
  body = http_get(url, &status);
  CHECK(status == 200);
  CHECK(body.find("# TYPE jobs_rss gauge\n") != std::string::npos);
  CHECK(body.find("jobs_rss{instance=\"n1\",slurm_job=\"111\"} 512\n") != std::string::npos);

  REQUIRE(sink.publish(snapshot_of("222", 7)));
  body = http_get(url, &status);
  CHECK(status == 200);
  CHECK(body.find("jobs_rss{instance=\"n1\",slurm_job=\"222\"} 7\n") != std::string::npos);
  CHECK(body.find("slurm_job=\"111\"") == std::string::npos);
}
