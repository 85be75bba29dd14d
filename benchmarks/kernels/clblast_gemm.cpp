// CLBlast's SGEMM with its shipped parameters.
#include "clblast_gemm.hpp"

#include <vector>

#ifdef ALLOY_HAVE_CLBLAST
#include "clblast_opencl.hpp"
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
  const std::optional<cl::Device> device = opencl_device(device_name);
  if (!device) {
    why_not_ = "no OpenCL device called " + device_name + " for CLBlast";
    return;
  }
  state_ = std::make_unique<State>();
  state_->context = cl::Context(*device);
  state_->queue = cl::CommandQueue(state_->context, *device);
  const std::vector<float> values(n * n, 0.5f);
  auto buffer = [&] {
    return cl::Buffer(state_->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, values.size() * sizeof(float),
                      const_cast<float*>(values.data()));
  };
  state_->a = buffer();
  state_->b = buffer();
  state_->c = buffer();
  state_->n = n;
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
