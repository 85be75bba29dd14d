// Failures reach the program once each and hold back only the tasks that
// touch what failed; bad input is refused where it is submitted: copies of
// no bytes, overlapping copies, slices made by hand, buffers of no bytes; and
// errors name a task as its graph knows it.
#include <map>
#include <mutex>
#include <regex>
#include <thread>

#include "embedded/conformance_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

/// Keeps the runtime's warnings while it lives.
class CapturedLog {
 public:
  CapturedLog() {
    previous_ = set_log_sink([this](LogLevel, std::string_view message) {
      std::lock_guard lock(mutex_);
      messages_.emplace_back(message);
    });
  }
  ~CapturedLog() { set_log_sink(previous_); }
  std::vector<std::string> messages() {
    std::lock_guard lock(mutex_);
    return messages_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
  LogSink previous_;
};

}  // namespace

TEST_CASE("Executor.Failures.each_is_reported_exactly_once") {
  if (!have_devices(1)) return;
  constexpr int failing = 50;
  CapturedLog log;
  std::vector<std::string> thrown;
  {
    Executor executor(runtime(), on_selected_devices());
    std::vector<Buffer<int>> buffers;
    for (int t = 0; t < failing; ++t) buffers.emplace_back(64);
    std::atomic<bool> submitted{false};
    // Half fail on the host, half when their launch is refused; the waits
    // run meanwhile, so failures come while earlier ones are unreported.
    std::thread submitter([&] {
      const std::size_t too_large = selected_devices().front()->info().max_work_group_size * 2;
      for (int t = 0; t < failing; ++t) {
        TaskOptions named;
        named.name = "failure " + std::to_string(t) + ".";
        if (t % 2 == 0) {
          executor.host({read_write(buffers[t])}, [] { throw std::runtime_error("on purpose"); }, named);
        } else {
          executor.kernel(conformance, "add_to_range", {Extent(too_large), Extent(too_large)},
                          {0, 64, 1, read_write(buffers[t])}, named);
        }
        std::this_thread::yield();
      }
      submitted = true;
    });
    for (bool last = false; !last;) {
      last = submitted;
      try {
        executor.wait();
      } catch (const Error& error) {
        thrown.emplace_back(error.what());
      }
    }
    submitter.join();
  }
  std::map<int, int> reports;  // failure number -> times reported
  const std::regex name(R"('failure (\d+)\.' \((host|kernel)\) failed)");
  auto count_in = [&](const std::string& text) {
    for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it) {
      ++reports[std::stoi((*it)[1])];
    }
  };
  for (const std::string& text : thrown) count_in(text);
  for (const std::string& text : log.messages()) count_in(text);
  for (int t = 0; t < failing; ++t) {
    CAPTURE(t);
    CHECK(reports[t] == 1);
  }
  CHECK(!thrown.empty());
}

TEST_CASE("Executor.Failures.errors_name_the_task_in_its_graph") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(64);
  executor.host({}, [] {});  // the executor's own count is ahead of the graph's
  Graph graph;
  graph.fill(data.whole(), 1);
  TaskOptions named;
  named.name = "breaks";
  graph.host({read(data)}, [] { throw std::runtime_error("on purpose"); }, named);
  executor.run(graph);
  CHECK_THROWS_WITH_AS(executor.wait(), doctest::Contains("task 1 'breaks' (host) of graph run 1 failed"),
                       Error);
}

// A failure travels to later tasks only through the bytes the failed task
// writes, and along edges the program asked for: a synchronize that throws
// keeps its failure to its caller, and a task that only read what a later
// one overwrites holds nothing back.
TEST_CASE("Executor.Failures.a_failed_synchronize_holds_back_only_its_caller") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(std::vector<int>(10, 1));
  TaskOptions named;
  named.name = "thrower";
  executor.host({write(data.slice(0, 5))}, [] { throw std::runtime_error("on purpose"); }, named);
  CHECK_THROWS_WITH_AS(executor.synchronize(data), doctest::Contains("task 0 'thrower' (host), which failed"),
                       Error);
  // Writes bytes the failed task never touched: it runs.
  executor.kernel(conformance, "add_to_range", {Extent(32)}, {5, 5, 7, read_write(data.slice(5, 5))});
  CHECK_NOTHROW(executor.synchronize(data.slice(5, 5)));
  for (int i = 5; i < 10; ++i) CHECK(data.host()[i] == 8);
  try {
    executor.wait();
    FAIL("wait() reported no failure");
  } catch (const Error& error) {
    const std::string what = error.what();
    CHECK(what.find("'thrower' (host) failed") != std::string::npos);
    CHECK(what.find("synchronize") == std::string::npos);
    CHECK(what.find("did not run") == std::string::npos);
  }
}

TEST_CASE("Executor.Failures.travel_through_written_bytes_and_asked_order_only") {
  if (!have_devices(1)) return;
  Buffer<int> data(std::vector<int>(8, 1));
  Buffer<int> other(std::vector<int>(8, 1));
  {
    Executor executor(runtime(), on_selected_devices());
    const Run reader =
        executor.host({read(data), write(other.slice(0, 1))}, [] { throw std::runtime_error("on purpose"); });
    // Overwrites only what the failed task read: runs.
    executor.fill(data.slice(0, 4), 5);
    // Reads what the failed task was to write: does not run.
    executor.kernel(conformance, "add_to_range", {Extent(32)}, {0, 2, 10, read_write(other.slice(0, 2))});
    // Asked to follow the failed task: does not run either.
    TaskOptions after_reader;
    after_reader.after = {reader.task()};
    executor.fill(data.slice(4, 4), 6, after_reader);
    try {
      executor.wait();
      FAIL("wait() reported no failure");
    } catch (const Error& error) {
      CHECK(std::string(error.what()).find("2 more") != std::string::npos);
    }
  }  // the executor brings the buffers home
  const std::vector<int> expected_data{5, 5, 5, 5, 1, 1, 1, 1};
  CHECK(std::vector<int>(data.host().begin(), data.host().end()) == expected_data);
  CHECK(other.host()[0] == 1);
  CHECK(other.host()[1] == 1);
}

TEST_CASE("Executor.Input.copy_of_no_bytes_does_nothing") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(16);
  executor.fill(data.whole(), 3);
  executor.copy(data.slice(4, 0), data.slice(8, 0));
  executor.fill(data.slice(0, 0), 9);
  executor.synchronize(data);
  for (int value : data.host()) CHECK(value == 3);
  executor.wait();
}

TEST_CASE("Executor.Input.overlapping_copy_is_refused_at_submission") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(16);
  CHECK_THROWS_WITH_AS(executor.copy(data.slice(0, 8), data.slice(4, 8)),
                       doctest::Contains("copy from bytes [0, 32) to bytes [16, 48) of the same buffer"),
                       InvalidArgument);
  CHECK_THROWS_AS(executor.copy(data.slice(2, 4), data.slice(2, 4)), InvalidArgument);
  executor.copy(data.slice(0, 8), data.slice(8, 8));  // adjacent is fine
  executor.wait();
}

TEST_CASE("Executor.Input.slice_made_by_hand_is_checked") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(16);
  const BufferSlice past_end{data.storage(), {32, 80}};
  const BufferSlice reversed{data.storage(), {40, 8}};
  CHECK_THROWS_WITH_AS(executor.fill(past_end, 1), doctest::Contains("bytes [32, 80) of a buffer of 64 bytes"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(executor.host({read(reversed)}, [] {}),
                       doctest::Contains("bytes [40, 8) of a buffer of 64 bytes"), InvalidArgument);
  Graph graph;
  CHECK_THROWS_AS(graph.host({read(past_end)}, [] {}), InvalidArgument);
  executor.fill(data.whole(), 2);  // still usable
  executor.synchronize(data);
  CHECK(data.host()[15] == 2);
}

TEST_CASE("Executor.Input.buffer_of_no_bytes") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> empty(0);
  Buffer<int> data(64);
  executor.fill(empty.whole(), 5);
  executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 0, 1, read_write(empty)});
  executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(data)});
  executor.synchronize(data);
  CHECK(data.host()[0] == 1);
  executor.wait();
}

}  // namespace alloy::test
