// What decoding a Prometheus range answer costs (sources/prometheus_answer),
// against the document-tree decoder it replaced (test/fuzz/
// prometheus_answer_tree.hpp), in one run on one machine: time per MB and
// the peak memory each adds to a fresh process.
//
//   answer_decode_bench [--mb N]     a matrix answer of about N MB (default 50)
//
// Prints figures; asserts nothing but that both decoders agree.
#include "../fuzz/prometheus_answer_tree.hpp"
#include "sources/prometheus_answer.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace petricore;

namespace {

// Series of a 4-node job's per-core CPU, 15 s apart, as Prometheus words them.
std::string answer_of_about(std::size_t bytes) {
  std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  char sample[64];
  for (int series = 0; body.size() < bytes; ++series) {
    if (series > 0) body += ',';
    body += R"({"metric":{"__name__":"jobs_cpu_percent","instance":"node)" + std::to_string(series % 4) +
            R"(:9966","slurm_job":"4242","core":")" + std::to_string(series) + R"("},"values":[)";
    for (int i = 0; i < 2000; ++i) {
      std::snprintf(sample, sizeof sample, "%s[%.3f,\"%.6g\"]", i ? "," : "", 1.7e9 + 15.0 * i,
                    37.5 + (i * 7919 % 6300) / 100.0);
      body += sample;
    }
    body += "]}";
  }
  body += "]}}";
  return body;
}

using Decoder = Result<std::vector<model::Series>> (*)(std::string_view);

Result<std::vector<model::Series>> by_tree(std::string_view body) {
  bool api_error = false;
  return reference::decode_with_tree(body, api_error);
}

Result<std::vector<model::Series>> by_stream(std::string_view body) {
  // As the client feeds it: in libcurl's 16 KiB pieces.
  sources::PrometheusAnswer answer;
  for (std::size_t at = 0; at < body.size(); at += 16384) answer.feed(body.substr(at, 16384));
  return answer.finish();
}

double seconds_for(Decoder decode, const std::string& body, int rounds) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < rounds; ++i) {
    auto series = decode(body);
    if (!series) std::exit(1);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / rounds;
}

long status_kib(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  const std::size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, field, n) == 0) kib = std::strtol(line + n + 1, nullptr, 10);
  }
  std::fclose(f);
  return kib;
}

// Peak resident memory a decoding adds, in a child whose peak is first reset
// to what it holds (the body; "5" to clear_refs resets VmHWM).
long peak_kib_added(Decoder decode, const std::string& body) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  const pid_t child = fork();
  if (child == 0) {
    std::FILE* clear = std::fopen("/proc/self/clear_refs", "w");
    if (!clear || std::fputs("5", clear) < 0 || std::fclose(clear) != 0) _exit(1);
    const long before = status_kib("VmHWM");
    auto series = decode(body);
    long added = status_kib("VmHWM") - before;
    if (!series) added = -1;
    (void)!write(pipe_fds[1], &added, sizeof added);
    _exit(0);
  }
  close(pipe_fds[1]);
  long added = -1;
  if (read(pipe_fds[0], &added, sizeof added) != sizeof added) added = -1;
  close(pipe_fds[0]);
  waitpid(child, nullptr, 0);
  return added;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t mb = 50;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mb") == 0 && i + 1 < argc) {
      mb = std::strtoul(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: answer_decode_bench [--mb N]\n");
      return 2;
    }
  }
  if (mb == 0 || mb > 200) {
    std::fprintf(stderr, "answer_decode_bench: --mb must be 1 to 200\n");
    return 2;
  }
  const std::string body = answer_of_about(mb << 20);
  // Measured first: memory the parent freed would be reused by the children
  // without their resident size growing.
  const long m_tree = peak_kib_added(by_tree, body);
  const long m_stream = peak_kib_added(by_stream, body);
  const auto tree = by_tree(body);
  const auto stream = by_stream(body);
  if (!reference::same_decoding(tree, stream)) {
    std::fprintf(stderr, "answer_decode_bench: the decoders disagree\n");
    return 1;
  }
  std::size_t samples = 0;
  for (const auto& s : *stream) samples += s.samples.size();
  const double body_mib = body.size() / 1048576.0;
  std::printf("answer: %.1f MiB, %zu series, %zu samples\n", body_mib, stream->size(), samples);
  // Alternated, so a busy machine weighs on both alike.
  double t_tree = 0, t_stream = 0;
  for (int round = 0; round < 3; ++round) {
    t_tree += seconds_for(by_tree, body, 1);
    t_stream += seconds_for(by_stream, body, 1);
  }
  t_tree /= 3;
  t_stream /= 3;
  std::printf("time:   tree %.0f ms (%.0f MiB/s), stream %.0f ms (%.0f MiB/s), stream/tree %.2f\n", t_tree * 1e3,
              body_mib / t_tree, t_stream * 1e3, body_mib / t_stream, t_stream / t_tree);
  std::printf(
      "memory: tree adds %.0f MiB (%.1fx the answer), stream adds %.0f MiB (%.1fx); the series themselves: %.0f MiB\n",
      m_tree / 1024.0, m_tree / 1024.0 / body_mib, m_stream / 1024.0, m_stream / 1024.0 / body_mib,
      samples * sizeof(model::Sample) / 1048576.0);
  return 0;
}
