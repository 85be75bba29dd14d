// Device lanes.
#include "lanes.hpp"

namespace alloy::detail {

DeviceLanes::DeviceLanes(Device& device, unsigned compute_lanes, QueuePriority priority) {
  for (unsigned i = 0; i < compute_lanes; ++i) compute_.push_back(device.create_queue(priority));
  copy_in_ = device.create_queue(priority);
  copy_out_ = device.create_queue(priority);
  // Timed only where the executor measures a command (Queue::set_timing).
  for (auto& queue : compute_) queue->set_timing(false);
  copy_in_->set_timing(false);
  copy_out_->set_timing(false);
}

Queue& DeviceLanes::next_compute() { return *compute_[next_compute_++ % compute_.size()]; }

void DeviceLanes::track(const std::shared_ptr<Event>& event) {
  // Forget completed commands now and then, so that a policy that never
  // asks for the count does not hold every event.
  if (in_flight_.size() >= 256 && in_flight_.size() % 256 == 0) in_flight();
  if (event) in_flight_.push_back(event);
}

std::size_t DeviceLanes::in_flight() {
  while (!in_flight_.empty() && in_flight_.front()->is_complete()) in_flight_.pop_front();
  return in_flight_.size();
}

}  // namespace alloy::detail
