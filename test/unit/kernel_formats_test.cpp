#include "collect/kernel_formats.hpp"

#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

using namespace petricore::collect;
using namespace std::string_view_literals;

namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// Real samples, captured on a Debian 12 machine with kernel 6.18 (cgroup v1).

// cat /proc/self/stat
constexpr std::string_view kRealProcStat =
    "3443 (cat) R 3441 3441 3110 0 -1 4194304 97 0 0 0 0 0 0 0 20 0 1 0 16247 3133440 360 "
    "18446744073709551615 94502692114432 94502692134313 140725585426144 0 0 0 0 0 0 0 0 0 17 1 "
    "0 0 0 0 0 94502692150320 94502692151936 94503308742656 140725585427074 140725585427094 "
    "140725585427094 140725585428459 0\n";

// cat /proc/12/stat (a workqueue kthread; its name is longer than 15 bytes)
constexpr std::string_view kRealKworkerStat =
    "12 (kworker/u8:0-events_unbound) I 2 0 0 0 -1 69239136 0 0 0 0 0 32 0 0 20 0 1 0 14 0 0 "
    "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

// cat /sys/fs/cgroup/memory/memory.stat
constexpr std::string_view kRealMemoryStatV1 =
    "cache 19857408\n"
    "rss 2342912\n"
    "rss_huge 0\n"
    "shmem 9166848\n"
    "mapped_file 7131136\n"
    "dirty 24576\n"
    "writeback 0\n"
    "workingset_refault_anon 0\n"
    "workingset_refault_file 61\n"
    "swap 0\n"
    "swapcached 0\n"
    "pgpgin 16468\n"
    "pgpgout 11086\n"
    "pgfault 13826\n"
    "pgmajfault 0\n"
    "inactive_anon 0\n"
    "active_anon 1531904\n"
    "inactive_file 4771840\n"
    "active_file 5918720\n"
    "unevictable 9977856\n"
    "hierarchical_memory_limit 9223372036854771712\n"
    "hierarchical_memsw_limit 9223372036854771712\n"
    "total_cache 660529152\n"
    "total_rss 5181440\n"
    "total_rss_huge 0\n"
    "total_shmem 9166848\n"
    "total_mapped_file 10424320\n"
    "total_dirty 196608\n"
    "total_writeback 0\n"
    "total_workingset_refault_anon 0\n"
    "total_workingset_refault_file 3123\n"
    "total_swap 0\n"
    "total_swapcached 0\n"
    "total_pgpgin 876901\n"
    "total_pgpgout 724006\n"
    "total_pgfault 1317628\n"
    "total_pgmajfault 762\n"
    "total_inactive_anon 2715648\n"
    "total_active_anon 1552384\n"
    "total_inactive_file 506281984\n"
    "total_active_file 145080320\n"
    "total_unevictable 9977856\n";

// A cgroup v2 memory.stat in the key layout of kernel 6.x (this machine has no
// v2 memory controller, so the values are illustrative; most event counters
// at the end are omitted).
constexpr std::string_view kMemoryStatV2 =
    "anon 1126400000\n"
    "file 52293632\n"
    "kernel 2670592\n"
    "kernel_stack 196608\n"
    "pagetables 2355200\n"
    "sec_pagetables 0\n"
    "percpu 1440\n"
    "sock 0\n"
    "vmalloc 0\n"
    "shmem 4096\n"
    "zswap 0\n"
    "zswapped 0\n"
    "file_mapped 19030016\n"
    "file_dirty 0\n"
    "file_writeback 0\n"
    "swapcached 0\n"
    "anon_thp 1063256064\n"
    "file_thp 0\n"
    "shmem_thp 0\n"
    "inactive_anon 1126379520\n"
    "active_anon 24576\n"
    "inactive_file 36290560\n"
    "active_file 15998976\n"
    "unevictable 0\n"
    "slab_reclaimable 118224\n"
    "slab_unreclaimable 0\n"
    "slab 118224\n"
    "workingset_refault_anon 0\n"
    "workingset_refault_file 0\n"
    "pgfault 284563\n"
    "pgmajfault 0\n"
    "thp_fault_alloc 507\n";

// cat /proc/self/io
constexpr std::string_view kRealProcIo =
    "rchar: 6976\n"
    "wchar: 0\n"
    "syscr: 10\n"
    "syscw: 0\n"
    "read_bytes: 0\n"
    "write_bytes: 0\n"
    "cancelled_write_bytes: 0\n";

// cat /proc/self/status (Mems_allowed shortened)
constexpr std::string_view kRealProcStatus =
    "Name:\tcat\n"
    "Umask:\t0022\n"
    "State:\tR (running)\n"
    "Tgid:\t3450\n"
    "Ngid:\t0\n"
    "Pid:\t3450\n"
    "PPid:\t3441\n"
    "TracerPid:\t0\n"
    "Uid:\t0\t0\t0\t0\n"
    "Gid:\t0\t0\t0\t0\n"
    "FDSize:\t256\n"
    "Groups:\t \n"
    "NStgid:\t3450\n"
    "NSpid:\t3450\n"
    "NSpgid:\t3441\n"
    "NSsid:\t3110\n"
    "Kthread:\t0\n"
    "VmPeak:\t    3060 kB\n"
    "VmSize:\t    3060 kB\n"
    "VmLck:\t       0 kB\n"
    "VmPin:\t       0 kB\n"
    "VmHWM:\t    1616 kB\n"
    "VmRSS:\t    1616 kB\n"
    "RssAnon:\t     112 kB\n"
    "RssFile:\t    1504 kB\n"
    "RssShmem:\t       0 kB\n"
    "VmData:\t     360 kB\n"
    "VmStk:\t     132 kB\n"
    "VmExe:\t      20 kB\n"
    "VmLib:\t    1528 kB\n"
    "VmPTE:\t      48 kB\n"
    "VmSwap:\t       0 kB\n"
    "HugetlbPages:\t       0 kB\n"
    "CoreDumping:\t0\n"
    "THP_enabled:\t1\n"
    "untag_mask:\t0xffffffffffffffff\n"
    "Threads:\t1\n"
    "SigQ:\t0/96364\n"
    "SigPnd:\t0000000000000000\n"
    "ShdPnd:\t0000000000000000\n"
    "SigBlk:\t0000000000000000\n"
    "SigIgn:\t0000000000000000\n"
    "SigCgt:\t0000000000000000\n"
    "CapInh:\t0000000000000000\n"
    "CapPrm:\t000001fffeffffff\n"
    "CapEff:\t000001fffeffffff\n"
    "CapBnd:\t000001fffeffffff\n"
    "CapAmb:\t0000000000000000\n"
    "NoNewPrivs:\t0\n"
    "Seccomp:\t0\n"
    "Seccomp_filters:\t0\n"
    "Speculation_Store_Bypass:\tthread vulnerable\n"
    "SpeculationIndirectBranch:\tconditional enabled\n"
    "Cpus_allowed:\t3\n"
    "Cpus_allowed_list:\t0-1\n"
    "Mems_allowed:\t00000000,00000001\n"
    "Mems_allowed_list:\t0\n"
    "voluntary_ctxt_switches:\t0\n"
    "nonvoluntary_ctxt_switches:\t0\n";

// cat /proc/2/status (kthreadd: no Vm*/Rss* lines), abridged after Threads.
constexpr std::string_view kRealKthreadStatus =
    "Name:\tkthreadd\n"
    "Umask:\t0022\n"
    "State:\tS (sleeping)\n"
    "Tgid:\t2\n"
    "Ngid:\t0\n"
    "Pid:\t2\n"
    "PPid:\t0\n"
    "TracerPid:\t0\n"
    "Uid:\t0\t0\t0\t0\n"
    "Gid:\t0\t0\t0\t0\n"
    "FDSize:\t64\n"
    "Groups:\t \n"
    "NStgid:\t2\n"
    "NSpid:\t2\n"
    "NSpgid:\t0\n"
    "NSsid:\t0\n"
    "Kthread:\t1\n"
    "Threads:\t1\n"
    "SigQ:\t0/96364\n"
    "voluntary_ctxt_switches:\t58\n"
    "nonvoluntary_ctxt_switches:\t0\n";

// Fields 3..24 of a stat line after "pid (comm) ", for building variants.
constexpr std::string_view kStatFields3To24 =
    "S 17 100 100 0 -1 4194560 500 0 2 0 1234 567 0 0 20 0 8 0 98765 1000000 4321";

std::string stat_line(std::string_view comm, std::string_view after_comm) {
  std::string line = "4242 (";
  line += comm;
  line += ") ";
  line += after_comm;
  return line;
}

}  // namespace

// ---------------------------------------------------------------- cpu lists

TEST_CASE("cpu list with ranges and singles") {
  auto cpus = parse_cpu_list("0-3,8,10-11");
  REQUIRE(cpus);
  CHECK(*cpus == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
}

TEST_CASE("cpu list of a single cpu and a single range") {
  CHECK(parse_cpu_list("5") == std::vector<int>{5});
  CHECK(parse_cpu_list("0-1\n") == std::vector<int>{0, 1});  // real cpuset.cpus
  CHECK(parse_cpu_list("7-7") == std::vector<int>{7});
}

TEST_CASE("cpu list tolerates surrounding whitespace and a trailing newline") {
  CHECK(parse_cpu_list("0-2,4\n") == std::vector<int>{0, 1, 2, 4});
  CHECK(parse_cpu_list("  0-2 , 4 \n") == std::vector<int>{0, 1, 2, 4});
  CHECK(parse_cpu_list("\t1,3\r\n") == std::vector<int>{1, 3});
}

TEST_CASE("empty or whitespace-only cpu list is an empty list") {
  auto empty = parse_cpu_list("");
  REQUIRE(empty);
  CHECK(empty->empty());
  auto newline = parse_cpu_list("\n");
  REQUIRE(newline);
  CHECK(newline->empty());
  auto spaces = parse_cpu_list("  \t \n");
  REQUIRE(spaces);
  CHECK(spaces->empty());
}

TEST_CASE("cpu list is sorted and de-duplicated") {
  CHECK(parse_cpu_list("8,0-3") == std::vector<int>{0, 1, 2, 3, 8});
  CHECK(parse_cpu_list("0-3,2-5") == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(parse_cpu_list("3,3,3") == std::vector<int>{3});
  CHECK(parse_cpu_list("5,1,4-6,0") == std::vector<int>{0, 1, 4, 5, 6});
}

TEST_CASE("malformed cpu lists are rejected") {
  CHECK_FALSE(parse_cpu_list("3-1"));  // reversed range
  CHECK_FALSE(parse_cpu_list("a"));
  CHECK_FALSE(parse_cpu_list("1-"));
  CHECK_FALSE(parse_cpu_list("-1"));  // negative
  CHECK_FALSE(parse_cpu_list("-1-3"));
  CHECK_FALSE(parse_cpu_list("1--3"));
  CHECK_FALSE(parse_cpu_list("1-2-3"));
  CHECK_FALSE(parse_cpu_list("0,,1"));  // empty item
  CHECK_FALSE(parse_cpu_list("0,"));
  CHECK_FALSE(parse_cpu_list(",0"));
  CHECK_FALSE(parse_cpu_list("0 1"));  // separator must be a comma
  CHECK_FALSE(parse_cpu_list("0x1"));
  CHECK_FALSE(parse_cpu_list("+1"));
  CHECK_FALSE(parse_cpu_list("0-7:2"));  // stride syntax is input-only in the kernel
  CHECK_FALSE(parse_cpu_list("1.5"));
}

TEST_CASE("cpu list with overflowing or absurd cpu ids is rejected") {
  CHECK_FALSE(parse_cpu_list("99999999999999999999"));
  CHECK_FALSE(parse_cpu_list("0-4294967296"));
  CHECK_FALSE(parse_cpu_list("0-2000000000"));  // would allocate gigabytes
  CHECK_FALSE(parse_cpu_list("65536"));
  CHECK(parse_cpu_list("65535") == std::vector<int>{65535});
  auto big = parse_cpu_list("0-8191");  // largest NR_CPUS in the kernel
  REQUIRE(big);
  CHECK(big->size() == 8192);
  CHECK(big->back() == 8191);
}

TEST_CASE("cpu list formats ranges compactly") {
  CHECK(format_cpu_list({0, 1, 2, 3, 8}) == "0-3,8");
  CHECK(format_cpu_list({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11");
  CHECK(format_cpu_list({5}) == "5");
  CHECK(format_cpu_list({1, 3, 5}) == "1,3,5");
  CHECK(format_cpu_list({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}) == "0-15");
}

TEST_CASE("cpu list formats a run of two as a range") {
  CHECK(format_cpu_list({10, 11}) == "10-11");
  CHECK(format_cpu_list({0, 1, 4}) == "0-1,4");
}

TEST_CASE("empty cpu list formats as an empty string") {
  CHECK(format_cpu_list({}).empty());
}

TEST_CASE("cpu list formatting sorts and de-duplicates its input and skips negatives") {
  CHECK(format_cpu_list({8, 3, 2, 1, 0, 3}) == "0-3,8");
  CHECK(format_cpu_list({-2, -1, 0, 1}) == "0-1");
  CHECK(format_cpu_list({-5}).empty());
}

TEST_CASE("cpu list parse and format round-trip") {
  for (std::string_view text : {"0-3,8", "0-3,8,10-11", "5", "10-11", "0,2,4,6", "0-8191"}) {
    auto cpus = parse_cpu_list(text);
    REQUIRE(cpus);
    CHECK(format_cpu_list(*cpus) == text);
  }
}

// ---------------------------------------------------------------- single values

TEST_CASE("u64 with a trailing newline") {
  CHECK(parse_u64("123\n") == std::uint64_t{123});
  CHECK(parse_u64("0") == std::uint64_t{0});
  CHECK(parse_u64("61776202205\n") == std::uint64_t{61776202205});  // real cpuacct.usage
  CHECK(parse_u64("42 \n\n") == std::uint64_t{42});
}

TEST_CASE("u64 accepts the largest value and rejects overflow") {
  CHECK(parse_u64("18446744073709551615\n") == kU64Max);
  CHECK(parse_u64("9223372036854771712\n") == std::uint64_t{9223372036854771712ULL});  // v1 no limit
  CHECK_FALSE(parse_u64("18446744073709551616"));
  CHECK_FALSE(parse_u64("99999999999999999999999"));
}

TEST_CASE("malformed u64 values are rejected") {
  CHECK_FALSE(parse_u64(""));
  CHECK_FALSE(parse_u64("\n"));
  CHECK_FALSE(parse_u64("abc"));
  CHECK_FALSE(parse_u64("-1"));
  CHECK_FALSE(parse_u64("+1"));
  CHECK_FALSE(parse_u64("1 2"));
  CHECK_FALSE(parse_u64("12abc"));
  CHECK_FALSE(parse_u64("0x10"));
  CHECK_FALSE(parse_u64("1.5"));
  CHECK_FALSE(parse_u64(" 123"));  // only trailing whitespace is allowed
  CHECK_FALSE(parse_u64("max"));
}

TEST_CASE("memory.max of max means unlimited") {
  auto max = parse_memory_max("max\n");
  REQUIRE(max);
  CHECK_FALSE(max->bytes);
  auto bare = parse_memory_max("max");
  REQUIRE(bare);
  CHECK_FALSE(bare->bytes);
}

TEST_CASE("memory.max with a byte limit") {
  auto limit = parse_memory_max("4294967296\n");
  REQUIRE(limit);
  REQUIRE(limit->bytes);
  CHECK(*limit->bytes == 4294967296ULL);
  auto zero = parse_memory_max("0\n");
  REQUIRE(zero);
  CHECK(zero->bytes == std::uint64_t{0});
}

TEST_CASE("malformed memory.max is rejected") {
  CHECK_FALSE(parse_memory_max(""));
  CHECK_FALSE(parse_memory_max("\n"));
  CHECK_FALSE(parse_memory_max("maximum\n"));
  CHECK_FALSE(parse_memory_max("MAX\n"));
  CHECK_FALSE(parse_memory_max("max 1\n"));
  CHECK_FALSE(parse_memory_max("-1\n"));
  CHECK_FALSE(parse_memory_max("18446744073709551616\n"));
}

// ---------------------------------------------------------------- cpuacct / cpu.stat

TEST_CASE("cpuacct.usage_percpu with a trailing space and newline") {
  CHECK(parse_cpuacct_usage_percpu("123 456 \n") == std::vector<std::uint64_t>{123, 456});
  // real file of a two-CPU machine
  CHECK(parse_cpuacct_usage_percpu("19548793027 42226641508 \n") ==
        std::vector<std::uint64_t>{19548793027ULL, 42226641508ULL});
  CHECK(parse_cpuacct_usage_percpu("7") == std::vector<std::uint64_t>{7});
  CHECK(parse_cpuacct_usage_percpu("0 0 0 0\n") == std::vector<std::uint64_t>{0, 0, 0, 0});
}

TEST_CASE("cpuacct.usage_percpu keeps the largest value") {
  CHECK(parse_cpuacct_usage_percpu("18446744073709551615 1\n") == std::vector<std::uint64_t>{kU64Max, 1});
}

TEST_CASE("empty cpuacct.usage_percpu is malformed") {
  CHECK_FALSE(parse_cpuacct_usage_percpu(""));
  CHECK_FALSE(parse_cpuacct_usage_percpu(" \n"));
}

TEST_CASE("malformed cpuacct.usage_percpu is rejected") {
  CHECK_FALSE(parse_cpuacct_usage_percpu("123 abc \n"));
  CHECK_FALSE(parse_cpuacct_usage_percpu("123 -4 \n"));
  CHECK_FALSE(parse_cpuacct_usage_percpu("123 18446744073709551616\n"));
  CHECK_FALSE(parse_cpuacct_usage_percpu("1,2\n"));
}

TEST_CASE("cpuacct.stat with user and system ticks") {
  auto stat = parse_cpuacct_stat("user 10\nsystem 5\n");
  REQUIRE(stat);
  CHECK(stat->user == 10);
  CHECK(stat->system == 5);
  auto real = parse_cpuacct_stat("user 3000\nsystem 2453\n");
  REQUIRE(real);
  CHECK(real->user == 3000);
  CHECK(real->system == 2453);
}

TEST_CASE("cpuacct.stat in any order, without a final newline, with unknown keys") {
  auto stat = parse_cpuacct_stat("system 5\nguest 1\nuser 10");
  REQUIRE(stat);
  CHECK(stat->user == 10);
  CHECK(stat->system == 5);
}

TEST_CASE("cpuacct.stat missing a key is malformed") {
  CHECK_FALSE(parse_cpuacct_stat("user 10\n"));
  CHECK_FALSE(parse_cpuacct_stat("system 5\n"));
  CHECK_FALSE(parse_cpuacct_stat(""));
  CHECK_FALSE(parse_cpuacct_stat("users 10\nsystems 5\n"));  // exact key match
}

TEST_CASE("cpuacct.stat with a bad value is malformed") {
  CHECK_FALSE(parse_cpuacct_stat("user ten\nsystem 5\n"));
  CHECK_FALSE(parse_cpuacct_stat("user 10\nsystem\n"));
  CHECK_FALSE(parse_cpuacct_stat("user 10 11\nsystem 5\n"));
  CHECK_FALSE(parse_cpuacct_stat("user -10\nsystem 5\n"));
  CHECK_FALSE(parse_cpuacct_stat("user 18446744073709551616\nsystem 5\n"));
}

TEST_CASE("cpu.stat with the three usage keys and ignored extras") {
  // real unified cpu.stat (kernel 6.18)
  auto stat = parse_cpu_stat(
      "usage_usec 54008784\nuser_usec 29711376\nsystem_usec 24297407\n"
      "nice_usec 0\n");
  REQUIRE(stat);
  CHECK(stat->usage_usec == 54008784);
  CHECK(stat->user_usec == 29711376);
  CHECK(stat->system_usec == 24297407);

  // a job cgroup with a CPU quota
  auto throttled = parse_cpu_stat(
      "usage_usec 1000\nuser_usec 600\nsystem_usec 400\ncore_sched.force_idle_usec 0\n"
      "nr_periods 12\nnr_throttled 3\nthrottled_usec 9000\nnr_bursts 0\nburst_usec 0\n");
  REQUIRE(throttled);
  CHECK(throttled->usage_usec == 1000);
  CHECK(throttled->user_usec == 600);
  CHECK(throttled->system_usec == 400);
}

TEST_CASE("cgroup.stat's count of live descendants") {
  // kernel 6.12 (Debian 13), a Slurm 24.11 job with two steps; newer
  // kernels add nr_subsys_* keys
  CHECK(parse_cgroup_descendants("nr_descendants 8\nnr_dying_descendants 1\n") == 8u);
  CHECK(parse_cgroup_descendants("nr_descendants 0\nnr_dying_descendants 0\nnr_subsys_cpu 1\nnr_subsys_memory 1\n") ==
        0u);
  CHECK_FALSE(parse_cgroup_descendants("nr_dying_descendants 0\n"));
  CHECK_FALSE(parse_cgroup_descendants("nr_descendants x\n"));
  CHECK_FALSE(parse_cgroup_descendants(""));
}

TEST_CASE("cpu.stat missing a usage key is malformed") {
  CHECK_FALSE(parse_cpu_stat("usage_usec 1\nuser_usec 1\n"));
  CHECK_FALSE(parse_cpu_stat("usage_usec 1\nsystem_usec 1\n"));
  CHECK_FALSE(parse_cpu_stat("user_usec 1\nsystem_usec 1\n"));
  CHECK_FALSE(parse_cpu_stat(""));
  // truncated in the middle of the third key
  CHECK_FALSE(parse_cpu_stat("usage_usec 1\nuser_usec 1\nsystem_u"));
}

TEST_CASE("cpu.stat with a bad or overflowing value is malformed") {
  CHECK_FALSE(parse_cpu_stat("usage_usec x\nuser_usec 1\nsystem_usec 1\n"));
  CHECK_FALSE(parse_cpu_stat("usage_usec 99999999999999999999\nuser_usec 1\nsystem_usec 1\n"));
  CHECK_FALSE(parse_cpu_stat("usage_usec\nuser_usec 1\nsystem_usec 1\n"));
}

// ---------------------------------------------------------------- memory.stat

TEST_CASE("kernel memory summed from parts that overflow saturates instead of wrapping") {
  // test/fuzz/regressions/memory_stat/kernel-parts-wrap: the sum wrapped to 0.
  auto stat = parse_memory_stat("anon 1\nkernel_stack 18446744073709551615\nslab 1\n");
  REQUIRE(stat);
  REQUIRE(stat->kernel);
  CHECK(*stat->kernel == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("real v1 memory.stat prefers the hierarchical totals") {
  auto stat = parse_memory_stat(kRealMemoryStatV1);
  REQUIRE(stat);
  CHECK(stat->anon == 5181440);   // total_rss, not rss (2342912) nor total_rss_huge
  CHECK(stat->shmem == 9166848);  // total_shmem
}

TEST_CASE("v1 memory.stat totals win regardless of line order") {
  auto stat = parse_memory_stat("total_rss 700\ntotal_shmem 70\nrss 100\nshmem 10\n");
  REQUIRE(stat);
  CHECK(stat->anon == 700);
  CHECK(stat->shmem == 70);
}

TEST_CASE("v1 memory.stat without totals uses the local values") {
  auto stat = parse_memory_stat("cache 1\nrss 100\nrss_huge 0\nshmem 10\n");
  REQUIRE(stat);
  CHECK(stat->anon == 100);
  CHECK(stat->shmem == 10);
}

TEST_CASE("memory.stat key matching is exact so rss_huge is not rss") {
  // Only the *_huge keys: no anon-ish key at all.
  CHECK_FALSE(parse_memory_stat("rss_huge 4096\ntotal_rss_huge 8192\nshmem 1\n"));
  // total_rss_huge before total_rss must not shadow it.
  auto stat = parse_memory_stat("total_rss_huge 2097152\ntotal_rss 300\nrss_huge 1\nrss 5\n");
  REQUIRE(stat);
  CHECK(stat->anon == 300);
  // shmem_thp (v2) is not shmem.
  auto v2 = parse_memory_stat("anon 10\nshmem_thp 999\n");
  REQUIRE(v2);
  CHECK(v2->shmem == 0);
}

TEST_CASE("v2 memory.stat in the kernel 6.x layout reports anon and shmem") {
  auto stat = parse_memory_stat(kMemoryStatV2);
  REQUIRE(stat);
  CHECK(stat->anon == 1126400000ULL);  // anon, not inactive_anon/active_anon/anon_thp
  CHECK(stat->shmem == 4096);
}

TEST_CASE("real v1 memory.stat gives the page cache and swap from the hierarchical totals, no kernel") {
  auto stat = parse_memory_stat(kRealMemoryStatV1);
  REQUIRE(stat);
  CHECK(stat->cache == 660529152);  // total_cache, shmem included
  CHECK(stat->swap == 0);           // total_swap
  CHECK_FALSE(stat->kernel);        // v1 has no such key
}

TEST_CASE("v2 memory.stat gives file as the page cache and the kernel key") {
  auto stat = parse_memory_stat(kMemoryStatV2);
  REQUIRE(stat);
  CHECK(stat->cache == 52293632);  // file
  CHECK(stat->kernel == 2670592);
  CHECK_FALSE(stat->swap);  // memory.swap.current holds it on v2
}

TEST_CASE("v2 memory.stat without the kernel key sums its parts") {
  auto stat = parse_memory_stat("anon 10\nfile 20\nkernel_stack 1\npagetables 2\npercpu 4\nsock 8\nslab 16\nshmem 3\n");
  REQUIRE(stat);
  CHECK(stat->kernel == 31);
  CHECK(stat->cache == 20);
  // Older v2 kernels without any of them: unknown, not zero.
  auto bare = parse_memory_stat("anon 10\nfile 20\n");
  REQUIRE(bare);
  CHECK_FALSE(bare->kernel);
}

TEST_CASE("memory.stat with a non-number in a breakdown key is malformed") {
  CHECK_FALSE(parse_memory_stat("total_rss 1\ntotal_cache x\n"));
  CHECK_FALSE(parse_memory_stat("anon 1\nkernel -5\n"));
}

TEST_CASE("memory.stat without shmem has zero shmem") {
  auto stat = parse_memory_stat("cache 1\nrss 100\n");
  REQUIRE(stat);
  CHECK(stat->anon == 100);
  CHECK(stat->shmem == 0);
}

TEST_CASE("memory.stat without an anon key is malformed") {
  CHECK_FALSE(parse_memory_stat(""));
  CHECK_FALSE(parse_memory_stat("shmem 10\ntotal_shmem 20\n"));
  CHECK_FALSE(parse_memory_stat("cache 1\nactive_anon 5\ninactive_anon 6\n"));
  CHECK_FALSE(parse_memory_stat("garbage\n"));
}

TEST_CASE("memory.stat with a bad value for a used key is malformed") {
  CHECK_FALSE(parse_memory_stat("rss abc\n"));
  CHECK_FALSE(parse_memory_stat("total_rss 18446744073709551616\n"));
  CHECK_FALSE(parse_memory_stat("anon 1\nshmem -1\n"));
  CHECK_FALSE(parse_memory_stat("anon\n"));
}

TEST_CASE("memory.stat ignores odd values of unused keys") {
  auto stat = parse_memory_stat(
      "hierarchical_memory_limit 99999999999999999999999\n"
      "some_future_key n/a\nanon 5\n");
  REQUIRE(stat);
  CHECK(stat->anon == 5);
}

// ---------------------------------------------------------------- pid lists

TEST_CASE("pid list with one id per line") {
  CHECK(parse_pid_list("1\n2\n3\n") == std::vector<int>{1, 2, 3});
  CHECK(parse_pid_list("4194304") == std::vector<int>{4194304});  // pid_max, no newline
}

TEST_CASE("pid list keeps the kernel's order") {
  CHECK(parse_pid_list("300\n20\n1\n") == std::vector<int>{300, 20, 1});
}

TEST_CASE("pid list skips blank lines") {
  CHECK(parse_pid_list("\n1\n\n2\n  \n") == std::vector<int>{1, 2});
}

TEST_CASE("empty pid list is an empty vector") {
  auto pids = parse_pid_list("");
  REQUIRE(pids);
  CHECK(pids->empty());
  auto newline = parse_pid_list("\n");
  REQUIRE(newline);
  CHECK(newline->empty());
}

TEST_CASE("pid list with a garbage line is malformed") {
  CHECK_FALSE(parse_pid_list("1\nabc\n3\n"));
  CHECK_FALSE(parse_pid_list("1\n2 3\n"));
  CHECK_FALSE(parse_pid_list("0\n"));
  CHECK_FALSE(parse_pid_list("-5\n"));
  CHECK_FALSE(parse_pid_list("99999999999\n"));  // does not fit an int
  CHECK_FALSE(parse_pid_list("12a\n"));
}

// ---------------------------------------------------------------- /proc/<pid>/stat

TEST_CASE("real proc stat line of a kernel 6.x") {
  auto stat = parse_proc_stat(kRealProcStat);
  REQUIRE(stat);
  CHECK(stat->pid == 3443);
  CHECK(stat->comm == "cat");
  CHECK(stat->state == 'R');
  CHECK(stat->utime == 0);
  CHECK(stat->stime == 0);
  CHECK(stat->num_threads == 1);
  CHECK(stat->starttime == 16247);
  CHECK(stat->rss_pages == 360);
  CHECK(stat->processor == 1);
}

TEST_CASE("proc stat picks each field by position") {
  auto stat =
      parse_proc_stat(stat_line("slurmstepd", std::string(kStatFields3To24) + " 18446744073709551615 1 2 3 0 0 0 0 0 "
                                                                              "0 0 0 0 17 5 0 0 0\n"));
  REQUIRE(stat);
  CHECK(stat->pid == 4242);
  CHECK(stat->comm == "slurmstepd");
  CHECK(stat->state == 'S');
  CHECK(stat->ppid == 17);
  CHECK(stat->utime == 1234);
  CHECK(stat->stime == 567);
  CHECK(stat->num_threads == 8);
  CHECK(stat->starttime == 98765);
  CHECK(stat->rss_pages == 4321);
  CHECK(stat->processor == 5);
}

TEST_CASE("proc stat with a command name holding spaces and parentheses") {
  auto stat = parse_proc_stat(stat_line("a) b (c) R 1", kStatFields3To24));
  REQUIRE(stat);
  CHECK(stat->comm == "a) b (c) R 1");
  CHECK(stat->state == 'S');
  CHECK(stat->utime == 1234);
  CHECK(stat->rss_pages == 4321);

  auto smiley = parse_proc_stat(stat_line(":-) ", kStatFields3To24));
  REQUIRE(smiley);
  CHECK(smiley->comm == ":-) ");
}

TEST_CASE("proc stat of a workqueue kthread with a name longer than 15 bytes") {
  auto stat = parse_proc_stat(kRealKworkerStat);
  REQUIRE(stat);
  CHECK(stat->pid == 12);
  CHECK(stat->comm == "kworker/u8:0-events_unbound");
  CHECK(stat->state == 'I');
  CHECK(stat->stime == 32);
  CHECK(stat->rss_pages == 0);
  CHECK(stat->processor == 1);
}

TEST_CASE("proc stat with an empty command name") {
  auto stat = parse_proc_stat(stat_line("", kStatFields3To24));
  REQUIRE(stat);
  CHECK(stat->comm.empty());
  CHECK(stat->rss_pages == 4321);
}

TEST_CASE("proc stat truncated after rss has no processor") {
  auto stat = parse_proc_stat(stat_line("old", kStatFields3To24));
  REQUIRE(stat);
  CHECK(stat->rss_pages == 4321);
  CHECK(stat->processor == -1);

  auto with_newline = parse_proc_stat(stat_line("old", std::string(kStatFields3To24) + "\n"));
  REQUIRE(with_newline);
  CHECK(with_newline->processor == -1);

  // stops somewhere between rss and processor
  auto partial = parse_proc_stat(stat_line("old", std::string(kStatFields3To24) + " 1 2 3 4\n"));
  REQUIRE(partial);
  CHECK(partial->processor == -1);
}

TEST_CASE("proc stat truncated before rss is malformed") {
  // drop the rss field
  std::string_view fields = kStatFields3To24;
  const std::string without_rss(fields.substr(0, fields.rfind(' ')));
  CHECK_FALSE(parse_proc_stat(stat_line("x", without_rss)));
  CHECK_FALSE(parse_proc_stat(stat_line("x", "S 1 100")));
  CHECK_FALSE(parse_proc_stat(stat_line("x", "")));
  CHECK_FALSE(parse_proc_stat("4242 (x)"));
  CHECK_FALSE(parse_proc_stat("4242 (trunc"));
  CHECK_FALSE(parse_proc_stat("4242"));
  CHECK_FALSE(parse_proc_stat(""));
  // the real line cut off in the middle
  CHECK_FALSE(parse_proc_stat(kRealProcStat.substr(0, 60)));
}

TEST_CASE("proc stat with a malformed head is rejected") {
  CHECK_FALSE(parse_proc_stat(std::string("abc (x) ") + std::string(kStatFields3To24)));
  CHECK_FALSE(parse_proc_stat(std::string("(x) ") + std::string(kStatFields3To24)));
  CHECK_FALSE(parse_proc_stat(std::string("-1 (x) ") + std::string(kStatFields3To24)));
  CHECK_FALSE(parse_proc_stat(std::string("0 (x) ") + std::string(kStatFields3To24)));
  CHECK_FALSE(parse_proc_stat(std::string("12(x) ") + std::string(kStatFields3To24)));
  CHECK_FALSE(parse_proc_stat(std::string("12 (x)") + std::string(kStatFields3To24)));  // no space
  CHECK_FALSE(parse_proc_stat(std::string("12 x) ") + std::string(kStatFields3To24)));  // no '('
  CHECK_FALSE(parse_proc_stat(std::string("12 (x ") + std::string(kStatFields3To24)));  // no ')'
  CHECK_FALSE(parse_proc_stat(std::string("99999999999 (x) ") + std::string(kStatFields3To24)));
}

TEST_CASE("proc stat with a malformed field is rejected") {
  // state must be one letter
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "SS 1 100 100 0 -1 4194560 500 0 2 0 1234 567 0 0 "
                                        "20 0 8 0 98765 1000000 4321")));
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "1 1 100 100 0 -1 4194560 500 0 2 0 1234 567 0 0 "
                                        "20 0 8 0 98765 1000000 4321")));
  // utime not a number
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "S 1 100 100 0 -1 4194560 500 0 2 0 12x4 567 0 0 "
                                        "20 0 8 0 98765 1000000 4321")));
  // utime negative
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "S 1 100 100 0 -1 4194560 500 0 2 0 -1 567 0 0 "
                                        "20 0 8 0 98765 1000000 4321")));
  // an unused field (ppid) not a number
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "S one 100 100 0 -1 4194560 500 0 2 0 1234 567 0 "
                                        "0 20 0 8 0 98765 1000000 4321")));
  // rss not a number
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "S 1 100 100 0 -1 4194560 500 0 2 0 1234 567 0 0 "
                                        "20 0 8 0 98765 1000000 lots")));
  // processor not a number
  CHECK_FALSE(parse_proc_stat(stat_line("x", std::string(kStatFields3To24) + " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 cpu0")));
  // an optional field between rss and processor that is not a number
  CHECK_FALSE(parse_proc_stat(stat_line("x", std::string(kStatFields3To24) + " 0 zz 0\n")));
}

TEST_CASE("proc stat with overflowing numbers is rejected") {
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "S 1 100 100 0 -1 4194560 500 0 2 0 "
                                        "18446744073709551616 567 0 0 20 0 8 0 98765 "
                                        "1000000 4321")));
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "S 1 100 100 0 -1 4194560 500 0 2 0 1234 567 0 0 "
                                        "20 0 8 0 99999999999999999999 1000000 4321")));
  CHECK_FALSE(parse_proc_stat(stat_line("x",
                                        "S 1 100 100 0 -1 4194560 500 0 2 0 1234 567 0 0 "
                                        "20 0 8 0 98765 1000000 9223372036854775808")));
  CHECK_FALSE(
      parse_proc_stat(stat_line("x", std::string(kStatFields3To24) + " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4294967296")));
}

TEST_CASE("proc stat accepts the largest utime and ignores fields after processor") {
  auto stat = parse_proc_stat(stat_line("x",
                                        "S 1 100 100 0 -1 4194560 500 0 2 0 "
                                        "18446744073709551615 567 0 0 20 0 8 0 98765 "
                                        "1000000 4321 0 0 0 0 0 0 0 0 0 0 0 0 0 0 3 "
                                        "0 0 0 0 0 0 0 0 0 0 0 0 0 0 future\n"));
  REQUIRE(stat);
  CHECK(stat->utime == kU64Max);
  CHECK(stat->processor == 3);
}

// ---------------------------------------------------------------- /proc/<pid>/status

TEST_CASE("real proc status of a user process") {
  auto status = parse_proc_status(kRealProcStatus);
  REQUIRE(status);
  CHECK(status->tgid == 3450);
  CHECK(status->uid == 0);
  CHECK(status->rss_anon_kib == 112);
  CHECK(status->rss_shmem_kib == 0);
  CHECK(status->threads == 1);
}

TEST_CASE("proc status of a kernel thread has no rss lines") {
  auto status = parse_proc_status(kRealKthreadStatus);
  REQUIRE(status);
  CHECK(status->tgid == 2);
  CHECK(status->uid == 0);
  CHECK(status->rss_anon_kib == 0);
  CHECK(status->rss_shmem_kib == 0);
  CHECK(status->threads == 1);
}

TEST_CASE("proc status takes the real uid, not the effective one") {
  auto status = parse_proc_status(
      "Tgid:\t77\nUid:\t1000\t0\t0\t0\nThreads:\t12\n"
      "RssAnon:\t  204800 kB\nRssShmem:\t    4096 kB\n");
  REQUIRE(status);
  CHECK(status->tgid == 77);
  CHECK(status->uid == 1000);
  CHECK(status->threads == 12);
  CHECK(status->rss_anon_kib == 204800);
  CHECK(status->rss_shmem_kib == 4096);
}

TEST_CASE("proc status with only tgid leaves the optional fields at their defaults") {
  auto status = parse_proc_status("Tgid:\t9\n");
  REQUIRE(status);
  CHECK(status->tgid == 9);
  CHECK(status->uid == -1);
  CHECK(status->rss_anon_kib == 0);
  CHECK(status->rss_shmem_kib == 0);
  CHECK(status->threads == 0);
}

TEST_CASE("proc status without tgid is malformed") {
  CHECK_FALSE(parse_proc_status(""));
  CHECK_FALSE(parse_proc_status("Name:\tcat\nPid:\t3450\nUid:\t0\t0\t0\t0\n"));
  CHECK_FALSE(parse_proc_status("NStgid:\t3450\n"));  // exact key match
  // truncated before Tgid
  CHECK_FALSE(parse_proc_status(kRealProcStatus.substr(0, 30)));
}

TEST_CASE("proc status with a malformed used field is rejected") {
  CHECK_FALSE(parse_proc_status("Tgid:\tabc\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t0\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t99999999999\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nUid:\tx\t0\t0\t0\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nUid:\t\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nRssAnon:\t  12 MB\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nRssAnon:\t  12\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nRssAnon:\tkB\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nRssShmem:\t  -1 kB\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nRssShmem:\t  18446744073709551616 kB\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nThreads:\tmany\n"));
  CHECK_FALSE(parse_proc_status("Tgid:\t1\nThreads:\t-3\n"));
}

TEST_CASE("proc status ignores unknown keys whatever their value") {
  auto status = parse_proc_status(
      "Name:\tweird: name\nTgid:\t5\nFutureKey:\tnot a number\n"
      "no colon line\n");
  REQUIRE(status);
  CHECK(status->tgid == 5);
}

// ---------------------------------------------------------------- /proc/<pid>/io

TEST_CASE("real proc io") {
  auto io = parse_proc_io(kRealProcIo);
  REQUIRE(io);
  CHECK(io->syscr == 10);
  CHECK(io->syscw == 0);
  CHECK(io->read_bytes == 0);
  CHECK(io->write_bytes == 0);
}

TEST_CASE("proc io of a busy process with large counters") {
  auto io = parse_proc_io(
      "rchar: 123456789012\nwchar: 98765432109\nsyscr: 4000000\n"
      "syscw: 3000000\nread_bytes: 18446744073709551615\n"
      "write_bytes: 77594624\ncancelled_write_bytes: 4096\n");
  REQUIRE(io);
  CHECK(io->syscr == 4000000);
  CHECK(io->syscw == 3000000);
  CHECK(io->read_bytes == kU64Max);
  CHECK(io->write_bytes == 77594624);
}

TEST_CASE("proc io needs only the four used keys") {
  auto io = parse_proc_io("syscr: 1\nsyscw: 2\nread_bytes: 3\nwrite_bytes: 4");
  REQUIRE(io);
  CHECK(io->syscr == 1);
  CHECK(io->syscw == 2);
  CHECK(io->read_bytes == 3);
  CHECK(io->write_bytes == 4);
}

TEST_CASE("proc io missing a required key is malformed") {
  CHECK_FALSE(parse_proc_io(""));
  CHECK_FALSE(parse_proc_io("rchar: 1\nwchar: 1\nsyscr: 1\nsyscw: 1\n"));  // truncated
  CHECK_FALSE(parse_proc_io("syscr: 1\nsyscw: 2\nread_bytes: 3\n"));
  CHECK_FALSE(parse_proc_io("syscr: 1\nsyscw: 2\nwrite_bytes: 4\n"));
  CHECK_FALSE(parse_proc_io("syscr: 1\nread_bytes: 3\nwrite_bytes: 4\n"));
  CHECK_FALSE(parse_proc_io("syscw: 2\nread_bytes: 3\nwrite_bytes: 4\n"));
  // cancelled_write_bytes is not write_bytes
  CHECK_FALSE(parse_proc_io("syscr: 1\nsyscw: 2\nread_bytes: 3\ncancelled_write_bytes: 4\n"));
}

TEST_CASE("proc io with a bad value is malformed") {
  CHECK_FALSE(parse_proc_io("syscr: x\nsyscw: 2\nread_bytes: 3\nwrite_bytes: 4\n"));
  CHECK_FALSE(parse_proc_io("syscr: 1\nsyscw: 2\nread_bytes: -3\nwrite_bytes: 4\n"));
  CHECK_FALSE(parse_proc_io("syscr: 1\nsyscw: 2\nread_bytes: 3\nwrite_bytes: 18446744073709551616\n"));
  CHECK_FALSE(parse_proc_io("syscr: 1\nsyscw: 2\nread_bytes: 3\nwrite_bytes:\n"));
  CHECK_FALSE(parse_proc_io("rchar: lots\nsyscr: 1\nsyscw: 2\nread_bytes: 3\nwrite_bytes: 4\n"));
}

TEST_CASE("proc io ignores unknown keys") {
  auto io = parse_proc_io("syscr: 1\nsyscw: 2\nread_bytes: 3\nwrite_bytes: 4\nfuture_key: ?\n");
  REQUIRE(io);
  CHECK(io->write_bytes == 4);
}

// ---------------------------------------------------------------- environ

TEST_CASE("environ value of a present key") {
  constexpr auto env = "PATH=/usr/bin:/bin\0SLURM_JOB_ID=123456\0SLURM_JOB_GPUS=0,1\0HOME=/home/u\0"sv;
  CHECK(environ_value(env, "SLURM_JOB_ID") == std::string("123456"));
  CHECK(environ_value(env, "SLURM_JOB_GPUS") == std::string("0,1"));
  CHECK(environ_value(env, "PATH") == std::string("/usr/bin:/bin"));
  CHECK(environ_value(env, "HOME") == std::string("/home/u"));
}

TEST_CASE("environ value of the last entry without a trailing NUL") {
  constexpr auto env = "A=1\0SLURM_JOB_ID=42"sv;
  CHECK(environ_value(env, "SLURM_JOB_ID") == std::string("42"));
}

TEST_CASE("environ value matches the exact key only") {
  constexpr auto env = "SLURM_JOB_GPUS_X=9\0XSLURM_JOB_GPUS=8\0SLURM_JOB=7\0"sv;
  CHECK_FALSE(environ_value(env, "SLURM_JOB_GPUS"));
  CHECK(environ_value(env, "SLURM_JOB") == std::string("7"));
  constexpr auto env2 = "SLURM_JOB_GPUS_X=9\0SLURM_JOB_GPUS=2,3\0"sv;
  CHECK(environ_value(env2, "SLURM_JOB_GPUS") == std::string("2,3"));
}

TEST_CASE("environ value that is empty or holds an equals sign") {
  constexpr auto env = "EMPTY=\0OPTS=a=b=c\0"sv;
  CHECK(environ_value(env, "EMPTY") == std::string());
  CHECK(environ_value(env, "OPTS") == std::string("a=b=c"));
}

TEST_CASE("environ value of an absent key") {
  CHECK_FALSE(environ_value(""sv, "HOME"));
  CHECK_FALSE(environ_value("\0\0"sv, "HOME"));
  CHECK_FALSE(environ_value("HOME\0"sv, "HOME"));  // no '='
  CHECK_FALSE(environ_value("A=1\0B=2\0"sv, "C"));
  CHECK_FALSE(environ_value("A=1\0"sv, ""));
  // the value of another key is not a key
  CHECK_FALSE(environ_value("X=HOME=/root\0"sv, "HOME"));
}

TEST_CASE("environ value takes the first of duplicate keys like getenv") {
  CHECK(environ_value("K=first\0K=second\0"sv, "K") == std::string("first"));
}

// ---------------------------------------------------------------- GPU lists

TEST_CASE("gpu list with multi-digit ids") {
  CHECK(split_gpu_list("0,1,10") == std::vector<std::string>{"0", "1", "10"});
  CHECK(split_gpu_list("0,1") == std::vector<std::string>{"0", "1"});  // not {"0", ",", "1"}
  CHECK(split_gpu_list("7") == std::vector<std::string>{"7"});
}

TEST_CASE("gpu list trims spaces and drops empty items") {
  CHECK(split_gpu_list(" 0 , 1 ,\t2\n") == std::vector<std::string>{"0", "1", "2"});
  CHECK(split_gpu_list("0,,1,") == std::vector<std::string>{"0", "1"});
  CHECK(split_gpu_list(",").empty());
  CHECK(split_gpu_list(" , , ").empty());
}

TEST_CASE("empty gpu list") {
  CHECK(split_gpu_list("").empty());
}

// ---------------------------------------------------------------- fd targets

TEST_CASE("fd targets that are regular files") {
  CHECK(classify_fd_target("/scratch/u/job/out.dat") == FdTarget::RegularFile);
  CHECK(classify_fd_target("/home/u/.bashrc") == FdTarget::RegularFile);
  CHECK(classify_fd_target("/tmp/x") == FdTarget::RegularFile);
  CHECK(classify_fd_target("/devices/x") == FdTarget::RegularFile);  // not under /dev
  CHECK(classify_fd_target("/procedures.txt") == FdTarget::RegularFile);
  CHECK(classify_fd_target("/system/lib.so") == FdTarget::RegularFile);
  CHECK(classify_fd_target("/memfd") == FdTarget::RegularFile);  // no colon: an ordinary name
}

TEST_CASE("fd targets of deleted regular files still count") {
  CHECK(classify_fd_target("/tmp/ompi.sock.1 (deleted)") == FdTarget::RegularFile);
  CHECK(classify_fd_target("/scratch/a b (deleted)") == FdTarget::RegularFile);
}

TEST_CASE("files in /dev/shm are regular tmpfs files") {
  CHECK(classify_fd_target("/dev/shm/psm2.1 (deleted)") == FdTarget::RegularFile);
  CHECK(classify_fd_target("/dev/shm/vader_segment.node.0") == FdTarget::RegularFile);
}

TEST_CASE("fd targets under dev proc and sys are not files") {
  CHECK(classify_fd_target("/dev/null") == FdTarget::Other);
  CHECK(classify_fd_target("/dev/pts/0") == FdTarget::Other);
  CHECK(classify_fd_target("/dev/shm") == FdTarget::Other);
  CHECK(classify_fd_target("/proc/1/stat") == FdTarget::Other);
  CHECK(classify_fd_target("/sys/fs/cgroup/cpu.stat") == FdTarget::Other);
  CHECK(classify_fd_target("/dev") == FdTarget::Other);
  CHECK(classify_fd_target("/proc") == FdTarget::Other);
  CHECK(classify_fd_target("/sys") == FdTarget::Other);
}

TEST_CASE("fd targets that are sockets pipes anon inodes and memfds are not files") {
  CHECK(classify_fd_target("socket:[123456]") == FdTarget::Other);
  CHECK(classify_fd_target("pipe:[98765]") == FdTarget::Other);
  CHECK(classify_fd_target("anon_inode:[eventfd]") == FdTarget::Other);
  CHECK(classify_fd_target("anon_inode:inotify") == FdTarget::Other);
  CHECK(classify_fd_target("net:[4026531840]") == FdTarget::Other);
  CHECK(classify_fd_target("/memfd:cuda-ipc (deleted)") == FdTarget::Other);
  CHECK(classify_fd_target("/memfd:x") == FdTarget::Other);
  CHECK(classify_fd_target("relative/path") == FdTarget::Other);
  CHECK(classify_fd_target("") == FdTarget::Other);
  CHECK(classify_fd_target(" (deleted)") == FdTarget::Other);
}

TEST_CASE("fd target path strips the deleted suffix") {
  CHECK(fd_target_path("/tmp/x (deleted)") == "/tmp/x");
  CHECK(fd_target_path("/tmp/x") == "/tmp/x");
  CHECK(fd_target_path("/tmp/a (deleted) (deleted)") == "/tmp/a (deleted)");  // only once
  CHECK(fd_target_path("/tmp/x(deleted)") == "/tmp/x(deleted)");              // needs the space
  CHECK(fd_target_path("/tmp/x (deleted) ") == "/tmp/x (deleted) ");
  CHECK(fd_target_path("").empty());
}

// ---------------------------------------------------------------- path prefixes

TEST_CASE("path under a prefix") {
  CHECK(path_is_under("/scratch/a", "/scratch"));
  CHECK(path_is_under("/scratch/a/b/c", "/scratch"));
  CHECK(path_is_under("/scratch", "/scratch"));
  CHECK(path_is_under("/scratch/", "/scratch"));
}

TEST_CASE("path sharing a name prefix is not under it") {
  CHECK_FALSE(path_is_under("/scratchy", "/scratch"));
  CHECK_FALSE(path_is_under("/scratchy/a", "/scratch"));
  CHECK_FALSE(path_is_under("/scratch", "/scratch/a"));
  CHECK_FALSE(path_is_under("/home/a", "/scratch"));
  CHECK_FALSE(path_is_under("", "/scratch"));
}

TEST_CASE("path under a prefix with a trailing slash") {
  CHECK(path_is_under("/scratch/a", "/scratch/"));
  CHECK(path_is_under("/scratch", "/scratch/"));
  CHECK(path_is_under("/scratch/a", "/scratch//"));
  CHECK_FALSE(path_is_under("/scratchy", "/scratch/"));
}

TEST_CASE("every absolute path is under the root and none under an empty prefix") {
  CHECK(path_is_under("/scratch/a", "/"));
  CHECK(path_is_under("/", "/"));
  CHECK_FALSE(path_is_under("relative", "/"));
  CHECK_FALSE(path_is_under("/scratch", ""));
}
