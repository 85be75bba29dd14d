// A seed for a randomized test: ALLOY_TEST_SEED when set, to replay a run,
// else a fresh one. Tests print it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace alloy::test {

inline std::uint64_t random_seed() {
  if (const char* text = std::getenv("ALLOY_TEST_SEED"); text != nullptr && *text != '\0') {
    return std::stoull(text);
  }
  std::random_device device;
  return (std::uint64_t(device()) << 32) ^ device();
}

}  // namespace alloy::test
