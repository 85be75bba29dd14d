// A host reference for the manifest tests, built as a shared library:
// expected[0] = 2.5 * buffers[0] over floats. It fails on purpose for a
// problem of 13 elements.
#include <cstdio>
#include <cstring>

#include "alloy/autotune/host_reference_abi.h"

ALLOY_HOST_REFERENCE_EXPORT int scale_reference(const size_t problem[3], const alloy_host_buffer* buffers, size_t buffer_count,
                                        alloy_host_buffer* expected, size_t expected_count, char* message,
                                        size_t message_size) {
  if (problem[0] == 13 || buffer_count < 1 || expected_count < 1 || std::strcmp(buffers[0].type, "float") != 0) {
    std::snprintf(message, message_size, "expects a float input and a problem other than 13");
    return 1;
  }
  const auto* in = static_cast<const float*>(buffers[0].data);
  auto* out = static_cast<float*>(expected[0].data);
  for (size_t i = 0; i < expected[0].count; ++i) out[i] = 2.5f * in[i];
  return 0;
}
