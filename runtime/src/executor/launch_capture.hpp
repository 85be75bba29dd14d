// Capturing tunable kernel launches to files while a program runs
// (internal to the runtime; the file format is alloy/capture.hpp's).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "alloy/capture.hpp"
#include "tuning/kernel_resolver.hpp"
#include "data/layout_views.hpp"
#include "graph/task.hpp"

namespace alloy::detail {

/// Reads the buffers of a matching launch on the launch's own in-order
/// queue, before it (inputs) and after it (outputs), and writes the file
/// once those reads have completed: the launch runs as it would have, only
/// later by the reads.
///
/// Not thread-safe: the executor calls it under its lock; `write` runs on
/// the completion lane with no lock.
class LaunchCapture {
 public:
  /// `pattern` empty: ALLOY_CAPTURE's, if set. `limit` 0: ALLOY_CAPTURE_LIMIT's.
  /// InvalidArgument for a malformed ALLOY_CAPTURE_LIMIT.
  LaunchCapture(std::string pattern, std::filesystem::path directory, std::size_t limit);

  /// A launch being captured: its description and host memory the reads fill.
  struct Pending;

  /// Starts capturing the task's launch when it matches and its kernel and
  /// problem were not captured yet by this executor: enqueues the reads of
  /// its buffers, as `memories` hold them for the kernel, on `queue`.
  /// Returns null for a launch not captured.
  std::shared_ptr<Pending> begin(const Task& task, const TunedKernelCall& call, const ResolvedKernel::Tuned& resolved,
                                 const Device& device,
                                 const std::vector<DeviceBuffer*>& memories,
                                 const std::vector<LayoutViews::Use>& views, Queue& queue);
  /// After the kernel: enqueues the reads of what it wrote; returns the last.
  std::shared_ptr<Event> end(Pending& pending, Queue& queue);
  /// Once those reads completed: puts buffers read in a layout view back in
  /// the host's layout and writes the file. Logs, never throws: a capture
  /// that fails does not fail the program.
  static void write(Pending& pending);

 private:
  std::string pattern_;
  std::filesystem::path directory_;
  std::size_t limit_;
  std::set<std::string> captured_;  ///< file names, one per kernel and problem
};

}  // namespace alloy::detail
