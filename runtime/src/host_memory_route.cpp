// Measuring pageable, pinned, registered and staged transfers on a device.
#include "host_memory_route.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace alloy::detail {
namespace {

constexpr int repeats = 3;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// The device's own timing of a write from `from`, after one unmeasured.
double write_seconds(Queue& queue, DeviceBuffer& target, const void* from, std::size_t bytes) {
  queue.write(target, 0, from, bytes)->wait();
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    seconds.push_back(static_cast<double>(queue.write(target, 0, from, bytes)->timing().duration_ns()) * 1e-9);
  }
  return median(seconds);
}

template <class Work>
double host_seconds(Work work) {
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    const auto started = std::chrono::steady_clock::now();
    work();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  return median(seconds);
}

std::string rate(std::size_t bytes, double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB/s", seconds > 0 ? static_cast<double>(bytes) / seconds * 1e-9 : 0.0);
  return text;
}

}  // namespace

std::string RouteTimes::describe() const {
  std::string text = "pageable " + rate(bytes, pageable_s) + ", pinned " + rate(bytes, pinned_s) + ", ";
  text += register_s >= 0 ? "registering " + rate(bytes, register_s) : std::string("no registration");
  return text + ", host copy " + rate(bytes, host_copy_s);
}

RouteTimes measure_routes(Device& device, std::byte* sample, std::size_t bytes) {
  RouteTimes times;
  times.bytes = bytes;
  std::unique_ptr<Queue> queue = device.create_queue();
  queue->set_timing(true);
  std::unique_ptr<DeviceBuffer> target = device.allocate(bytes);
  std::unique_ptr<HostBuffer> pinned = device.allocate_host(bytes);
  times.pageable_s = write_seconds(*queue, *target, sample, bytes);
  times.pinned_s = write_seconds(*queue, *target, pinned->data(), bytes);
  times.host_copy_s = host_seconds([&] { std::memcpy(pinned->data(), sample, bytes); });
  if (device.register_host(sample, bytes) != nullptr) {  // can it? then time it
    times.register_s = host_seconds([&] { device.register_host(sample, bytes); });
  }
  return times;
}

HostMemoryRoute choose_route(const RouteTimes& times) {
  HostMemoryRoute best = HostMemoryRoute::direct;
  double best_s = times.pageable_s;
  const double staged_s = std::max(times.pinned_s, times.host_copy_s);
  if (staged_s < best_s * 0.9) {
    best = HostMemoryRoute::staged;
    best_s = staged_s;
  }
  if (times.register_s >= 0) {
    const double registered_s = times.pinned_s + times.register_s;
    if (registered_s < best_s * 0.9 && registered_s < times.pageable_s * 0.9) best = HostMemoryRoute::registered;
  }
  return best;
}

const char* route_name(HostMemoryRoute route) {
  switch (route) {
    case HostMemoryRoute::automatic: return "automatic";
    case HostMemoryRoute::direct: return "direct";
    case HostMemoryRoute::registered: return "registered";
    case HostMemoryRoute::staged: return "staged";
  }
  return "?";
}

}  // namespace alloy::detail
