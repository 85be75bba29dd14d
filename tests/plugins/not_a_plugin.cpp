// A shared library without alloy's plugin entry points.
extern "C" __attribute__((visibility("default"))) int unrelated_function() { return 42; }
