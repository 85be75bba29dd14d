// One checked-call helper for MPI's result codes (internal to alloy::mpi).
#pragma once

#include <mpi.h>

#include <string>

#include "alloy/error.hpp"

namespace alloy::mpi::detail {

/// Throws BackendError("MPI", call, code, MPI's text for it, where, hint)
/// unless `code` is MPI_SUCCESS. Only calls on a communicator whose error
/// handler returns errors come back here; MPI's default ends the job.
inline void check_mpi(int code, const char* call, const std::string& where) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw BackendError("MPI", call, code, std::string(text, static_cast<std::size_t>(length)), where,
                     "see the MPI library's documentation for the code; check that every rank posts the same "
                     "messages");
}

}  // namespace alloy::mpi::detail
