// Every JSON block in README.md and docs/ is valid JSON, and every manifest
// among them loads, with the kernel files the page shows beside it.
#include <fstream>

#include <nlohmann/json.hpp>

#include "alloy/autotune/registry.hpp"
#include "support/build_paths.hpp"
#include "support/file_lists.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

TEST_CASE("Docs.Json.every_block_parses_and_every_manifest_loads") {
  const std::vector<std::string> files = split_file_list(build_paths::doc_json_files);
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
