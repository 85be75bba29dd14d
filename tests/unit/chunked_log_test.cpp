// The sequence the executor's tasks and a trace's records live in: elements
// never move while others are appended, and clear() keeps the memory.
#include <memory>

#include "support/chunked_log.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

/// Counts the live instances of itself, to see clear() destroy them.
struct Counted {
  explicit Counted(int v, int& live_count) : value(v), live(&live_count) { ++*live; }
  Counted(Counted&& other) noexcept : value(other.value), live(other.live) { ++*live; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted() { --*live; }
  int value;
  int* live;
};

}  // namespace

TEST_CASE("Unit.ChunkedLog.elements_stay_where_they_are_while_others_are_appended") {
  detail::ChunkedLog<int> log;
  const int& first = log.emplace_back(7);
  for (int i = 1; i < 5000; ++i) log.push_back(i);  // several chunks
  CHECK(&log[0] == &first);
  CHECK(first == 7);
  REQUIRE(log.size() == 5000);
  bool in_order = true;
  for (int i = 1; i < 5000; ++i) in_order = in_order && log[i] == i;
  CHECK(in_order);
  long long sum = 0;
  log.for_each([&](int value) { sum += value; });
  CHECK(sum == 7 + 4999LL * 5000 / 2);
}

TEST_CASE("Unit.ChunkedLog.clear_destroys_the_elements_and_keeps_the_memory") {
  int live = 0;
  detail::ChunkedLog<Counted> log;
  for (int i = 0; i < 3000; ++i) log.emplace_back(i, live);
  CHECK(live == 3000);
  const Counted* first = &log[0];
  log.clear();
  CHECK(live == 0);
  CHECK(log.size() == 0);
  int visited = 0;
  log.for_each([&](const Counted&) { ++visited; });
  CHECK(visited == 0);
  // The next elements go where the first chunk's were: no allocation.
  CHECK(&log.emplace_back(42, live) == first);
  CHECK(log[0].value == 42);
  CHECK(live == 1);
}

}  // namespace alloy::test
