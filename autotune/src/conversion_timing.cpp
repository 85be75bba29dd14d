// Timing the conversions a configuration's layouts cost.
#include "conversion_timing.hpp"

#include <algorithm>

#include "alloy/layout_conversion.hpp"

namespace alloy::autotune::detail {

double ConversionTiming::seconds(const Configuration& configuration) {
  double total = 0;
  for (std::size_t b = 0; b < target_.harness.buffers.size(); ++b) {
    if (!target_.harness.buffers[b].host_layout) continue;
    const BufferArrangement arrangement = data_.arrangement_for(b, configuration);
    const auto key = std::make_pair(b, arrangement.key());
    auto found = timed_.find(key);
    if (found == timed_.end()) found = timed_.emplace(key, time(b, arrangement)).first;
    total += found->second;
  }
  return total;
}

double ConversionTiming::time(std::size_t buffer, const BufferArrangement& arrangement) {
  const HarnessBuffer& harness_buffer = target_.harness.buffers[buffer];
  const HostArray& contents = data_.canonical()[buffer];
  const LayoutTransform transform =
      arrangement.record_placement()
          ? record_transform(std::get<HostRecord>(*arrangement.host()), contents.size_bytes(),
                             *arrangement.record_placement())
          : matrix_transform(std::get<HostMatrix>(*arrangement.host()), *arrangement.matrix_placement());
  if (transform.identity) return 0;
  const std::shared_ptr<Program> program = runtime_.program(device_, transform.source);
  const std::shared_ptr<Kernel> to_layout = program->kernel("alloy_to_layout");
  const std::shared_ptr<Kernel> from_layout = program->kernel("alloy_from_layout");
  if (!queue_) queue_ = device_.create_queue();
  const std::unique_ptr<DeviceBuffer> host = device_.allocate(std::max<std::size_t>(contents.size_bytes(), 1));
  const std::unique_ptr<DeviceBuffer> view = device_.allocate(std::max<std::size_t>(transform.view_bytes, 1));
  queue_->write(*host, 0, contents.data(), contents.size_bytes());
  // The fastest of three: the first run of a kernel may carry one-time costs.
  auto fastest = [&](const Kernel& kernel, const LaunchRange& range, const DeviceBuffer& from, DeviceBuffer& to) {
    double best = 0;
    for (int run = 0; run < 3; ++run) {
      const std::shared_ptr<Event> event = launch_layout_transform(*queue_, kernel, range, transform, from, to);
      event->wait();
      const double seconds = double(event->timing().duration_ns()) * 1e-9;
      best = run == 0 ? seconds : std::min(best, seconds);
    }
    return best;
  };
  double seconds = 0;
  if (!harness_buffer.overwritten) seconds += fastest(*to_layout, transform.to_range, *host, *view);
  if (harness_buffer.output) seconds += fastest(*from_layout, transform.from_range, *view, *host);
  return seconds;
}

}  // namespace alloy::autotune::detail
