// Every kernel the project ships compiles with NVRTC and hiprtc for GPU
// targets, without a GPU: a dialect error for any target fails here.
#include <algorithm>

#include "support/build_paths.hpp"
#include "support/file_lists.hpp"
#include "support/layout_kernels.hpp"
#include "support/test_devices.hpp"

#ifdef ALLOY_HAVE_NBODY_SAMPLE
#include "nbody.hpp"
#endif

#ifdef ALLOY_HAVE_NVRTC
#include "cuda_compiler.hpp"
#include "cuda_driver.hpp"
#endif
#ifdef ALLOY_HAVE_HIPRTC
#include <hip/hip_version.h>

#include "hip_compiler.hpp"
#endif

namespace alloy::test {
namespace {

using Compiler = stream::CompileResult (*)(const std::string&, const std::string&,
                                           const std::string&, const std::string&);

/// The defines a library kernel's file needs besides its tunables: the
/// layouts of its matrix arguments (gemm.cl's A and B), as its default
/// configuration has them.
std::string layout_options(const std::string& file_name) {
  if (file_name != "gemm.cl") return "";
  const TunableKernel& gemm = kernel_library::gemm();
  return configured_source(gemm, gemm.default_configuration()).options;
}

/// Compiles every shipped kernel file for `architecture`, once with its
/// defaults and once with a tunable changed; each failure shows the log.
void compile_all(Compiler compile, const std::string& architecture) {
  const std::vector<std::string> files = split_file_list(build_paths::kernel_files);
  REQUIRE(files.size() >= 2);
  for (const std::string& file : files) {
    for (const std::string tunable : {"", "-DWGS=128"}) {
      const std::string name = file.substr(file.rfind('/') + 1);
      const std::string layouts = layout_options(name);
      const std::string options = layouts.empty() || tunable.empty() ? layouts + tunable : layouts + " " + tunable;
      const ComposedSource composed = compose_kernel_source({name, read_text_file(file), options});
      const stream::CompileResult result =
          compile(composed.text, name, composed.compiler_options, architecture);
      INFO(name << " for " << architecture << " (" << result.target << ") with options '"
                << options << "':\n"
                << result.log);
      CHECK(result.ok);
      CHECK_FALSE(result.binary.empty());
    }
  }
}

/// Compiles the layout-tuned test kernels (and the n-body sample's) in every
/// layout they take.
void compile_every_layout(Compiler compile, const std::string& architecture) {
  std::vector<TunableKernel> kernels = {record_step_kernel(), matrix_step_kernel()};
#ifdef ALLOY_HAVE_NBODY_SAMPLE
  kernels.push_back(nbody::tuned_step());
#endif
  // Every gemm variant with its operands in each layout, its other
  // tunables at their defaults.
  for (const bool transpose_a : {false, true}) {
    for (const bool transpose_b : {false, true}) {
      for (const ScalarType element : {ScalarType::f32, ScalarType::f64}) {
        TunableKernel gemm = kernel_library::gemm({transpose_a, transpose_b, element});
        for (TuningParameter& parameter : gemm.parameters) {
          if (parameter.name == "LAYOUT_AB") continue;
          const auto at = std::find(parameter.values.begin(), parameter.values.end(), parameter.default_value);
          if (!parameter.value_names.empty()) {
            parameter.value_names = {parameter.value_names[std::size_t(at - parameter.values.begin())]};
          }
          parameter.values = {parameter.default_value};
        }
        kernels.push_back(std::move(gemm));
      }
    }
  }
  for (const TunableKernel& kernel : kernels) {
    for (const Configuration& configuration : every_configuration(kernel)) {
      const ComposedSource composed = compose_kernel_source(configured_source(kernel, configuration));
      const stream::CompileResult result =
          compile(composed.text, kernel.source.name, composed.compiler_options, architecture);
      INFO(kernel.name << " " << describe(kernel, configuration) << " for " << architecture << ":\n" << result.log);
      CHECK(result.ok);
    }
  }
}

/// OpenCL C compiles a helper function written without INLINE; so must the
/// GPU compilers, to which a function without an execution space is a
/// host function.
void helper_without_inline_compiles(Compiler compile, const std::string& architecture) {
  const ComposedSource composed = compose_kernel_source(
      {"helper.cl",
       "float twice(float x) { return 2.0f * x; }\n"
       "KERNEL void k(GLOBAL float* y) { y[get_global_id(0)] = twice(y[get_global_id(0)]); }",
       ""});
  const stream::CompileResult result = compile(composed.text, "helper.cl", composed.compiler_options, architecture);
  INFO(result.log);
  CHECK(result.ok);
}

void syntax_error_is_reported(Compiler compile, const std::string& architecture) {
  const ComposedSource composed = compose_kernel_source({"broken.cl", read_text_file(build_paths::broken_kernel), ""});
  const stream::CompileResult result =
      compile(composed.text, "broken.cl", composed.compiler_options, architecture);
  CHECK_FALSE(result.ok);
  INFO(result.log);
  CHECK(result.log.find("broken.cl") != std::string::npos);
}

}  // namespace

#ifdef ALLOY_HAVE_NVRTC

TEST_CASE("OfflineCompile.NVRTC.sm_80") { compile_all(cuda::compile, "sm_80"); }
TEST_CASE("OfflineCompile.NVRTC.sm_90") { compile_all(cuda::compile, "sm_90"); }
TEST_CASE("OfflineCompile.NVRTC.layouts_sm_80") { compile_every_layout(cuda::compile, "sm_80"); }
TEST_CASE("OfflineCompile.NVRTC.layouts_sm_90") { compile_every_layout(cuda::compile, "sm_90"); }

TEST_CASE("OfflineCompile.NVRTC.unknown_architecture_falls_back_to_ptx") {
  const ComposedSource composed = compose_kernel_source({"k.cl", "KERNEL void k() {}", ""});
  const stream::CompileResult result = cuda::compile(composed.text, "k.cl", "", "sm_999");
  INFO(result.log);
  REQUIRE(result.ok);
  CHECK(result.target.starts_with("compute_"));
  const std::string ptx(reinterpret_cast<const char*>(result.binary.data()), result.binary.size());
  CHECK(ptx.find(".entry k") != std::string::npos);
}

TEST_CASE("OfflineCompile.NVRTC.syntax_error_reported") { syntax_error_is_reported(cuda::compile, "sm_90"); }

TEST_CASE("OfflineCompile.NVRTC.helpers_without_INLINE_are_device_functions") {
  helper_without_inline_compiles(cuda::compile, "sm_90");
}

TEST_CASE("OfflineCompile.CudaDriver.floor_names_both_versions_when_nvrtc_is_newer") {
  const std::string problem = cuda::driver_floor_problem(12040, 13, 0);
  CHECK(problem.find("CUDA 12.4") != std::string::npos);
  CHECK(problem.find("NVRTC 13.0") != std::string::npos);
  CHECK(problem.find("Install a driver for CUDA 13.0 or later") != std::string::npos);
  // Newer minor releases load on a driver of the same major release.
  CHECK(cuda::driver_floor_problem(13000, 13, 1).empty());
  CHECK(cuda::driver_floor_problem(13010, 12, 8).empty());
}

#else

TEST_CASE("OfflineCompile.NVRTC.not_built") {
  skip("the CUDA toolkit was not found when alloy was configured, so NVRTC checks are not built");
}

#endif

#ifdef ALLOY_HAVE_HIPRTC

TEST_CASE("OfflineCompile.hiprtc.gfx90a") { compile_all(hip::compile, "gfx90a"); }

TEST_CASE("OfflineCompile.hiprtc.helpers_without_INLINE_are_device_functions") {
  helper_without_inline_compiles(hip::compile, "gfx90a");
}
TEST_CASE("OfflineCompile.hiprtc.gfx1030") { compile_all(hip::compile, "gfx1030"); }
TEST_CASE("OfflineCompile.hiprtc.layouts_gfx90a") { compile_every_layout(hip::compile, "gfx90a"); }

TEST_CASE("OfflineCompile.hiprtc.gfx1100") {
  // The code-object library behind HIP 5.2's hiprtc does not know RDNA3 and
  // aborts the whole process for it instead of returning an error.
  // (hiprtcVersion reports its clang's version, so HIP's own is used.)
  if (HIP_VERSION_MAJOR < 5 || (HIP_VERSION_MAJOR == 5 && HIP_VERSION_MINOR < 5)) {
    skip("HIP " + std::to_string(HIP_VERSION_MAJOR) + "." + std::to_string(HIP_VERSION_MINOR) +
         "'s hiprtc aborts on gfx1100 (RDNA3 support came with ROCm 5.5); gfx1030 stands in "
         "for RDNA here");
    return;
  }
  compile_all(hip::compile, "gfx1100");
}

TEST_CASE("OfflineCompile.hiprtc.syntax_error_reported") {
  syntax_error_is_reported(hip::compile, "gfx90a");
}

#else

TEST_CASE("OfflineCompile.hiprtc.not_built") {
  skip("HIP (libamdhip64-dev) was not found when alloy was configured, so hiprtc checks are not built");
}

#endif

}  // namespace alloy::test
