// Compile-error test kernel: the missing semicolon below is deliberate.

KERNEL void broken(GLOBAL float* restrict out) {
  out[get_global_id(0)] = 1.0f
}
