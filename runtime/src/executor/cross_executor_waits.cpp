// Refusing synchronize calls that would close a cycle of host tasks blocked
// across executors.
#include "cross_executor_waits.hpp"

#include <algorithm>
#include <list>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "alloy/error.hpp"
#include "executor_state.hpp"

namespace alloy::detail {
namespace {

using Entry = CrossExecutorWait::Entry;

/// Every blocked cross-executor synchronize of the process.
struct Registry {
  std::mutex mutex;
  std::list<Entry> entries;
};

Registry& registry() {
  static Registry shared;
  return shared;
}

/// True if `executor`'s task `id` cannot start before its task `running`
/// has finished.

/// The blocked tasks, in order, through which `entry`'s marker waits for
/// `entry`'s waiter itself; nothing if it does not. With the registry locked.
std::optional<std::vector<const Entry*>> cycle_through(const Entry& entry, const std::list<Entry>& entries) {
  // Depth first from the marker: each step goes from a marker to a blocked
  // task it waits for, and on to the marker that task waits for.
  struct Step {
    ExecutorState* executor;
    std::uint64_t marker;
    std::vector<const Entry*> path;
  };
  std::vector<Step> pending{{entry.target_executor, entry.marker, {}}};
  std::set<const Entry*> visited;
  while (!pending.empty()) {
    Step step = std::move(pending.back());
    pending.pop_back();
    if (step.executor == entry.waiter_executor && step.executor->waits_for_live(step.marker, entry.waiter)) {
      return step.path;
    }
    for (const Entry& blocked : entries) {
      if (blocked.waiter_executor != step.executor || !visited.insert(&blocked).second) continue;
      if (!step.executor->waits_for_live(step.marker, blocked.waiter)) continue;
      std::vector<const Entry*> path = step.path;
      path.push_back(&blocked);
      pending.push_back({blocked.target_executor, blocked.marker, std::move(path)});
    }
  }
  return std::nullopt;
}

}  // namespace

CrossExecutorWait::CrossExecutorWait(ExecutorState& waiter_executor, std::uint64_t waiter,
                                     ExecutorState& target_executor, std::uint64_t marker)
    : entry_{&waiter_executor, waiter, &target_executor, marker} {
  Registry& shared = registry();
  std::lock_guard lock(shared.mutex);
  const std::optional<std::vector<const Entry*>> cycle = cycle_through(entry_, shared.entries);
  if (!cycle) {
    shared.entries.push_back(entry_);
    return;
  }
  std::string chain;
  for (const Entry* blocked : *cycle) {
    chain += " waits for " + blocked->waiter_executor->label_of(blocked->waiter) +
             (blocked->waiter_executor == &waiter_executor ? "" : " of another executor") +
             ", which is blocked in a synchronize whose slice";
  }
  throw Error("synchronize called from " + waiter_executor.label_of(waiter) +
              " would wait for ever: its slice" + chain +
              " waits for that task; declare the slice among a task's accesses instead of "
              "synchronizing from inside it, or synchronize from outside the executors' tasks");
}

CrossExecutorWait::~CrossExecutorWait() {
  Registry& shared = registry();
  std::lock_guard lock(shared.mutex);
  const auto it = std::find_if(shared.entries.begin(), shared.entries.end(), [&](const Entry& entry) {
    return entry.waiter_executor == entry_.waiter_executor && entry.waiter == entry_.waiter &&
           entry.target_executor == entry_.target_executor && entry.marker == entry_.marker;
  });
  if (it != shared.entries.end()) shared.entries.erase(it);
}

}  // namespace alloy::detail
