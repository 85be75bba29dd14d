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

std::uint64_t StreamEvent::record() {
  std::lock_guard lock(mutex_);
  return ++recorded_;
}

void StreamEvent::reached(std::uint64_t record_number) {
  // Notified under the lock: a waiter that sees it reached may drop its
  // reference at once.
  std::lock_guard lock(mutex_);
  if (record_number <= reached_) return;
  reached_ = record_number;
  if (reached_ == recorded_) reached_ns_ = steady_now_ns();
  changed_.notify_all();
}

std::uint64_t StreamEvent::latest_record() const {
  std::lock_guard lock(mutex_);
  return recorded_;
}

void StreamEvent::wait_for(std::uint64_t record_number) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return reached_ >= record_number; });
}

bool StreamEvent::pending() const {
  std::lock_guard lock(mutex_);
  return reached_ < recorded_;
}

std::int64_t StreamEvent::reached_ns() const {
  std::lock_guard lock(mutex_);
  return reached_ < recorded_ ? -1 : reached_ns_;
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
    ++submitted_;
  }
  changed_.notify_all();
}

void Stream::drain() {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = submitted_;
  changed_.wait(lock, [&] { return finished_ >= target; });
}

bool Stream::idle() {
  std::lock_guard lock(mutex_);
  return finished_ == submitted_;
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
