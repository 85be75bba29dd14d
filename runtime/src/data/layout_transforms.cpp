// Conversions between host layouts and device layouts: kernels generated per
// layout in the portable dialect (FIELD and AT2 read the view's defines), and
// the host's packing for the staged way.
#include "alloy/layout_conversion.hpp"

#include "alloy/error.hpp"
#include "layout_arithmetic.hpp"

namespace alloy {
namespace {

using layout_detail::round_up;

// The source's name shows up in compiler messages and traces.
ProgramSource transform_source(const std::string& what, std::string text, std::string defines) {
  return {"alloy/layout " + what, std::move(text), std::move(defines)};
}

LaunchRange line_range(std::size_t items) {
  return {Extent(round_up(std::max<std::size_t>(items, 1), 64)), Extent(64)};
}

LaunchRange grid_range(std::size_t rows, std::size_t columns) {
  return {Extent(round_up(std::max<std::size_t>(columns, 1), 16), round_up(std::max<std::size_t>(rows, 1), 16)),
          Extent(16, 16)};
}

}  // namespace

LayoutTransform record_transform(const HostRecord& host, std::size_t host_bytes, const RecordPlacement& placement) {
  const std::size_t count = host_bytes / host.size;
  const bool blocks = placement.layout().kind == RecordLayout::Kind::aosoa;
  const std::size_t padded = blocks ? round_up(count, placement.layout().width) : count;
  const std::string defines = placement.defines("view", "count");

  LayoutTransform transform;
  transform.key = "records " + defines;
  transform.view_bytes = placement.bytes(count);
  transform.identity = placement.layout().kind == RecordLayout::Kind::aos && placement.bytes(1) == host.size;
  std::string to_fields, zero_fields, from_fields;
  for (std::size_t f = 0; f < placement.fields().size(); ++f) {
    const FieldFormat& field = placement.fields()[f];
    const HostField& at = host.field_for(field);
    transform.identity = transform.identity && at.offset == placement.offset(0, f, 1);
    const std::string type(to_string(field.type));
    const std::string host_field =
        "*(GLOBAL " + type + "*)(host + i * " + std::to_string(host.size) + " + " + std::to_string(at.offset) + ")";
    to_fields += "    FIELD(view, i, " + field.name + ") = " + host_field + ";\n";
    zero_fields += "    FIELD(view, i, " + field.name + ") = (" + type + ")0;\n";
    from_fields += "  " + host_field + " = FIELD(view, i, " + field.name + ");\n";
  }
  // The host pointer is not const in to_layout: the field expressions cast
  // it for both directions alike.
  std::string text =
      "KERNEL void alloy_to_layout(const ulong count, const ulong padded, GLOBAL uchar* restrict host,\n"
      "                            GLOBAL uchar* restrict view) {\n"
      "  const size_t i = get_global_id(0);\n"
      "  if (i >= padded) return;\n"
      "  if (i < count) {\n" +
      to_fields + "  } else {\n" + zero_fields +
      "  }\n"
      "}\n\n"
      "KERNEL void alloy_from_layout(const ulong count, const ulong padded, GLOBAL uchar* restrict view,\n"
      "                              GLOBAL uchar* restrict host) {\n"
      "  const size_t i = get_global_id(0);\n"
      "  if (i >= count) return;\n" +
      from_fields + "}\n";
  transform.source = transform_source("records " + host.name + " as " + placement.layout().to_string(),
                                      std::move(text), defines);
  transform.scalars = {KernelArg::from(std::uint64_t{count}), KernelArg::from(std::uint64_t{padded})};
  transform.to_range = line_range(padded);
  transform.from_range = line_range(count);
  transform.pack_on_host = [host, placement, count](std::span<const std::byte> records, std::span<std::byte> view) {
    pack_records(host, records, count, placement, view);
  };
  return transform;
}

LayoutTransform matrix_transform(const HostMatrix& host, const MatrixPlacement& placement) {
  if (host.element != placement.element()) {
    throw InvalidArgument("matrix of " + std::string(to_string(host.element)) + " on the host, of " +
                          std::string(to_string(placement.element())) + " in the kernel's layout");
  }
  const std::size_t length = host.line_length();
  const std::size_t pitch = host.line_pitch();
  const auto [padded_rows, padded_columns] = placement.padded_extent(host.rows, host.columns);
  const std::string defines = placement.defines("view", "rows", "columns");
  const MatrixLayout layout = placement.layout();

  LayoutTransform transform;
  transform.key = "matrix " + std::string(to_string(host.element)) + " " + std::to_string(host.rows) + "x" +
                  std::to_string(host.columns) + " " + defines;
  transform.view_bytes = placement.elements(host.rows, host.columns) * size_of(host.element);
  const bool same_order = (layout.kind == MatrixLayout::Kind::row_major && !host.column_major) ||
                          (layout.kind == MatrixLayout::Kind::column_major && host.column_major);
  transform.identity = same_order && layout.pitch(length) == pitch;
  const std::string type(to_string(host.element));
  const std::string host_element = host.column_major ? "host[c * " + std::to_string(pitch) + " + r]"
                                                     : "host[r * " + std::to_string(pitch) + " + c]";
  std::string text =
      "KERNEL void alloy_to_layout(const ulong rows, const ulong columns, GLOBAL " + type +
      "* restrict host,\n"
      "                            GLOBAL " + type + "* restrict view) {\n"
      "  const size_t c = get_global_id(0), r = get_global_id(1);\n"
      "  if (r >= " + std::to_string(padded_rows) + " || c >= " + std::to_string(padded_columns) + ") return;\n"
      "  AT2(view, r, c) = r < rows && c < columns ? " + host_element + " : (" + type + ")0;\n"
      "}\n\n"
      "KERNEL void alloy_from_layout(const ulong rows, const ulong columns, GLOBAL " + type +
      "* restrict view,\n"
      "                              GLOBAL " + type + "* restrict host) {\n"
      "  const size_t c = get_global_id(0), r = get_global_id(1);\n"
      "  if (r >= rows || c >= columns) return;\n"
      "  " + host_element + " = AT2(view, r, c);\n"
      "}\n";
  transform.source = transform_source("matrix as " + layout.to_string(), std::move(text), defines);
  transform.scalars = {KernelArg::from(std::uint64_t{host.rows}), KernelArg::from(std::uint64_t{host.columns})};
  transform.to_range = grid_range(padded_rows, padded_columns);
  transform.from_range = grid_range(host.rows, host.columns);
  transform.pack_on_host = [host, placement](std::span<const std::byte> matrix, std::span<std::byte> view) {
    pack_matrix(host, matrix, placement, view);
  };
  return transform;
}

std::shared_ptr<Event> launch_layout_transform(Queue& queue, const Kernel& kernel, const LaunchRange& range,
                                               const LayoutTransform& transform, const DeviceBuffer& from,
                                               DeviceBuffer& to) {
  std::vector<KernelArg> args = transform.scalars;
  args.push_back(KernelArg::from(from));
  args.push_back(KernelArg::from(to));
  return queue.launch(kernel, range, std::span<const KernelArg>(args));
}

}  // namespace alloy
