// The emulated driver's calls against the CUDA and HIP rules that
// docs/emulated.md lists, called as the stream-model code calls them.
// Slow copies (a long per-copy latency) make "still queued" last long
// enough to look at.
#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

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
  StreamHandle() { REQUIRE(calls().create_stream(&handle) == emulated_success); }
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
    CHECK(calls().unregister_host(memory.data()) == emulated_success);
    CHECK(calls().unregister_host(memory.data()) == emulated_host_memory_not_registered);
    // The flavor's driver names the code.
    const std::string name = calls().status_name(emulated_host_memory_already_registered);
    CHECK(name == (std::string(flavor) == "cuda" ? "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED (emulated)"
                                                 : "hipErrorHostMemoryAlreadyRegistered (emulated)"));
  }
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
    REQUIRE(calls().create_stream(&queue) == emulated_success);
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
  const stream::CompileResult compiled = calls().compile(source, "write_index", "", "emulated");
  REQUIRE_MESSAGE(compiled.ok, compiled.log);
  for (const char* flavor : {"cuda", "hip"}) {
    CAPTURE(flavor);
    const bool hip = std::string(flavor) == "hip";
    // Time only: a launch that is accepted but huge is not computed.
    emulate(std::string("pcie5,data=0,flavor=") + flavor);
    const LoadedFunction kernel(compiled.binary, "write_index");
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
  const LoadedFunction kernel(compiled.binary, "write_index");
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

}  // namespace alloy::emulation
