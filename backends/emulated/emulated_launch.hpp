// Programs and kernel launches on emulated devices: compiled and computed
// for real where an OpenCL CPU device exists, timed by the machine model.
#pragma once

#include <string>

#include "stream_api.hpp"

namespace alloy::emulation {

/// What the table's compile does: builds the composed source for the compute
/// device (errors are the compiler's), and returns a "binary" that is the
/// source with its options, NUL-terminated, which load_module reads.
stream::CompileResult compile(const std::string& source, const std::string& name, const std::string& options,
                              const std::string& architecture);

stream::Status load_module(stream::Handle* module, const void* image);
stream::Status unload_module(stream::Handle module);
stream::Status get_function(stream::Handle* function, stream::Handle module, const char* name);
/// The block limit is what the compiled kernel allows, as a CUDA kernel's
/// __launch_bounds__ lower cuFuncGetAttribute's answer.
stream::Status function_attribute(int* value, stream::FunctionAttribute which, stream::Handle function);
stream::Status parameter_sizes(std::vector<std::size_t>* sizes, stream::Handle function);
stream::Status launch(stream::Handle function, const unsigned* grid, const unsigned* block, stream::Handle stream,
                      void** params);

}  // namespace alloy::emulation
