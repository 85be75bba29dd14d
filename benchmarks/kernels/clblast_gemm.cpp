// CLBlast's SGEMM with its shipped parameters.
#include "clblast_gemm.hpp"

#include <vector>

#ifdef ALLOY_HAVE_CLBLAST
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <clblast.h>
#endif

namespace alloy::bench {

#ifndef ALLOY_HAVE_CLBLAST
struct ClblastGemm::State {};
ClblastGemm::ClblastGemm(const std::string&, std::size_t)
    : why_not_("CLBlast was not found when bench_kernels was built (install libclblast-dev)") {}
ClblastGemm::~ClblastGemm() = default;
void ClblastGemm::run() {}
#else
struct ClblastGemm::State {
  cl::Context context;
  cl::CommandQueue queue;
  cl::Buffer a, b, c;
  std::size_t n = 0;
};

ClblastGemm::ClblastGemm(const std::string& device_name, std::size_t n) {
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  for (const cl::Platform& platform : platforms) {
    std::vector<cl::Device> devices;
    platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    for (const cl::Device& device : devices) {
      if (device.getInfo<CL_DEVICE_NAME>() != device_name || state_) continue;
      auto state = std::make_unique<State>();
      state->context = cl::Context(device);
      state->queue = cl::CommandQueue(state->context, device);
      const std::vector<float> values(n * n, 0.5f);
      const std::size_t bytes = values.size() * sizeof(float);
      auto buffer = [&] {
        return cl::Buffer(state->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                          const_cast<float*>(values.data()));
      };
      state->a = buffer();
      state->b = buffer();
      state->c = buffer();
      state->n = n;
      state_ = std::move(state);
    }
  }
  if (!state_) why_not_ = "no OpenCL device called " + device_name + " for CLBlast";
}

ClblastGemm::~ClblastGemm() = default;

void ClblastGemm::run() {
  if (!state_) return;
  const std::size_t n = state_->n;
  cl_command_queue queue = state_->queue();
  const clblast::StatusCode status =
      clblast::Gemm(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, n, n, n, 1.0f,
                    state_->a(), 0, n, state_->b(), 0, n, 0.0f, state_->c(), 0, n, &queue, nullptr);
  if (status != clblast::StatusCode::kSuccess) {
    why_not_ = "CLBlast's Gemm returned status " + std::to_string(int(status));
    return;
  }
  state_->queue.finish();
}
#endif

}  // namespace alloy::bench
