// /proc/<pid>/status and /proc/<pid>/io: ids and counts in their domains
// (tgid > 0, uid and threads not negative), and each reads back the same
// from the kernel's form.
#include "collect/kernel_formats.hpp"
#include "fuzz_check.hpp"

#include <string>

using namespace petricore::collect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = petricore::fuzz::as_text(data, size);
  if (auto status = parse_proc_status(text)) {
    FUZZ_CHECK(status->tgid > 0 && status->uid >= -1 && status->threads >= 0);
    std::string form = "Name:\tx\nTgid:\t" + std::to_string(status->tgid) + "\n";
    if (status->uid >= 0) form += "Uid:\t" + std::to_string(status->uid) + "\t0\t0\t0\n";
    form += "RssAnon:\t" + std::to_string(status->rss_anon_kib) + " kB\nRssShmem:\t" +
            std::to_string(status->rss_shmem_kib) + " kB\nThreads:\t" + std::to_string(status->threads) + "\n";
    auto again = parse_proc_status(form);
    FUZZ_CHECK(again && again->tgid == status->tgid && again->uid == status->uid &&
               again->rss_anon_kib == status->rss_anon_kib && again->rss_shmem_kib == status->rss_shmem_kib &&
               again->threads == status->threads);
  }
  if (auto io = parse_proc_io(text)) {
    auto again = parse_proc_io("rchar: 1\nwchar: 2\nsyscr: " + std::to_string(io->syscr) + "\nsyscw: " +
                               std::to_string(io->syscw) + "\nread_bytes: " + std::to_string(io->read_bytes) +
                               "\nwrite_bytes: " + std::to_string(io->write_bytes) + "\ncancelled_write_bytes: 0\n");
    FUZZ_CHECK(again && again->syscr == io->syscr && again->syscw == io->syscw && again->read_bytes == io->read_bytes &&
               again->write_bytes == io->write_bytes);
  }
  return 0;
}
