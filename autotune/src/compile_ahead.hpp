// Compiles programs on oneTBB workers ahead of their use (internal).
#pragma once

#include <tbb/task_group.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "alloy/backend/device.hpp"

namespace alloy::autotune::detail {

/// Each source handed to start() is compiled once, on a oneTBB worker; get()
/// returns it, waiting only for that compile (or compiling on the caller's
/// thread when it was never started). Candidates bypass the runtime's compile
/// cache: a search tries thousands, each used once, which the cache would
/// keep in memory and on disk for good. Sources travel through a
/// mutex-guarded queue, not in task captures, so every hand-over between
/// threads is visible to ThreadSanitizer. Thread-safe.
class CompileAhead {
 public:
  explicit CompileAhead(Device& device) : device_(device) {}
  ~CompileAhead();  ///< waits for running compiles
  CompileAhead(const CompileAhead&) = delete;
  CompileAhead& operator=(const CompileAhead&) = delete;

  void start(const ProgramSource& source);
  /// Throws what compiling threw (CompileError, ...).
  std::shared_ptr<Program> get(const ProgramSource& source);
  void wait_all();
  /// Forgets finished compiles, keeping memory flat over long runs.
  void forget(const ProgramSource& source);

 private:
  struct Job {
    ProgramSource source;
    bool started = false;
    bool done = false;
    std::shared_ptr<Program> program;
    std::exception_ptr error;
  };
  void run_next();

  Device& device_;
  // One for all instances, in static storage: it exists before any oneTBB
  // worker does, so a worker's first lock orders it after everything the
  // submitting thread wrote, this object's construction included. oneTBB's
  // own hand-over is invisible to ThreadSanitizer; a per-instance mutex,
  // made after the workers, would itself look like a race.
  static std::mutex mutex_;
  std::condition_variable done_;
  std::map<std::string, Job> jobs_;  // by options: the only part that varies
  std::deque<std::string> queue_;
  tbb::task_group group_;
};

}  // namespace alloy::autotune::detail
