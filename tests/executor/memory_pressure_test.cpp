// Device memory under a cap: least recently used replicas are written back
// and evicted, a task that cannot fit is refused with its sizes, and
// ALLOY_DEVICE_MEMORY_LIMIT is parsed strictly.
#include <cstdlib>

#include "embedded/conformance_source.hpp"
#include "replicas.hpp"
#include "support/scoped_environment.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};
constexpr int elements = 16 * 1024;  // 64 KiB per buffer

ExecutorOptions capped(std::size_t bytes) {
  ExecutorOptions options;
  options.devices = {selected_devices().front()};
  options.device_memory_limit = bytes;
  return options;
}

void add(Executor& executor, Buffer<int>& data, int value) {
  executor.kernel(conformance, "add_to_range", {Extent(elements)},
                  {0, elements, value, read_write(data)});
}

std::size_t replicas_on(const std::vector<Buffer<int>>& buffers, Device* device) {
  std::size_t count = 0;
  for (const auto& buffer : buffers) count += has_replica(*buffer.storage(), device) ? 1 : 0;
  return count;
}

}  // namespace

TEST_CASE("Executor.Memory.eviction_keeps_every_result") {
  if (!have_devices(1)) return;
  Device* device = selected_devices().front();
  // Room for two of the six buffers: every pass evicts, and the evicted
  // replicas hold the only current copy (dirty), so they must be written back.
  Executor executor(runtime(), capped(2 * elements * sizeof(int) + 1000));
  std::vector<Buffer<int>> buffers;
  for (int b = 0; b < 6; ++b) buffers.emplace_back(elements);
  for (int pass = 1; pass <= 3; ++pass) {
    for (int b = 0; b < 6; ++b) add(executor, buffers[b], pass * (b + 1));
    executor.wait();
    CHECK(replicas_on(buffers, device) <= 2);
  }
  for (int b = 0; b < 6; ++b) {
    executor.synchronize(buffers[b]);
    for (int value : buffers[b].host()) REQUIRE(value == 6 * (b + 1));
  }
  executor.wait();
}

TEST_CASE("Executor.Memory.least_recently_used_goes_first") {
  if (!have_devices(1)) return;
  Device* device = selected_devices().front();
  Executor executor(runtime(), capped(2 * elements * sizeof(int)));
  Buffer<int> a(elements);
  Buffer<int> b(elements);
  Buffer<int> c(elements);
  add(executor, a, 1);
  add(executor, b, 1);
  add(executor, a, 1);  // a is now more recent than b
  add(executor, c, 1);  // no room: b goes
  executor.wait();
  CHECK(has_replica(*a.storage(), device));
  CHECK_FALSE(has_replica(*b.storage(), device));
  CHECK(has_replica(*c.storage(), device));
  // b's bytes were written back before it went.
  CHECK(valid_on_host(*b.storage(), {0, elements * sizeof(int)}));
  for (int value : b.host()) REQUIRE(value == 1);
}

TEST_CASE("Executor.Memory.eviction_does_not_hold_up_submission") {
  if (!have_devices(1)) return;
  Device* device = selected_devices().front();
  // Room for one buffer: the second task's buffer evicts the first's, whose
  // replica a long kernel is still using. The eviction waits for that
  // kernel on the completion thread, not in the submitting call.
  Executor executor(runtime(), capped(elements * sizeof(int)));
  Buffer<float> busy(elements);
  Buffer<int> next(elements);
  const int iterations = computes_on_cpu(*device) ? 400'000'000 : 2'000'000'000;
  Run spinning = executor.kernel(conformance, "spin", {Extent(1)}, {iterations, write(busy.slice(0, 1))});
  Run evicting = executor.kernel(conformance, "add_to_range", {Extent(elements)},
                                 {0, elements, 5, read_write(next)});
  // Submitting needed the eviction; the kernel it waits for runs on.
  CHECK_FALSE(spinning.done());
  evicting.wait();
  CHECK(spinning.done());
  executor.synchronize(next);
  for (int value : next.host()) REQUIRE(value == 5);
  CHECK_FALSE(has_replica(*busy.storage(), device));
  CHECK(valid_on_host(*busy.storage(), {0, sizeof(float)}));  // written back before it went
  executor.wait();
}

TEST_CASE("Executor.Memory.task_larger_than_the_cap_is_refused") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), capped(elements * sizeof(int)));
  Buffer<int> in(elements);
  Buffer<int> out(elements);
  executor.kernel(conformance, "scale_offset", {Extent(elements)},
                  {elements, 2, 1, read(in), write(out)});
  try {
    executor.wait();
    FAIL("a task needing twice the cap ran");
  } catch (const Error& error) {
    const std::string message = error.what();
    CHECK(message.find("scale_offset") != std::string::npos);
    CHECK(message.find("needs 128.0 KiB") != std::string::npos);
    CHECK(message.find("may use 64.0 KiB") != std::string::npos);
  }
  // The executor goes on with work that fits.
  add(executor, in, 5);
  executor.synchronize(in);
  for (int value : in.host()) REQUIRE(value == 5);
  executor.wait();
}

TEST_CASE("Executor.Memory.limit_from_the_environment") {
  if (!have_devices(1)) return;
  {
    ScopedEnvironment limit("ALLOY_DEVICE_MEMORY_LIMIT", "64K");
    Executor executor(runtime(), capped(0));
    Buffer<int> in(elements);
    Buffer<int> out(elements);
    executor.kernel(conformance, "scale_offset", {Extent(elements)},
                    {elements, 2, 1, read(in), write(out)});
    CHECK_THROWS_WITH_AS(executor.wait(), doctest::Contains("may use 64.0 KiB"), Error);
  }
  // Blanks, signs and overflow too: each used to read as "no cap".
  for (const char* bad : {"lots", "12Q", "-5", "0", "1KB", " -1", " 64M", "64M ", "+5", "0x10",
                          "99999999999999999999999", "18446744073709551616", "17179869184G"}) {
    CAPTURE(bad);
    ScopedEnvironment limit("ALLOY_DEVICE_MEMORY_LIMIT", bad);
    CHECK_THROWS_WITH_AS(Executor(runtime(), capped(0)), doctest::Contains("ALLOY_DEVICE_MEMORY_LIMIT"),
                         InvalidArgument);
  }
}

}  // namespace alloy::test

namespace alloy::test {

TEST_CASE("Executor.Memory.synchronize_names_why_a_task_did_not_run") {
  if (!have_devices(1)) return;
  ScopedEnvironment limit("ALLOY_DEVICE_MEMORY_LIMIT", "1");  // one byte: no buffer fits
  Executor executor(runtime(), capped(0));
  Buffer<int> data(elements);
  add(executor, data, 3);
  try {
    executor.synchronize(data);
    FAIL("synchronize returned data no task could compute");
  } catch (const Error& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.find("depends on task 0 'add_to_range' (kernel), which failed") != std::string::npos);
    CHECK(message.find("needs 64.0 KiB") != std::string::npos);
    CHECK(message.find("may use 1 byte ") != std::string::npos);
    CHECK(message.find("ALLOY_DEVICE_MEMORY_LIMIT") != std::string::npos);
  }
  // wait() reports the failure as always, once; then the executor goes on.
  CHECK_THROWS_WITH_AS(executor.wait(), doctest::Contains("may use 1 byte "), Error);
  CHECK_NOTHROW(executor.wait());
  bool ran = false;
  executor.host({write(data)}, [&] { ran = true; });
  executor.wait();
  CHECK(ran);
}

}  // namespace alloy::test
