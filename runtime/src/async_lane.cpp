// Starting and polling asynchronous operations on their own thread.
#include "async_lane.hpp"

#include <chrono>
#include <utility>

#include "alloy/error.hpp"

namespace alloy::detail {
namespace {

// Between two rounds of polls while something is in flight: short against
// a message's latency on a fast network (a few microseconds), long enough
// that a lane waiting on a slow peer does not take a core.
constexpr std::chrono::microseconds poll_interval{20};

}  // namespace

AsyncLane::~AsyncLane() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  posted_changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AsyncLane::post(AsyncStart start, Done done) {
  {
    std::lock_guard lock(mutex_);
    posted_.push_back({std::move(start), std::move(done)});
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  posted_changed_.notify_one();
}

void AsyncLane::loop() {
  std::vector<InFlight> in_flight;
  for (;;) {
    std::vector<Posted> posted;
    {
      std::unique_lock lock(mutex_);
      if (in_flight.empty()) {
        posted_changed_.wait(lock, [&] { return stopping_ || !posted_.empty(); });
        if (posted_.empty()) return;  // stopping, and nothing left
      } else {
        posted_changed_.wait_for(lock, poll_interval, [&] { return !posted_.empty(); });
      }
      posted.swap(posted_);
    }
    start_all(std::move(posted), in_flight);
    poll_all(in_flight);
  }
}

void AsyncLane::start_all(std::vector<Posted> posted, std::vector<InFlight>& in_flight) {
  for (Posted& next : posted) {
    std::exception_ptr failure;
    try {
      std::unique_ptr<AsyncOperation> operation = next.start();
      if (!operation) throw InvalidArgument("an asynchronous task's start gave no operation to poll");
      in_flight.push_back({std::move(operation), std::move(next.done)});
    } catch (...) {
      failure = std::current_exception();
    }
    // Told outside the handler, and handed over by moving: the handler's own
    // hold on the exception ends first, so the receiver holds the only one.
    // Told from inside, this thread would let go after the receiver had
    // shared it (a synchronize reading its message) and might free it then,
    // unseen by the lock the receiver reads it under.
    if (failure) next.done(std::move(failure));
  }
}

void AsyncLane::poll_all(std::vector<InFlight>& in_flight) {
  for (std::size_t i = 0; i < in_flight.size();) {
    std::exception_ptr failure;
    bool complete = false;
    try {
      complete = in_flight[i].operation->test();
    } catch (...) {
      failure = std::current_exception();
    }
    if (!complete && !failure) {
      ++i;
      continue;
    }
    InFlight finished = std::move(in_flight[i]);
    in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(i));
    finished.operation.reset();  // what it holds goes before dependents are told
    finished.done(std::move(failure));
  }
}

}  // namespace alloy::detail
