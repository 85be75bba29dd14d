// A group of MPI ranks that exchange buffer slices as graph tasks.
#pragma once

#include <mpi.h>

#include <string>

namespace alloy::mpi {

/// Whether the MPI library takes device memory for messages, as it says at
/// run time (Open MPI's MPIX_Query_cuda_support, MPIX_Query_rocm_support).
struct DeviceMemorySupport {
  bool cuda = false;
  bool rocm = false;
};

/// An MPI communicator (MPI_COMM_WORLD by default), not owned: the caller
/// keeps a communicator of its own alive while tasks use it. Cheap to copy;
/// thread-safe once made.
class Communicator {
 public:
  Communicator() : Communicator(MPI_COMM_WORLD) {}
  explicit Communicator(MPI_Comm handle);

  MPI_Comm handle() const { return handle_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// This rank's place among the ranks on its node (MPI_COMM_TYPE_SHARED),
  /// and how many there are: one device per local rank is the usual split.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  /// "rank 1 of 4", as errors name a rank.
  std::string label() const;

  /// Ends the whole job: writes "alloy::mpi: rank R of N: <why>" to stderr
  /// and calls MPI_Abort with exit code 1, which stops every rank, so none
  /// waits for ever on a message the failed one will not send.
  [[noreturn]] void abort(const std::string& why) const;

 private:
  MPI_Comm handle_;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
};

DeviceMemorySupport device_memory_support();

}  // namespace alloy::mpi
