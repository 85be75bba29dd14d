// Building OpenCL programs, reading their binaries, creating kernels.
#include "opencl_program.hpp"

#include <algorithm>

#include "alloy/error.hpp"
#include "opencl_check.hpp"
#include "opencl_device.hpp"

namespace alloy::opencl {

void build_for_device(cl::Program& program, OpenCLDevice& device, const ProgramSource& source,
                      const std::string& options) {
  const cl_int status = program.build({device.cl_device()}, options.c_str());
  if (status == CL_BUILD_PROGRAM_FAILURE || status == CL_INVALID_BUILD_OPTIONS) {
    std::string log;
    program.getBuildInfo(device.cl_device(), CL_PROGRAM_BUILD_LOG, &log);
    if (status == CL_INVALID_BUILD_OPTIONS) log = "invalid build options: " + options;
    throw CompileError(source.name, declared_kernel_names(source.source), device.label(), log);
  }
  check(status, "clBuildProgram(" + source.name + ")", device.label());
}

OpenCLProgram::OpenCLProgram(OpenCLDevice& device, ProgramSource source, cl::Program program)
    : Program(device, std::move(source)), device_(device), program_(std::move(program)) {}

std::vector<std::byte> OpenCLProgram::binary() const {
  // A program made from source belongs to every device of the context but
  // was built for one: pick that device's entry among the program's devices.
  std::vector<cl::Device> devices;
  check(program_.getInfo(CL_PROGRAM_DEVICES, &devices), "clGetProgramInfo(CL_PROGRAM_DEVICES)",
        device_.label());
  const auto mine = std::find_if(devices.begin(), devices.end(), [&](const cl::Device& d) {
    return d() == device_.cl_device()();
  });
  auto index = static_cast<std::size_t>(mine - devices.begin());

  std::vector<std::size_t> sizes(devices.size());
  check(clGetProgramInfo(program_(), CL_PROGRAM_BINARY_SIZES, sizes.size() * sizeof(std::size_t),
                         sizes.data(), nullptr),
        "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)", device_.label());
  std::vector<std::vector<unsigned char>> binaries(devices.size());
  std::vector<unsigned char*> pointers(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    binaries[i].resize(sizes[i]);
    pointers[i] = binaries[i].data();
  }
  check(clGetProgramInfo(program_(), CL_PROGRAM_BINARIES, pointers.size() * sizeof(unsigned char*),
                         pointers.data(), nullptr),
        "clGetProgramInfo(CL_PROGRAM_BINARIES)", device_.label());
  // PoCL 3.1 files the binary under the position the device had in the
  // build's device list (always 0 here), not in the program's: when our slot
  // is empty, the only non-empty binary is ours, since we built for one device.
  if (index >= binaries.size() || binaries[index].empty()) {
    const auto non_empty = [](const std::vector<unsigned char>& b) { return !b.empty(); };
    const auto found = std::find_if(binaries.begin(), binaries.end(), non_empty);
    if (std::count_if(binaries.begin(), binaries.end(), non_empty) != 1) {
      throw Error("the OpenCL driver returned no binary for " + source().name + " on " +
                  device_.label());
    }
    index = static_cast<std::size_t>(found - binaries.begin());
  }
  const auto* first = reinterpret_cast<const std::byte*>(binaries[index].data());
  return {first, first + binaries[index].size()};
}

std::shared_ptr<Kernel> OpenCLProgram::create_kernel(const std::string& name) {
  cl_int status = CL_SUCCESS;
  cl::Kernel kernel(program_, name.c_str(), &status);
  if (status == CL_INVALID_KERNEL_NAME) {
    std::string declared;
    for (const std::string& kernel_name : declared_kernel_names(source().source)) {
      declared += (declared.empty() ? "" : ", ") + kernel_name;
    }
    throw InvalidArgument("program " + source().name + " has no kernel named '" + name +
                          "' (on " + device_.label() + "); it declares: " +
                          (declared.empty() ? "none found" : declared));
  }
  check(status, "clCreateKernel(" + name + ")", device_.label());

  KernelAttributes attributes;
  const cl::Device& device = device_.cl_device();
  check(kernel.getWorkGroupInfo(device, CL_KERNEL_WORK_GROUP_SIZE, &attributes.max_work_group_size),
        "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)", device_.label());
  cl_ulong local_memory = 0;
  check(kernel.getWorkGroupInfo(device, CL_KERNEL_LOCAL_MEM_SIZE, &local_memory),
        "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)", device_.label());
  attributes.local_memory_bytes = local_memory;
  check(kernel.getWorkGroupInfo(device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                &attributes.preferred_work_group_multiple),
        "clGetKernelWorkGroupInfo(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)", device_.label());
  cl_uint argument_count = 0;
  check(kernel.getInfo(CL_KERNEL_NUM_ARGS, &argument_count), "clGetKernelInfo(CL_KERNEL_NUM_ARGS)",
        device_.label());
  attributes.argument_count = argument_count;
  return std::make_shared<OpenCLKernel>(shared_from_this(), name, attributes, std::move(kernel));
}

OpenCLKernel::OpenCLKernel(std::shared_ptr<Program> program, std::string name,
                           KernelAttributes attributes, cl::Kernel kernel)
    : Kernel(std::move(program), std::move(name), attributes), kernel_(std::move(kernel)) {}

}  // namespace alloy::opencl
