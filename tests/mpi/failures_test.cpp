// How failures cross ranks. Run with mpiexec -n 2, with one mode:
//   size_mismatch  rank 0 sends 32 bytes, rank 1 receives 64: rank 1's task
//                  fails naming both sides; rank 0's send completes; both
//                  executors go on, and a second exchange works.
//   failing_task   rank 1's host task throws before rank 1 sends what rank 0
//                  waits to receive: wait_or_abort on rank 1 ends the job,
//                  naming the rank and the task, and rank 0 does not hang
//                  (tests/mpi/expect_abort.cmake checks exit code, message
//                  and time).
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "alloy/mpi/environment.hpp"
#include "alloy/mpi/messages.hpp"
#include "rank_setup.hpp"

namespace alloy::test {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int size_mismatch(const mpi::Communicator& world, Executor& executor) {
  Buffer<std::uint32_t> data(16);
  for (int i = 0; i < 16; ++i) data.host()[i] = static_cast<std::uint32_t>(world.rank() * 1000 + i);
  int status = 0;
  if (world.rank() == 0) {
    mpi::send(executor, world, data.slice(0, 8), {1, 5});
    executor.wait();  // completes: rank 1 takes the message all the same
  } else if (world.rank() == 1) {
    mpi::receive(executor, world, data.slice(0, 16), {0, 5});
    try {
      executor.wait();
      std::fprintf(stderr, "rank 1: a receive of 64 bytes matched a 32-byte message and did not fail\n");
      status = 1;
    } catch (const Error& error) {
      const std::string text = error.what();
      const bool names_both = contains(text, "rank 1 of 2 receives 64 bytes from rank 0 with tag 5") &&
                              contains(text, "which sent 32 bytes") && contains(text, "(async) failed");
      if (!names_both) {
        std::fprintf(stderr, "rank 1: the error does not name both sides: %s\n", text.c_str());
        status = 1;
      }
    }
  }
  // Both executors go on: a matching exchange now works.
  if (world.rank() == 0) mpi::send(executor, world, data.slice(0, 16), {1, 6});
  if (world.rank() == 1) mpi::receive(executor, world, data.slice(0, 16), {0, 6});
  executor.synchronize(data);
  executor.wait();
  if (world.rank() == 1) {
    for (int i = 0; i < 16; ++i) {
      if (data.host()[i] != static_cast<std::uint32_t>(i)) {
        std::fprintf(stderr, "rank 1: after the failure, element %d is %u, expected %d\n", i, data.host()[i], i);
        status = 1;
        break;
      }
    }
  }
  return status;
}

int failing_task(const mpi::Communicator& world, Executor& executor) {
  Buffer<std::uint32_t> data(16);
  if (world.rank() == 1) {
    TaskOptions named;
    named.name = "the step that fails";
    executor.host({read_write(data)}, [] { throw std::runtime_error("on purpose"); }, named);
    mpi::send(executor, world, data.whole(), {0, 1});  // depends on the failed task: never sent
  } else if (world.rank() == 0) {
    mpi::receive(executor, world, data.whole(), {1, 1});
  }
  mpi::wait_or_abort(executor, world);
  std::fprintf(stderr, "%s: wait_or_abort returned after a failure elsewhere\n", world.label().c_str());
  return 1;
}

int run(int argc, char** argv) {
  mpi::Environment environment(argc, argv);
  const mpi::Communicator world;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (world.size() != 2 || (mode != "size_mismatch" && mode != "failing_task")) {
    if (world.rank() == 0) std::fprintf(stderr, "usage: mpiexec -n 2 %s size_mismatch|failing_task\n", argv[0]);
    return 2;
  }
  int status = 0;
  {
    Runtime runtime;
    Device* device = device_of_rank(runtime, world);
    if (!device) return skipped;
    Executor executor(runtime, on_device(device));
    status = mode == "size_mismatch" ? size_mismatch(world, executor) : failing_task(world, executor);
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, world.handle());
  if (world.rank() == 0 && worst == 0) std::printf("%s: as expected on both ranks\n", mode.c_str());
  return worst;
}

}  // namespace
}  // namespace alloy::test

int main(int argc, char** argv) { return alloy::test::run(argc, argv); }
