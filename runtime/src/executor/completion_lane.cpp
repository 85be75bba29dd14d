// The completion lane: device callbacks mark watches ready; its thread runs
// them, and polls what cannot call back.
#include "completion_lane.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "alloy/error.hpp"

namespace alloy::detail {

CompletionLane::~CompletionLane() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CompletionLane::start_thread() {
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
}

void CompletionLane::watch(std::vector<std::shared_ptr<Event>> events, Done done) {
  std::uint64_t number = 0;
  const std::vector<std::shared_ptr<Event>>* registering = nullptr;
  {
    std::lock_guard lock(mutex_);
    number = handed_in_++;
    const std::size_t count = events.size();
    auto [entry, inserted] = watches_.emplace(number, Watch{std::move(events), std::move(done), count + 1});
    // Nobody else touches the entry's events until the extra count is
    // dropped below, and map entries stay where they are.
    registering = &entry->second.events;
    start_thread();
  }
  for (const std::shared_ptr<Event>& event : *registering) {
    bool calls_back = false;
    try {
      calls_back = event->on_complete([this, number] { event_completed(number); });
    } catch (...) {
      // Not registered: polled instead, where is_complete() and wait() say
      // what is wrong with it.
    }
    if (!calls_back) {
      std::lock_guard lock(mutex_);
      to_poll_.push_back({number, event});
      changed_.notify_one();
    }
  }
  event_completed(number);  // every event registered: the watch may finish
}

void CompletionLane::post(AsyncStart start, Done done) {
  {
    std::lock_guard lock(mutex_);
    posted_.push_back({std::move(start), std::move(done)});
    start_thread();
  }
  changed_.notify_one();
}

std::uint64_t CompletionLane::handed_in() {
  std::lock_guard lock(mutex_);
  return handed_in_;
}

void CompletionLane::wait_for_callbacks(std::uint64_t mark) {
  std::unique_lock lock(mutex_);
  if (std::this_thread::get_id() == thread_.get_id()) return;
  watches_finished_.wait(lock, [&] { return watches_.empty() || watches_.begin()->first >= mark; });
}

void CompletionLane::event_completed(std::uint64_t number) {
  // Notified under the lock: a driver's thread calls this, and once the lock
  // is released the watch may finish and the lane go.
  std::lock_guard lock(mutex_);
  if (--watches_.at(number).outstanding == 0) {
    ready_.push_back(number);
    changed_.notify_one();
  }
}

void CompletionLane::loop() {
  std::vector<Polled> polled;
  std::vector<InFlight> in_flight;
  std::chrono::microseconds pause = shortest_pause;
  std::unique_lock lock(mutex_);
  for (;;) {
    const auto news = [&] { return !ready_.empty() || !posted_.empty() || !to_poll_.empty(); };
    if (polled.empty() && in_flight.empty()) {
      changed_.wait(lock, [&] { return news() || (stopping_ && watches_.empty()); });
      if (!news()) return;  // stopping, and nothing left
    } else if (!news()) {
      changed_.wait_for(lock, pause, news);
    }
    std::vector<std::uint64_t> ready = std::exchange(ready_, {});
    std::vector<Posted> posted = std::exchange(posted_, {});
    std::move(to_poll_.begin(), to_poll_.end(), std::back_inserter(polled));
    to_poll_.clear();
    lock.unlock();

    bool progress = !ready.empty() || !posted.empty();
    for (std::uint64_t number : ready) finish(number);
    start_all(std::move(posted), in_flight);
    progress = poll_events(polled) || progress;
    progress = poll_operations(in_flight) || progress;
    // A peer that answers in microseconds is polled that often; one that
    // keeps the lane waiting costs it a wake-up per millisecond at most.
    pause = progress ? shortest_pause : std::min(pause * 2, longest_pause);
    lock.lock();
  }
}

void CompletionLane::finish(std::uint64_t number) {
  std::vector<std::shared_ptr<Event>> events;
  Done done;
  {
    std::lock_guard lock(mutex_);
    Watch& watch = watches_.at(number);
    events = std::move(watch.events);
    done = std::move(watch.done);
  }
  std::exception_ptr failure;
  for (const auto& event : events) {
    try {
      event->wait();  // complete: returns at once, or throws its failure
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  events.clear();
  done(std::move(failure));  // told outside the handler (see start_all)
  done = nullptr;            // what it captured is released before wait_for_callbacks() returns
  {
    std::lock_guard lock(mutex_);
    watches_.erase(number);
  }
  watches_finished_.notify_all();
}

bool CompletionLane::poll_events(std::vector<Polled>& polled) {
  bool any = false;
  for (std::size_t i = 0; i < polled.size();) {
    bool complete = true;
    try {
      complete = polled[i].event->is_complete();
    } catch (...) {
      // A failed query: finish()'s wait() reports the failure.
    }
    if (!complete) {
      ++i;
      continue;
    }
    const std::uint64_t number = polled[i].watch;
    polled[i] = std::move(polled.back());
    polled.pop_back();
    event_completed(number);
    any = true;
  }
  return any;
}

void CompletionLane::start_all(std::vector<Posted> posted, std::vector<InFlight>& in_flight) {
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

bool CompletionLane::poll_operations(std::vector<InFlight>& in_flight) {
  bool any = false;
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
    any = true;
  }
  return any;
}

}  // namespace alloy::detail
