// Conformance: transfers, fills, device-to-device copies, pinned memory and events.
#include <cstring>
#include <numeric>

#include "support/test_devices.hpp"

namespace alloy::test {

TEST_CASE("Conformance.Memory.write_read_roundtrip_with_offsets") {
  for_each_device([](Device& device) {
    std::vector<int> values(1000);
    std::iota(values.begin(), values.end(), 0);
    auto queue = device.create_queue();
    auto buffer = device.allocate(2000 * sizeof(int));
    queue->write(*buffer, 500 * sizeof(int), values.data(), values.size() * sizeof(int));
    std::vector<int> back(1000, -1);
    queue->read(*buffer, 500 * sizeof(int), back.data(), back.size() * sizeof(int));
    queue->finish();
    CHECK(back == values);
  });
}

TEST_CASE("Conformance.Memory.fill_patterns") {
  for_each_device([](Device& device) {
    auto queue = device.create_queue();
    auto buffer = device.allocate(64);
    const std::uint8_t byte = 0xab;
    const std::uint16_t half = 0x1234;
    const std::uint32_t word = 0xdeadbeef;
    queue->fill(*buffer, 0, &byte, 1, 64);
    queue->fill(*buffer, 16, &half, 2, 16);
    queue->fill(*buffer, 32, &word, 4, 16);
    const std::vector<std::uint8_t> bytes = download<std::uint8_t>(*queue, *buffer, 64);
    for (int i = 0; i < 16; ++i) REQUIRE(bytes[i] == 0xab);
    for (int i = 48; i < 64; ++i) REQUIRE(bytes[i] == 0xab);
    std::uint16_t halves[8];
    std::memcpy(halves, bytes.data() + 16, 16);
    for (std::uint16_t value : halves) REQUIRE(value == half);
    std::uint32_t words[4];
    std::memcpy(words, bytes.data() + 32, 16);
    for (std::uint32_t value : words) REQUIRE(value == word);
  });
}

TEST_CASE("Conformance.Memory.device_to_device_copy_same_device") {
  for_each_device([](Device& device) {
    std::vector<float> values(4096);
    std::iota(values.begin(), values.end(), 1.0f);
    auto queue = device.create_queue();
    auto source = upload(device, *queue, values);
    auto target = device.allocate(8192 * sizeof(float));
    queue->copy(*source, 1024 * sizeof(float), *target, 0, 3072 * sizeof(float));
    const std::vector<float> copied = download<float>(*queue, *target, 3072);
    CHECK(std::equal(copied.begin(), copied.end(), values.begin() + 1024));
  });
}

TEST_CASE("Conformance.Memory.pinned_host_buffer") {
  for_each_device([](Device& device) {
    const std::size_t count = 1 << 16;
    auto pinned = device.allocate_host(count * sizeof(int));
    auto* host = static_cast<int*>(pinned->data());
    REQUIRE(host != nullptr);
    std::iota(host, host + count, 7);
    auto queue = device.create_queue();
    auto buffer = device.allocate(count * sizeof(int));
    queue->write(*buffer, 0, host, count * sizeof(int));
    queue->finish();
    std::fill(host, host + count, 0);
    queue->read(*buffer, 0, host, count * sizeof(int));
    queue->finish();
    for (std::size_t i = 0; i < count; ++i) REQUIRE(host[i] == static_cast<int>(i) + 7);
  });
}

TEST_CASE("Conformance.Events.timestamps_ordered") {
  for_each_device([](Device& device) {
    const int n = 1 << 18;
    auto queue = device.create_queue();
    auto buffer = device.allocate(n * sizeof(float));
    std::vector<float> host(n, 2.0f);
    auto empty = conformance_kernel(device, "empty");
    auto written = queue->write(*buffer, 0, host.data(), n * sizeof(float));
    auto first = queue->launch(*empty, {Extent(1024)});
    auto second = queue->launch(*empty, {Extent(1024)});
    queue->finish();
    const EventTiming write_timing = written->timing();
    const EventTiming a = first->timing();
    const EventTiming b = second->timing();
    for (const EventTiming& timing : {write_timing, a, b}) {
      CHECK(timing.queued_ns <= timing.started_ns);
      CHECK(timing.started_ns <= timing.ended_ns);
    }
    // An in-order queue runs each command after the previous one ended.
    CHECK(write_timing.ended_ns <= a.started_ns);
    CHECK(a.ended_ns <= b.started_ns);
    CHECK(first->is_complete());
  });
}

// Callers may drop the events that commands return: each command still
// runs, in order, and synchronizing waits for all of them (CUDA and HIP
// release a destroyed event only once it has completed). Integer results
// are checked exactly; a second queue waits on an event dropped at once.
TEST_CASE("Conformance.Events.dropped_events_still_complete_in_order") {
  for_each_device([](Device& device) {
    const int n = 4096;
    auto scale = conformance_kernel(device, "scale_offset");
    auto add = conformance_kernel(device, "add_to_range");
    auto first = device.create_queue();
    auto second = device.create_queue();
    auto a = device.allocate(n * sizeof(int));
    auto b = device.allocate(n * sizeof(int));
    auto c = device.allocate(n * sizeof(int));
    std::vector<int> input(n);
    std::iota(input.begin(), input.end(), -n / 2);
    for (int round = 0; round < 8; ++round) {
      CAPTURE(round);
      const int zero = 0;
      first->fill(*b, 0, &zero, sizeof zero, n * sizeof(int));
      first->write(*a, 0, input.data(), n * sizeof(int));
      first->launch(*scale, {Extent(n)}, n, 3, round, *a, *b);  // b = 3a + round
      first->launch(*add, {Extent(n)}, 0, n, 5, *b);            // b += 5
      second->wait_for(*first->copy(*b, 0, *c, 0, n * sizeof(int)));
      second->launch(*add, {Extent(n / 2)}, 0, n / 2, -1, *c);  // first half of c -= 1
      std::vector<int> back(n, 12345);
      second->read(*c, 0, back.data(), n * sizeof(int));
      second->finish();
      for (int i = 0; i < n; ++i) REQUIRE(back[i] == 3 * input[i] + round + 5 - (i < n / 2 ? 1 : 0));
    }
    first->finish();
  });
}

// A queue whose timing goes off and on keeps its commands in submission
// order (OpenCL moves long runs of untimed commands to a second queue
// without profiling): each timed read sees exactly the adds before it, and
// an untimed command late in a run has no times.
TEST_CASE("Conformance.Events.timing_off_and_on_keeps_commands_in_order") {
  for_each_device([](Device& device) {
    const int n = 1 << 16;
    auto add = conformance_kernel(device, "add_to_range");
    auto queue = device.create_queue();
    auto data = device.allocate(n * sizeof(int));
    const int zero = 0;
    queue->fill(*data, 0, &zero, sizeof zero, n * sizeof(int));
    const int untimed_run = 40;
    int expected = 0;
    std::shared_ptr<Event> last_untimed;
    for (int round = 0; round < 3; ++round) {
      CAPTURE(round);
      queue->set_timing(false);
      for (int i = 0; i < untimed_run; ++i) last_untimed = queue->launch(*add, {Extent(n)}, 0, n, round + 1, *data);
      expected += untimed_run * (round + 1);
      queue->set_timing(true);
      std::vector<int> back(n, -1);
      const std::shared_ptr<Event> read = queue->read(*data, 0, back.data(), n * sizeof(int));
      const EventTiming timing = read->timing();  // waits for it
      CHECK(timing.started_ns <= timing.ended_ns);
      for (int i = 0; i < n; ++i) REQUIRE(back[i] == expected);
      CHECK_THROWS_AS(last_untimed->timing(), Error);
    }
    queue->finish();
  });
}

TEST_CASE("Conformance.Queues.each_priority_keeps_order_and_waits_across_priorities") {
  // A queue of each priority adds to one buffer in turn, each waiting for
  // the previous queue's last command: the sum is exact only if every
  // queue ran its commands in order and honoured the wait on the other.
  for_each_device([](Device& device) {
    const int n = 4096;
    auto add = conformance_kernel(device, "add_to_range");
    auto data = device.allocate(n * sizeof(int));
    std::vector<std::unique_ptr<Queue>> queues;
    for (const QueuePriority priority : {QueuePriority::low, QueuePriority::normal, QueuePriority::high}) {
      queues.push_back(device.create_queue(priority));
      CAPTURE(to_string(priority));
      CHECK(queues.back()->priority() == (device.ranks_queues() ? priority : QueuePriority::normal));
    }
    const int zero = 0;
    std::shared_ptr<Event> last = queues[0]->fill(*data, 0, &zero, sizeof zero, n * sizeof(int));
    int expected = 0;
    for (int round = 0; round < 3; ++round) {
      for (std::size_t q = 0; q < queues.size(); ++q) {
        queues[q]->wait_for(*last);
        for (int i = 0; i < 8; ++i) last = queues[q]->launch(*add, {Extent(n)}, 0, n, static_cast<int>(q) + 1, *data);
        expected += 8 * (static_cast<int>(q) + 1);
      }
    }
    queues[0]->wait_for(*last);
    const std::vector<int> back = download<int>(*queues[0], *data, n);
    for (int i = 0; i < n; ++i) REQUIRE(back[i] == expected);
  });
}

}  // namespace alloy::test
