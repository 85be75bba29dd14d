// The completion lane: watches run in the order their events complete,
// whether the backend calls back or is polled; failures reach `done`; the
// lane's destructor waits for what was handed in.
#include <atomic>
#include <future>
#include <stdexcept>

#include "executor/completion_lane.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

/// An event completed by the test: with callbacks (as OpenCL, CUDA, HIP and
/// emulated devices have) or without (polled).
class ManualEvent final : public Event {
 public:
  explicit ManualEvent(bool calls_back) : calls_back_(calls_back) {}

  void complete(bool failed = false) {
    std::function<void()> callback;
    {
      std::lock_guard lock(mutex_);
      complete_ = true;
      failed_ = failed;
      callback = std::move(callback_);
    }
    if (callback) callback();
  }
  void wait() override {
    std::lock_guard lock(mutex_);
    if (!complete_) throw std::logic_error("wait() on a pending event: the lane must not block on one");
    if (failed_) throw Error("the command failed");
  }
  bool is_complete() const override {
    std::lock_guard lock(mutex_);
    return complete_;
  }
  EventTiming timing() override { return {}; }
  bool on_complete(std::function<void()> callback) override {
    if (!calls_back_) return false;
    {
      std::lock_guard lock(mutex_);
      if (!complete_) {
        callback_ = std::move(callback);
        return true;
      }
    }
    callback();
    return true;
  }

 private:
  const bool calls_back_;
  mutable std::mutex mutex_;
  bool complete_ = false;
  bool failed_ = false;
  std::function<void()> callback_;
};

/// Watches `first` then `second`, completes `second` only, and checks its
/// watch runs while `first` is still pending.
void later_watch_runs_first(bool first_calls_back, bool second_calls_back) {
  detail::CompletionLane lane;
  auto first = std::make_shared<ManualEvent>(first_calls_back);
  auto second = std::make_shared<ManualEvent>(second_calls_back);
  std::promise<void> first_done;
  std::promise<void> second_done;
  lane.watch({first}, [&](std::exception_ptr) { first_done.set_value(); });
  lane.watch({second}, [&](std::exception_ptr) { second_done.set_value(); });
  second->complete();
  REQUIRE(second_done.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  auto first_future = first_done.get_future();
  CHECK(first_future.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
  first->complete();
  CHECK(first_future.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
}

TEST_CASE("CompletionLane.a_watch_never_waits_behind_an_earlier_one") {
  SUBCASE("both call back") { later_watch_runs_first(true, true); }
  SUBCASE("both polled") { later_watch_runs_first(false, false); }
  SUBCASE("the earlier one polled") { later_watch_runs_first(false, true); }
  SUBCASE("the later one polled") { later_watch_runs_first(true, false); }
}

TEST_CASE("CompletionLane.done_gets_the_first_failure_once_every_event_completed") {
  detail::CompletionLane lane;
  auto ok = std::make_shared<ManualEvent>(true);
  auto failing = std::make_shared<ManualEvent>(false);
  std::promise<std::exception_ptr> done;
  // Handed over by moving: a copy would be released here after the test read it,
  // through a count that ThreadSanitizer cannot see (libstdc++ is not instrumented).
  lane.watch({ok, failing}, [&](std::exception_ptr failure) { done.set_value(std::move(failure)); });
  failing->complete(true);
  auto future = done.get_future();
  CHECK(future.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);  // `ok` is pending
  ok->complete();
  REQUIRE(future.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  const std::exception_ptr failure = future.get();
  REQUIRE(failure);
  CHECK_THROWS_WITH_AS(std::rethrow_exception(failure), "the command failed", Error);
}

TEST_CASE("CompletionLane.wait_for_callbacks_waits_for_every_earlier_watch") {
  detail::CompletionLane lane;
  auto slow = std::make_shared<ManualEvent>(true);
  std::atomic<int> finished{0};
  lane.watch({slow}, [&](std::exception_ptr) { ++finished; });
  lane.watch({}, [&](std::exception_ptr) { ++finished; });  // no events: ready at once
  const std::uint64_t mark = lane.handed_in();
  CHECK(mark == 2);
  std::thread completer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    slow->complete();
  });
  lane.wait_for_callbacks(mark);
  CHECK(finished == 2);
  completer.join();
}

TEST_CASE("CompletionLane.polls_async_operations_and_its_destructor_waits_for_them") {
  struct Countdown final : AsyncOperation {
    explicit Countdown(int tests) : left(tests) {}
    bool test() override { return --left <= 0; }
    int left;
  };
  std::atomic<int> done{0};
  {
    detail::CompletionLane lane;
    for (int i = 0; i < 3; ++i) {
      lane.post([i] { return std::make_unique<Countdown>(5 * (i + 1)); }, [&](std::exception_ptr failure) {
        CHECK(!failure);
        ++done;
      });
    }
    lane.post([]() -> std::unique_ptr<AsyncOperation> { return nullptr; },
              [&](std::exception_ptr failure) { CHECK(failure); });
  }
  CHECK(done == 3);
}

}  // namespace
}  // namespace alloy::test
