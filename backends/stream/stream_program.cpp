// Module loading and kernel lookup for the stream-model backends.
#include "stream_program.hpp"

#include "alloy/error.hpp"
#include "stream_check.hpp"
#include "stream_device.hpp"

namespace alloy::stream {

StreamProgram::StreamProgram(StreamDevice& device, ProgramSource source,
                             std::vector<std::byte> binary)
    : Program(device, std::move(source)), device_(device), binary_(std::move(binary)) {
  const StreamApi& api = device.api();
  device.make_current();
  check(api, api.load_module(&module_, binary_.data()), api.load_module.name,
        device.label() + " (" + this->source().name + ")");
}

StreamProgram::~StreamProgram() {
  const StreamApi& api = device_.api();
  check_in_destructor(api, api.make_current(device_.ref()), api.make_current.name, device_.label());
  check_in_destructor(api, api.unload_module(module_), api.unload_module.name, device_.label());
}

std::shared_ptr<Kernel> StreamProgram::create_kernel(const std::string& name) {
  const StreamApi& api = device_.api();
  device_.make_current();
  Handle function = nullptr;
  const Status status = api.get_function(&function, module_, name.c_str());
  if (status != api.success) {
    std::string declared;
    for (const std::string& kernel_name : declared_kernel_names(source().source)) {
      declared += (declared.empty() ? "" : ", ") + kernel_name;
    }
    throw InvalidArgument("program " + source().name + " has no kernel named '" + name +
                          "' (on " + device_.label() + ", " + api.get_function.name + ": " +
                          api.status_name(status) + "); it declares: " +
                          (declared.empty() ? "none found" : declared));
  }
  KernelAttributes attributes;
  int value = 0;
  check(api, api.function_attribute(&value, FunctionAttribute::max_threads_per_block, function),
        api.function_attribute.name, device_.label());
  attributes.max_work_group_size = static_cast<std::size_t>(value);
  check(api, api.function_attribute(&value, FunctionAttribute::static_shared_bytes, function),
        api.function_attribute.name, device_.label());
  attributes.local_memory_bytes = static_cast<std::size_t>(value);
  attributes.preferred_work_group_multiple = device_.info().sub_group_width.value_or(1);
  std::vector<std::size_t> sizes;
  if (api.parameter_sizes.function != nullptr && api.parameter_sizes(&sizes, function) == api.success) {
    // The slice's first group follows the declared parameters; launches pass it.
    if (takes_first_group() && sizes.size() >= 3) sizes.resize(sizes.size() - 3);
    attributes.argument_count = sizes.size();
    attributes.argument_bytes = std::move(sizes);
  }
  return std::make_shared<StreamKernel>(shared_from_this(), name, attributes, function);
}

StreamKernel::StreamKernel(std::shared_ptr<Program> program, std::string name,
                           KernelAttributes attributes, Handle function)
    : Kernel(std::move(program), std::move(name), attributes), function_(function) {}

}  // namespace alloy::stream
