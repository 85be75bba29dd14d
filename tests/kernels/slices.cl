// Kernels that run in slices (docs/kernels.md, "Slices"): each work-item
// writes what it sees of its ids, once.

// Read outside the kernel's body, as helpers do: on CUDA and HIP the ids
// then come from what the kernel's entry kept.
INLINE uint id_word(void) {
  return (uint)(get_group_id(0) * 7919u + get_group_id(1) * 104729u + get_group_id(2) * 15485863u +
                get_local_id(0) * 3u + get_local_id(1) * 5u + get_local_id(2) * 11u);
}

// A second write to an item would multiply the first: every item must be
// written by exactly one work-item of exactly one slice.
KERNEL void mark_items(GLOBAL uint* out, const uint width, const uint height) {
  const size_t index = (get_global_id(2) * height + get_global_id(1)) * width + get_global_id(0);
  out[index] = out[index] * 31u + id_word() + 1u;
}
