// Views of buffers in the layouts kernels want: planning, conversion on the
// device, and the bookkeeping that says when a view is current.
#include "layout_views.hpp"

#include <algorithm>

#include "buffer_state.hpp"

namespace alloy::detail {
namespace {

BufferSlice whole(const std::shared_ptr<BufferStorage>& storage) { return {storage, {0, storage->size()}}; }

}  // namespace

const LayoutViews::Prepared& LayoutViews::prepared(const TunedKernelCall& call, const LayoutBinding& binding,
                                                   const BufferStorage& buffer, std::uint64_t kernel_key,
                                                   const Configuration& configuration, std::size_t device) {
  Prepared& prepared = prepared_[{device, kernel_key, buffer.id(), binding.access}];
  if (prepared.transform) return prepared;
  const TunableKernel& tunable = *call.tunable;
  LayoutTransform transform = [&] {
    if (binding.matrix) {
      const MatrixArgument& argument = tunable.matrices[binding.declaration];
      return matrix_transform(std::get<HostMatrix>(*binding.host),
                              MatrixPlacement(argument.element, matrix_layout(tunable, argument, configuration)));
    }
    const RecordArgument& argument = tunable.records[binding.declaration];
    return record_transform(std::get<HostRecord>(*binding.host), buffer.size(),
                            RecordPlacement(argument.fields, record_layout(tunable, argument, configuration)));
  }();
  Prepared made;
  if (!transform.identity) {
    auto program = runtime_.program(*devices_[device], transform.source);
    made.to_layout = program->kernel("alloy_to_layout");
    made.from_layout = program->kernel("alloy_from_layout");
  }
  made.transform = std::make_shared<const LayoutTransform>(std::move(transform));
  prepared = std::move(made);
  return prepared;
}

LayoutViews::View& LayoutViews::view_of(const BufferStorage& buffer, const LayoutTransform& transform) {
  View& view = views_[buffer.id()][transform.key];
  if (!view.storage) {
    view.storage = std::make_shared<BufferStorage>(transform.view_bytes);
    state_of(*view.storage).mark_scratch();
  }
  return view;
}

bool LayoutViews::current(const View& view, const BufferStorage& buffer, std::size_t device) const {
  const auto converted = view.converted.find(device);
  if (converted == view.converted.end()) return false;
  const Replica* replica = state_of(*view.storage).replica(devices_[device]);
  return replica != nullptr && replica->serial == converted->second.replica &&
         state_of(buffer).version() == converted->second.version;
}

LayoutViews::View& LayoutViews::view_for(const Use& use, const Task& task) {
  return views_[task.accesses[use.access].slice.storage->id()][use.transform->key];
}

bool LayoutViews::settled_at_home(const BufferStorage& buffer) {
  return state_of(buffer).settled_at_home(buffer.size());
}

std::vector<LayoutViews::Use> LayoutViews::plan(const Task& task, const TunedKernelCall& call,
                                                std::uint64_t kernel_key, const ResolvedKernel::Tuned& resolved,
                                                std::size_t device, bool inputs_settled) {
  std::vector<Use> uses;
  for (const LayoutBinding& binding : call.layouts) {
    const Access& access = task.accesses[binding.access];
    const BufferStorage& buffer = *access.slice.storage;
    const Prepared& parts = prepared(call, binding, buffer, kernel_key, resolved.choice.configuration, device);
    Use use;
    use.access = binding.access;
    use.transform = parts.transform;
    if (!parts.transform->identity) {
      View& view = view_of(buffer, *parts.transform);
      use.view = view.storage;
      use.to_layout = parts.to_layout;
      use.from_layout = parts.from_layout;
      // A kernel that overwrites the whole buffer needs nothing converted in.
      use.convert_in = reads(access.mode) && !current(view, buffer, device);
      use.convert_out = writes(access.mode);
      // Staging pays off only where the buffer's bytes would otherwise be
      // uploaded first: not where the device holds them already.
      const std::string& parameter = binding.matrix ? call.tunable->matrices[binding.declaration].parameter
                                                    : call.tunable->records[binding.declaration].parameter;
      use.staged = use.convert_in && !use.convert_out && inputs_settled &&
                   std::find(resolved.choice.staged_on_host.begin(), resolved.choice.staged_on_host.end(), parameter) != resolved.choice.staged_on_host.end() &&
                   coherence_.missing_bytes(access, device) > 0 && settled_at_home(buffer);
    }
    uses.push_back(std::move(use));
  }
  return uses;
}

std::vector<Access> LayoutViews::with_views(const std::vector<Access>& accesses, const std::vector<Use>& uses) {
  std::vector<Access> all;
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    const bool staged =
        std::any_of(uses.begin(), uses.end(), [&](const Use& use) { return use.access == i && use.staged; });
    if (!staged) all.push_back(accesses[i]);
  }
  for (const Use& use : uses) {
    if (use.view) all.push_back(write(whole(use.view)));
  }
  return all;
}

DeviceBuffer& LayoutViews::prepare(const Use& use, const Task& task, std::size_t device,
                                   const Coherence::Events& producers, Coherence::Events& waits) {
  const Access& access = task.accesses[use.access];
  if (!use.view) return coherence_.prepare_on_device(access, device, producers, waits);
  // The buffer's own bytes feed the conversion in, and must be whole on the
  // device for the conversion back: that writes only the fields, leaving
  // the bytes around them as they are.
  if ((use.convert_in && !use.staged) || use.convert_out) {
    coherence_.prepare_on_device(read(access.slice), device, producers, waits);
  }
  if (!use.convert_in) {
    // Current here: made by a command that may run on another lane still.
    const auto converted = view_for(use, task).converted.find(device);
    if (converted != view_for(use, task).converted.end() && converted->second.written &&
        !converted->second.written->is_complete()) {
      waits.push_back(converted->second.written);
    }
  }
  // As a write: a view is never copied between devices or from home, only
  // converted where it is needed.
  return coherence_.prepare_on_device(write(whole(use.view)), device, producers, waits);
}

void LayoutViews::convert_in(const Use& use, const Task& task, std::size_t device, Queue& queue) {
  if (!use.convert_in) return;
  const Access& access = task.accesses[use.access];
  BufferStorage& storage = *access.slice.storage;
  const BufferState& buffer = state_of(storage);
  DeviceBuffer& to = state_of(*use.view).memory_on(devices_[device]);
  std::erase_if(staging_, [](const auto& staged) { return staged.first->is_complete(); });
  std::shared_ptr<Event> converted;
  if (use.staged) {
    std::vector<std::byte> packed(use.transform->view_bytes);
    use.transform->pack_on_host({storage.host_data(), storage.size()}, packed);
    converted = queue.write(to, 0, packed.data(), packed.size());
    staging_.emplace_back(converted, std::move(packed));
  } else {
    DeviceBuffer& from = buffer.memory_on(devices_[device]);
    converted = launch_layout_transform(queue, *use.to_layout, use.transform->to_range, *use.transform, from, to);
    coherence_.used_on_device(read(access.slice), device, queue, converted);
  }
  coherence_.used_on_device(write(whole(use.view)), device, queue, converted);
  view_for(use, task).converted[device] = {state_of(*use.view).replica(devices_[device])->serial,
                                           buffer.version(), converted};
}

std::shared_ptr<Event> LayoutViews::convert_out(const Use& use, const Task& task, std::size_t device, Queue& queue,
                                                std::shared_ptr<Event> kernel) {
  const Access& access = task.accesses[use.access];
  if (!use.view) {
    coherence_.used_on_device(access, device, queue, kernel);
    return kernel;
  }
  coherence_.used_on_device({whole(use.view), access.mode}, device, queue, kernel);
  std::shared_ptr<Event> last = kernel;
  if (use.convert_out) {
    DeviceBuffer& from = state_of(*use.view).memory_on(devices_[device]);
    DeviceBuffer& to = state_of(*access.slice.storage).memory_on(devices_[device]);
    last = launch_layout_transform(queue, *use.from_layout, use.transform->from_range, *use.transform, from, to);
    coherence_.used_on_device(read(whole(use.view)), device, queue, last);
    coherence_.used_on_device(read_write(access.slice), device, queue, last);
  }
  if (writes(access.mode)) {
    // The view holds the buffer as it is now, after the write just recorded.
    view_for(use, task).converted[device] = {state_of(*use.view).replica(devices_[device])->serial,
                                             state_of(*access.slice.storage).version(), kernel};
  }
  return last;
}

void LayoutViews::forget(BufferStorage& storage, const std::function<void(BufferStorage&)>& free_replicas) {
  const auto found = views_.find(storage.id());
  if (found == views_.end()) return;
  for (auto& [key, view] : found->second) free_replicas(*view.storage);
  views_.erase(found);
  std::erase_if(prepared_, [&](const auto& entry) { return std::get<2>(entry.first) == storage.id(); });
}

}  // namespace alloy::detail
