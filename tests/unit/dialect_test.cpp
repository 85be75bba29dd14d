// The prelude, source composition, stable hashing and device fingerprints.
#include "support/test_devices.hpp"

namespace alloy::test {

TEST_CASE("Unit.Dialect.prelude_covers_every_backend") {
  const std::string_view prelude = kernel_prelude();
  for (const char* marker : {"__OPENCL_VERSION__", "__CUDACC_RTC__", "__HIPCC_RTC__", "KERNEL",
                             "GLOBAL", "LOCAL", "CONSTANT", "local_barrier", "atomic_add_int",
                             "atomic_add_float", "get_global_id"}) {
    CAPTURE(marker);
    CHECK(prelude.find(marker) != std::string_view::npos);
  }
}

TEST_CASE("Unit.Dialect.composed_source_keeps_user_line_numbers") {
  const ComposedSource composed =
      compose_kernel_source({"my \"kernel\".cl", "KERNEL void k() {}", ""});
  CHECK(composed.text.starts_with("#define ALLOY_TAKES_FIRST_GROUP 1\n" + std::string(kernel_prelude())));
  CHECK(composed.text.ends_with(
      "\n#line 1 \"my _kernel_.cl\"\nKERNEL void k(ALLOY_FIRST_GROUP_PARAMETERS_ONLY) { ALLOY_ENTER_KERNEL}"));
  CHECK(composed.compiler_options.empty());
}

TEST_CASE("Unit.Dialect.every_plain_kernel_takes_the_first_group_in_place") {
  // Comments and strings cannot hide or fake a declaration; lines stay put.
  const ComposedSource composed = compose_kernel_source(
      {"k.cl",
       "/* KERNEL void fake(int x) { */\n"
       "KERNEL void a(GLOBAL float* x, const int n)\n{ x[get_global_id(0)] = n; }\n"
       "KERNEL void b(void);\n"
       "__attribute__((reqd_work_group_size(64, 1, 1))) KERNEL void b(void) { }\n",
       ""});
  CHECK(composed.takes_first_group);
  CHECK(composed.sliceable);
  CHECK(composed.text.ends_with(
      "/* KERNEL void fake(int x) { */\n"
      "KERNEL void a(GLOBAL float* x, const int n ALLOY_FIRST_GROUP_PARAMETERS)\n"
      "{ ALLOY_ENTER_KERNEL x[get_global_id(0)] = n; }\n"
      "KERNEL void b(ALLOY_FIRST_GROUP_PARAMETERS_ONLY);\n"
      "__attribute__((reqd_work_group_size(64, 1, 1))) KERNEL void b(ALLOY_FIRST_GROUP_PARAMETERS_ONLY) { "
      "ALLOY_ENTER_KERNEL }\n"));
}

TEST_CASE("Unit.Dialect.a_kernel_declared_through_a_macro_leaves_the_source_as_written") {
  const std::string source =
      "#define DECLARE(name) KERNEL void name(GLOBAL int* out)\n"
      "DECLARE(fill_one) { out[get_global_id(0)] = 1; }\n"
      "KERNEL void plain(GLOBAL int* out) { out[0] = 0; }\n";
  const ComposedSource composed = compose_kernel_source({"k.cl", source, ""});
  CHECK_FALSE(composed.takes_first_group);
  CHECK_FALSE(composed.sliceable);
  CHECK(composed.text.starts_with("#define ALLOY_TAKES_FIRST_GROUP 0\n"));
  CHECK(composed.text.ends_with(source));
}

TEST_CASE("Unit.Dialect.sources_that_read_across_work_groups_are_not_sliceable") {
  for (const char* body : {"atomic_add_int(out, 1);", "out[0] = get_num_groups(0);", "out[0] = get_global_size(0);",
                           "global_barrier();", "out[0] = blockIdx.x;", "ALLOY_NO_SLICES"}) {
    CAPTURE(body);
    const ComposedSource composed =
        compose_kernel_source({"k.cl", std::string("KERNEL void k(GLOBAL int* out) { ") + body + " }", ""});
    CHECK(composed.takes_first_group);
    CHECK_FALSE(composed.sliceable);
  }
  // A name in a comment is not a use.
  CHECK(compose_kernel_source({"k.cl", "KERNEL void k(GLOBAL int* out) { /* atomic_add_int */ }", ""}).sliceable);
}

TEST_CASE("Unit.Dialect.defines_become_lines_after_the_prelude") {
  const ComposedSource composed =
      compose_kernel_source({"k.cl", "body", "-DWGS=128 -cl-fast-relaxed-math -DFLAG -D T=float"});
  CHECK(composed.text.ends_with(
      "\n#define WGS 128\n#define FLAG 1\n#define T float\n#line 1 \"k.cl\"\nbody"));
  CHECK(composed.compiler_options == "-cl-fast-relaxed-math");
  CHECK_THROWS_WITH_AS(compose_kernel_source({"k.cl", "body", "-D3X=1"}),
                       doctest::Contains("option -D3X=1 does not name a macro"),
                       InvalidArgument);
}

TEST_CASE("Unit.Hash.fnv1a_reference_values") {
  // Published FNV-1a 64-bit test vectors.
  CHECK(stable_hash("") == 0xcbf29ce484222325ull);
  CHECK(stable_hash("a") == 0xaf63dc4c8601ec8cull);
  CHECK(stable_hash("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("Unit.Device.fingerprint_holds_identity_fields") {
  DeviceInfo info;
  info.backend = "opencl";
  info.vendor = "Vendor";
  info.name = "Board";
  info.architecture = "sm_90";
  info.driver_version = "1.2.3";
  info.compute_units = 132;
  info.global_memory_bytes = std::size_t{80} << 30;
  CHECK(info.fingerprint() == "opencl|Vendor|Board|sm_90|1.2.3|cu132");
  DeviceInfo less_free_memory = info;
  less_free_memory.global_memory_bytes -= std::size_t{1} << 30;
  CHECK(less_free_memory.fingerprint() == info.fingerprint());
  DeviceInfo newer_driver = info;
  newer_driver.driver_version = "1.2.4";
  CHECK(newer_driver.fingerprint() != info.fingerprint());
}

TEST_CASE("Unit.Extent.text_and_count") {
  CHECK(Extent(64).to_string() == "64");
  CHECK(Extent(8, 4).to_string() == "8x4");
  CHECK(Extent(2, 3, 4).count() == 24);
  CHECK(Extent(2, 3).dimensions == 2);
}

}  // namespace alloy::test
