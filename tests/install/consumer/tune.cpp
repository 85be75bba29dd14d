// An `autotune` that also knows the consumer's own kernel, built against an
// installed alloy as docs/autotune.md describes.
#include <alloy/autotune/registry.hpp>

#include "add_one_kernel.hpp"

int main(int argc, char** argv) {
  namespace tune = alloy::autotune;
  tune::Harness harness;
  // Values around zero, far from int's limits: adding one cannot overflow.
  harness.buffers = {tune::HarnessBuffer::checked_output("v", {1, {}, {0}}, {}, alloy::ScalarType::i32,
                                                         tune::HarnessBuffer::Fill::normal)};
  harness.arguments = {tune::HarnessArgument::dimension(0), tune::HarnessArgument::buffer(0)};
  harness.reference = [](const alloy::Extent& problem, const std::vector<tune::HostArray>& buffers,
                         std::vector<tune::HostArray>& expected) {
    for (std::size_t i = 0; i < problem[0]; ++i)
      expected[0].view<int>()[i] = buffers[0].view<int>()[i] + 1;
  };
  tune::register_target({add_one_kernel(), harness, {alloy::Extent(1 << 16)}, "v += 1, ints; problem n"});
  return tune::run_autotune_command(argc, argv);
}
