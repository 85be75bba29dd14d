// Random slices sent between ranks over several rounds, each round's
// received bytes copied and scaled on the device before the next round
// sends them on, checked exactly against a model of every rank run on each
// rank. Run with mpiexec; the seed is printed and ALLOY_TEST_SEED replays it.
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "alloy/mpi/environment.hpp"
#include "alloy/mpi/messages.hpp"
#include "rank_setup.hpp"

namespace alloy::test {
namespace {

constexpr int elements = 1024;
constexpr int rounds = 4;

struct Message {
  int from = 0, to = 0;       // ranks
  int first = 0, count = 1;   // what the sender sends: data[first, first + count)
  int at = 0;                 // where it lands: inbox[at, at + count), then data[at, ...)
};

struct Round {
  std::vector<Message> messages;
  std::uint32_t factor = 1, offset = 0;
};

std::vector<Round> random_rounds(std::uint64_t seed, int ranks) {
  std::mt19937_64 random(seed);
  std::vector<Round> program(rounds);
  for (Round& round : program) {
    round.factor = 1 + static_cast<std::uint32_t>(random() % 7);
    round.offset = static_cast<std::uint32_t>(random() % 1000);
    const int count = 1 + static_cast<int>(random() % 12);
    for (int m = 0; m < count; ++m) {
      Message message;
      message.from = static_cast<int>(random() % ranks);
      message.to = static_cast<int>(random() % ranks);  // a rank may send to itself
      message.count = random() % 3 == 0 ? 1 + static_cast<int>(random() % elements)
                                        : 1 + static_cast<int>(random() % 64);
      message.first = static_cast<int>(random() % (elements - message.count + 1));
      message.at = static_cast<int>(random() % (elements - message.count + 1));
      round.messages.push_back(message);
    }
  }
  return program;
}

std::uint32_t initial_value(int rank, int i) { return static_cast<std::uint32_t>(rank * 100003 + i * 7 + 1); }

/// Every rank's data after the program, computed in order on the host.
std::vector<std::vector<std::uint32_t>> model(const std::vector<Round>& program, int ranks) {
  std::vector<std::vector<std::uint32_t>> data(ranks, std::vector<std::uint32_t>(elements));
  for (int r = 0; r < ranks; ++r) {
    for (int i = 0; i < elements; ++i) data[r][i] = initial_value(r, i);
  }
  for (const Round& round : program) {
    std::vector<std::vector<std::uint32_t>> inbox(ranks, std::vector<std::uint32_t>(elements));
    const auto sent = data;  // every send of a round reads the data before its receives land
    for (const Message& m : round.messages) {
      for (int i = 0; i < m.count; ++i) inbox[m.to][m.at + i] = sent[m.from][m.first + i];
    }
    for (const Message& m : round.messages) {
      for (int i = 0; i < m.count; ++i) data[m.to][m.at + i] = inbox[m.to][m.at + i];
    }
    for (auto& values : data) {
      for (auto& value : values) value = value * round.factor + round.offset;
    }
  }
  return data;
}

int run(int argc, char** argv) {
  mpi::Environment environment(argc, argv);
  const mpi::Communicator world;
  const std::uint64_t seed = shared_seed(world, "mpi exchange");
  int status = 0;
  {
    Runtime runtime;
    Device* device = device_of_rank(runtime, world);
    if (!device) return skipped;
    const std::vector<Round> program = random_rounds(seed, world.size());
    Buffer<std::uint32_t> data(elements);
    Buffer<std::uint32_t> inbox(elements);
    Buffer<std::uint32_t> sent(elements);  // a round's sends read this copy
    for (int i = 0; i < elements; ++i) data.host()[i] = initial_value(world.rank(), i);
    Executor executor(runtime, on_device(device));
    // The first round's sends find the data on the device, so they are
    // staged home: a kernel touches it first.
    executor.kernel(rank_kernels, "scale_range", {Extent(elements)}, {0, elements, 1u, 0u, read_write(data)});
    for (std::size_t r = 0; r < program.size(); ++r) {
      const Round& round = program[r];
      executor.kernel(rank_kernels, "copy_range", {Extent(elements)}, {0, 0, elements, read(data), write(sent)});
      for (std::size_t m = 0; m < round.messages.size(); ++m) {
        const Message& message = round.messages[m];
        const int tag = static_cast<int>(r * 100 + m);
        if (message.from == world.rank()) {
          mpi::send(executor, world, sent.slice(message.first, message.count), {message.to, tag});
        }
        if (message.to == world.rank()) {
          mpi::receive(executor, world, inbox.slice(message.at, message.count), {message.from, tag});
        }
      }
      for (const Message& message : round.messages) {
        if (message.to != world.rank()) continue;
        executor.kernel(rank_kernels, "copy_range", {Extent(message.count)},
                        {message.at, message.at, message.count, read(inbox.slice(message.at, message.count)),
                         write(data.slice(message.at, message.count))});
      }
      executor.kernel(rank_kernels, "scale_range", {Extent(elements)},
                      {0, elements, round.factor, round.offset, read_write(data)});
    }
    executor.synchronize(data);
    mpi::wait_or_abort(executor, world);
    const std::vector<std::uint32_t> expected = model(program, world.size())[world.rank()];
    int wrong = 0;
    for (int i = 0; i < elements; ++i) {
      if (data.host()[i] == expected[i]) continue;
      if (wrong++ == 0) {
        std::fprintf(stderr, "%s, seed %llu: data[%d] is %u, expected %u\n", world.label().c_str(),
                     static_cast<unsigned long long>(seed), i, data.host()[i], expected[i]);
      }
    }
    if (wrong > 0) {
      std::fprintf(stderr, "%s: %d of %d elements wrong\n", world.label().c_str(), wrong, elements);
      status = 1;
    }
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, world.handle());
  if (world.rank() == 0 && worst == 0) std::printf("every rank's %d elements match the model\n", elements);
  return worst;
}

}  // namespace
}  // namespace alloy::test

int main(int argc, char** argv) { return alloy::test::run(argc, argv); }
