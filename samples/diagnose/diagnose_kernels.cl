// Kernels of the diagnose sample, in the portable alloy dialect.

// y = a few rounds of a contracting polynomial of x: enough arithmetic per
// element that the kernel takes about as long as copying its data.
KERNEL void polish(GLOBAL const float* restrict x, GLOBAL float* restrict y, ulong length, int rounds) {
  const ulong i = get_global_id(0);
  if (i >= length) return;
  float value = x[i];
  for (int round = 0; round < rounds; ++round) value = value * 0.5f + 0.25f * value * value;
  y[i] = value;
}

// `times` steps of values[i] = 3 * values[i] + 1 (mod 2^32): times = 1 is
// one task of the launch-bound program, times = steps its fused form.
KERNEL void step_values(GLOBAL uint* values, int length, int times) {
  const int i = (int)get_global_id(0);
  if (i >= length) return;
  uint value = values[i];
  for (int step = 0; step < times; ++step) value = 3u * value + 1u;
  values[i] = value;
}
