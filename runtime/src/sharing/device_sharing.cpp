// An executor's slots in its devices' coordination segments, and the bound
// on background work in flight.
#include "device_sharing.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "alloy/error.hpp"
#include "alloy/log.hpp"

namespace alloy::detail {
namespace {

/// Says `message` once per device and process: every executor on a device
/// without coordination would say the same.
void warn_once(const std::string& device_key, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard lock(mutex);
    if (!warned.insert(device_key).second) return;
  }
  log_warning(message);
}

}  // namespace

std::string DeviceSharing::key_of(const Device& device) {
  const char* name_space = std::getenv("ALLOY_SHARING_NAMESPACE");
  const std::string prefix = name_space != nullptr && *name_space != '\0' ? std::string(name_space) + "/" : "";
  return prefix + device.info().fingerprint() + "#" + std::to_string(device.index());
}

DeviceSharing::DeviceSharing(const std::vector<Device*>& devices, PriorityClass priority_class,
                             const std::vector<std::size_t>& shares, std::chrono::microseconds slice_time)
    : priority_class_(priority_class),
      slice_time_(slice_time),
      in_flight_(devices.size(), 0),
      predicted_in_flight_(devices.size(), std::chrono::nanoseconds{0}),
      present_budget_(devices.size(), first_budget * slice_time),
      shares_(shares),
      told_in_use_(devices.size(), 0),
      memory_peak_(devices.size(), 0) {
  const SegmentAccess access = segment_access_from_environment();
  for (const Device* device : devices) {
    try {
      segments_.push_back(std::make_unique<CoordinationSegment>(key_of(*device), priority_class, access));
      segments_.back()->set_memory(0, shares_[segments_.size() - 1]);
    } catch (const Error& error) {
      warn_once(key_of(*device), "executors on " + device->label() +
                                     " run without coordinating with other jobs: " + error.what());
      segments_.push_back(nullptr);
    }
  }
}

std::chrono::nanoseconds DeviceSharing::counted(std::chrono::nanoseconds predicted) const {
  return predicted > std::chrono::nanoseconds{0} ? predicted : std::chrono::nanoseconds(slice_time_);
}

void DeviceSharing::started(std::size_t device, InFlight work) {
  if (segments_[device]) segments_[device]->add_in_flight(1);
  if (work.in_slices) return;
  ++in_flight_[device];
  predicted_in_flight_[device] += counted(work.predicted);
}

void DeviceSharing::completed(std::size_t device, InFlight work, bool held_back) {
  if (!work.in_slices) {
    --in_flight_[device];
    predicted_in_flight_[device] -= counted(work.predicted);
  }
  if (!segments_[device]) return;
  segments_[device]->add_in_flight(-1);
  if (priority_class_ != PriorityClass::background) return;
  // Critical work pending as this command ends may have waited behind it:
  // keep less in flight. A bound that held work back with none pending
  // cost throughput for nothing: keep more.
  std::chrono::nanoseconds& budget = present_budget_[device];
  const std::chrono::nanoseconds slice(slice_time_);
  if (segments_[device]->critical_pending_elsewhere() > 0) {
    budget = std::max(least_budget * slice, budget / 2);
  } else if (held_back) {
    budget = std::min(most_budget * slice, budget + slice);
  }
}

std::optional<BackgroundBound> DeviceSharing::bound(std::size_t device) const {
  if (priority_class_ != PriorityClass::background || !segments_[device]) return std::nullopt;
  if (segments_[device]->critical_pending_elsewhere() > 0) {
    return BackgroundBound{while_critical_pending, std::chrono::nanoseconds(slice_time_)};
  }
  if (segments_[device]->critical_jobs_elsewhere() > 0) {
    return BackgroundBound{while_critical_present, present_budget_[device]};
  }
  return std::nullopt;
}

bool DeviceSharing::may_start(std::size_t device, std::chrono::nanoseconds predicted) const {
  if (priority_class_ != PriorityClass::background || in_flight_[device] == 0) return true;
  const std::optional<BackgroundBound> most = bound(device);
  return !most || (in_flight_[device] < most->commands &&
                   predicted_in_flight_[device] + counted(predicted) <= most->predicted);
}

std::uint32_t DeviceSharing::others_in_flight(std::size_t device) const {
  return segments_[device] ? static_cast<std::uint32_t>(segments_[device]->in_flight_elsewhere()) : 0;
}

void DeviceSharing::memory_in_use(std::size_t device, std::size_t bytes) {
  // Slots of jobs on other cores share cache lines: a write per task would
  // move the line between them.
  memory_peak_[device] = std::max(memory_peak_[device], bytes);
  if (!segments_[device] || told_in_use_[device] == bytes) return;
  told_in_use_[device] = bytes;
  segments_[device]->set_memory(bytes, shares_[device]);
}

std::vector<JobState> DeviceSharing::jobs(std::size_t device) const {
  return segments_[device] ? segments_[device]->jobs() : std::vector<JobState>{};
}

}  // namespace alloy::detail
