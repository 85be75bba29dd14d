// Engines, streams and events of emulated devices.
#include "emulated_engines.hpp"

#include <algorithm>
#include <cmath>

namespace alloy::emulation {

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
  {
    std::unique_lock lock(mutex_);
    const std::pair<int, std::uint64_t> waiter{priority, arrivals_++};
    waiting_.insert(waiter);
    freed_.wait(lock, [&] { return !busy_ && *waiting_.begin() == waiter; });
    waiting_.erase(waiter);
    busy_ = true;
  }
  struct Releases {
    Engine& engine;
    ~Releases() { engine.release(); }
  } releases{*this};
  const auto start = std::chrono::steady_clock::now();
  if (work) work();
  std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                            std::chrono::duration<double>(busy)));
}

void Engine::release() {
  {
    std::lock_guard lock(mutex_);
    busy_ = false;
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
  if (record_number == recorded_) reached_ns_ = steady_now_ns();
  changed_.notify_all();
}

std::uint64_t StreamEvent::latest_record() const {
  std::lock_guard lock(mutex_);
  return recorded_;
}

void StreamEvent::wait_for(std::uint64_t record_number) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !outstanding_.contains(record_number); });
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
    commands_.push_back(std::move(command));
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
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return !commands_.empty() || stopping_; });
    if (commands_.empty()) return;  // stopping, with nothing left
    {
      std::function<void()> command = std::move(commands_.front());
      commands_.pop_front();
      lock.unlock();
      command();
    }  // what it held is released outside the lock too
    lock.lock();
    ++finished_;
    changed_.notify_all();
  }
}

}  // namespace alloy::emulation
