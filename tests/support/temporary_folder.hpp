// A folder under the system's temporary folder, removed with its contents
// when the object goes.
#pragma once

#include <filesystem>
#include <random>
#include <string>

namespace alloy::test {

struct TemporaryFolder {
  std::filesystem::path path;

  explicit TemporaryFolder(const std::string& purpose = "test")
      : path(std::filesystem::temp_directory_path() /
             ("alloy-" + purpose + "-" + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(path);
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
};

}  // namespace alloy::test
