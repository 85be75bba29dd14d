// Every kernel shown in README.md and docs/ compiles on every device, so an
// example cannot use a dialect feature that does not exist.
#include <fstream>
#include <sstream>

#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

std::vector<std::string> doc_kernel_files() {
  std::vector<std::string> files;
  std::stringstream list(DOC_KERNEL_FILES);
  for (std::string file; std::getline(list, file, '|');) files.push_back(file);
  return files;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("Docs.Kernels.every_kernel_block_compiles") {
  const std::vector<std::string> files = doc_kernel_files();
  REQUIRE(!files.empty());
  for_each_device([&](Device& device) {
    for (const std::string& file : files) {
      const std::string name = file.substr(file.rfind('/') + 1);
      INFO(name);
      CHECK_NOTHROW(runtime().program(device, {name, read_file(file), ""}));
    }
  });
}

}  // namespace
}  // namespace alloy::test
