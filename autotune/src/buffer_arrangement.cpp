// How one harness buffer lies on the device under a configuration.
#include "buffer_arrangement.hpp"

#include <algorithm>

namespace alloy::autotune::detail {
namespace {

const RecordArgument* record_argument(const TunableKernel& kernel, const std::string& parameter) {
  const auto found = std::find_if(kernel.records.begin(), kernel.records.end(),
                                  [&](const RecordArgument& argument) { return argument.parameter == parameter; });
  return found == kernel.records.end() ? nullptr : &*found;
}

const MatrixArgument* matrix_argument(const TunableKernel& kernel, const std::string& parameter) {
  const auto found = std::find_if(kernel.matrices.begin(), kernel.matrices.end(),
                                  [&](const MatrixArgument& argument) { return argument.parameter == parameter; });
  return found == kernel.matrices.end() ? nullptr : &*found;
}

std::span<const std::byte> bytes_of(const HostArray& array) { return {array.data(), array.size_bytes()}; }
std::span<std::byte> bytes_of(HostArray& array) { return {array.data(), array.size_bytes()}; }

}  // namespace

void check_host_layout(const TuningTarget& target, std::size_t buffer) {
  const HarnessBuffer& harness_buffer = target.harness.buffers[buffer];
  const std::string where = "tuning " + target.kernel.name + ": buffer '" + harness_buffer.name + "' ";
  const HostLayout& host = *harness_buffer.host_layout;
  if (const auto* record = std::get_if<HostRecord>(&host)) {
    const RecordArgument* argument = record_argument(target.kernel, harness_buffer.name);
    if (!argument) throw InvalidArgument(where + "holds records, but the kernel has no record argument of its name");
    if (harness_buffer.type != ScalarType::u8 && harness_buffer.type != ScalarType::i8) {
      throw InvalidArgument(where + "holds records: give its contents as bytes (uchar)");
    }
    for (const FieldFormat& field : argument->fields) record->field_for(field);  // throws naming both
  } else {
    const HostMatrix& matrix = std::get<HostMatrix>(host);
    const MatrixArgument* argument = matrix_argument(target.kernel, harness_buffer.name);
    if (!argument) throw InvalidArgument(where + "holds a matrix, but the kernel has no matrix argument of its name");
    if (matrix.element != argument->element || harness_buffer.type != matrix.element) {
      throw InvalidArgument(where + "holds " + std::string(to_string(matrix.element)) + " elements, the kernel's " +
                            std::string(to_string(argument->element)));
    }
  }
}

BufferArrangement::BufferArrangement(const TuningTarget& target, std::size_t buffer, std::size_t row_length,
                                     const Configuration& configuration)
    : row_length_(row_length) {
  const HarnessBuffer& harness_buffer = target.harness.buffers[buffer];
  if (harness_buffer.layout) {
    const std::size_t parameter = *target.kernel.parameter_index(harness_buffer.layout->parameter);
    const ElementOrder order = harness_buffer.layout->orders.at(configuration[parameter]);
    if (order.kind != ElementOrder::Kind::rows) {
      order_ = order;
      key_ = order.to_string();
    }
    return;
  }
  if (!harness_buffer.host_layout) return;
  host_ = *harness_buffer.host_layout;
  if (std::holds_alternative<HostRecord>(*host_)) {
    const RecordArgument& argument = *record_argument(target.kernel, harness_buffer.name);
    record_.emplace(argument.fields, record_layout(target.kernel, argument, configuration));
    key_ = "records " + record_->layout().to_string();
  } else {
    const MatrixArgument& argument = *matrix_argument(target.kernel, harness_buffer.name);
    matrix_.emplace(argument.element, matrix_layout(target.kernel, argument, configuration));
    key_ = "matrix " + matrix_->layout().to_string();
  }
}

std::optional<std::string> BufferArrangement::problem(const HostArray& contents) const {
  if (!order_) return std::nullopt;
  return order_fits(contents.size(), row_length_, *order_);
}

std::size_t BufferArrangement::device_bytes(const HostArray& contents) const {
  if (record_) return record_->bytes(contents.size_bytes() / std::get<HostRecord>(*host_).size);
  if (matrix_) {
    const HostMatrix& matrix = std::get<HostMatrix>(*host_);
    return matrix_->elements(matrix.rows, matrix.columns) * size_of(matrix.element);
  }
  return contents.size_bytes();
}

HostArray BufferArrangement::arrange(const HostArray& contents) const {
  if (order_) return autotune::arrange(contents, row_length_, *order_);
  if (record_) {
    const HostRecord& host = std::get<HostRecord>(*host_);
    HostArray device(ScalarType::u8, device_bytes(contents));
    pack_records(host, bytes_of(contents), contents.size_bytes() / host.size, *record_, bytes_of(device));
    return device;
  }
  if (matrix_) {
    const HostMatrix& host = std::get<HostMatrix>(*host_);
    HostArray device(host.element, device_bytes(contents) / size_of(host.element));
    pack_matrix(host, bytes_of(contents), *matrix_, bytes_of(device));
    return device;
  }
  return contents;
}

HostArray BufferArrangement::restore(const HostArray& device, const HostArray& contents) const {
  if (order_) return arrange_back(device, row_length_, *order_);
  if (!record_ && !matrix_) return device;
  HostArray host = contents;
  if (record_) {
    const HostRecord& record = std::get<HostRecord>(*host_);
    unpack_records(*record_, bytes_of(device), contents.size_bytes() / record.size, record, bytes_of(host));
  } else {
    unpack_matrix(*matrix_, bytes_of(device), std::get<HostMatrix>(*host_), bytes_of(host));
  }
  return host;
}

}  // namespace alloy::autotune::detail
