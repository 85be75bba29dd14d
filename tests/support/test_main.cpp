// The doctest main shared by alloy's test executables.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  // Unless the caller chose otherwise: two PoCL devices, so every
  // conformance test also runs on a second device and the multi-device tests
  // have one; and a compile cache inside the build tree.
  setenv("POCL_DEVICES", "pthread pthread", 0);
  setenv("ALLOY_CACHE_DIR", ALLOY_TEST_CACHE_DIR, 0);
  doctest::Context context(argc, argv);
  return context.run();
}
