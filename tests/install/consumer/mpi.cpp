// Built against an installed alloy::mpi: its headers, library and MPI come along.
#include <cstdio>

#include "alloy/mpi/environment.hpp"
#include "alloy/mpi/messages.hpp"

int main(int argc, char** argv) {
  alloy::mpi::Environment mpi(argc, argv);
  const alloy::mpi::Communicator world;
  std::printf("%s: messages %s\n", world.label().c_str(), alloy::mpi::to_string(alloy::mpi::message_path()).c_str());
  return 0;
}
