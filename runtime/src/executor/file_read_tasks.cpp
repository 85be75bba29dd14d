// Starting a file read task: on a host thread either way, straight into the
// device's replica where the device opens the file directly (GPUDirect
// Storage), else into host memory as a host task would.
//
// A direct read has no device command, so no event: like a host task, it
// holds its dependents back until it is done (they start only then), and it
// keeps its replica from eviction meanwhile (Replica::host_writers), as
// eviction frees memory once the events of its users completed.
#include <algorithm>

#include "alloy/error.hpp"
#include "executor_state.hpp"
#include "tracing/profiler_ranges.hpp"

namespace alloy::detail {
namespace {

/// Lets the replica be evicted again once the read is over, however it
/// ended; tasks that waited for memory eviction had to leave it for try
/// again then.
class WriterHold {
 public:
  WriterHold(ExecutorState& executor, std::shared_ptr<BufferStorage> storage, std::size_t device)
      : executor_(executor), storage_(std::move(storage)), device_(device) {}
  WriterHold(const WriterHold&) = delete;
  WriterHold& operator=(const WriterHold&) = delete;
  ~WriterHold() { executor_.host_write_ended(*storage_, device_); }

 private:
  ExecutorState& executor_;
  std::shared_ptr<BufferStorage> storage_;
  std::size_t device_;
};

}  // namespace

void ExecutorState::start_file_read(std::uint64_t id) {
  TaskState& state = task(id);
  const Task& work = *state.task;
  const FileReadWork& read = *work.file_read();
  const Access& access = work.accesses.front();
  const std::shared_ptr<BufferStorage>& storage = access.slice.storage;
  const ByteRange range = access.slice.range;

  // Borrowed memory has no replicas: it is read where it is.
  std::optional<std::size_t> direct_on;
  if (!storage->host_resident()) {
    if (!state.device) state.device = place(id, placement.policy_for(work, state.run->policy));
    if (read.file->direct(*devices[*state.device]).file) direct_on = state.device;
  }
  if (!direct_on) {
    state.function = [file = read.file, offset = read.offset, into = storage->host_data() + range.begin,
                      bytes = range.size()] { file->read(offset, into, bytes); };
    state.run->count_host_task();
    start_host_task(id);
    return;
  }

  const std::size_t d = *direct_on;
  if (!planner.plan(work, d, [] { return false; }, [&] { return label(id); }, id)) {
    wait_for_memory(id, d);
    return;
  }
  fitted_after_waiting(d);
  Coherence::Events producers;
  for_each_dependency(state, [&](std::uint64_t before) {
    if (const auto& event = task(before).event) producers.push_back(event);
  });
  // The host thread waits for every command before it on the device's
  // queues too: it writes the replica behind their backs.
  Coherence::Events waits = producers;
  DeviceBuffer* memory = &planner.begin_host_write(access, d, producers, waits);
  // Only the function holds it: released on a thread without the lock.
  auto hold = std::make_shared<WriterHold>(*this, storage, d);
  std::erase_if(waits, [](const auto& event) { return event->is_complete(); });
  state.run->count_device_task(d);
  ++task_counts[d];
  ++handed_off;

  std::function<void()> function = [hold = std::move(hold), file = read.file, offset = read.offset, memory,
                                    range]() mutable {
    file->read(offset, *memory, range.begin, range.size());
    hold.reset();  // before dependents are told, so that they may evict it
  };
  std::string range_name = profiler_listening() ? label(id) : std::string();
  if (waits.empty()) {
    post_host_task(id, std::move(function), std::move(range_name), nullptr);
    return;
  }
  completions.watch(std::move(waits), [this, id, function = std::move(function),
                                   range_name = std::move(range_name)](std::exception_ptr failed) mutable {
    if (failed) {
      function = nullptr;  // drops the hold
      finish_host_task(id, std::move(failed));
    } else {
      post_host_task(id, std::move(function), std::move(range_name), nullptr);
    }
  });
}

}  // namespace alloy::detail
