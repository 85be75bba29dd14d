// A tuning target made from a captured launch.
#include "alloy/autotune/capture_target.hpp"

#include <cstring>
#include <memory>

namespace alloy::autotune {
namespace {

HostArray as_array(const std::vector<std::byte>& bytes, ScalarType type) {
  HostArray array(type, bytes.size() / size_of(type));
  std::memcpy(array.data(), bytes.data(), array.size_bytes());
  return array;
}

// The element type a buffer's contents are compared in.
ScalarType element_type(const CapturedBuffer& buffer, const KernelSignature* signature) {
  if (buffer.host) {
    if (const auto* matrix = std::get_if<HostMatrix>(&*buffer.host)) return matrix->element;
    return ScalarType::u8;
  }
  std::optional<ScalarType> type;
  if (signature) {
    for (const KernelParameter& parameter : signature->parameters) {
      if (parameter.name == buffer.parameter) type = pointee_scalar_type(parameter.declared_type);
    }
  }
  if (!type || buffer.input.size() % size_of(*type) != 0) return ScalarType::u8;
  return *type;
}

bool is_layout_argument(const TunableKernel& kernel, const std::string& parameter) {
  for (const RecordArgument& argument : kernel.records) {
    if (argument.parameter == parameter) return true;
  }
  for (const MatrixArgument& argument : kernel.matrices) {
    if (argument.parameter == parameter) return true;
  }
  return false;
}

}  // namespace

TuningTarget capture_target(const Capture& capture, const OutputCheck& check) {
  TuningTarget target;
  target.kernel = capture.kernel;
  target.default_problems = {capture.problem};
  target.description = "captured on " + capture.device + " at " + capture.problem.to_string();
  const std::optional<KernelSignature> signature =
      find_kernel_signature(capture.kernel.source.source, capture.kernel.kernel_name);
  auto outputs = std::make_shared<std::vector<HostArray>>();
  for (const CapturedBuffer& captured : capture.buffers) {
    const ScalarType type = element_type(captured, signature ? &*signature : nullptr);
    HarnessBuffer buffer = HarnessBuffer::input(captured.parameter, {}, HarnessBuffer::Fill::given, type);
    buffer.given = std::make_shared<const HostArray>(as_array(captured.input, type));
    buffer.elements.factor = std::int64_t(buffer.given->size());
    if (captured.host && is_layout_argument(capture.kernel, captured.parameter)) buffer.host_layout = captured.host;
    if (captured.written) {
      buffer.output = true;
      buffer.overwritten = !captured.read;
      buffer.reset_each_run = true;  // a kernel may update it in place
      buffer.check = check;
      outputs->push_back(as_array(captured.output, type));
    }
    target.harness.buffers.push_back(std::move(buffer));
  }
  for (const CapturedArgument& argument : capture.arguments) {
    if (const auto* buffer = std::get_if<std::size_t>(&argument)) {
      target.harness.arguments.push_back(HarnessArgument::buffer(*buffer));
    } else {
      target.harness.arguments.push_back(HarnessArgument::scalar(std::get<KernelArg>(argument)));
    }
  }
  // The launch's own outputs are the reference.
  target.harness.reference = [outputs](const Extent&, const std::vector<HostArray>&,
                                       std::vector<HostArray>& expected) { expected = *outputs; };
  return target;
}

}  // namespace alloy::autotune
