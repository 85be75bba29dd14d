// The emulated driver's calls against the CUDA and HIP rules that
// docs/emulated.md lists, called as the stream-model code calls them.
// Slow copies (a long per-copy latency) make "still queued" last long
// enough to look at.
#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "alloy/emulated_kernels.hpp"
#include "emulated_api.hpp"
#include "emulated_driver.hpp"

namespace alloy::emulation {
namespace {

const stream::StreamApi& calls() { return api(); }

/// Emulated devices on `spec`, with the calling thread on device 0.
void emulate(const std::string& spec) {
  use_machine_model(parse_machine_model(spec));
  REQUIRE(calls().make_current({0, nullptr}) == emulated_success);
}

/// Copies that take `latency_ms` each, so that queued work stays queued.
std::string slow_copies(const char* flavor, int latency_ms) {
  return std::string("pcie5,flavor=") + flavor + ",latency=" + std::to_string(latency_ms * 1000);
}

struct StreamHandle {
  stream::Handle handle = nullptr;
  StreamHandle() { REQUIRE(calls().create_stream(&handle, 0) == emulated_success); }
  ~StreamHandle() {
    if (handle != nullptr) calls().destroy_stream(handle);
  }
};

struct DeviceMemory {
  stream::DevicePointer address = 0;
  explicit DeviceMemory(std::size_t bytes) { REQUIRE(calls().allocate(&address, bytes) == emulated_success); }
  ~DeviceMemory() {
    if (address != 0) calls().free(address);
  }
};

/// `name` from `image`, loaded on the current model's devices.
struct LoadedFunction {
  stream::Handle module = nullptr;
  stream::Handle function = nullptr;
  LoadedFunction(const std::vector<std::byte>& image, const char* name) {
    REQUIRE(calls().load_module(&module, image.data()) == emulated_success);
    REQUIRE(calls().get_function(&function, module, name) == emulated_success);
  }
  ~LoadedFunction() { calls().unload_module(module); }
};

/// `source` as the emulated driver compiles it (its check of `kernel`
/// comes at load).
std::vector<std::byte> compiled_image(const std::string& source, const char* kernel) {
  const stream::CompileResult compiled = calls().compile(source, kernel, "", "emulated");
  REQUIRE_MESSAGE(compiled.ok, compiled.log);
  return compiled.binary;
}

stream::Handle recorded_event(stream::Handle on, bool timed = false) {
  stream::Handle event = nullptr;
  REQUIRE(calls().create_event(&event, timed) == emulated_success);
  REQUIRE(calls().record_event(event, on) == emulated_success);
  return event;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("Emulation.Driver.a_destroyed_event_still_orders_the_stream_that_waits_for_it") {
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    emulate(slow_copies(flavor, 100));
    StreamHandle first;
    StreamHandle second;
    DeviceMemory from(64 * sizeof(int));
    DeviceMemory to(64 * sizeof(int));
    std::vector<int> values(64);
    std::iota(values.begin(), values.end(), 1);
    void* pinned = nullptr;
    REQUIRE(calls().allocate_host(&pinned, values.size() * sizeof(int)) == emulated_success);
    std::copy(values.begin(), values.end(), static_cast<int*>(pinned));
    REQUIRE(calls().fill32(to.address, 0, 64, first.handle) == emulated_success);
    // The second stream copies what the first one's slow upload wrote; the
    // event that orders them is destroyed before either ran.
    REQUIRE(calls().copy_to_device(from.address, pinned, 64 * sizeof(int), first.handle) == emulated_success);
    stream::Handle uploaded = recorded_event(first.handle);
    REQUIRE(calls().stream_wait_event(second.handle, uploaded) == emulated_success);
    REQUIRE(calls().destroy_event(uploaded) == emulated_success);
    REQUIRE(calls().copy_on_device(to.address, from.address, 64 * sizeof(int), second.handle) == emulated_success);
    std::vector<int> back(64, -1);
    REQUIRE(calls().copy_to_host(back.data(), to.address, 64 * sizeof(int), second.handle) == emulated_success);
    REQUIRE(calls().synchronize_stream(second.handle) == emulated_success);
    CHECK(back == values);
    REQUIRE(calls().free_host(pinned) == emulated_success);
  }
}

TEST_CASE("Emulation.Driver.elapsed_time_needs_two_timed_recorded_events") {
  emulate("pcie5");
  StreamHandle queue;
  stream::Handle untimed = recorded_event(queue.handle, false);
  stream::Handle start = recorded_event(queue.handle, true);
  stream::Handle end = recorded_event(queue.handle, true);
  stream::Handle never_recorded = nullptr;
  REQUIRE(calls().create_event(&never_recorded, true) == emulated_success);
  REQUIRE(calls().synchronize_event(end) == emulated_success);
  float milliseconds = -1;
  CHECK(calls().elapsed_time(&milliseconds, start, end) == emulated_success);
  CHECK(milliseconds >= 0);
  CHECK(calls().elapsed_time(&milliseconds, untimed, end) == emulated_invalid_handle);
  CHECK(calls().elapsed_time(&milliseconds, start, never_recorded) == emulated_invalid_handle);
  // A never-recorded event stands for no work: complete.
  CHECK(calls().query_event(never_recorded) == emulated_success);
  for (stream::Handle event : {untimed, start, end, never_recorded}) CHECK(calls().destroy_event(event) == 0);
}

TEST_CASE("Emulation.Driver.registration_refuses_overlaps_and_unknown_bases") {
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    emulate(std::string("pcie5,flavor=") + flavor);
    std::vector<std::byte> memory(1 << 16);
    REQUIRE(calls().register_host(memory.data(), 1 << 15) == emulated_success);
    CHECK(calls().register_host(memory.data() + 4096, 1 << 15) == emulated_host_memory_already_registered);
    CHECK(calls().unregister_host(memory.data() + 4096) == emulated_host_memory_not_registered);
    // Registered memory stays the caller's: freeing it as the driver's own
    // is refused, and unregistering the driver's own is too.
    CHECK(calls().free_host(memory.data()) == emulated_invalid_value);
    void* allocated = nullptr;
    REQUIRE(calls().allocate_host(&allocated, 4096) == emulated_success);
    CHECK(calls().unregister_host(allocated) == emulated_host_memory_not_registered);
    CHECK(calls().free_host(allocated) == emulated_success);
    CHECK(calls().register_host(nullptr, 4096) == emulated_invalid_value);
    CHECK(calls().register_host(memory.data() + (1 << 15), 0) == emulated_invalid_value);
    CHECK(calls().unregister_host(memory.data()) == emulated_success);
    CHECK(calls().unregister_host(memory.data()) == emulated_host_memory_not_registered);
    // The flavor's driver names the code.
    const std::string name = calls().status_name(emulated_host_memory_already_registered);
    CHECK(name == (std::string(flavor) == "cuda" ? "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED (emulated)"
                                                 : "hipErrorHostMemoryAlreadyRegistered (emulated)"));
  }
}

TEST_CASE("Emulation.Driver.allocations_of_nothing_follow_the_flavor_and_of_too_much_fail") {
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    emulate(std::string("pcie5,memory=1G,flavor=") + flavor);
    stream::DevicePointer address = 1;
    if (std::string(flavor) == "cuda") {
      CHECK(calls().allocate(&address, 0) == emulated_invalid_value);
    } else {
      CHECK(calls().allocate(&address, 0) == emulated_success);
      CHECK(address == 0);
      CHECK(calls().free(0) == emulated_success);
    }
    CHECK(calls().allocate(&address, std::numeric_limits<std::size_t>::max()) == emulated_out_of_memory);
    CHECK(calls().allocate(&address, (std::size_t{1} << 30) + 1) == emulated_out_of_memory);
    void* host = nullptr;
    CHECK(calls().allocate_host(&host, std::numeric_limits<std::size_t>::max()) == emulated_out_of_memory);
  }
}

TEST_CASE("Emulation.Driver.a_wait_holds_for_the_record_it_saw_whatever_later_records_reach") {
  emulate(slow_copies("cuda", 300));
  StreamHandle slow;
  StreamHandle waiting;
  DeviceMemory device(4096);
  void* pinned = nullptr;
  REQUIRE(calls().allocate_host(&pinned, 4096) == emulated_success);
  REQUIRE(calls().copy_to_device(device.address, pinned, 4096, slow.handle) == emulated_success);
  stream::Handle event = recorded_event(slow.handle);
  REQUIRE(calls().stream_wait_event(waiting.handle, event) == emulated_success);
  // Recorded again on the default stream, which has nothing queued: this
  // later record is reached at once, the one the wait saw is not.
  REQUIRE(calls().record_event(event, nullptr) == emulated_success);
  stream::Handle after_wait = recorded_event(waiting.handle);
  CHECK(calls().query_event(after_wait) == emulated_not_ready);  // the copy has 300 ms to go
  CHECK(calls().synchronize_event(after_wait) == emulated_success);
  for (stream::Handle made : {event, after_wait}) CHECK(calls().destroy_event(made) == emulated_success);
  REQUIRE(calls().free_host(pinned) == emulated_success);
}

TEST_CASE("Emulation.Driver.pageable_copies_follow_the_flavor") {
  constexpr int latency_ms = 200;
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    const bool hip = std::string(flavor) == "hip";
    emulate(slow_copies(flavor, latency_ms));
    StreamHandle queue;
    DeviceMemory device(256 * sizeof(int));
    std::vector<int> values(256, 7);
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(calls().copy_to_device(device.address, values.data(), 256 * sizeof(int), queue.handle) == 0);
    const double upload_seconds = seconds_since(start);
    // Either way the caller may reuse its pageable memory at once: CUDA
    // staged it, HIP copied it before returning.
    std::fill(values.begin(), values.end(), -1);
    if (hip) CHECK(upload_seconds >= latency_ms * 1e-3);
    // Into pageable memory both return once the copy is done.
    std::vector<int> back(256, 0);
    const auto read_start = std::chrono::steady_clock::now();
    REQUIRE(calls().copy_to_host(back.data(), device.address, 256 * sizeof(int), queue.handle) == 0);
    CHECK(seconds_since(read_start) >= latency_ms * 1e-3);
    CHECK(back == std::vector<int>(256, 7));
  }
}

TEST_CASE("Emulation.Driver.stream_destroy_returns_at_once_under_cuda_and_waits_under_hip") {
  constexpr int latency_ms = 500;
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    emulate(slow_copies(flavor, latency_ms));
    DeviceMemory device(1024);
    stream::Handle queue = nullptr;
    REQUIRE(calls().create_stream(&queue, 0) == emulated_success);
    REQUIRE(calls().fill8(device.address, 1, 1024, queue) == emulated_success);
    void* pinned = nullptr;
    REQUIRE(calls().allocate_host(&pinned, 1024) == emulated_success);
    REQUIRE(calls().copy_to_device(device.address, pinned, 1024, queue) == emulated_success);
    stream::Handle done = recorded_event(queue);
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(calls().destroy_stream(queue) == emulated_success);
    if (std::string(flavor) == "hip") {
      CHECK(seconds_since(start) >= latency_ms * 1e-3);
      CHECK(calls().query_event(done) == emulated_success);
    } else {
      CHECK(calls().query_event(done) == emulated_not_ready);  // the copy has half a second to go
    }
    // The work queued before the destroy still runs to its end.
    CHECK(calls().synchronize_event(done) == emulated_success);
    CHECK(calls().destroy_event(done) == emulated_success);
    REQUIRE(calls().free_host(pinned) == emulated_success);
  }
}

TEST_CASE("Emulation.Driver.free_waits_for_the_queued_work") {
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    emulate(slow_copies(flavor, 200));
    StreamHandle queue;
    stream::DevicePointer device = 0;
    REQUIRE(calls().allocate(&device, 4096) == emulated_success);
    void* pinned = nullptr;
    REQUIRE(calls().allocate_host(&pinned, 4096) == emulated_success);
    REQUIRE(calls().copy_to_device(device, pinned, 4096, queue.handle) == emulated_success);
    stream::Handle copied = recorded_event(queue.handle);
    REQUIRE(calls().free(device) == emulated_success);
    CHECK(calls().query_event(copied) == emulated_success);
    CHECK(calls().destroy_event(copied) == emulated_success);
    REQUIRE(calls().free_host(pinned) == emulated_success);
  }
}

TEST_CASE("Emulation.Driver.launches_outside_the_limits_are_refused_and_others_compute") {
  const std::string source =
      "__kernel void write_index(__global int* out, int offset) {\n"
      "  out[get_global_id(0)] = (int)get_global_id(0) + offset;\n"
      "}\n";
  const std::vector<std::byte> image = compiled_image(source, "write_index");
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    const bool hip = std::string(flavor) == "hip";
    // Time only: a launch that is accepted but huge is not computed.
    emulate(std::string("pcie5,data=0,flavor=") + flavor);
    const LoadedFunction kernel(image, "write_index");
    StreamHandle queue;
    DeviceMemory out(1024 * sizeof(int));
    int offset = 0;
    void* params[] = {&out.address, &offset};
    const auto launch = [&](std::array<unsigned, 3> grid, std::array<unsigned, 3> block) {
      return calls().launch(kernel.function, grid.data(), block.data(), queue.handle, params);
    };
    CHECK(launch({1, 1, 1}, {1025, 1, 1}) == emulated_invalid_value);   // over 1024 threads
    CHECK(launch({1, 1, 1}, {32, 32, 2}) == emulated_invalid_value);    // 2048 threads
    CHECK(launch({1, 1, 1}, {1, 1, 65}) == emulated_invalid_value);     // block z over 64
    CHECK(launch({1, 65536, 1}, {1, 1, 1}) == emulated_invalid_value);  // grid y over 65535
    CHECK(launch({0, 1, 1}, {1, 1, 1}) == emulated_invalid_value);
    // 2^22 blocks of 1024: 2^32 work-items along x, which only HIP refuses.
    CHECK(launch({1u << 22, 1, 1}, {1024, 1, 1}) == (hip ? emulated_invalid_value : emulated_success));
    REQUIRE(calls().synchronize_stream(queue.handle) == emulated_success);
  }
  // With data, an accepted launch computes its results.
  emulate("pcie5");
  const LoadedFunction kernel(image, "write_index");
  StreamHandle queue;
  DeviceMemory out(1024 * sizeof(int));
  int offset = 5;
  void* params[] = {&out.address, &offset};
  const std::array<unsigned, 3> grid{4, 1, 1};
  const std::array<unsigned, 3> block{256, 1, 1};
  REQUIRE(calls().launch(kernel.function, grid.data(), block.data(), queue.handle, params) == emulated_success);
  std::vector<int> back(1024);
  REQUIRE(calls().copy_to_host(back.data(), out.address, back.size() * sizeof(int), queue.handle) == 0);
  for (int i = 0; i < 1024; ++i) REQUIRE(back[i] == i + 5);
}

TEST_CASE("Emulation.Driver.launches_are_checked_against_the_kernel") {
  const std::string source =
      "__kernel __attribute__((reqd_work_group_size(16, 1, 1)))\n"
      "void fixed_groups(__global int* out) { out[get_global_id(0)] = 1; }\n"
      "__kernel void scale(__global float* out, float by) { out[get_global_id(0)] *= by; }\n";
  const std::vector<std::byte> image = compiled_image(source, "fixed_groups");
  emulate("pcie5");
  const LoadedFunction fixed(image, "fixed_groups");
  const LoadedFunction scale(image, "scale");
  StreamHandle queue;
  DeviceMemory out(1024 * sizeof(int));
  void* params[] = {&out.address};
  const std::array<unsigned, 3> grid{2, 1, 1};
  const std::array<unsigned, 3> too_big{32, 1, 1};
  const std::array<unsigned, 3> too_small{8, 1, 1};
  // More threads than the kernel allows: CUDA's out-of-resources code.
  CHECK(calls().launch(fixed.function, grid.data(), too_big.data(), queue.handle, params) ==
        emulated_launch_out_of_resources);
  CHECK(calls().launch(fixed.function, grid.data(), too_small.data(), queue.handle, params) ==
        emulated_invalid_value);
  // A kernel model whose time is not a number fails the launch.
  KernelModel nan_time;
  nan_time.seconds = [](const KernelLaunch&) { return std::nan(""); };
  define_kernel("scale", nan_time);
  float by = 2;
  void* scale_params[] = {&out.address, &by};
  CHECK(calls().launch(scale.function, grid.data(), too_small.data(), queue.handle, scale_params) ==
        emulated_launch_failed);
  define_kernel("scale", KernelModel{});
  REQUIRE(calls().synchronize_stream(queue.handle) == emulated_success);
}

TEST_CASE("Emulation.Driver.kernels_waiting_for_the_engine_start_by_stream_priority_then_in_turn") {
  // One kernel holds the compute engine; three more wait on streams of the
  // least priority, then one on a stream of the greatest. The ranked one
  // goes next; the equal ones keep the order they came in. Launches 10 ms
  // apart against 60 ms kernels leave the order of arrival beyond doubt.
  const std::string source = "__kernel void tagged(__global int* out, int tag) { out[0] = tag; }\n";
  const std::vector<std::byte> image = compiled_image(source, "tagged");
  std::mutex mutex;
  std::vector<int> order;
  KernelModel tagged;
  tagged.run = [&](const KernelLaunch& launch) {
    std::lock_guard lock(mutex);
    order.push_back(launch.scalar<int>(1));
  };
  tagged.seconds = [](const KernelLaunch&) { return 0.06; };
  define_kernel("tagged", tagged);
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    emulate(std::string("pcie5,jitter=0,flavor=") + flavor);
    int least = 0;
    int greatest = 0;
    REQUIRE(calls().stream_priority_range(&least, &greatest) == emulated_success);
    CHECK(greatest < least);
    const LoadedFunction kernel(image, "tagged");
    DeviceMemory out(sizeof(int));
    const std::array<unsigned, 3> one{1, 1, 1};
    for (const bool ranked : {false, true}) {
      CAPTURE(ranked);
      std::array<stream::Handle, 5> streams{};
      for (std::size_t s = 0; s < streams.size(); ++s) {
        const int priority = ranked && s == streams.size() - 1 ? greatest : least;
        REQUIRE(calls().create_stream(&streams[s], priority) == emulated_success);
      }
      order.clear();
      for (int tag = 0; tag < 5; ++tag) {
        void* params[] = {&out.address, &tag};
        REQUIRE(calls().launch(kernel.function, one.data(), one.data(), streams[tag], params) == emulated_success);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      for (stream::Handle stream : streams) {
        REQUIRE(calls().synchronize_stream(stream) == emulated_success);
        calls().destroy_stream(stream);
      }
      CHECK(order == (ranked ? std::vector<int>{0, 4, 1, 2, 3} : std::vector<int>{0, 1, 2, 3, 4}));
    }
  }
  define_kernel("tagged", KernelModel{});
}

TEST_CASE("Emulation.Driver.two_arguments_in_one_allocation_see_each_others_writes") {
  // Pointers at unaligned offsets into one allocation, as slices of one
  // buffer are: each kernel argument's span reaches the allocation's end,
  // so the compute device's buffers overlap, and a copy of either would
  // lose the other's writes.
  const std::string source =
      "__kernel void two_views(__global int* first, __global int* second, int n) {\n"
      "  const int i = (int)get_global_id(0);\n"
      "  if (i < n) { first[i] = 1; second[i] = 2; }\n"
      "}\n";
  const std::vector<std::byte> image = compiled_image(source, "two_views");
  emulate("pcie5");
  const LoadedFunction kernel(image, "two_views");
  StreamHandle queue;
  constexpr int n = 100;
  DeviceMemory memory((2 * n + 3) * sizeof(int));
  REQUIRE(calls().fill32(memory.address, 0, 2 * n + 3, queue.handle) == emulated_success);
  stream::DevicePointer first = memory.address + sizeof(int);
  stream::DevicePointer second = memory.address + (n + 2) * sizeof(int);
  int count = n;
  void* params[] = {&first, &second, &count};
  const std::array<unsigned, 3> grid{1, 1, 1};
  const std::array<unsigned, 3> block{128, 1, 1};
  REQUIRE(calls().launch(kernel.function, grid.data(), block.data(), queue.handle, params) == emulated_success);
  std::vector<int> back(2 * n + 3, -1);
  REQUIRE(calls().copy_to_host(back.data(), memory.address, back.size() * sizeof(int), queue.handle) == 0);
  std::vector<int> expected(2 * n + 3, 0);
  std::fill(expected.begin() + 1, expected.begin() + 1 + n, 1);
  std::fill(expected.begin() + n + 2, expected.begin() + 2 * n + 2, 2);
  CHECK(back == expected);
}

}  // namespace alloy::emulation
