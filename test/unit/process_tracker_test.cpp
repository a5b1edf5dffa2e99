// ProcessTracker: a job's I/O across its processes' lives, and their CPU
// ticks since the previous pass.
#include "collect/process_tracker.hpp"

#include "catch.hpp"

using namespace petricore::collect;

namespace {

ProcIo io(std::uint64_t syscr, std::uint64_t syscw, std::uint64_t read_bytes, std::uint64_t write_bytes) {
  ProcIo value;
  value.syscr = syscr;
  value.syscw = syscw;
  value.read_bytes = read_bytes;
  value.write_bytes = write_bytes;
  return value;
}

}  // namespace

TEST_CASE("the totals are the sums of the processes read", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 2, 300, 400));
  t.seen(11, 110, 1, 0, io(10, 20, 3000, 4000));
  ProcIo total = t.end_pass(true);
  CHECK(total.syscr == 11);
  CHECK(total.syscw == 22);
  CHECK(total.read_bytes == 3300);
  CHECK(total.write_bytes == 4400);
  CHECK(t.tracked() == 2);
}

TEST_CASE("a process whose parent is outside the job keeps its io after it exits", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 100, 100));  // parent 1: outside the job
  t.seen(11, 110, 1, 0, io(2, 2, 200, 200));
  t.end_pass(true);
  t.begin_pass();
  t.seen(11, 110, 1, 0, io(2, 2, 250, 200));
  ProcIo total = t.end_pass(true);
  CHECK(total.read_bytes == 350);
  CHECK(total.syscr == 3);
  CHECK(t.tracked() == 1);
}

TEST_CASE("a child reaped by a parent in the job is counted once, through the parent", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 100, 100));
  t.seen(11, 110, 10, 0, io(2, 2, 200, 200));  // child of 10
  t.end_pass(true);
  // The child exited; its parent, having reaped it, now counts its I/O.
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(3, 3, 300, 300));
  ProcIo total = t.end_pass(true);
  CHECK(total.read_bytes == 300);
  CHECK(total.syscw == 3);
}

TEST_CASE("the totals never go down between a child's exit and its reaping", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 100, 100));
  t.seen(11, 110, 10, 0, io(2, 2, 200, 200));
  t.end_pass(true);
  // The child is gone but the parent has not reaped it yet.
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 100, 100));
  ProcIo total = t.end_pass(true);
  CHECK(total.read_bytes == 300);
  CHECK(total.syscr == 3);
}

TEST_CASE("a reused pid banks the old process's io and starts the new one afresh", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  CHECK(t.seen(10, 100, 1, 50, io(1, 1, 100, 100)) == 0);
  t.end_pass(true);
  t.begin_pass();
  // Another start time: another process, its ticks counted from now.
  CHECK(t.seen(10, 999, 1, 7, io(1, 1, 40, 40)) == 0);
  ProcIo total = t.end_pass(true);
  CHECK(total.read_bytes == 140);
  CHECK(t.tracked() == 1);
}

TEST_CASE("ticks since the previous pass, none for a new process or a counter that went down", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  CHECK(t.seen(10, 100, 1, 50, std::nullopt) == 0);
  t.end_pass(true);
  t.begin_pass();
  CHECK(t.seen(10, 100, 1, 80, std::nullopt) == 30);
  t.end_pass(true);
  t.begin_pass();
  CHECK(t.seen(10, 100, 1, 70, std::nullopt) == 0);
  t.end_pass(true);
}

TEST_CASE("unreadable io keeps the last values read", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(5, 5, 500, 500));
  t.end_pass(true);
  t.begin_pass();
  t.seen(10, 100, 1, 0, std::nullopt);
  CHECK(t.end_pass(true).read_bytes == 500);
}

TEST_CASE("a listed process unreadable this once is not taken for gone", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 100, 100));
  t.end_pass(true);
  t.begin_pass();
  t.still_listed(10);
  t.end_pass(true);
  CHECK(t.tracked() == 1);
  // Seen again: its io is not counted twice.
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 120, 100));
  CHECK(t.end_pass(true).read_bytes == 120);
}

TEST_CASE("with an incomplete listing nobody is taken for gone", "[process_tracker]") {
  ProcessTracker t;
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 100, 100));
  t.seen(11, 110, 1, 0, io(1, 1, 100, 100));
  t.end_pass(true);
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 100, 100));
  CHECK(t.end_pass(false).read_bytes == 200);
  CHECK(t.tracked() == 2);
  // When the listing is whole again, the unlisted one has exited, its io kept.
  t.begin_pass();
  t.seen(10, 100, 1, 0, io(1, 1, 100, 100));
  CHECK(t.end_pass(true).read_bytes == 200);
  CHECK(t.tracked() == 1);
}
