// MPI_Init_thread and MPI_Finalize for a process that runs alloy executors.
#include "alloy/mpi/environment.hpp"

#include <mpi.h>

#include <string>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "mpi_check.hpp"

namespace alloy::mpi {
namespace {

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
  }
}

void require_multiple(int provided) {
  if (provided >= MPI_THREAD_MULTIPLE) return;
  throw Error(std::string("MPI provides ") + level_name(provided) +
              ", but alloy::mpi needs MPI_THREAD_MULTIPLE: executors call MPI from their async lanes while "
              "the program calls it too; use an MPI built with thread support (Open MPI's default)");
}

}  // namespace

Environment::Environment(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (initialized) {
    MPI_Query_thread(&provided);
  } else {
    detail::check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread",
                      "this process");
    owns_ = true;
  }
  try {
    require_multiple(provided);
  } catch (...) {
    if (owns_) MPI_Finalize();
    throw;
  }
}

Environment::~Environment() {
  if (!owns_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && MPI_Finalize() != MPI_SUCCESS) log_warning("alloy::mpi: MPI_Finalize failed");
}

}  // namespace alloy::mpi
