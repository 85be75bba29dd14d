// Timing the conversions a configuration's layouts cost, both ways.
#include "conversion_timing.hpp"

#include <algorithm>
#include <chrono>

#include "alloy/layout_conversion.hpp"

namespace alloy::autotune::detail {
namespace {

// The fastest of three: the first run may carry one-time costs.
template <typename F>
double fastest_of_three(F&& seconds_of_one_run) {
  double best = seconds_of_one_run();
  for (int run = 1; run < 3; ++run) best = std::min(best, seconds_of_one_run());
  return best;
}

double event_seconds(const std::shared_ptr<Event>& event) {
  event->wait();
  return double(event->timing().duration_ns()) * 1e-9;
}

}  // namespace

double ConversionTiming::seconds(const Configuration& configuration) {
  double total = 0;
  for (std::size_t b = 0; b < target_.harness.buffers.size(); ++b) {
    if (!target_.harness.buffers[b].host_layout) continue;
    const Timed& conversions = timed(b, configuration);
    total += conversions.into_layout + conversions.back;
  }
  return total;
}

std::vector<std::string> ConversionTiming::staged_on_host(const Configuration& configuration) {
  std::vector<std::string> staged;
  for (std::size_t b = 0; b < target_.harness.buffers.size(); ++b) {
    if (target_.harness.buffers[b].host_layout && timed(b, configuration).staged) {
      staged.push_back(target_.harness.buffers[b].name);
    }
  }
  return staged;
}

const ConversionTiming::Timed& ConversionTiming::timed(std::size_t buffer, const Configuration& configuration) {
  const BufferArrangement arrangement = data_.arrangement_for(buffer, configuration);
  const auto key = std::make_pair(buffer, arrangement.key());
  auto found = timed_.find(key);
  if (found == timed_.end()) found = timed_.emplace(key, time(buffer, arrangement)).first;
  return found->second;
}

ConversionTiming::Timed ConversionTiming::time(std::size_t buffer, const BufferArrangement& arrangement) {
  const HarnessBuffer& harness_buffer = target_.harness.buffers[buffer];
  const HostArray& contents = data_.canonical()[buffer];
  const LayoutTransform transform =
      arrangement.record_placement()
          ? record_transform(std::get<HostRecord>(*arrangement.host()), contents.size_bytes(),
                             *arrangement.record_placement())
          : matrix_transform(std::get<HostMatrix>(*arrangement.host()), *arrangement.matrix_placement());
  Timed timed;
  if (transform.identity) return timed;
  const std::shared_ptr<Program> program = runtime_.program(device_, transform.source);
  const std::shared_ptr<Kernel> to_layout = program->kernel("alloy_to_layout");
  const std::shared_ptr<Kernel> from_layout = program->kernel("alloy_from_layout");
  if (!queue_) queue_ = device_.create_queue();
  const std::unique_ptr<DeviceBuffer> host = device_.allocate(std::max<std::size_t>(contents.size_bytes(), 1));
  const std::unique_ptr<DeviceBuffer> view = device_.allocate(std::max<std::size_t>(transform.view_bytes, 1));
  queue_->write(*host, 0, contents.data(), contents.size_bytes());
  auto conversion = [&](const Kernel& kernel, const LaunchRange& range, const DeviceBuffer& from, DeviceBuffer& to) {
    return fastest_of_three(
        [&] { return event_seconds(launch_layout_transform(*queue_, kernel, range, transform, from, to)); });
  };
  if (!harness_buffer.overwritten) {
    timed.into_layout = conversion(*to_layout, transform.to_range, *host, *view);
    // The executor stages only what a kernel reads and does not write.
    if (!harness_buffer.output) {
      std::vector<std::byte> packed(transform.view_bytes);
      const double packing = fastest_of_three([&] {
        const auto start = std::chrono::steady_clock::now();
        transform.pack_on_host({contents.data(), contents.size_bytes()}, packed);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      });
      const double upload_packed =
          fastest_of_three([&] { return event_seconds(queue_->write(*view, 0, packed.data(), packed.size())); });
      const double upload_host = fastest_of_three(
          [&] { return event_seconds(queue_->write(*host, 0, contents.data(), contents.size_bytes())); });
      // Staged, the host's bytes are not uploaded: a smaller view (host
      // fields no kernel names left out) makes up for some packing.
      const double staged = packing + upload_packed - upload_host;
      if (staged < timed.into_layout) {
        timed.into_layout = std::max(staged, 0.0);
        timed.staged = true;
      }
    }
  }
  if (harness_buffer.output) timed.back = conversion(*from_layout, transform.from_range, *view, *host);
  return timed;
}

}  // namespace alloy::autotune::detail
