// Benchmark of the GPU sources' cost per pass (see README.md). Not a test: it
// prints figures and never fails on a timing.
//
//   gpu_bench --fixture DIR --library PATH [--gpus N] [--passes N] [--warmup N]
//
// Two samplers over the same fixture node (a case of test/fixtures, with its
// cgroup/ and proc/ trees): one without a GPU library, one with the stand-in
// NVML (test/standin) answering for N GPUs (default 8), three of them held by
// the fixture's jobs 301 (GPUs 0, 1) and 302 (GPU 2), with processes on them.
// Their passes (Sampler::sample + the text exposition, as the daemon hands
// its sinks) alternate; the difference of their CPU per pass is what the
// GPUs add, the stand-in library's own work included (it stats its file on
// each read).
#include "collect/error_counter.hpp"
#include "collect/layout.hpp"
#include "collect/metrics.hpp"
#include "collect/sampler.hpp"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

namespace pc = petricore::collect;

namespace {

double cpu_ms() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

struct Options {
  std::string fixture, library;
  int gpus = 8, passes = 2000, warmup = 20;
};

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: gpu_bench --fixture DIR --library PATH [--gpus N] [--passes N] [--warmup N]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) usage();
    const char* v = argv[++i];
    if (a == "--fixture")
      o.fixture = v;
    else if (a == "--library")
      o.library = v;
    else if (a == "--gpus")
      o.gpus = std::atoi(v);
    else if (a == "--passes")
      o.passes = std::atoi(v);
    else if (a == "--warmup")
      o.warmup = std::atoi(v);
    else
      usage();
  }
  if (o.fixture.empty() || o.library.empty() || o.gpus < 3 || o.passes < 1) usage();
  return o;
}

// The stand-in's file: N GPUs, the fixture's job processes on 0, 1 and 2,
// one process of no job on each of the others.
std::string write_standin(int gpus) {
  std::string path = "/tmp/petricore-gpu-bench-" + std::to_string(::getpid()) + ".txt";
  std::ofstream out(path);
  for (int i = 0; i < gpus; ++i) {
    out << "gpu minor=" << i << " uuid=GPU-" << 10000000 + i
        << " name=\"NVIDIA A100-SXM4-80GB\" memory_total_mib=81920\n"
        << "sample gpu=" << i << " util=" << (i * 13) % 100 << " memory_util=" << (i * 7) % 100
        << " memory_used_mib=" << 1024 * (i + 1) << " power_mw=" << 60000 + 10000 * i << "\n";
    if (i >= 3) out << "process gpu=" << i << " pid=" << 90000 + i << "\n";
  }
  out << "process gpu=0 pid=3021\nprocess gpu=0 pid=3022\nprocess gpu=2 pid=4012\n";
  return path;
}

struct Pass {
  double ms = 0;
  std::size_t bytes = 0;
};

Pass pass(pc::Sampler& sampler, pc::ErrorCounter& errors, double& clock) {
  double start = cpu_ms();
  clock += 15;  // a pass every 15 s: each one reads the GPUs anew
  std::vector<pc::JobSample> jobs = sampler.sample(clock);
  pc::SelfMetrics self;
  self.errors_by_source = errors.totals();
  std::string text = pc::render_text(jobs, "bench", self);
  return {cpu_ms() - start, text.size()};
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  std::string standin = write_standin(o.gpus);
  ::setenv("PETRICORE_NVML_STANDIN", standin.c_str(), 1);
  const std::string cgroup = o.fixture + "/cgroup", proc = o.fixture + "/proc";
  pc::ErrorCounter plain_errors, gpu_errors;
  pc::SamplerOptions plain_options;
  pc::SamplerOptions gpu_options;
  gpu_options.nvml_library = o.library;
  pc::Sampler plain(cgroup, proc, pc::make_layout(pc::LayoutKind::Auto, ""), plain_options, plain_errors);
  pc::Sampler gpus(cgroup, proc, pc::make_layout(pc::LayoutKind::Auto, ""), gpu_options, gpu_errors);
  double plain_clock = 0, gpu_clock = 0;
  for (int i = 0; i < o.warmup; ++i) {
    pass(plain, plain_errors, plain_clock);
    pass(gpus, gpu_errors, gpu_clock);
  }
  double plain_ms = 0, gpu_ms = 0;
  Pass last_plain, last_gpu;
  for (int i = 0; i < o.passes; ++i) {
    // Alternate the order so neither always runs with the other's warm caches.
    if (i % 2 == 0) {
      last_plain = pass(plain, plain_errors, plain_clock);
      last_gpu = pass(gpus, gpu_errors, gpu_clock);
    } else {
      last_gpu = pass(gpus, gpu_errors, gpu_clock);
      last_plain = pass(plain, plain_errors, plain_clock);
    }
    plain_ms += last_plain.ms;
    gpu_ms += last_gpu.ms;
  }
  std::remove(standin.c_str());
  const double n = o.passes;
  auto gpu_count = gpu_errors.totals().count("gpu") ? gpu_errors.totals().at("gpu") : 0;
  std::printf("fixture %s, %d stand-in GPUs (3 held by its 2 jobs), %d passes each after %d warm-up\n",
              o.fixture.c_str(), o.gpus, o.passes, o.warmup);
  std::printf("  %-36s %10s %10s\n", "", "CPU ms", "text bytes");
  std::printf("  %-36s %10.4f %10zu\n", "pass without a GPU library", plain_ms / n, last_plain.bytes);
  std::printf("  %-36s %10.4f %10zu\n", "pass with the stand-in NVML", gpu_ms / n, last_gpu.bytes);
  std::printf("  %-36s %10.4f   (target <= 1 ms)\n", "added by the GPUs", (gpu_ms - plain_ms) / n);
  std::printf("gpu errors counted: %llu\n", static_cast<unsigned long long>(gpu_count));
  return 0;
}
