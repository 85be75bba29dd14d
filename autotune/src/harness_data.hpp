// A harness's buffers on one device: their canonical contents, the order a
// configuration lays them out in, and each kernel pass's arguments
// (internal to the evaluator).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "alloy/autotune/harness.hpp"
#include "alloy/backend/device.hpp"
#include "buffer_arrangement.hpp"

namespace alloy::autotune::detail {

class HarnessData {
 public:
  /// Makes every buffer on `device`, large enough for each arrangement, and
  /// fills its contents from its seed. Throws InvalidArgument for a size
  /// that does not fit its argument, a buffer of no elements, an argument
  /// naming no buffer, a layout whose parameter is unknown or has a value
  /// with no order, or a host layout no layout argument of the kernel takes.
  HarnessData(Device& device, const TuningTarget& target, const Extent& problem);

  /// Every buffer's initial contents in canonical order, for host references.
  const std::vector<HostArray>& canonical() const { return contents_; }
  /// Why `configuration` cannot lay the buffers out (sizes that are not
  /// whole rows or blocks); nothing when it can.
  std::optional<std::string> layout_problem(const Configuration& configuration) const;
  /// Writes every buffer's initial contents, laid out as `configuration` says.
  void write_all(Queue& queue, const Configuration& configuration);
  /// Lays the buffers out for `configuration`, writing only those whose
  /// order changes: before timing a configuration again.
  void lay_out(Queue& queue, const Configuration& configuration);
  /// Writes the buffers marked reset_each_run again, as last laid out.
  void write_resets(Queue& queue);
  /// The outputs, in buffer order, put back in canonical order.
  std::vector<HostArray> read_outputs(Queue& queue);
  /// Arguments of pass `pass`: 0 is the tuned kernel, then harness.passes.
  std::span<const KernelArg> arguments(std::size_t pass) const { return arguments_[pass]; }
  /// How `configuration` lays buffer `buffer` out on the device.
  BufferArrangement arrangement_for(std::size_t buffer, const Configuration& configuration) const;

 private:
  struct Placed {
    HostArray contents;  // as they lie on the device; empty while canonical
    BufferArrangement arrangement;
  };
  std::size_t largest_arrangement(std::size_t buffer) const;
  const HostArray& device_contents(std::size_t buffer) const;
  void place(std::size_t buffer, BufferArrangement arrangement);
  // Rearranges the buffers whose order `configuration` changes, once the
  // queue no longer reads them; true for those.
  std::vector<bool> place_all(Queue& queue, const Configuration& configuration);
  std::vector<KernelArg> make_arguments(const std::vector<HarnessArgument>& arguments) const;

  const TuningTarget& target_;
  Extent problem_;
  std::vector<HostArray> contents_;
  std::vector<std::size_t> row_lengths_;  // for buffers with an element order
  std::vector<Placed> placed_;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers_;
  std::vector<std::vector<KernelArg>> arguments_;
};

}  // namespace alloy::autotune::detail
