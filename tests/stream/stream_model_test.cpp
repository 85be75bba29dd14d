// The CUDA/HIP backends' shared stream-model code, run over the host table:
// device selection, copies with offsets, fills, peer copies, launches with
// their parameter marshalling and geometry, events, caching, and failures.
#include <numeric>

#include <cstring>
#include "host_stream_api.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const char* host_kernels_source = R"(
KERNEL void saxpy(const int n, const float a, GLOBAL const float* restrict x,
                  GLOBAL float* restrict y) {}
KERNEL void record_geometry(GLOBAL int* out) {}
)";

struct HostDevices {
  std::unique_ptr<Platform> platform = host_stream_platform();
  Device& first = *platform->devices().at(0);
  Device& second = *platform->devices().at(1);
};

std::shared_ptr<Kernel> host_kernel(Device& device, const std::string& name) {
  return device.build_program({"host.cl", host_kernels_source, ""})->kernel(name);
}

}  // namespace

TEST_CASE("StreamModel.Platform.enumerates_devices") {
  HostDevices host;
  REQUIRE(host.platform->devices().size() == 2);
  CHECK(host.platform->unavailable_reason().empty());
  CHECK(host.first.info().backend == "hoststream");
  CHECK(host.first.label() == "hoststream:0 host-stream-0");
  CHECK(host.second.index() == 1);
  CHECK(host.first.shares_memory_with(host.second));
}

TEST_CASE("StreamModel.Memory.transfers_fills_and_copies") {
  HostDevices host;
  // Queues of the second device are created and used from this thread after
  // the first device was made current: every call must select its device.
  auto first_queue = host.first.create_queue();
  auto second_queue = host.second.create_queue();
  std::vector<int> values(1000);
  std::iota(values.begin(), values.end(), 0);
  auto source = upload(host.first, *first_queue, values);
  auto target = host.second.allocate(2000 * sizeof(int));

  second_queue->copy(*source, 100 * sizeof(int), *target, 500 * sizeof(int), 900 * sizeof(int));
  std::vector<int> back(900);
  second_queue->read(*target, 500 * sizeof(int), back.data(), back.size() * sizeof(int));
  second_queue->finish();
  CHECK(std::equal(back.begin(), back.end(), values.begin() + 100));

  auto local = host.first.allocate(64);
  first_queue->copy(*source, 0, *local, 0, 64);
  const std::uint16_t half = 0xbeef;
  const std::uint32_t word = 0x01020304;
  const std::uint8_t byte = 0x7f;
  first_queue->fill(*local, 0, &byte, 1, 16);
  first_queue->fill(*local, 16, &half, 2, 16);
  first_queue->fill(*local, 32, &word, 4, 32);
  const std::vector<std::uint8_t> bytes = download<std::uint8_t>(*first_queue, *local, 64);
  for (int i = 0; i < 16; ++i) REQUIRE(bytes[i] == 0x7f);
  std::uint16_t halves[8];
  std::memcpy(halves, bytes.data() + 16, 16);
  for (std::uint16_t value : halves) REQUIRE(value == half);
  std::uint32_t words[8];
  std::memcpy(words, bytes.data() + 32, 32);
  for (std::uint32_t value : words) REQUIRE(value == word);
}

TEST_CASE("StreamModel.Launch.marshals_parameters") {
  HostDevices host;
  auto queue = host.second.create_queue();
  const int n = 1000;
  auto x = upload(host.second, *queue, std::vector<float>(n, 2.0f));
  auto y = upload(host.second, *queue, std::vector<float>(n, 1.0f));
  auto kernel = host_kernel(host.second, "saxpy");
  CHECK(kernel->attributes().argument_count == 4u);
  CHECK(kernel->attributes().preferred_work_group_multiple == 32);
  queue->launch(*kernel, {Extent(1024), Extent(64)}, n, 3.0f, *x, *y);
  for (float value : download<float>(*queue, *y, n)) REQUIRE(value == 7.0f);
}

TEST_CASE("StreamModel.Launch.grid_is_global_over_local") {
  HostDevices host;
  auto queue = host.first.create_queue();
  auto out = host.first.allocate(6 * sizeof(int));
  auto kernel = host_kernel(host.first, "record_geometry");

  queue->launch(*kernel, {Extent(640, 6, 2), Extent(64, 3, 1)}, *out);
  CHECK(download<int>(*queue, *out, 6) == std::vector<int>{10, 2, 2, 64, 3, 1});
  // Without a local size, blocks must still tile the global size exactly.
  queue->launch(*kernel, {Extent(1000)}, *out);
  CHECK(download<int>(*queue, *out, 6) == std::vector<int>{4, 1, 1, 250, 1, 1});
}

TEST_CASE("StreamModel.Events.ordered_and_waitable") {
  HostDevices host;
  auto first_queue = host.first.create_queue();
  auto second_queue = host.second.create_queue();
  std::vector<int> values(4096, 5);
  auto buffer = host.first.allocate(values.size() * sizeof(int));
  auto written = first_queue->write(*buffer, 0, values.data(), values.size() * sizeof(int));
  auto read = first_queue->read(*buffer, 0, values.data(), values.size() * sizeof(int));
  second_queue->wait_for(*read);
  CHECK(written->is_complete());
  const EventTiming a = written->timing();
  const EventTiming b = read->timing();
  CHECK(a.queued_ns == a.started_ns);
  CHECK(a.started_ns <= a.ended_ns);
  CHECK(a.ended_ns <= b.started_ns);
}

TEST_CASE("StreamModel.Events.untimed_commands_create_one_event_and_no_timestamps") {
  HostDevices host;
  auto queue = host.first.create_queue();
  std::vector<int> values(256, 3);
  auto buffer = host.first.allocate(values.size() * sizeof(int));
  const std::size_t bytes = values.size() * sizeof(int);

  queue->set_timing(false);
  const HostEventCounts before_untimed = host_event_counts();
  std::vector<std::shared_ptr<Event>> untimed;
  for (int i = 0; i < 10; ++i) untimed.push_back(queue->write(*buffer, 0, values.data(), bytes));
  const HostEventCounts after_untimed = host_event_counts();
  CHECK(after_untimed.created - before_untimed.created == 10);
  CHECK(after_untimed.timed == before_untimed.timed);
  untimed.back()->wait();  // completion still works
  CHECK(untimed.back()->is_complete());
  CHECK_THROWS_AS(untimed.back()->timing(), Error);

  queue->set_timing(true);
  auto timed = queue->read(*buffer, 0, values.data(), bytes);
  const HostEventCounts after_timed = host_event_counts();
  CHECK(after_timed.created - after_untimed.created == 2);  // start and end
  CHECK(after_timed.timed - after_untimed.timed == 2);
  CHECK(timed->timing().started_ns <= timed->timing().ended_ns);
}

TEST_CASE("StreamModel.ProgramCache.binary_round_trip") {
  HostDevices host;
  const ProgramSource source{"host.cl", host_kernels_source, "-DUNUSED=1"};
  auto built = host.first.build_program(source);
  auto loaded = host.first.load_program(source, built->binary());
  auto kernel = loaded->kernel("saxpy");
  auto queue = host.first.create_queue();
  auto x = upload(host.first, *queue, std::vector<float>(64, 1.0f));
  auto y = upload(host.first, *queue, std::vector<float>(64, 1.0f));
  queue->launch(*kernel, {Extent(64)}, 64, 1.0f, *x, *y);
  for (float value : download<float>(*queue, *y, 64)) REQUIRE(value == 2.0f);
}

TEST_CASE("StreamModel.Errors.name_call_device_and_code") {
  HostDevices host;
  auto queue = host.first.create_queue();
  try {
    host.first.allocate(std::size_t{65} << 20);
    FAIL("an allocation above the device's limit was accepted");
  } catch (const InvalidArgument& error) {
    CHECK(std::string(error.what()).find("largest single allocation") != std::string::npos);
  }
  auto filler = host.first.allocate(std::size_t{60} << 20);
  try {
    host.first.allocate(std::size_t{8} << 20);
    FAIL("an allocation beyond free memory succeeded");
  } catch (const OutOfDeviceMemory& error) {
    const std::string message = error.what();
    CHECK(message.find("HostStream call hostMalloc failed with HOST_ERROR_OUT_OF_MEMORY on " +
                       host.first.label() + " for 8388608 bytes") != std::string::npos);
  }
  fail_next_call("hostMalloc");
  try {
    host.first.allocate(64);
    FAIL("an injected allocation failure was ignored");
  } catch (const BackendError& error) {
    CHECK(error.api() == "HostStream");
    CHECK(error.call() == "hostMalloc");
    CHECK(error.vendor_code() == host_injected_failure);
    CHECK(error.vendor_code_name() == "HOST_ERROR_INJECTED");
    CHECK(error.device() == host.first.label());
  }
  CHECK_THROWS_WITH_AS(host_kernel(host.first, "missing"),
                       doctest::Contains("hostModuleGetFunction: HOST_ERROR_NOT_FOUND"),
                       InvalidArgument);
}

TEST_CASE("StreamModel.Errors.failed_launch_leaves_queue_usable") {
  HostDevices host;
  auto queue = host.first.create_queue();
  auto x = upload(host.first, *queue, std::vector<float>(64, 1.0f));
  auto y = upload(host.first, *queue, std::vector<float>(64, 0.0f));
  auto kernel = host_kernel(host.first, "saxpy");
  fail_next_call("hostLaunch");
  CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(64)}, 64, 1.0f, *x, *y),
                       doctest::Contains("HostStream call hostLaunch failed with HOST_ERROR_INJECTED"),
                       BackendError);
  queue->launch(*kernel, {Extent(64)}, 64, 1.0f, *x, *y);
  for (float value : download<float>(*queue, *y, 64)) REQUIRE(value == 1.0f);
}

TEST_CASE("StreamModel.Errors.buffer_of_another_device_refused") {
  HostDevices host;
  auto queue = host.first.create_queue();
  auto x = host.second.allocate(64 * sizeof(float));
  auto y = host.first.allocate(64 * sizeof(float));
  CHECK_THROWS_WITH_AS(queue->launch(*host_kernel(host.first, "saxpy"), {Extent(64)}, 64, 1.0f, *x, *y),
                       doctest::Contains("argument 2 is a buffer of hoststream:1"), InvalidArgument);
}

}  // namespace alloy::test
