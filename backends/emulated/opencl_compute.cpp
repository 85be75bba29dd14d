// Computing emulated launches on an OpenCL CPU device.
#include "opencl_compute.hpp"

#include <cstring>

#include "alloy/kernel_args.hpp"
#include "opencl_api.hpp"

namespace alloy::emulation {
namespace {

std::string failed(const char* call, cl_int code) {
  return std::string(call) + " failed with OpenCL error " + std::to_string(code);
}

/// What one parameter of a kernel takes: a buffer, or a scalar of `bytes`;
/// an error otherwise.
struct Parameter {
  bool is_buffer = false;
  std::size_t bytes = 0;
  std::string error;
};

Parameter parameter_of(const cl::Kernel& kernel, cl_uint index) {
  Parameter parameter;
  cl_int error = CL_SUCCESS;
  const auto qualifier = kernel.getArgInfo<CL_KERNEL_ARG_ADDRESS_QUALIFIER>(index, &error);
  const std::string type = kernel.getArgInfo<CL_KERNEL_ARG_TYPE_NAME>(index, &error);
  if (error != CL_SUCCESS) {
    parameter.error = failed("clGetKernelArgInfo", error);
  } else if (qualifier == CL_KERNEL_ARG_ADDRESS_GLOBAL || qualifier == CL_KERNEL_ARG_ADDRESS_CONSTANT) {
    parameter.is_buffer = true;
  } else if (qualifier == CL_KERNEL_ARG_ADDRESS_LOCAL) {
    parameter.error = "a LOCAL pointer parameter, which CUDA and HIP kernels cannot take";
  } else if (const auto scalar = scalar_type_from_string(type.c_str())) {
    parameter.bytes = size_of(*scalar);
  } else {
    parameter.error = "a parameter of type '" + std::string(type.c_str()) + "', which is not a scalar alloy passes";
  }
  return parameter;
}

/// What launches of one kernel are checked against, read from the compiler
/// once: its parameters and work-group limits.
struct KernelShape {
  std::string error;  ///< the program has no such kernel
  std::vector<Parameter> parameters;
  std::array<std::size_t, 3> required_work_group{0, 0, 0};  ///< reqd_work_group_size, or zeros
  std::size_t max_work_group = 0;
  /// The last three parameters are the first group of a slice, which the
  /// prelude declares for launches made as CUDA makes them (docs/kernels.md).
  bool takes_first_group = false;
};

bool named_first_group(const cl::Kernel& kernel, cl_uint count) {
  if (count < 3) return false;
  cl_int error = CL_SUCCESS;
  const std::string names[3] = {"alloy_first_group_x", "alloy_first_group_y", "alloy_first_group_z"};
  for (cl_uint i = 0; i < 3; ++i) {
    if (kernel.getArgInfo<CL_KERNEL_ARG_NAME>(count - 3 + i, &error).c_str() != names[i]) return false;
  }
  return error == CL_SUCCESS;
}

KernelShape shape_of(const cl::Program& program, const cl::Device& device, const std::string& name) {
  KernelShape shape;
  cl_int error = CL_SUCCESS;
  const cl::Kernel kernel(program, name.c_str(), &error);
  if (error != CL_SUCCESS) {
    shape.error = failed("clCreateKernel", error);
    return shape;
  }
  const cl_uint count = kernel.getInfo<CL_KERNEL_NUM_ARGS>();
  for (cl_uint i = 0; i < count; ++i) shape.parameters.push_back(parameter_of(kernel, i));
  shape.takes_first_group = named_first_group(kernel, count);
  const auto required = kernel.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE>(device, &error);
  if (error == CL_SUCCESS) shape.required_work_group = {required[0], required[1], required[2]};
  shape.max_work_group = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device, &error);
  return shape;
}

}  // namespace

class ComputeProgram {
 public:
  explicit ComputeProgram(cl::Program built) : program(std::move(built)) {}

  /// `name`'s shape, read on first use (launches ask for it each time).
  const KernelShape& shape(const cl::Device& device, const std::string& name) const {
    std::lock_guard lock(mutex_);
    auto found = shapes_.find(name);
    if (found == shapes_.end()) found = shapes_.emplace(name, shape_of(program, device, name)).first;
    return found->second;
  }

  cl::Program program;

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::string, KernelShape> shapes_;  // nodes stay put: references stay valid
};

struct OpenclCompute::State {
  cl::Device device;
  cl::Context context;
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const ComputeProgram>> programs;  ///< by options and source
  std::map<int, cl::CommandQueue> queues;                                 ///< per emulated device
};

OpenclCompute& OpenclCompute::get() {
  static OpenclCompute* const instance = new OpenclCompute;  // never destroyed: streams may outlive statics
  return *instance;
}

OpenclCompute::OpenclCompute() {
  std::vector<cl::Platform> platforms;
  if (cl::Platform::get(&platforms) != CL_SUCCESS || platforms.empty()) {
    unavailable_reason_ = "OpenCL lists no platform; install an OpenCL CPU driver (apt-get install pocl-opencl-icd)";
    return;
  }
  std::vector<cl::Device> chosen;
  for (const cl_device_type type : {cl_device_type{CL_DEVICE_TYPE_CPU}, cl_device_type{CL_DEVICE_TYPE_ALL}}) {
    for (const cl::Platform& platform : platforms) {
      std::vector<cl::Device> devices;
      if (platform.getDevices(type, &devices) == CL_SUCCESS && !devices.empty()) {
        chosen.push_back(devices.front());
        break;
      }
    }
    if (!chosen.empty()) break;
  }
  if (chosen.empty()) {
    unavailable_reason_ = "OpenCL lists no device; install an OpenCL CPU driver (apt-get install pocl-opencl-icd)";
    return;
  }
  auto state = std::make_shared<State>();
  state->device = chosen.front();
  cl_int error = CL_SUCCESS;
  state->context = cl::Context(state->device, nullptr, nullptr, nullptr, &error);
  if (error != CL_SUCCESS) {
    unavailable_reason_ = failed("clCreateContext", error);
    return;
  }
  device_name_ = state->device.getInfo<CL_DEVICE_NAME>().c_str();
  state_ = std::move(state);
}

std::shared_ptr<const ComputeProgram> OpenclCompute::build(const std::string& source, const std::string& options,
                                                           std::string& log) {
  if (!state_) {
    log = unavailable_reason_;
    return nullptr;
  }
  const std::string key = options + '\n' + source;
  {
    std::lock_guard lock(state_->mutex);
    if (const auto found = state_->programs.find(key); found != state_->programs.end()) return found->second;
  }
  cl_int error = CL_SUCCESS;
  cl::Program program(state_->context, source, false, &error);
  if (error != CL_SUCCESS) {
    log = failed("clCreateProgramWithSource", error);
    return nullptr;
  }
  // Argument info tells each parameter's address space, type and name at
  // launch. The prelude's slice parameters are declared as CUDA takes them.
  error = program.build(std::vector<cl::Device>{state_->device},
                        (options + " -cl-kernel-arg-info -DALLOY_FIRST_GROUP_AS_ARGUMENTS").c_str());
  if (error != CL_SUCCESS) {
    log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(state_->device).c_str();
    if (log.empty()) log = failed("clBuildProgram", error);
    return nullptr;
  }
  auto built = std::make_shared<const ComputeProgram>(std::move(program));
  std::lock_guard lock(state_->mutex);
  return state_->programs.emplace(key, std::move(built)).first->second;
}

std::optional<std::vector<ComputeArgument>> OpenclCompute::parameters(const ComputeProgram& program,
                                                                     const std::string& kernel_name) {
  if (!state_) return std::nullopt;
  const KernelShape& shape = program.shape(state_->device, kernel_name);
  if (!shape.error.empty()) return std::nullopt;
  std::vector<ComputeArgument> shapes;
  for (const Parameter& parameter : shape.parameters) {
    if (!parameter.error.empty()) return std::nullopt;
    ComputeArgument& argument = shapes.emplace_back();
    argument.is_buffer = parameter.is_buffer;
    argument.value_bytes = parameter.is_buffer ? 8 : parameter.bytes;  // what a launch's parameter holds
  }
  return shapes;
}

std::size_t OpenclCompute::max_work_group_size(const ComputeProgram& program, const std::string& kernel_name,
                                              std::size_t cap) {
  if (!state_) return cap;
  const KernelShape& shape = program.shape(state_->device, kernel_name);
  if (!shape.error.empty()) return cap;
  const auto& required = shape.required_work_group;
  if (required[0] != 0) return std::min(cap, required[0] * required[1] * required[2]);
  return std::min(cap, shape.max_work_group);
}

std::string OpenclCompute::check(const ComputeProgram& program, const std::string& kernel_name,
                                 const ComputeLaunch& launch) {
  if (!state_) return unavailable_reason_;
  const KernelShape& shape = program.shape(state_->device, kernel_name);
  if (!shape.error.empty()) return shape.error;
  const auto& required = shape.required_work_group;
  if (required[0] != 0 && required != launch.local) {
    return "the kernel requires work-groups of " + std::to_string(required[0]) + "x" + std::to_string(required[1]) +
           "x" + std::to_string(required[2]);
  }
  if (shape.parameters.size() != launch.arguments.size()) {
    return "the kernel has " + std::to_string(shape.parameters.size()) + " parameters, the launch gives " +
           std::to_string(launch.arguments.size());
  }
  for (std::size_t i = 0; i < shape.parameters.size(); ++i) {
    const Parameter& parameter = shape.parameters[i];
    const std::string which = "parameter " + std::to_string(i) + " of " + kernel_name;
    if (!parameter.error.empty()) return which + " is " + parameter.error;
    const ComputeArgument& argument = launch.arguments[i];
    if (parameter.is_buffer != argument.is_buffer) {
      return which + (parameter.is_buffer ? " is a pointer, given a value that is not device memory"
                                          : " is a scalar, given device memory");
    }
    if (!parameter.is_buffer && parameter.bytes != argument.value_bytes) {
      return which + " is a scalar of " + std::to_string(parameter.bytes) + " bytes, given " +
             std::to_string(argument.value_bytes);
    }
  }
  return {};
}

std::string OpenclCompute::run(const ComputeProgram& program, const std::string& kernel_name, int device,
                               const ComputeLaunch& launch) {
  if (!state_) return unavailable_reason_;
  cl_int error = CL_SUCCESS;
  cl::Kernel kernel(program.program, kernel_name.c_str(), &error);
  if (error != CL_SUCCESS) return failed("clCreateKernel", error);
  cl::CommandQueue queue;
  {
    std::lock_guard lock(state_->mutex);
    auto found = state_->queues.find(device);
    if (found == state_->queues.end()) {
      found = state_->queues.emplace(device, cl::CommandQueue(state_->context, state_->device, 0, &error)).first;
      if (error != CL_SUCCESS) {
        state_->queues.erase(found);
        return failed("clCreateCommandQueue", error);
      }
    }
    queue = found->second;
  }
  // Buffers over the host memory that stands for device memory, for this
  // launch only: made now, they start from what copies left there; mapped
  // after the run, the host sees what the kernel wrote. Two arguments in one
  // allocation give buffers over overlapping memory, which OpenCL leaves
  // undefined; a CPU device uses the host memory in place, so both see each
  // other's writes (Emulation.Driver checks that on the device at hand).
  std::vector<cl::Buffer> buffers;
  for (cl_uint i = 0; i < launch.arguments.size(); ++i) {
    const ComputeArgument& argument = launch.arguments[i];
    if (!argument.is_buffer) {
      // Checked at submission: the kernel's scalar has this size.
      error = clSetKernelArg(kernel(), i, argument.value_bytes, argument.value.data());
    } else if (argument.data == nullptr || argument.span == 0) {
      error = clSetKernelArg(kernel(), i, sizeof(cl_mem), nullptr);
    } else {
      buffers.emplace_back(state_->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, argument.span, argument.data,
                           &error);
      if (error != CL_SUCCESS) return failed("clCreateBuffer", error);
      error = kernel.setArg(i, buffers.back());
    }
    if (error != CL_SUCCESS) return failed("clSetKernelArg", error) + " (parameter " + std::to_string(i) + ")";
  }
  const cl::NDRange global(launch.global[0], launch.global[1], launch.global[2]);
  const cl::NDRange local(launch.local[0], launch.local[1], launch.local[2]);
  std::array<std::size_t, 3> offset{0, 0, 0};
  if (program.shape(state_->device, kernel_name).takes_first_group) {
    // A slice: its first group's global offset, which get_group_id adds.
    for (std::size_t d = 0; d < 3; ++d) {
      unsigned int first = 0;
      std::memcpy(&first, launch.arguments[launch.arguments.size() - 3 + d].value.data(), sizeof first);
      offset[d] = std::size_t{first} * launch.local[d];
    }
  }
  error = queue.enqueueNDRangeKernel(kernel, cl::NDRange(offset[0], offset[1], offset[2]), global, local);
  if (error != CL_SUCCESS) return failed("clEnqueueNDRangeKernel", error);
  for (const cl::Buffer& buffer : buffers) {
    const std::size_t size = buffer.getInfo<CL_MEM_SIZE>();
    void* mapped = queue.enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_READ, 0, size, nullptr, nullptr, &error);
    if (error != CL_SUCCESS) return failed("clEnqueueMapBuffer", error);
    error = queue.enqueueUnmapMemObject(buffer, mapped);
    if (error != CL_SUCCESS) return failed("clEnqueueUnmapMemObject", error);
  }
  error = queue.finish();
  if (error != CL_SUCCESS) return failed("clFinish", error);
  return {};
}

}  // namespace alloy::emulation
