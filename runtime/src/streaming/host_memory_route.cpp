// Measuring pageable, pinned, registered and staged transfers on a device.
#include "host_memory_route.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace alloy::detail {
namespace {

// Five samples each: a busy host spreads them, and the spread is measured.
constexpr int repeats = 5;

/// The median of `values`, widening `noise` to their relative spread.
double median(std::vector<double> values, double& noise) {
  std::sort(values.begin(), values.end());
  const double middle = values[values.size() / 2];
  if (middle > 0) noise = std::max(noise, (values.back() - values.front()) / middle);
  return middle;
}

/// The device's own timing of a write from `from`, after one unmeasured.
double write_seconds(Queue& queue, DeviceBuffer& target, const void* from, std::size_t bytes, double& noise) {
  queue.write(target, 0, from, bytes)->wait();
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    seconds.push_back(static_cast<double>(queue.write(target, 0, from, bytes)->timing().duration_ns()) * 1e-9);
  }
  return median(seconds, noise);
}

/// `work` timed on the host, after one unmeasured: the first copy into
/// fresh page-locked memory also faults its pages in, which no chunk pays.
template <class Work>
double host_seconds(Work work, double& noise) {
  work();
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    const auto started = std::chrono::steady_clock::now();
    work();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  return median(seconds, noise);
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
  char spread[48];
  std::snprintf(spread, sizeof spread, ", samples spread %.0f%%", noise * 100);
  return text + ", host copy " + rate(bytes, host_copy_s) + spread;
}

RouteTimes measure_routes(Device& device, std::byte* sample, std::size_t bytes) {
  RouteTimes times;
  times.bytes = bytes;
  std::unique_ptr<Queue> queue = device.create_queue();
  queue->set_timing(true);
  std::unique_ptr<DeviceBuffer> target = device.allocate(bytes);
  std::unique_ptr<HostBuffer> pinned = device.allocate_host(bytes);
  times.pageable_s = write_seconds(*queue, *target, sample, bytes, times.noise);
  times.pinned_s = write_seconds(*queue, *target, pinned->data(), bytes, times.noise);
  times.host_copy_s = host_seconds([&] { std::memcpy(pinned->data(), sample, bytes); }, times.noise);
  if (device.register_host(sample, bytes) != nullptr) {  // can it? then time it
    // Left out of the noise: only the first registration does work.
    double registering_noise = 0;
    times.register_s = host_seconds([&] { device.register_host(sample, bytes); }, registering_noise);
  }
  return times;
}

HostMemoryRoute choose_route(const RouteTimes& times) {
  // Another route must win by more than 10% and by more than the noise: a
  // route measured faster by less than the samples spread is no faster.
  const double margin = 1.0 - std::max(0.1, std::min(times.noise, 0.9));
  HostMemoryRoute best = HostMemoryRoute::direct;
  double best_s = times.pageable_s;
  const double staged_s = std::max(times.pinned_s, times.host_copy_s);
  if (staged_s < best_s * margin) {
    best = HostMemoryRoute::staged;
    best_s = staged_s;
  }
  if (times.register_s >= 0) {
    const double registered_s = times.pinned_s + times.register_s;
    if (registered_s < best_s * margin && registered_s < times.pageable_s * margin) best = HostMemoryRoute::registered;
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
