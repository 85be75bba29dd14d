// The data side of a task, apart from the scheduler: what a device task needs
// on the device placement chose, and the commands that bring it there
// (internal to the runtime).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "alloy/executor.hpp"
#include "alloy/run.hpp"
#include "data/coherence.hpp"
#include "data/layout_views.hpp"
#include "data/residency.hpp"
#include "devices/lanes.hpp"
#include "kernel_slicing.hpp"
#include "launch_capture.hpp"
#include "tuning/kernel_resolver.hpp"

namespace alloy::detail {

/// Which of a device task's commands report their times.
struct Timing {
  bool transfers = false;  ///< inputs brought to the device
  bool command = false;    ///< the task's own
};

/// A device task on one device, decided before any of its commands: its
/// kernel resolved there, the layout views its configuration asks for, its
/// buffers resident. enqueue() and commit() fill in the rest.
struct DevicePlan {
  const Task* task = nullptr;
  std::size_t device = 0;
  const ResolvedKernel* resolved = nullptr;  ///< a kernel task's
  std::vector<LayoutViews::Use> views;
  /// Per access: the device memory the command uses (nullptr: borrowed host bytes).
  std::vector<DeviceBuffer*> memories;
  std::vector<TimedTransfer> transfers;  ///< inputs brought over, when timed
  std::shared_ptr<LaunchCapture::Pending> captured;
  std::shared_ptr<Event> command;  ///< the task's own (a sliced launch's last slice)
  Timing timing;
  KernelSlicing slicing;  ///< how its launch runs: whole unless the executor slices it
};

/// The events a task's commands wait for: those of the device tasks it
/// depends on (host tasks among them are done). A queue runs in order, so a
/// command need not wait for those on its own queue; transfers into its
/// replicas wait for all of them.
struct Producers {
  Coherence::Events all;
  Coherence::Events waits;  ///< on other queues
};

/// Owns what decides where a task's bytes are and which kernel runs: the
/// kernel resolver, layout views, residency, coherence and capture. The
/// executor's scheduler reaches them only through these calls, one per task
/// step; no other part touches a buffer's bytes.
class DevicePlanner {
 public:
  DevicePlanner(Runtime& runtime, const std::vector<Device*>& devices, std::vector<DeviceLanes>& lanes,
                const ExecutorOptions& options);

  /// Told of each kernel prepared (compiled, or read from the compile
  /// cache) for a device before its first launch there, with how long it took.
  using CompileObserver = std::function<void(const std::string& kernel, std::size_t device,
                                             std::chrono::steady_clock::time_point started,
                                             std::chrono::steady_clock::time_point ended)>;
  void observe_compiles(CompileObserver observer) { compiled_ = std::move(observer); }

  /// The lane a task's own command goes on: a copy into borrowed host
  /// memory runs on the copy-out lane, one out of it on the copy-in lane.
  static Lane lane_of(const Task& task);

  /// `kernel` on `device`: compiled on first use, its tuned configuration
  /// there if the profile has one that builds.
  const ResolvedKernel& resolve(const KernelWork& kernel, std::size_t device);
  /// Bytes of `task`'s buffers that `device` holds no valid copy of.
  std::size_t missing_bytes(const Task& task, std::size_t device) const;
  std::size_t capacity(std::size_t device) const { return residency_.capacity(device); }
  /// What the executor's replicas take on `device` now.
  std::size_t memory_used(std::size_t device) const { return residency_.used(device); }
  /// The executor's memory share on each device in bytes (0: none declared).
  const std::vector<std::size_t>& shares() const { return shares_; }

  /// `task` on `device`, or nothing while its buffers do not fit there
  /// until evicted replicas are freed. `inputs_settled`: whether every
  /// task it depends on has completed (asked only where a profile stages
  /// layouts on the host). `name` and `id` name it in errors and to residency.
  std::optional<DevicePlan> plan(const Task& task, std::size_t device, const std::function<bool()>& inputs_settled,
                                 const std::function<std::string()>& name, std::uint64_t id);
  /// True once the task that reserved memory on `device` got it: the
  /// others waiting there may try again.
  bool take_reservation_ended(std::size_t device) { return residency_.take_reservation_ended(device); }

  /// Puts the task's commands on `queue`: its inputs brought to the device
  /// (on the copy lanes, after `producers`), a wait for the producers on
  /// other queues, layout conversions in, the capture's reads, and the
  /// task's own command.
  void enqueue(DevicePlan& plan, Queue& queue, Producers producers, Timing timing);
  /// Records what the command did to the task's buffers and puts the rest
  /// on `queue` (the capture's reads, conversions back). Returns the event
  /// of the task's last command: the task is done when it is.
  std::shared_ptr<Event> commit(DevicePlan& plan, Queue& queue);
  /// The task's inputs brought over, for placement's measurements.
  std::vector<TimedTransfer> take_transfers(DevicePlan& plan) { return std::move(plan.transfers); }

  /// A file read straight into `access`'s replica on `device` by a host
  /// thread: the replica made current (commands after `producers`, `waits`
  /// added to) and marked written, and kept from eviction until
  /// end_host_write. Residency first, through plan().
  DeviceBuffer& begin_host_write(const Access& access, std::size_t device, const Coherence::Events& producers,
                                 Coherence::Events& waits);
  /// True if the replica may be evicted now.
  bool end_host_write(BufferStorage& storage, std::size_t device);
  /// A host task's buffers at home, current (after `producers`, `waits`
  /// added to) and marked written where it writes.
  void prepare_on_host(const std::vector<Access>& accesses, const Coherence::Events& producers,
                       Coherence::Events& waits);

  /// Replicas evicted since the last call, to free once their users completed.
  std::vector<Residency::Retirement> take_retirements() { return residency_.take_retirements(); }
  void freed(const Residency::Retirement& retirement) { residency_.freed(retirement); }
  /// After wait(): the buffers only this executor still holds reach their
  /// end of life here, their replicas freed.
  void forget_dropped_buffers();
  /// When the executor goes: every buffer it used reaches its end of life
  /// here, its bytes brought home first (the buffer outlives the executor).
  void bring_buffers_home();

 private:
  /// A buffer's end of life in this executor: its bytes brought home if
  /// `bring_home`, then the replicas of its layout views and its own freed.
  void end_of_life(BufferStorage& storage, bool bring_home);
  /// The buffers of its tasks, whose replicas it frees at their end of life.
  void track(const std::vector<Access>& accesses);

  const std::vector<Device*>& devices_;
  std::vector<DeviceLanes>& lanes_;
  std::vector<std::size_t> shares_;
  Coherence coherence_;
  Residency residency_;
  KernelResolver kernels_;
  LayoutViews layouts_;
  LaunchCapture capture_;
  CompileObserver compiled_;
  std::set<std::shared_ptr<BufferStorage>> buffers_;
};

}  // namespace alloy::detail
