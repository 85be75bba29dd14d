// The doctest main shared by alloy's test executables.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "support/test_devices.hpp"

int main(int argc, char** argv) {
  // Unless the caller chose otherwise: two PoCL devices, so every
  // conformance test also runs on a second device and the multi-device tests
  // have one; and a compile cache inside the build tree.
  setenv("POCL_DEVICES", "pthread pthread", 0);
  setenv("ALLOY_CACHE_DIR", ALLOY_TEST_CACHE_DIR, 0);
  // --alloy-backend=<name> runs the device tests on that backend only;
  // doctest ignores options it does not know.
  constexpr std::string_view backend_option = "--alloy-backend=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument.starts_with(backend_option)) {
      alloy::test::selected_backend() = std::string(argument.substr(backend_option.size()));
    }
  }
  doctest::Context context(argc, argv);
  return context.run();
}
