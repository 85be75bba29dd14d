// Modules, functions and launches of emulated devices.
#include "emulated_launch.hpp"

#include <cmath>
#include <cstring>
#include <deque>
#include <optional>
#include <set>

#include "alloy/emulated_kernels.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/log.hpp"
#include "emulated_driver.hpp"
#include "launch_geometry.hpp"
#include "opencl_compute.hpp"

namespace alloy::emulation {
namespace {

constexpr std::string_view options_line = "// alloy emulated build options: ";
/// How a composed source whose kernels take a slice's first group begins.
constexpr std::string_view takes_first_group = "#define ALLOY_TAKES_FIRST_GROUP 1\n";

/// `source` without the slice's parameter macros, so that the declaration
/// parser reads the declared parameters alone.
std::string without_slice_parameters(std::string source) {
  for (const std::string_view marker : {"ALLOY_FIRST_GROUP_PARAMETERS_ONLY", " ALLOY_FIRST_GROUP_PARAMETERS"}) {
    for (std::size_t at = source.find(marker); at != std::string::npos; at = source.find(marker, at)) {
      source.erase(at, marker.size());
    }
  }
  return source;
}

struct Module;

struct Function {
  std::string name;
  const Module* module;
  std::vector<std::size_t> argument_bytes;  ///< per parameter, what a launch copies
  std::vector<bool> is_pointer;
};

struct Module {
  std::string source;
  std::string options;
  /// Null where no OpenCL device computes (launches then need a host model).
  std::shared_ptr<const ComputeProgram> program;
  std::deque<Function> functions;
};

/// Says once per kernel name, for a reason each.
void say_once(const std::string& key, const std::string& message, bool warning) {
  static std::mutex mutex;
  static std::set<std::string> said;
  {
    std::lock_guard lock(mutex);
    if (!said.insert(key).second) return;
  }
  if (warning) {
    log_warning(message);
  } else {
    log_note(message);
  }
}

/// The block and grid a CUDA or HIP driver would accept (docs/emulated.md).
bool launchable(const unsigned* grid, const unsigned* block, const MachineModel& m) {
  constexpr std::array<std::uint64_t, 3> block_limits{1024, 1024, 64};
  constexpr std::array<std::uint64_t, 3> grid_limits{2147483647, 65535, 65535};
  std::uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || block[d] == 0 || block[d] > block_limits[d] || grid[d] > grid_limits[d]) return false;
    // HIP counts work-items per dimension in 32 bits.
    if (m.flavor == Flavor::hip && std::uint64_t{grid[d]} * block[d] >= (std::uint64_t{1} << 32)) return false;
    threads *= block[d];
  }
  return threads <= 1024;
}

/// Without a registered model: the launch's work-items at the model's time
/// per item, or its arguments' bytes at device-memory speed, the longer,
/// over the share of warp lanes its blocks use: a GPU schedules whole
/// warps, so a block of 1 work-item costs a warp of 32 (CUDA) or 64 (HIP).
double default_seconds(const Function& kernel, const KernelLaunch& launch, std::size_t bytes_spanned,
                       const MachineModel& m) {
  say_once("price:" + kernel.name,
           "emulated devices price kernel '" + kernel.name + "' (no model registered) from its work-items and " +
               "the bytes its buffer arguments span; alloy::emulation::define_kernel gives it a model of its own",
           false);
  return std::max(m.seconds_per_item * static_cast<double>(launch.work_items()),
                  static_cast<double>(bytes_spanned) / m.memory_bytes_per_second) /
         stream::lane_use(launch.local[0] * launch.local[1] * launch.local[2], std::max(1u, m.warp_width));
}

}  // namespace

stream::CompileResult compile(const std::string& source, const std::string& /*name*/, const std::string& options,
                              const std::string& architecture) {
  stream::CompileResult result;
  result.target = architecture;
  OpenclCompute& compute = OpenclCompute::get();
  // Where nothing can compile it, the source goes through unchecked, and
  // launches of it need a host model (a warning says so at load). The
  // kernel's name is checked when the module is asked for it.
  if (compute.unavailable_reason().empty() && !compute.build(source, options, result.log)) return result;
  const std::string image = std::string(options_line) + options + "\n" + source;
  const auto* text = reinterpret_cast<const std::byte*>(image.c_str());
  result.binary.assign(text, text + image.size() + 1);
  result.ok = true;
  return result;
}

stream::Status load_module(stream::Handle* module, const void* image) {
  std::string text = static_cast<const char*>(image);
  auto loaded = std::make_unique<Module>();
  if (text.starts_with(options_line)) {
    const std::size_t end = text.find('\n');
    loaded->options = text.substr(options_line.size(), end - options_line.size());
    text.erase(0, end == std::string::npos ? text.size() : end + 1);
  }
  loaded->source = std::move(text);
  OpenclCompute& compute = OpenclCompute::get();
  if (compute.unavailable_reason().empty()) {
    std::string log;
    loaded->program = compute.build(loaded->source, loaded->options, log);
    if (!loaded->program) {
      log_warning("emulated module load: the compute device (" + compute.device_name() +
                  ") could not build it: " + log);
      return emulated_invalid_image;
    }
  } else {
    say_once("no compute", "emulated devices compute no kernel without a host model: " +
                               compute.unavailable_reason(), true);
  }
  *module = loaded.release();
  return emulated_success;
}

stream::Status unload_module(stream::Handle module) {
  delete static_cast<Module*>(module);
  return emulated_success;
}

stream::Status get_function(stream::Handle* function, stream::Handle module, const char* name) {
  auto& loaded = *static_cast<Module*>(module);
  // The same handle for the same name, as a module's functions are.
  for (Function& known : loaded.functions) {
    if (known.name == name) {
      *function = &known;
      return emulated_success;
    }
  }
  Function made{name, &loaded, {}, {}};
  // The compiler's layout first, as a driver's loaded module knows it, also
  // for parameters declared in a way the parser cannot read (through a
  // macro, say); the declaration where nothing computes (data=0).
  if (const auto parameters = loaded.program ? OpenclCompute::get().parameters(*loaded.program, name)
                                             : std::nullopt) {
    for (const ComputeArgument& parameter : *parameters) {
      made.argument_bytes.push_back(parameter.value_bytes);
      made.is_pointer.push_back(parameter.is_buffer);
    }
  } else if (const std::optional<KernelSignature> signature =
                 find_kernel_signature(without_slice_parameters(loaded.source), name)) {
    for (const KernelParameter& parameter : signature->parameters) {
      const bool scalar = parameter.kind == KernelParameter::Kind::scalar;
      made.argument_bytes.push_back(scalar && parameter.scalar_type ? size_of(*parameter.scalar_type) : 8);
      made.is_pointer.push_back(!scalar);
    }
    if (loaded.source.starts_with(takes_first_group)) {
      // The slice's first group, as the prelude declares it for CUDA.
      made.argument_bytes.insert(made.argument_bytes.end(), 3, sizeof(unsigned int));
      made.is_pointer.insert(made.is_pointer.end(), 3, false);
    }
  } else {
    return emulated_not_found;
  }
  *function = &loaded.functions.emplace_back(std::move(made));
  return emulated_success;
}

stream::Status function_attribute(int* value, stream::FunctionAttribute which, stream::Handle function) {
  const auto& kernel = *static_cast<const Function*>(function);
  *value = 0;
  if (which == stream::FunctionAttribute::max_threads_per_block) {
    constexpr std::size_t block_limit = 1024;
    *value = static_cast<int>(kernel.module->program ? OpenclCompute::get().max_work_group_size(
                                                           *kernel.module->program, kernel.name, block_limit)
                                                     : block_limit);
  }
  return emulated_success;
}

stream::Status parameter_sizes(std::vector<std::size_t>* sizes, stream::Handle function) {
  *sizes = static_cast<const Function*>(function)->argument_bytes;
  return emulated_success;
}

stream::Status launch(stream::Handle function, const unsigned* grid, const unsigned* block, stream::Handle stream,
                      void** params) {
  const auto& kernel = *static_cast<const Function*>(function);
  const auto held = model();
  const MachineModel& m = *held;
  if (!launchable(grid, block, m)) return emulated_invalid_value;
  KernelLaunch launch;
  ComputeLaunch computed;
  for (int d = 0; d < 3; ++d) {
    launch.local[d] = computed.local[d] = block[d];
    launch.global[d] = computed.global[d] = std::size_t{grid[d]} * block[d];
  }
  // The parameters' storage is the caller's: copied now, as drivers do.
  std::size_t bytes_spanned = 0;
  for (std::size_t i = 0; i < kernel.argument_bytes.size(); ++i) {
    ComputeArgument& argument = computed.arguments.emplace_back();
    argument.value_bytes = std::min<std::size_t>(kernel.argument_bytes[i], argument.value.size());
    std::memcpy(argument.value.data(), params[i], argument.value_bytes);
    launch.arguments.push_back(argument.value);
    if (!kernel.is_pointer[i]) continue;
    DevicePointer address = 0;
    std::memcpy(&address, params[i], sizeof address);
    argument.is_buffer = true;
    argument.span = bytes_to_allocation_end(address);
    if (address != 0 && argument.span == 0) return emulated_invalid_value;  // not device memory
    argument.data = host_address(address);
    bytes_spanned += argument.span;
  }
  launch.moves_data = m.moves_data;
  const std::optional<KernelModel> kernel_model = find_kernel(kernel.name);
  const bool host_model_runs = kernel_model && kernel_model->run;
  const bool computes = m.moves_data && !host_model_runs;
  OpenclCompute& compute = OpenclCompute::get();
  if (computes && !kernel.module->program) {
    say_once("uncomputed:" + kernel.name, "emulated launch of '" + kernel.name + "': no host model and " +
                                              compute.unavailable_reason(),
             true);
    return emulated_launch_failed;
  }
  if (const auto& program = kernel.module->program) {
    // As a driver checks a launch against the kernel, whether or not it is
    // computed: more threads per block than the kernel allows is CUDA's
    // out-of-resources error, arguments that do not fit it invalid.
    const std::size_t block_threads = std::size_t{block[0]} * block[1] * block[2];
    const std::size_t kernel_limit = compute.max_work_group_size(*program, kernel.name, block_threads);
    if (block_threads > kernel_limit) {
      log_note("emulated launch of '" + kernel.name + "' refused: blocks of " + std::to_string(block_threads) +
               " threads, and the kernel allows " + std::to_string(kernel_limit));
      return emulated_launch_out_of_resources;
    }
    if (const std::string problem = compute.check(*program, kernel.name, computed); !problem.empty()) {
      log_note("emulated launch of '" + kernel.name + "' refused: " + problem);
      return emulated_invalid_value;
    }
  }
  const double modelled = kernel_model && kernel_model->seconds ? kernel_model->seconds(launch)
                                                                : default_seconds(kernel, launch, bytes_spanned, m);
  if (!std::isfinite(modelled) || modelled < 0) {
    log_warning("emulated launch of '" + kernel.name + "': its model gives " + std::to_string(modelled) +
                " seconds; a kernel model's time must be finite and not negative");
    return emulated_launch_failed;
  }
  const double seconds = m.launch_latency_seconds + modelled + jitter(m);
  Stream& s = stream_of(stream);
  DeviceState& state = device_state(s.device());
  const int device = s.device();
  const int priority = s.priority();
  // What the command needs is its own: the module may be unloaded first.
  s.submit([&state, name = kernel.name, program = kernel.module->program, device, priority, seconds,
            launch = std::move(launch), computed = std::move(computed), kernel_model, computes] {
    state.compute.occupy(seconds, [&] {
      if (computes) {
        const std::string failure = OpenclCompute::get().run(*program, name, device, computed);
        if (!failure.empty()) {
          log_warning("emulated kernel '" + name + "' failed on emulated device " + std::to_string(device) + ": " +
                      failure);
          std::lock_guard lock(driver().mutex);
          state.sticky_error = emulated_launch_failed;
        }
      } else if (launch.moves_data && kernel_model && kernel_model->run) {
        kernel_model->run(launch);
      }
    }, priority);
  });
  return emulated_success;
}

}  // namespace alloy::emulation
