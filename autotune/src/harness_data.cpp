// A harness's buffers on one device, laid out per configuration.
#include "harness_data.hpp"

#include <algorithm>
#include <limits>

#include "alloy/autotune/input_generation.hpp"
#include "alloy/error.hpp"

namespace alloy::autotune::detail {
namespace {

// A problem size as the kernel declares the parameter.
KernelArg dimension_argument(std::size_t size, ScalarType type, const std::string& kernel) {
  const bool fits = type == ScalarType::i32 ? size <= std::size_t(std::numeric_limits<std::int32_t>::max())
                    : type == ScalarType::u32 ? size <= std::size_t(std::numeric_limits<std::uint32_t>::max())
                                              : true;
  if (!fits) {
    throw InvalidArgument("tuning " + kernel + ": a problem size of " + std::to_string(size) +
                          " does not fit the kernel's " + std::string(to_string(type)) +
                          " argument; declare it long or ulong and give the harness argument that type");
  }
  switch (type) {
    case ScalarType::u32: return KernelArg::from(static_cast<std::uint32_t>(size));
    case ScalarType::i64: return KernelArg::from(static_cast<std::int64_t>(size));
    case ScalarType::u64: return KernelArg::from(static_cast<std::uint64_t>(size));
    default: return KernelArg::from(static_cast<int>(size));
  }
}

// A layout names a parameter of the kernel and gives every value of it an order.
void check_layout(const TunableKernel& kernel, const HarnessBuffer& buffer) {
  const BufferLayout& layout = *buffer.layout;
  const std::string where = "tuning " + kernel.name + ": buffer '" + buffer.name + "' has a layout ";
  const std::optional<std::size_t> index = kernel.parameter_index(layout.parameter);
  if (!index) throw InvalidArgument(where + "chosen by '" + layout.parameter + "', which is no parameter of the kernel");
  if (!layout.row_length.parameters.empty()) {
    throw InvalidArgument(where + "whose row length names parameters; it may follow the problem only");
  }
  for (const std::int64_t value : kernel.parameters[*index].values) {
    if (layout.orders.count(value) == 0) {
      throw InvalidArgument(where + "with no order for " + layout.parameter + "=" + std::to_string(value) +
                            "; give one (rows, columns or blocks:K) for every value");
    }
  }
}

}  // namespace

HarnessData::HarnessData(Device& device, const TuningTarget& target, const Extent& problem)
    : target_(target), problem_(problem) {
  const Harness& harness = target.harness;
  const TunableKernel& kernel = target.kernel;
  // Sizes that do not fit their arguments are refused before any buffer is made.
  auto check_dimensions = [&](const std::vector<HarnessArgument>& arguments) {
    for (const HarnessArgument& argument : arguments) {
      if (argument.kind == HarnessArgument::Kind::problem_dimension) {
        dimension_argument(problem[unsigned(argument.index) % 3], argument.type, kernel.name);
      }
    }
  };
  check_dimensions(harness.arguments);
  for (const HarnessPass& pass : harness.passes) check_dimensions(pass.arguments);
  for (std::size_t i = 0; i < harness.buffers.size(); ++i) {
    const HarnessBuffer& buffer = harness.buffers[i];
    const std::int64_t count = buffer_elements(kernel, buffer, problem);
    if (count <= 0) {
      throw InvalidArgument("tuning " + kernel.name + ": buffer '" + buffer.name + "' has no elements for problem " +
                            problem.to_string());
    }
    std::size_t row_length = 1;
    if (buffer.layout) {
      check_layout(kernel, buffer);
      row_length = std::size_t(std::max<std::int64_t>(
          0, evaluate(kernel, buffer.layout->row_length, kernel.default_configuration(), problem)));
    }
    if (buffer.host_layout) check_host_layout(target, i);
    row_lengths_.push_back(row_length);
    contents_.push_back(initial_contents(buffer, std::size_t(count), 0x5eed + i));
    placed_.push_back({});
    buffers_.push_back(device.allocate(largest_arrangement(i)));
  }
  arguments_.push_back(make_arguments(harness.arguments));
  for (const HarnessPass& pass : harness.passes) arguments_.push_back(make_arguments(pass.arguments));
}

std::vector<KernelArg> HarnessData::make_arguments(const std::vector<HarnessArgument>& arguments) const {
  std::vector<KernelArg> args;
  for (const HarnessArgument& argument : arguments) {
    switch (argument.kind) {
      case HarnessArgument::Kind::buffer:
        if (argument.index >= buffers_.size()) {
          throw InvalidArgument("tuning " + target_.kernel.name + ": an argument names buffer " +
                                std::to_string(argument.index) + " of " + std::to_string(buffers_.size()));
        }
        args.push_back(KernelArg::from(*buffers_[argument.index]));
        break;
      case HarnessArgument::Kind::problem_dimension:
        args.push_back(dimension_argument(problem_[unsigned(argument.index) % 3], argument.type, target_.kernel.name));
        break;
      case HarnessArgument::Kind::int_constant:
        args.push_back(KernelArg::from(static_cast<int>(argument.constant)));
        break;
      case HarnessArgument::Kind::float_constant:
        args.push_back(KernelArg::from(static_cast<float>(argument.constant)));
        break;
      case HarnessArgument::Kind::scalar:
        args.push_back(argument.value);
        break;
    }
  }
  return args;
}

BufferArrangement HarnessData::arrangement_for(std::size_t buffer, const Configuration& configuration) const {
  return BufferArrangement(target_, buffer, row_lengths_[buffer], configuration);
}

// A layout parameter's values may need more device bytes than the contents
// (padded rows, an AoSoA's last block): the buffer is made for the largest.
std::size_t HarnessData::largest_arrangement(std::size_t buffer) const {
  const HarnessBuffer& harness_buffer = target_.harness.buffers[buffer];
  std::size_t bytes = contents_[buffer].size_bytes();
  if (!harness_buffer.host_layout) return bytes;
  std::vector<std::size_t> chosen_by;
  for (const RecordArgument& argument : target_.kernel.records) {
    if (argument.parameter == harness_buffer.name && !argument.layout.empty()) {
      chosen_by.push_back(*target_.kernel.parameter_index(argument.layout));
    }
  }
  for (const MatrixArgument& argument : target_.kernel.matrices) {
    if (argument.parameter == harness_buffer.name && !argument.layout.empty()) {
      chosen_by.push_back(*target_.kernel.parameter_index(argument.layout));
    }
  }
  Configuration configuration = target_.kernel.default_configuration();
  bytes = std::max(bytes, arrangement_for(buffer, configuration).device_bytes(contents_[buffer]));
  for (const std::size_t parameter : chosen_by) {
    for (const std::int64_t value : target_.kernel.parameters[parameter].values) {
      configuration[parameter] = value;
      bytes = std::max(bytes, arrangement_for(buffer, configuration).device_bytes(contents_[buffer]));
    }
  }
  return bytes;
}

std::optional<std::string> HarnessData::layout_problem(const Configuration& configuration) const {
  for (std::size_t i = 0; i < contents_.size(); ++i) {
    const BufferArrangement arrangement = arrangement_for(i, configuration);
    if (auto why = arrangement.problem(contents_[i])) {
      return "buffer '" + target_.harness.buffers[i].name + "' in order " + arrangement.key() + ": " + *why;
    }
  }
  return std::nullopt;
}

const HostArray& HarnessData::device_contents(std::size_t buffer) const {
  const Placed& placed = placed_[buffer];
  return placed.arrangement.key().empty() ? contents_[buffer] : placed.contents;
}

void HarnessData::place(std::size_t buffer, BufferArrangement arrangement) {
  Placed& placed = placed_[buffer];
  placed.contents = arrangement.key().empty() ? HostArray{} : arrangement.arrange(contents_[buffer]);
  placed.arrangement = std::move(arrangement);
}

void HarnessData::write_all(Queue& queue, const Configuration& configuration) {
  place_all(queue, configuration);
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const HostArray& contents = device_contents(i);
    queue.write(*buffers_[i], 0, contents.data(), contents.size_bytes());
  }
}

void HarnessData::lay_out(Queue& queue, const Configuration& configuration) {
  const std::vector<bool> moved = place_all(queue, configuration);
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (!moved[i]) continue;
    const HostArray& contents = device_contents(i);
    queue.write(*buffers_[i], 0, contents.data(), contents.size_bytes());
  }
}

std::vector<bool> HarnessData::place_all(Queue& queue, const Configuration& configuration) {
  std::vector<BufferArrangement> arrangements;
  std::vector<bool> moved;
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    arrangements.push_back(arrangement_for(i, configuration));
    moved.push_back(arrangements.back().key() != placed_[i].arrangement.key());
  }
  // Writes still queued read the contents about to be replaced.
  if (std::find(moved.begin(), moved.end(), true) != moved.end()) queue.finish();
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (moved[i]) place(i, std::move(arrangements[i]));
  }
  return moved;
}

void HarnessData::write_resets(Queue& queue) {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (!target_.harness.buffers[i].reset_each_run) continue;
    const HostArray& contents = device_contents(i);
    queue.write(*buffers_[i], 0, contents.data(), contents.size_bytes());
  }
}

std::vector<HostArray> HarnessData::read_outputs(Queue& queue) {
  std::vector<std::size_t> indices;
  std::vector<HostArray> outputs;
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (!target_.harness.buffers[i].output) continue;
    indices.push_back(i);
    const HostArray& device = device_contents(i);
    outputs.emplace_back(device.type(), device.size());
    queue.read(*buffers_[i], 0, outputs.back().data(), outputs.back().size_bytes());
  }
  queue.finish();
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    outputs[o] = placed_[indices[o]].arrangement.restore(outputs[o], contents_[indices[o]]);
  }
  return outputs;
}

}  // namespace alloy::autotune::detail
