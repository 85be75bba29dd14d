// y = clamp(x, lo, hi) * scale for the elements of one chunk.
KERNEL void scale_clamped(GLOBAL const float* restrict x, GLOBAL float* restrict y, ulong length,
                          float lo, float hi, float scale) {
  const ulong i = get_global_id(0);
  if (i < length) y[i] = clamp(x[i], lo, hi) * scale;
}
