// Engines, streams and events of emulated devices.
#include "emulated_engines.hpp"

namespace alloy::emulation {

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Engine::occupy(double seconds, const std::function<void()>& work) {
  std::lock_guard lock(mutex_);
  const auto start = std::chrono::steady_clock::now();
  if (work) work();
  std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                            std::chrono::duration<double>(seconds)));
}

void StreamEvent::recorded() {
  std::lock_guard lock(mutex_);
  pending_ = true;
}

void StreamEvent::reached() {
  // Notified under the lock: whoever sees it reached may destroy it at once.
  std::lock_guard lock(mutex_);
  pending_ = false;
  reached_ns_ = steady_now_ns();
  changed_.notify_all();
}

void StreamEvent::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !pending_; });
}

bool StreamEvent::pending() const {
  std::lock_guard lock(mutex_);
  return pending_;
}

std::int64_t StreamEvent::reached_ns() const {
  std::lock_guard lock(mutex_);
  return reached_ns_;
}

Stream::Stream(int device) : device_(device), worker_([this] { work(); }) {}

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
  }
  changed_.notify_all();
}

void Stream::drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return commands_.empty() && !running_; });
}

void Stream::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return !commands_.empty() || stopping_; });
    if (commands_.empty()) return;  // stopping, with nothing left
    std::function<void()> command = std::move(commands_.front());
    commands_.pop_front();
    running_ = true;
    lock.unlock();
    command();
    lock.lock();
    running_ = false;
    changed_.notify_all();
  }
}

}  // namespace alloy::emulation
