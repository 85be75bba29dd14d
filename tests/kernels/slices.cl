// Kernels that run in slices (docs/kernels.md, "Slices"): nothing here reads
// across work-groups.

// Read outside the kernel's body, as helpers do: on CUDA and HIP the ids
// then come from what the kernel's entry kept.
INLINE uint id_word(void) {
  return (uint)(get_group_id(0) * 7919u + get_group_id(1) * 104729u + get_group_id(2) * 15485863u +
                get_local_id(0) * 3u + get_local_id(1) * 5u + get_local_id(2) * 11u);
}

// Each work-item writes what it sees of its ids. A second write to an item
// would multiply the first: every item must be written by exactly one
// work-item of exactly one slice.
KERNEL void mark_items(GLOBAL uint* out, const uint width, const uint height) {
  const size_t index = (get_global_id(2) * height + get_global_id(1)) * width + get_global_id(0);
  out[index] = out[index] * 31u + id_word() + 1u;
}

// For the executor's random programs, in wrapping unsigned arithmetic so the
// host model computes the same: data[first + i] = data[first + i] * factor + offset.
KERNEL void scale_range(const int first, const int count, const uint factor, const uint offset,
                        GLOBAL uint* data) {
  const int i = (int)get_global_id(0);
  if (i < count) {
    data[first + i] = data[first + i] * factor + offset;
  }
}

// dst[to + i] = src[from + i] for i < count; the ranges do not overlap.
KERNEL void copy_range(const int from, const int to, const int count, GLOBAL const uint* src,
                       GLOBAL uint* dst) {
  const int i = (int)get_global_id(0);
  if (i < count) {
    dst[to + i] = src[from + i];
  }
}
