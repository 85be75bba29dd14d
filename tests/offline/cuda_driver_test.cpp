// The CUDA plugin resolves every driver call it uses: checked against the
// toolkit's stub libcuda, which exports the whole driver API but has no GPU.
#include "support/test_devices.hpp"

#if defined(ALLOY_HAVE_NVRTC) && defined(ALLOY_CUDA_STUB_LIBRARY)
#include "cuda_driver.hpp"
#endif

namespace alloy::test {

#if defined(ALLOY_HAVE_NVRTC) && defined(ALLOY_CUDA_STUB_LIBRARY)

TEST_CASE("OfflineCompile.CudaDriver.every_call_resolves_in_stub") {
  const std::string problem = cuda::load_driver(ALLOY_CUDA_STUB_LIBRARY);
  INFO(problem);
  // Getting as far as cuInit means every symbol was found; the stub's cuInit
  // then refuses, as it does on any machine.
  CHECK(problem.starts_with("cuInit failed with"));
  const bool launch_found = cuda::driver().cuLaunchKernel != nullptr;
  const bool allocate_found = cuda::driver().cuMemAlloc != nullptr;
  CHECK(launch_found);
  CHECK(allocate_found);
}

#else

TEST_CASE("OfflineCompile.CudaDriver.not_built") {
  skip("the CUDA toolkit or its stub libcuda was not found when alloy was configured");
}

#endif

}  // namespace alloy::test
