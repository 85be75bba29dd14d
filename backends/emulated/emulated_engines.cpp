// Engines, streams and events of emulated devices.
#include "emulated_engines.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace alloy::emulation {
namespace {

using Clock = std::chrono::steady_clock;

/// Of the command a stream's thread runs (Stream::work): when it became
/// ready on the modelled timeline, and where the engine it took ended it.
struct CommandTimes {
  Clock::time_point ready{};
  Clock::time_point end{};
};

/// Each stream thread's CommandTimes, found by thread id rather than through
/// thread_local storage: a ThreadSanitizer run of thousands of short-lived
/// stream threads in this dlopen'ed plugin crashed with the latter. Never
/// destroyed: streams may outlive statics.
struct Registry {
  std::mutex mutex;
  std::unordered_map<std::thread::id, CommandTimes*> times;
};

Registry& registry() {
  static Registry* const instance = new Registry;
  return *instance;
}

/// The calling stream thread's times; nullptr on any other thread.
CommandTimes* current_command() {
  Registry& known = registry();
  std::lock_guard lock(known.mutex);
  const auto found = known.times.find(std::this_thread::get_id());
  return found == known.times.end() ? nullptr : found->second;
}

/// Now on the modelled timeline: on a stream's thread, when its command
/// became ready there; elsewhere, the clock.
std::int64_t modelled_now_ns() {
  const CommandTimes* command = current_command();
  const Clock::time_point now = command == nullptr ? Clock::now() : command->ready;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
}

}  // namespace

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Engine::occupy(double seconds, const std::function<void()>& work, int priority) {
  // Within what a steady-clock duration holds (a year is far beyond any
  // model's figures; a model's checked numbers can still multiply past it).
  constexpr double longest = 365.0 * 24 * 3600;
  const double busy = std::isfinite(seconds) ? std::clamp(seconds, 0.0, longest) : 0.0;
  const Clock::time_point arrived = Clock::now();
  CommandTimes* const command = current_command();
  const Clock::time_point ready = command == nullptr ? arrived : std::min(command->ready, arrived);
  Clock::time_point start;
  {
    std::unique_lock lock(mutex_);
    const std::pair<int, std::uint64_t> waiter{priority, arrivals_++};
    waiting_.insert(waiter);
    freed_.wait(lock, [&] { return !busy_ && *waiting_.begin() == waiter; });
    waiting_.erase(waiter);
    busy_ = true;
    start = std::max(ready, free_at_);
  }
  Clock::time_point end = start;
  struct Releases {
    Engine& engine;
    Clock::time_point& end;
    ~Releases() { engine.release(end); }
  } releases{*this, end};
  // The work's own time counts where it is the longer, not how late the
  // thread got to it.
  const Clock::time_point work_started = Clock::now();
  if (work) work();
  end = start + std::max(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(busy)),
                         Clock::now() - work_started);
  std::this_thread::sleep_until(end);
  if (command != nullptr) {
    command->end = end;
    command->ready = end;  // a second engine the command takes follows
  }
}

void Engine::release(Clock::time_point end) {
  {
    std::lock_guard lock(mutex_);
    busy_ = false;
    free_at_ = end;
  }
  freed_.notify_all();
}

std::uint64_t StreamEvent::record() {
  std::lock_guard lock(mutex_);
  outstanding_.insert(++recorded_);
  return recorded_;
}

void StreamEvent::reached(std::uint64_t record_number) {
  // Notified under the lock: a waiter that sees it reached may drop its
  // reference at once.
  std::lock_guard lock(mutex_);
  if (outstanding_.erase(record_number) == 0) return;
  if (record_number == recorded_) reached_ns_ = modelled_now_ns();
  changed_.notify_all();
}

std::uint64_t StreamEvent::latest_record() const {
  std::lock_guard lock(mutex_);
  return recorded_;
}

void StreamEvent::wait_for(std::uint64_t record_number) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !outstanding_.contains(record_number); });
  CommandTimes* const command = current_command();
  if (command == nullptr || record_number == 0) return;  // not a stream's wait
  // A stream goes on no earlier than the point it waited for was reached
  // there; for an older record than the latest, from now.
  const Clock::time_point reached = record_number == recorded_ && reached_ns_ >= 0
                                        ? Clock::time_point(std::chrono::nanoseconds(reached_ns_))
                                        : Clock::now();
  command->end = std::max({command->end, command->ready, reached});
}

bool StreamEvent::pending() const {
  std::lock_guard lock(mutex_);
  return outstanding_.contains(recorded_);
}

std::int64_t StreamEvent::reached_ns() const {
  std::lock_guard lock(mutex_);
  return outstanding_.contains(recorded_) ? -1 : reached_ns_;
}

Stream::Stream(int device, int priority) : device_(device), priority_(priority), worker_([this] { work(); }) {}

Stream::~Stream() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void Stream::submit(std::function<void()> command) {
  {
    std::lock_guard lock(mutex_);
    commands_.push_back({std::move(command), Clock::now()});
    ++submitted_;
  }
  changed_.notify_all();
}

void Stream::drain() {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = submitted_;
  changed_.wait(lock, [&] { return finished_ >= target; });
}

void Stream::work() {
  CommandTimes times;
  Registry& known = registry();
  {
    std::lock_guard lock(known.mutex);
    known.times[std::this_thread::get_id()] = &times;
  }
  std::unique_lock lock(mutex_);
  Clock::time_point last_end{};  // of the previous command, modelled
  for (;;) {
    changed_.wait(lock, [&] { return !commands_.empty() || stopping_; });
    if (commands_.empty()) break;  // stopping, with nothing left
    {
      Command command = std::move(commands_.front());
      commands_.pop_front();
      lock.unlock();
      times.ready = std::max(command.submitted, last_end);
      times.end = {};
      command.run();
      // A command that took no engine and did not wait (an event) took no time.
      last_end = times.end == Clock::time_point{} ? times.ready : times.end;
    }  // what it held is released outside the lock too
    lock.lock();
    ++finished_;
    changed_.notify_all();
  }
  lock.unlock();
  std::lock_guard registered(known.mutex);
  known.times.erase(std::this_thread::get_id());
}

}  // namespace alloy::emulation
