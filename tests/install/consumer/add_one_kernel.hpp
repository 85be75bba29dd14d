// The consumer's own tunable kernel, shared by its tuner and its program.
#pragma once

#include <alloy/alloy.hpp>

inline const alloy::TunableKernel& add_one_kernel() {
  static const alloy::TunableKernel kernel = [] {
    alloy::TunableKernel k;
    k.name = "consumer.add_one";
    k.source = {"add_one.cl",
                "#ifndef WGS\n"
                "#define WGS 16\n"
                "#endif\n"
                "KERNEL void add_one(const int n, GLOBAL int* v) {\n"
                "  const int i = (int)get_global_id(0);\n"
                "  if (i < n) v[i] += 1;\n"
                "}\n",
                ""};
    k.kernel_name = "add_one";
    k.parameters = {{"WGS", {16, 32, 64, 128}, 16, {}}};
    k.launch = {{0, {}, {}, {1, {"WGS"}, {}}}};
    return k;
  }();
  return kernel;
}
