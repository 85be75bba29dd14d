// MPI for this process, at the thread level alloy's async lanes need.
#pragma once

namespace alloy::mpi {

/// Initializes MPI asking for MPI_THREAD_MULTIPLE: executors start and poll
/// messages on their async lanes while the program may call MPI from its
/// own threads. Error when MPI provides less. Finalizes MPI when it goes,
/// unless MPI was initialized before it (the caller's then).
///
///   int main(int argc, char** argv) {
///     alloy::mpi::Environment mpi(argc, argv);
///     alloy::mpi::Communicator world;
///     ...
///   }
///
/// One per process, made on the thread that finalizes; destroy the
/// executors that send and receive before it.
class Environment {
 public:
  Environment(int& argc, char**& argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

 private:
  bool owns_ = false;
};

}  // namespace alloy::mpi
