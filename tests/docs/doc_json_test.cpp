// Every JSON block in README.md and docs/ is valid JSON, and every manifest
// among them loads, with the kernel files the page shows beside it.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "alloy/autotune/registry.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

std::vector<std::string> doc_json_files() {
  std::vector<std::string> files;
  std::stringstream list(DOC_JSON_FILES);
  for (std::string file; std::getline(list, file, '|');) files.push_back(file);
  return files;
}

TEST_CASE("Docs.Json.every_block_parses_and_every_manifest_loads") {
  const std::vector<std::string> files = doc_json_files();
  REQUIRE(!files.empty());
  int manifests = 0;
  for (const std::string& file : files) {
    INFO(file);
    std::ifstream in(file);
    REQUIRE(in.good());
    nlohmann::json document;
    REQUIRE_NOTHROW(document = nlohmann::json::parse(in));
    if (!document.is_object() || !document.contains("kernels")) continue;
    ++manifests;
    std::vector<autotune::TuningTarget> targets;
    REQUIRE_NOTHROW(targets = autotune::load_manifest(file));
    CHECK(targets.size() == document["kernels"].size());
  }
  CHECK(manifests >= 1);
}

}  // namespace
}  // namespace alloy::test
