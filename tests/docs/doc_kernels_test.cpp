// Every kernel shown in README.md and docs/ compiles on every device, so an
// example cannot use a dialect feature that does not exist.
#include "support/build_paths.hpp"
#include "support/file_lists.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

TEST_CASE("Docs.Kernels.every_kernel_block_compiles") {
  const std::vector<std::string> files = split_file_list(build_paths::doc_kernel_files);
  REQUIRE(!files.empty());
  for_each_device([&](Device& device) {
    for (const std::string& file : files) {
      const std::string name = file.substr(file.rfind('/') + 1);
      INFO(name);
      CHECK_NOTHROW(runtime().program(device, {name, read_text_file(file), ""}));
    }
  });
}

}  // namespace
}  // namespace alloy::test
