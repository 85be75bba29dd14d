/* The C function a manifest names as its host reference ("reference":
 * {"library": ..., "function": ...}): it computes what the kernel's outputs
 * must hold from every buffer's initial contents. C, so any language that
 * builds a shared library can provide one. */
#ifndef ALLOY_AUTOTUNE_HOST_REFERENCE_ABI_H
#define ALLOY_AUTOTUNE_HOST_REFERENCE_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One buffer: its element type as OpenCL C names it ("float", "uint",
 * "uchar", ...), its element count, and its elements. */
typedef struct alloy_host_buffer {
  const char* type;
  size_t count;
  void* data;
} alloy_host_buffer;

/* `problem` holds the problem's sizes (1 for unused dimensions). `buffers`
 * are every harness buffer in order, read-only; `expected` are the output
 * buffers in order, zeroed, to fill. Returns 0 when done; otherwise writes
 * why (at most `message_size` bytes, terminated) to `message`. */
typedef int (*alloy_host_reference_function)(const size_t problem[3], const alloy_host_buffer* buffers,
                                             size_t buffer_count, alloy_host_buffer* expected,
                                             size_t expected_count, char* message, size_t message_size);

#ifdef __cplusplus
}
#endif

/* Put before the definition, so the function is found even when the
 * library is built with hidden symbols:
 *   ALLOY_HOST_REFERENCE_EXPORT int my_reference(const size_t problem[3], ...) */
#ifdef __cplusplus
#define ALLOY_HOST_REFERENCE_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define ALLOY_HOST_REFERENCE_EXPORT __attribute__((visibility("default")))
#endif

#endif
