// The converted copies of buffers that kernels want in another layout, kept
// per device and converted on it (internal to the runtime).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "alloy/runtime.hpp"
#include "coherence.hpp"
#include "tuning/kernel_resolver.hpp"
#include "alloy/layout_conversion.hpp"
#include "graph/task.hpp"

namespace alloy::detail {

/// A buffer a kernel wants in another layout gets a view: a second buffer
/// in that layout, made on the kernel's device by a conversion kernel and
/// reused by later tasks there while the buffer is unchanged (its version,
/// BufferState::version, is the one converted). A kernel that writes the
/// view converts it back at once, on the same queue, so the buffer's own
/// bytes are always current and every other task, host and device, reads
/// them as ever. Views of one buffer in two layouts are two views.
///
/// A view a kernel only reads may instead be packed on the host and
/// uploaded in place of the buffer's bytes, when the device's profile says
/// that measured faster (ProfileEntry::staged_on_host) and the host holds
/// every byte of the buffer, settled: then the device holds the view alone.
/// A kernel that writes converts on the device, since the conversion back
/// needs the buffer's bytes there.
///
/// Not thread-safe: the executor calls it under its lock.
class LayoutViews {
 public:
  LayoutViews(Runtime& runtime, const std::vector<Device*>& devices, Coherence& coherence)
      : runtime_(runtime), devices_(devices), coherence_(coherence) {}

  /// One layout argument of a task about to start.
  struct Use {
    std::size_t access = 0;                   ///< the task's access
    std::shared_ptr<BufferStorage> view;      ///< nullptr: the host layout is the one wanted
    std::shared_ptr<Kernel> to_layout;        ///< the conversions, compiled for the device
    std::shared_ptr<Kernel> from_layout;
    std::shared_ptr<const LayoutTransform> transform;
    bool convert_in = false;   ///< the view is stale on the device
    bool convert_out = false;  ///< the kernel writes the view
    bool staged = false;       ///< converted in on the host, uploaded as the view
  };

  /// The uses of a kernel task's layout arguments on `device` under its
  /// configuration there (`resolved`); its choice.staged_on_host names the
  /// arguments the profile converts on the host, which is done when
  /// `inputs_settled` (the task's dependencies have completed: nothing still
  /// writes the host's bytes). Compiles the conversions on first use (their
  /// errors are thrown before anything is enqueued).
  std::vector<Use> plan(const Task& task, const TunedKernelCall& call, std::uint64_t kernel_key,
                        const ResolvedKernel::Tuned& resolved, std::size_t device, bool inputs_settled);
  /// The task's accesses with those of its views added, for residency; a
  /// staged use needs its view only.
  static std::vector<Access> with_views(const std::vector<Access>& accesses, const std::vector<Use>& uses);

  /// Makes what `use` needs on the device valid, adding what the commands
  /// must wait for to `waits`; returns the memory to pass to the kernel.
  DeviceBuffer& prepare(const Use& use, const Task& task, std::size_t device, const Coherence::Events& producers,
                        Coherence::Events& waits);
  /// Enqueues the conversion into the view where it is stale (for a staged
  /// use, packs the host's bytes and enqueues their upload); after prepare
  /// and the waits, before the kernel.
  void convert_in(const Use& use, const Task& task, std::size_t device, Queue& queue);
  /// Records the kernel's use of the view and converts written views back;
  /// returns the last command enqueued (the kernel's when none).
  std::shared_ptr<Event> convert_out(const Use& use, const Task& task, std::size_t device, Queue& queue,
                                     std::shared_ptr<Event> kernel);

  /// Frees the views of `storage` (a buffer nobody uses any more), waiting
  /// for the commands using them.
  void forget(BufferStorage& storage, const std::function<void(BufferStorage&)>& free_replicas);

 private:
  /// What a view's replica on one device holds.
  struct Converted {
    std::uint64_t replica = 0;  ///< Replica::serial of the memory converted into
    std::uint64_t version = 0;  ///< the buffer's version it holds
    /// The last command that wrote it: a task using the view without
    /// converting again waits for it, whichever lane it ran on.
    std::shared_ptr<Event> written;
  };
  struct View {
    std::shared_ptr<BufferStorage> storage;
    std::map<std::size_t, Converted> converted;  ///< by device
  };
  /// A use's parts that depend only on the task's kernel, buffer and device.
  struct Prepared {
    std::shared_ptr<const LayoutTransform> transform;
    std::shared_ptr<Kernel> to_layout;
    std::shared_ptr<Kernel> from_layout;
  };

  const Prepared& prepared(const TunedKernelCall& call, const LayoutBinding& binding, const BufferStorage& buffer,
                           std::uint64_t kernel_key, const Configuration& configuration, std::size_t device);
  View& view_of(const BufferStorage& buffer, const LayoutTransform& transform);
  bool current(const View& view, const BufferStorage& buffer, std::size_t device) const;
  View& view_for(const Use& use, const Task& task);
  /// The host holds every byte of `buffer`, with no copy home still on its way.
  static bool settled_at_home(const BufferStorage& buffer);

  Runtime& runtime_;
  const std::vector<Device*>& devices_;
  Coherence& coherence_;
  std::map<std::tuple<std::size_t, std::uint64_t, std::uint64_t, std::size_t>, Prepared> prepared_;
  std::map<std::uint64_t, std::map<std::string, View>> views_;  ///< by buffer id, then transform key
  /// Packed bytes on their way to a device: kept until their upload completes.
  std::vector<std::pair<std::shared_ptr<Event>, std::vector<std::byte>>> staging_;
};

}  // namespace alloy::detail
