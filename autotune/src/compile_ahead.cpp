// Compiling ahead on oneTBB workers.
#include "compile_ahead.hpp"

#include "alloy/error.hpp"
#include "compile_ahead_task.hpp"

namespace alloy::autotune::detail {

namespace {
std::string key_of(const ProgramSource& source) { return source.name + '\n' + source.options; }
}  // namespace

std::mutex CompileAhead::mutex_;

CompileAhead::~CompileAhead() { group_.wait(); }

void CompileAhead::start(const ProgramSource& source) {
  {
    std::lock_guard lock(mutex_);
    const std::string key = key_of(source);
    if (jobs_.count(key) != 0) return;
    Job job;
    job.source = source;
    jobs_.emplace(key, std::move(job));
    queue_.push_back(key);
  }
  group_.run(TbbTaskBody<CompileAhead, &CompileAhead::run_next>{this});
}

void CompileAhead::run_next() {
  std::string key;
  ProgramSource source;
  {
    std::lock_guard lock(mutex_);
    if (queue_.empty()) return;
    key = queue_.front();
    queue_.pop_front();
    Job& job = jobs_.at(key);
    job.started = true;
    source = job.source;
  }
  std::shared_ptr<Program> program;
  std::exception_ptr error;
  try {
    // Expected failures (a configuration that does not compile) are results
    // for the tuner, not errors to abort on under ALLOY_ABORT_ON_ERROR.
    const alloy::detail::HandledErrorScope handled;
    program = device_.build_program(source);
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    Job& job = jobs_.at(key);
    job.program = std::move(program);
    // Moved, not copied: the worker keeps no reference, so the thread that
    // drops the job's last one frees the exception. libstdc++ counts
    // exception_ptr references with atomics ThreadSanitizer does not see, so
    // a worker's late release looked like a race with the reader's copy.
    job.error = std::move(error);
    job.done = true;
  }
  done_.notify_all();
}

std::shared_ptr<Program> CompileAhead::get(const ProgramSource& source) {
  const std::string key = key_of(source);
  {
    std::unique_lock lock(mutex_);
    auto found = jobs_.find(key);
    if (found != jobs_.end()) {
      if (!found->second.started) {
        // Not picked up by a worker yet: compile it here rather than wait.
        std::erase(queue_, key);
        jobs_.erase(found);
      } else {
        done_.wait(lock, [&] { return jobs_.at(key).done; });
        const Job& job = jobs_.at(key);
        if (job.error) std::rethrow_exception(job.error);
        return job.program;
      }
    }
  }
  const alloy::detail::HandledErrorScope handled;
  return device_.build_program(source);
}

void CompileAhead::wait_all() { group_.wait(); }

void CompileAhead::forget(const ProgramSource& source) {
  std::lock_guard lock(mutex_);
  const auto found = jobs_.find(key_of(source));
  if (found != jobs_.end() && found->second.done) jobs_.erase(found);
}

}  // namespace alloy::autotune::detail
