// saxpy sample kernel: y = a*x + y over n floats, in the portable alloy dialect.

KERNEL void saxpy(const int n, const float a, GLOBAL const float* restrict x,
                  GLOBAL float* restrict y) {
  const int i = (int)get_global_id(0);
  // The host rounds the global size up to a multiple of the work-group size.
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}
