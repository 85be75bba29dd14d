// A communicator's rank, size and node-local place; ending a job; what the
// MPI library says of device memory.
#include "alloy/mpi/communicator.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's extensions: MPIX_Query_cuda_support
#endif

#include <cstdio>
#include <cstdlib>

#include "mpi_check.hpp"

namespace alloy::mpi {

Communicator::Communicator(MPI_Comm handle) : handle_(handle) {
  detail::check_mpi(MPI_Comm_rank(handle_, &rank_), "MPI_Comm_rank", "a communicator");
  detail::check_mpi(MPI_Comm_size(handle_, &size_), "MPI_Comm_size", label());
  // Collective: every rank of the communicator makes its Communicator.
  MPI_Comm node = MPI_COMM_NULL;
  detail::check_mpi(MPI_Comm_split_type(handle_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
                    "MPI_Comm_split_type", label());
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
}

std::string Communicator::label() const { return "rank " + std::to_string(rank_) + " of " + std::to_string(size_); }

void Communicator::abort(const std::string& why) const {
  std::fprintf(stderr, "alloy::mpi: %s: %s\n", label().c_str(), why.c_str());
  std::fflush(stderr);
  MPI_Abort(handle_, 1);
  std::abort();  // MPI_Abort does not return; should a library's, the job still ends
}

DeviceMemorySupport device_memory_support() {
  DeviceMemorySupport support;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  support.cuda = MPIX_Query_cuda_support() == 1;
#endif
#if defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  support.rocm = MPIX_Query_rocm_support() == 1;
#endif
  return support;
}

}  // namespace alloy::mpi
