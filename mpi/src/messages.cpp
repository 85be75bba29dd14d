// Send and receive tasks: MPI's nonblocking calls, started and polled on the
// executor's async lane.
#include "alloy/mpi/messages.hpp"

#include <climits>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "alloy/error.hpp"
#include "mpi_check.hpp"

namespace alloy::mpi {
namespace {

using detail::check_mpi;

std::string describe(const char* verb, const Communicator& communicator, std::size_t bytes, const char* way, Peer peer) {
  return communicator.label() + " " + verb + " " + std::to_string(bytes) + " bytes " + way + " rank " +
         std::to_string(peer.rank) + " with tag " + std::to_string(peer.tag);
}

/// InvalidArgument for a peer outside the communicator, a tag MPI does not
/// take, or a slice larger than one MPI count can say.
void check_message(const char* verb, const Communicator& communicator, const BufferSlice& slice, Peer peer) {
  const std::string what = describe(verb, communicator, slice.range.size(), "to/from", peer);
  if (peer.rank < 0 || peer.rank >= communicator.size()) {
    throw InvalidArgument(what + ": no such rank; ranks are 0 to " + std::to_string(communicator.size() - 1));
  }
  int* tag_upper_bound = nullptr;
  int found = 0;
  MPI_Comm_get_attr(communicator.handle(), MPI_TAG_UB, &tag_upper_bound, &found);
  if (peer.tag < 0 || (found && peer.tag > *tag_upper_bound)) {
    throw InvalidArgument(what + ": tags are 0 to " + (found ? std::to_string(*tag_upper_bound) : "MPI_TAG_UB"));
  }
  if (slice.range.size() > static_cast<std::size_t>(INT_MAX)) {
    throw InvalidArgument(what + ": MPI 3.1 counts a message in an int; split it into messages of at most " +
                          std::to_string(INT_MAX) + " bytes");
  }
}

TaskOptions named(TaskOptions options, const char* verb, Peer peer) {
  if (options.name.empty()) {
    options.name = std::string(verb) + " rank " + std::to_string(peer.rank) + " tag " + std::to_string(peer.tag);
  }
  return options;
}

/// A request in flight; freed if its task goes before it completed.
class Request {
 public:
  Request() = default;
  ~Request() {
    if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
  }
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  MPI_Request* get() { return &request_; }
  bool test(const char* what, const std::string& where) {
    int done = 0;
    check_mpi(MPI_Test(&request_, &done, MPI_STATUS_IGNORE), what, where);
    return done != 0;
  }

 private:
  MPI_Request request_ = MPI_REQUEST_NULL;
};

class SendOperation final : public AsyncOperation {
 public:
  SendOperation(const Communicator& communicator, BufferSlice slice, Peer to)
      : where_(describe("sends", communicator, slice.range.size(), "to", to)) {
    check_mpi(MPI_Isend(slice.storage->host_data() + slice.range.begin, static_cast<int>(slice.range.size()),
                        MPI_BYTE, to.rank, to.tag, communicator.handle(), request_.get()),
              "MPI_Isend", where_);
  }
  bool test() override { return request_.test("MPI_Test of a send", where_); }

 private:
  std::string where_;
  Request request_;
};

/// Probes first (MPI_Improbe), so that a message of another size than the
/// slice is an error naming both sides rather than MPI's truncation error
/// or an unfilled tail; then receives the matched message (MPI_Imrecv).
class ReceiveOperation final : public AsyncOperation {
 public:
  ReceiveOperation(const Communicator& communicator, BufferSlice slice, Peer from)
      : communicator_(communicator), slice_(std::move(slice)), from_(from),
        where_(describe("receives", communicator, slice_.range.size(), "from", from)) {}

  bool test() override {
    if (!receiving_ && !matched()) return false;
    return request_.test("MPI_Test of a receive", where_);
  }

 private:
  /// True once the message is matched and its receive started.
  bool matched() {
    int found = 0;
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    check_mpi(MPI_Improbe(from_.rank, from_.tag, communicator_.handle(), &found, &message, &status), "MPI_Improbe",
              where_);
    if (!found) return false;
    int sent = 0;
    check_mpi(MPI_Get_count(&status, MPI_BYTE, &sent), "MPI_Get_count", where_);
    if (static_cast<std::size_t>(sent) != slice_.range.size()) {
      // Taken all the same: the sender's request completes, and nothing waits for ever.
      std::vector<std::byte> dropped(static_cast<std::size_t>(sent));
      check_mpi(MPI_Mrecv(dropped.data(), sent, MPI_BYTE, &message, MPI_STATUS_IGNORE), "MPI_Mrecv", where_);
      throw InvalidArgument(where_ + ", which sent " + std::to_string(sent) +
                            " bytes: a message and the slice receiving it must be the same size");
    }
    check_mpi(MPI_Imrecv(slice_.storage->host_data() + slice_.range.begin, sent, MPI_BYTE, &message, request_.get()),
              "MPI_Imrecv", where_);
    receiving_ = true;
    return true;
  }

  Communicator communicator_;
  BufferSlice slice_;
  Peer from_;
  std::string where_;
  bool receiving_ = false;
  Request request_;
};

}  // namespace

std::string to_string(MessagePath path) {
  switch (path) {
    case MessagePath::staged_through_host: return "staged through host memory";
  }
  return "unknown";
}

MessagePath message_path() { return MessagePath::staged_through_host; }

namespace {

/// A graph's task or an executor's one-task call: both take the same async call.
template <class Target>
auto add_send(Target& target, const Communicator& communicator, BufferSlice slice, Peer to, TaskOptions options) {
  check_message("sends", communicator, slice, to);
  AsyncStart start = [communicator, slice, to]() -> std::unique_ptr<AsyncOperation> {
    return std::make_unique<SendOperation>(communicator, slice, to);
  };
  return target.async({read(std::move(slice))}, std::move(start), named(std::move(options), "send to", to));
}

template <class Target>
auto add_receive(Target& target, const Communicator& communicator, BufferSlice slice, Peer from,
                 TaskOptions options) {
  check_message("receives", communicator, slice, from);
  AsyncStart start = [communicator, slice, from]() -> std::unique_ptr<AsyncOperation> {
    return std::make_unique<ReceiveOperation>(communicator, slice, from);
  };
  return target.async({write(std::move(slice))}, std::move(start), named(std::move(options), "receive from", from));
}

}  // namespace

TaskId send(Graph& graph, const Communicator& communicator, BufferSlice slice, Peer to, TaskOptions options) {
  return add_send(graph, communicator, std::move(slice), to, std::move(options));
}

TaskId receive(Graph& graph, const Communicator& communicator, BufferSlice slice, Peer from, TaskOptions options) {
  return add_receive(graph, communicator, std::move(slice), from, std::move(options));
}

Run send(Executor& executor, const Communicator& communicator, BufferSlice slice, Peer to, TaskOptions options) {
  return add_send(executor, communicator, std::move(slice), to, std::move(options));
}

Run receive(Executor& executor, const Communicator& communicator, BufferSlice slice, Peer from, TaskOptions options) {
  return add_receive(executor, communicator, std::move(slice), from, std::move(options));
}

void wait_or_abort(Executor& executor, const Communicator& communicator) {
  try {
    executor.wait();
  } catch (const std::exception& error) {
    communicator.abort(error.what());
  }
}

}  // namespace alloy::mpi
