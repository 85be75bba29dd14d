// Files a test's build hands it as one "a|b|c" definition (CMake lists of
// paths, joined), and their text.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace alloy::test {

/// The paths of a "|"-joined list.
inline std::vector<std::string> split_file_list(const std::string& joined) {
  std::vector<std::string> files;
  std::stringstream list(joined);
  for (std::string file; std::getline(list, file, '|');) files.push_back(file);
  return files;
}

/// The whole text of `path`; the test fails, naming it, when it cannot be read.
inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace alloy::test
