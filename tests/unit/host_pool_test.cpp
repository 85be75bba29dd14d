// The host pool: threads idle for a while exit and are started again when
// work comes; a worker that would block past the pool's ceiling gets an
// error instead, and the pool runs on.
#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "executor/host_pool.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using namespace std::chrono_literals;

/// Polls `condition` until it holds or `limit` passed; says which.
template <class Condition>
bool becomes_true(Condition condition, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

/// Posts `count` items that each stay until all of them run at once.
void run_at_once(detail::HostPool& pool, int count) {
  std::atomic<int> arrived{0};
  std::atomic<int> finished{0};
  for (int i = 0; i < count; ++i) {
    pool.post([&] {
      ++arrived;
      becomes_true([&] { return arrived == count; }, 20s);
      ++finished;
    });
  }
  REQUIRE(becomes_true([&] { return finished == count; }, 20s));
  CHECK(arrived == count);
}

}  // namespace

TEST_CASE("HostPool.idle_threads_exit_and_work_starts_new_ones") {
  detail::HostPool pool(3, 3, 50ms);
  run_at_once(pool, 3);
  CHECK(pool.threads() == 3);
  CHECK(becomes_true([&] { return pool.threads() == 0; }, 20s));
  run_at_once(pool, 2);
  CHECK(pool.threads() >= 2);
}

TEST_CASE("HostPool.a_worker_blocking_past_the_ceiling_gets_an_error") {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<std::string> second_told;
  std::promise<void> first_blocked;
  std::promise<void> ran;
  // One task may run and one may block: the second to block is refused.
  // Made last, so that its threads are joined before what they use goes.
  detail::HostPool pool(1, 2);
  pool.post([&] {
    detail::HostPool::Blocked blocked;
    first_blocked.set_value();
    released.wait();
  });
  first_blocked.get_future().wait();
  pool.post([&] {
    try {
      detail::HostPool::Blocked blocked;
      second_told.set_value("");
    } catch (const Error& error) {
      second_told.set_value(error.what());
    }
  });
  auto told = second_told.get_future();
  REQUIRE(told.wait_for(20s) == std::future_status::ready);
  const std::string message = told.get();
  CHECK(message.find("host_thread_ceiling") != std::string::npos);
  CHECK(message.find("at most 2 host threads") != std::string::npos);
  CHECK(pool.threads() == 2);
  // The refused worker ran on: the pool still takes work.
  pool.post([&] { ran.set_value(); });
  CHECK(ran.get_future().wait_for(20s) == std::future_status::ready);
  release.set_value();
}

}  // namespace alloy::test
