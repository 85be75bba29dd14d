// Random task graphs over shared buffers and slices, run by the executor and
// compared with a sequential execution of the same tasks on the host. Each
// graph's seed is printed on failure; ALLOY_GRAPH_SEED=<seed> replays one.
#include <cstdlib>
#include <random>

#include "embedded/conformance_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};
constexpr int buffer_count = 3;
constexpr int elements = 96;

/// One task, applied either to the executor or to the host model.
struct Step {
  enum Kind { add, fill, copy, host_double } kind;
  int buffer = 0;
  int other = 0;  // copy source
  int first = 0;
  int count = 0;
  int from = 0;  // copy source offset
  int value = 0;
};

Step random_step(std::mt19937& random) {
  Step step;
  step.kind = static_cast<Step::Kind>(random() % 4);
  step.buffer = static_cast<int>(random() % buffer_count);
  step.other = static_cast<int>(random() % buffer_count);
  step.count = 1 + static_cast<int>(random() % elements);
  step.first = static_cast<int>(random() % (elements - step.count + 1));
  step.from = static_cast<int>(random() % (elements - step.count + 1));
  step.value = static_cast<int>(random() % 7) - 3;
  if (step.kind == Step::copy && step.other == step.buffer) step.from = step.first;  // no overlap puzzles
  return step;
}

void apply_on_host(const Step& step, std::vector<std::vector<int>>& model) {
  std::vector<int>& data = model[step.buffer];
  switch (step.kind) {
    case Step::add:
      for (int i = 0; i < step.count; ++i) data[step.first + i] += step.value;
      break;
    case Step::fill:
      for (int i = 0; i < step.count; ++i) data[step.first + i] = step.value;
      break;
    case Step::copy: {
      const std::vector<int> source = model[step.other];
      for (int i = 0; i < step.count; ++i) data[step.first + i] = source[step.from + i];
      break;
    }
    case Step::host_double:
      for (int i = 0; i < step.count; ++i) data[step.first + i] *= 2;
      break;
  }
}

/// Adds the step to an Executor (immediate mode) or to a Graph: both take
/// the same calls.
template <class Target>
void submit(const Step& step, Target& executor, std::vector<Buffer<int>>& buffers) {
  Buffer<int>& data = buffers[step.buffer];
  const BufferSlice slice = data.slice(step.first, step.count);
  switch (step.kind) {
    case Step::add:
      executor.kernel(conformance, "add_to_range", {Extent(round_up(step.count, 32))},
                      {step.first, step.count, step.value, read_write(slice)});
      break;
    case Step::fill:
      executor.fill(slice, step.value);
      break;
    case Step::copy:
      if (step.other == step.buffer && step.from == step.first) break;  // a no-op copy
      executor.copy(buffers[step.other].slice(step.from, step.count), slice);
      break;
    case Step::host_double:
      executor.host({read_write(slice)}, [&data, first = step.first, count = step.count] {
        for (int i = 0; i < count; ++i) data.host()[first + i] *= 2;
      });
      break;
  }
}

/// How a batch of random graphs is run.
struct Variant {
  std::vector<Device*> devices;
  SchedulingPolicy policy = SchedulingPolicy::round_robin;
  std::size_t device_memory_limit = 0;
  bool as_graph = false;  ///< built as a Graph, then run; else submitted one by one
};

/// Runs one random graph of `length` tasks and compares with the host model.
void check_graph(unsigned seed, int length, const Variant& variant) {
  CAPTURE(seed);
  std::mt19937 random(seed);
  std::vector<std::vector<int>> model(buffer_count, std::vector<int>(elements));
  std::vector<Buffer<int>> buffers;
  for (int b = 0; b < buffer_count; ++b) {
    for (int i = 0; i < elements; ++i) model[b][i] = b * 1000 + i;
    buffers.emplace_back(std::span<const int>(model[b]));
  }
  ExecutorOptions options;
  options.devices = variant.devices;
  options.policy = variant.policy;
  options.device_memory_limit = variant.device_memory_limit;
  Executor executor(runtime(), options);
  Graph graph;
  for (int t = 0; t < length; ++t) {
    const Step step = random_step(random);
    apply_on_host(step, model);
    if (variant.as_graph) {
      submit(step, graph, buffers);
    } else {
      submit(step, executor, buffers);
    }
  }
  if (variant.as_graph) executor.run(graph);
  for (int b = 0; b < buffer_count; ++b) executor.synchronize(buffers[b]);
  executor.wait();
  for (int b = 0; b < buffer_count; ++b) {
    CAPTURE(b);
    const auto host = buffers[b].host();
    REQUIRE(std::vector<int>(host.begin(), host.end()) == model[b]);
  }
}

int graph_count() {
  const char* count = std::getenv("ALLOY_RANDOM_GRAPHS");
  return count != nullptr ? std::atoi(count) : 1000;
}

void run_random_graphs(const Variant& variant, unsigned base_seed) {
  if (const char* replay = std::getenv("ALLOY_GRAPH_SEED")) {
    check_graph(static_cast<unsigned>(std::strtoul(replay, nullptr, 10)), 24, variant);
    return;
  }
  for (int g = 0; g < graph_count(); ++g) check_graph(base_seed + static_cast<unsigned>(g), 24, variant);
}

}  // namespace

TEST_CASE("Executor.Random.graphs_one_device") {
  if (!have_devices(1)) return;
  const std::vector<Device*> devices = selected_devices();
  run_random_graphs({.devices = {devices.front()}}, 1000000);
}

TEST_CASE("Executor.Random.graphs_two_devices") {
  if (!have_devices(2)) return;
  const std::vector<Device*> devices = selected_devices();
  run_random_graphs({.devices = {devices[0], devices[1]}}, 2000000);
}

// Whole graphs (issued in rank order, not submission order), placed by
// earliest finish time, with room for only two of the three buffers per
// device, so replicas are evicted and written back all the time.
TEST_CASE("Executor.Random.graphs_two_devices_earliest_finish_under_memory_cap") {
  if (!have_devices(2)) return;
  const std::vector<Device*> devices = selected_devices();
  run_random_graphs({.devices = {devices[0], devices[1]},
                     .policy = SchedulingPolicy::earliest_finish_time,
                     .device_memory_limit = 2 * elements * sizeof(int),
                     .as_graph = true},
                    3000000);
}

}  // namespace alloy::test
