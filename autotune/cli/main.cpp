// autotune: tunes alloy's kernels for this machine's devices and writes the
// profiles the runtime reads (see autotune --help).
#include "alloy/autotune/registry.hpp"

int main(int argc, char** argv) { return alloy::autotune::run_autotune_command(argc, argv); }
