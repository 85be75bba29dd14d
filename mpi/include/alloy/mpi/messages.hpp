// Sending and receiving buffer slices between ranks as graph tasks.
#pragma once

#include <string>

#include "alloy/executor.hpp"
#include "alloy/graph.hpp"
#include "alloy/mpi/communicator.hpp"

namespace alloy::mpi {

/// Where a message's bytes travel from and to.
enum class MessagePath {
  /// Through the buffer's host memory: the executor brings the slice home
  /// (a receive's after it), overlapped with other work like any transfer;
  /// page-locked when the buffer was made pinned by a device.
  staged_through_host,
};
/// "staged through host memory".
std::string to_string(MessagePath path);
/// The path send and receive take on this build and MPI library: staged
/// through host memory, for now also with a CUDA- or ROCm-aware MPI.
MessagePath message_path();

/// One message between two ranks: who, and which tag.
struct Peer {
  int rank = 0;
  int tag = 0;
};

// Each is an async task (Graph::async): the executor orders it by its slice
// like any other task and starts it once the slice is current in host
// memory; MPI_Isend or the receive runs on the executor's async lane, which
// polls it (MPI_Test) with every other operation in flight, so no thread
// blocks on a message. The task is done when the message is: a send once
// MPI may reuse the bytes, a receive once they have landed in the slice.
//
// A receive whose slice is not the size of the message that matches it
// fails, naming both sides: the receiver's size and rank, the sender's size
// and rank ("rank 1 of 2 receives 4096 bytes from rank 0 with tag 3, which
// sent 2048"); the message is taken, so the sender does not wait for ever.
// Both are InvalidArgument at once for a peer outside the communicator.

TaskId send(Graph& graph, const Communicator& communicator, BufferSlice slice, Peer to, TaskOptions options = {});
TaskId receive(Graph& graph, const Communicator& communicator, BufferSlice slice, Peer from,
               TaskOptions options = {});
Run send(Executor& executor, const Communicator& communicator, BufferSlice slice, Peer to, TaskOptions options = {});
Run receive(Executor& executor, const Communicator& communicator, BufferSlice slice, Peer from,
            TaskOptions options = {});

/// Waits for the executor's work; if a task failed, ends the job naming
/// this rank and the failure (Communicator::abort), so that no other rank
/// hangs waiting for what this one will not send.
void wait_or_abort(Executor& executor, const Communicator& communicator);

}  // namespace alloy::mpi
