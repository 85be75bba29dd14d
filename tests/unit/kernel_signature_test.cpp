// Kernel signatures read from portable source, and launch arguments checked against them.
#include "support/test_devices.hpp"

namespace alloy::test {

TEST_CASE("Unit.Signature.parses_pointers_and_scalars") {
  const char* source = R"(
    // KERNEL void commented_out(int ignored)
    KERNEL void scale(const int n, GLOBAL const float* restrict in,
                      CONSTANT float* factors, /* note */ GLOBAL float *out, unsigned int flags,
                      const real_t alpha) { }
  )";
  const auto signature = find_kernel_signature(source, "scale");
  REQUIRE(signature);
  REQUIRE(signature->parameters.size() == 6);
  const auto& p = signature->parameters;
  CHECK(p[0].name == "n");
  CHECK(p[0].kind == KernelParameter::Kind::scalar);
  CHECK(p[0].scalar_type == ScalarType::i32);
  CHECK(p[0].declared_type == "const int");
  CHECK(p[1].name == "in");
  CHECK(p[1].kind == KernelParameter::Kind::global_pointer);
  CHECK(p[2].kind == KernelParameter::Kind::constant_pointer);
  CHECK(p[3].name == "out");
  CHECK(p[3].kind == KernelParameter::Kind::global_pointer);
  CHECK(p[4].scalar_type == ScalarType::u32);
  CHECK(p[5].name == "alpha");
  CHECK_FALSE(p[5].scalar_type);  // a macro type: left to the backend's size check
  CHECK_FALSE(find_kernel_signature(source, "commented_out"));
  CHECK_FALSE(find_kernel_signature(source, "sca"));
}

TEST_CASE("Unit.Signature.empty_parameter_lists") {
  CHECK(find_kernel_signature("KERNEL void a() {}", "a")->parameters.empty());
  CHECK(find_kernel_signature("KERNEL void b(void) {}", "b")->parameters.empty());
}

TEST_CASE("Unit.Signature.declared_kernel_names") {
  const auto names = declared_kernel_names("KERNEL void one(int a) {}\n// KERNEL void no()\n"
                                           "KERNEL  void two (GLOBAL float* x) {}");
  CHECK(names == std::vector<std::string>{"one", "two"});
}

TEST_CASE("Unit.Arguments.scalar_types_follow_cpp_types") {
  CHECK(KernelArg::from(1).scalar_type == ScalarType::i32);
  CHECK(KernelArg::from(1u).scalar_type == ScalarType::u32);
  CHECK(KernelArg::from(1.0f).scalar_type == ScalarType::f32);
  CHECK(KernelArg::from(1.0).scalar_type == ScalarType::f64);
  CHECK(KernelArg::from(std::int64_t{1}).scalar_type == ScalarType::i64);
  CHECK(KernelArg::from(std::uint8_t{1}).scalar_type == ScalarType::u8);
  CHECK(KernelArg::from(std::int16_t{1}).scalar_bytes() == 2);
  const KernelArg value = KernelArg::from(-7);
  int stored = 0;
  std::memcpy(&stored, value.value.data(), sizeof stored);
  CHECK(stored == -7);
}

TEST_CASE("Unit.Arguments.checked_against_signature") {
  const auto signature = find_kernel_signature("KERNEL void k(const int n, const float a) {}", "k");
  REQUIRE(signature);
  const KernelArg good[] = {KernelArg::from(1), KernelArg::from(2.0f)};
  CHECK_NOTHROW(check_kernel_args(*signature, good, 2));
  const KernelArg swapped[] = {KernelArg::from(2.0f), KernelArg::from(1)};
  CHECK_THROWS_WITH_AS(check_kernel_args(*signature, swapped, 2),
                       doctest::Contains("argument 0 'n' (const int) of kernel 'k' expects int, got float"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(check_kernel_args(*signature, good, 1),
                       doctest::Contains("takes 2 arguments, got 1"), InvalidArgument);
}

}  // namespace alloy::test
