// The conversions of a buffer between its host layout and a device layout:
// by kernels on the device, or on the host while staging the upload. The
// executor's views are made with them, and the tuner times both ways to
// price a layout's conversions and to say which way a device should take.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "alloy/backend/program.hpp"
#include "alloy/backend/queue.hpp"
#include "alloy/buffer.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/launch_range.hpp"

namespace alloy {

/// How a buffer described by the host becomes the layout a kernel wants and
/// back: two kernels, alloy_to_layout(scalars..., host, view) and
/// alloy_from_layout(scalars..., view, host). to_layout writes every byte of
/// the view a field or the layout's padding holds (padding as zeros);
/// from_layout writes only the host's field bytes, so host bytes no kernel
/// names keep their values.
struct LayoutTransform {
  /// Names the view's layout, fields and size: two tasks wanting the same
  /// key share one converted copy.
  std::string key;
  /// The host bytes already are the layout: no conversion, no second copy.
  bool identity = false;
  std::size_t view_bytes = 0;
  ProgramSource source;
  std::vector<KernelArg> scalars;
  LaunchRange to_range{Extent(1)};
  LaunchRange from_range{Extent(1)};
  /// The same conversion into the layout on the host: from the host's
  /// bytes into view_bytes bytes for the device (padding as zeros), to be
  /// uploaded in place of the host bytes and the to_layout kernel.
  std::function<void(std::span<const std::byte> host, std::span<std::byte> view)> pack_on_host;
};

/// For `host_bytes` bytes of records `host` laid out as `placement`;
/// InvalidArgument when the host record lacks one of its fields.
LayoutTransform record_transform(const HostRecord& host, std::size_t host_bytes, const RecordPlacement& placement);
/// For the host's matrix laid out as `placement`; InvalidArgument when the
/// element types differ.
LayoutTransform matrix_transform(const HostMatrix& host, const MatrixPlacement& placement);

/// Launches one of the transform's kernels, compiled from its source
/// (alloy_to_layout over to_range, or alloy_from_layout over from_range),
/// from `from` into `to`.
std::shared_ptr<Event> launch_layout_transform(Queue& queue, const Kernel& kernel, const LaunchRange& range,
                                               const LayoutTransform& transform, const DeviceBuffer& from,
                                               DeviceBuffer& to);

}  // namespace alloy
