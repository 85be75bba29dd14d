// Capturing tunable kernel launches to files while a program runs.
#include "launch_capture.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "data/residency.hpp"

namespace alloy::detail {
namespace {

std::string environment(const char* variable) {
  const char* value = std::getenv(variable);
  return value ? value : "";
}

std::size_t limit_from_environment() {
  const std::string text = environment("ALLOY_CAPTURE_LIMIT");
  if (text.empty()) return default_capture_limit;
  const std::optional<std::size_t> limit = parse_byte_size(text);
  if (!limit) {
    throw InvalidArgument("ALLOY_CAPTURE_LIMIT=\"" + text +
                          "\" is not a size; use a positive byte count with an optional K, M or G suffix, e.g. 64M");
  }
  return *limit;
}

}  // namespace

struct LaunchCapture::Pending {
  Capture capture;
  std::filesystem::path path;
  /// Per captured buffer read in a layout view: where its fields (elements)
  /// lie there, and the bytes as read; the capture keeps the host's layout.
  struct ViewRead {
    std::optional<RecordPlacement> record;
    std::optional<MatrixPlacement> matrix;
    std::vector<std::byte> input;
    std::vector<std::byte> output;
  };
  std::vector<std::optional<ViewRead>> views;
  std::vector<const DeviceBuffer*> memories;  ///< per captured buffer, as the kernel got it
};

LaunchCapture::LaunchCapture(std::string pattern, std::filesystem::path directory, std::size_t limit)
    : pattern_(pattern.empty() ? environment("ALLOY_CAPTURE") : std::move(pattern)),
      directory_(directory.empty() ? std::filesystem::path(environment("ALLOY_CAPTURE_DIR")) : std::move(directory)),
      limit_(limit != 0 ? limit : pattern_.empty() ? default_capture_limit : limit_from_environment()) {
  if (directory_.empty()) directory_ = ".";
}

std::shared_ptr<LaunchCapture::Pending> LaunchCapture::begin(const Task& task, const TunedKernelCall& call,
                                                             const ResolvedKernel::Tuned& resolved,
                                                             const Device& device,
                                                             const std::vector<DeviceBuffer*>& memories,
                                                             const std::vector<LayoutViews::Use>& views,
                                                             Queue& queue) {
  const TunableKernel& kernel = *call.tunable;
  if (pattern_.empty() ||
      !(capture_pattern_matches(pattern_, kernel.name) || capture_pattern_matches(pattern_, kernel.kernel_name))) {
    return nullptr;
  }
  const std::string file = capture_file_name(kernel.name, call.problem);
  // The file holds one launch: the first this executor runs.
  if (!captured_.insert(file).second) return nullptr;

  auto pending = std::make_shared<Pending>();
  Capture& capture = pending->capture;
  capture.kernel = kernel;
  capture.problem = call.problem;
  capture.configuration = resolved.choice.configuration;
  capture.device = device.info().name;
  capture.range = resolved.range;
  const std::optional<KernelSignature> signature = find_kernel_signature(kernel.source.source, kernel.kernel_name);
  const KernelWork& work = *task.kernel();
  std::size_t bytes = 0;
  for (std::size_t a = 0; a < work.args.size(); ++a) {
    const auto* access_index = std::get_if<std::size_t>(&work.args[a]);
    if (!access_index) {
      capture.arguments.emplace_back(std::get<KernelArg>(work.args[a]));
      continue;
    }
    const Access& access = task.accesses[*access_index];
    const BufferStorage& storage = *access.slice.storage;
    CapturedBuffer buffer;
    buffer.parameter = signature && a < signature->parameters.size() ? signature->parameters[a].name : "";
    // A layout argument's host layout is the one its binding took (an
    // undescribed matrix is packed row-major); others keep their own.
    const auto layout_binding = std::find_if(call.layouts.begin(), call.layouts.end(),
                                             [&](const LayoutBinding& b) { return b.access == *access_index; });
    if (layout_binding != call.layouts.end()) {
      buffer.host = *layout_binding->host;
    } else if (const HostLayout* host = storage.host_layout()) {
      buffer.host = *host;
    }
    buffer.read = reads(access.mode);
    buffer.written = writes(access.mode);
    buffer.input.resize(storage.size());
    if (buffer.written) buffer.output.resize(storage.size());
    bytes += buffer.input.size() + buffer.output.size();

    std::optional<Pending::ViewRead> view_read;
    for (const LayoutViews::Use& use : views) {
      if (use.access != *access_index || !use.view) continue;
      const LayoutBinding& binding = *layout_binding;
      view_read.emplace();
      if (binding.matrix) {
        const MatrixArgument& declared = kernel.matrices[binding.declaration];
        view_read->matrix.emplace(declared.element, matrix_layout(kernel, declared, resolved.choice.configuration));
      } else {
        const RecordArgument& declared = kernel.records[binding.declaration];
        view_read->record.emplace(declared.fields, record_layout(kernel, declared, resolved.choice.configuration));
      }
      view_read->input.resize(use.transform->view_bytes);
      if (buffer.written) view_read->output.resize(use.transform->view_bytes);
    }
    capture.arguments.emplace_back(capture.buffers.size());
    capture.buffers.push_back(std::move(buffer));
    pending->views.push_back(std::move(view_read));
    pending->memories.push_back(memories[*access_index]);
  }
  if (bytes > limit_) {
    log_warning("not capturing the launch of '" + kernel.name + "' (problem " + call.problem.to_string() +
                "): its buffers take " + describe_bytes(bytes) + ", more than ALLOY_CAPTURE_LIMIT's " +
                describe_bytes(limit_) + "; raise the limit to capture it");
    return nullptr;
  }
  pending->path = directory_ / file;
  for (std::size_t b = 0; b < capture.buffers.size(); ++b) {
    std::vector<std::byte>& into = pending->views[b] ? pending->views[b]->input : capture.buffers[b].input;
    queue.read(*pending->memories[b], 0, into.data(), into.size());
  }
  return pending;
}

std::shared_ptr<Event> LaunchCapture::end(Pending& pending, Queue& queue) {
  std::shared_ptr<Event> last;
  for (std::size_t b = 0; b < pending.capture.buffers.size(); ++b) {
    CapturedBuffer& buffer = pending.capture.buffers[b];
    if (!buffer.written) continue;
    std::vector<std::byte>& into = pending.views[b] ? pending.views[b]->output : buffer.output;
    last = queue.read(*pending.memories[b], 0, into.data(), into.size());
  }
  return last;
}

void LaunchCapture::write(Pending& pending) {
  Capture& capture = pending.capture;
  try {
    for (std::size_t b = 0; b < capture.buffers.size(); ++b) {
      if (!pending.views[b]) continue;
      const Pending::ViewRead& view = *pending.views[b];
      CapturedBuffer& buffer = capture.buffers[b];
      auto back = [&](const std::vector<std::byte>& device, std::vector<std::byte>& host) {
        if (view.record) {
          const auto& record = std::get<HostRecord>(*buffer.host);
          unpack_records(*view.record, device, host.size() / record.size, record, host);
        } else {
          unpack_matrix(*view.matrix, device, std::get<HostMatrix>(*buffer.host), host);
        }
      };
      back(view.input, buffer.input);
      // Host bytes the layout leaves out are the same before and after.
      if (buffer.written) {
        buffer.output = buffer.input;
        back(view.output, buffer.output);
      }
    }
    write_capture(pending.path, capture);
    log_note("captured the launch of '" + capture.kernel.name + "' (problem " + capture.problem.to_string() +
             ") on " + capture.device + " to " + pending.path.string() + "; tune it with `autotune --capture " +
             pending.path.string() + "`");
  } catch (const std::exception& error) {
    log_warning(std::string("capturing the launch of '") + capture.kernel.name + "' failed: " + error.what());
  }
}

}  // namespace alloy::detail
