// Runs a kernel on a traced executor and lets it write its trace file as it
// goes: the runtime, linked alone, opens the installed trace library for it.
#include <cstdio>

#include <alloy/alloy.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer_traced TRACE.json\n");
    return 2;
  }
  const alloy::ProgramSource source{"fill.cl", "KERNEL void fill(GLOBAL int* v) { v[get_global_id(0)] = 7; }", ""};
  alloy::Runtime runtime;
  alloy::ExecutorOptions options;
  options.trace_file = argv[1];
  alloy::Buffer<int> values(256);
  {
    alloy::Executor executor(runtime, options);
    executor.kernel(source, "fill", {alloy::Extent(256)}, {alloy::write(values)});
    executor.synchronize(values);
  }
  return values.host()[255] == 7 ? 0 : 1;
}
