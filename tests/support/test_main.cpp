// The doctest main shared by alloy's test executables.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "support/build_paths.hpp"
#include "support/case_outcomes.hpp"
#include "support/test_devices.hpp"

int main(int argc, char** argv) {
  // Unless the caller chose otherwise: two PoCL devices, so every
  // conformance test also runs on a second device and the multi-device tests
  // have one; and a compile cache inside the build tree.
  setenv("POCL_DEVICES", "pthread pthread", 0);
  setenv("ALLOY_CACHE_DIR", alloy::test::build_paths::compile_cache, 0);
  // --alloy-backend=<name> runs the device tests on that backend only;
  // doctest ignores options it does not know.
  constexpr std::string_view backend_option = "--alloy-backend=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument.starts_with(backend_option)) {
      alloy::test::selected_backend() = std::string(argument.substr(backend_option.size()));
    }
  }
  // On emulated devices, unless the caller chose otherwise: two, with random
  // delays per copy and launch, so that order can only come from events;
  // their kernels compute on the first PoCL device.
  if (alloy::test::selected_backend() == "emulated") {
    setenv("ALLOY_EMULATED_DEVICES", "pcie5,devices=2,jitter=50", 0);
  }
  // A process on one backend loads only that one (and the emulated devices
  // its tests ask for): a CUDA case on a machine without a GPU need not
  // start PoCL to skip.
  if (!alloy::test::selected_backend().empty()) {
    std::string backends = alloy::test::selected_backend();
    if (std::getenv("ALLOY_EMULATED_DEVICES") != nullptr) backends += ",emulated";
    setenv("ALLOY_BACKENDS", backends.c_str(), 0);
  }
  doctest::Context context(argc, argv);
  const int result = context.run();
  alloy::test::report_skipped_cases(result);
  return result;
}
