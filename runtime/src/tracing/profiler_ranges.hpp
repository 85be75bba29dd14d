// Named ranges for the vendor profilers users already have: NVTX for Nsight
// Systems, roctx for rocprof. Each task the executor runs is one range on
// the thread that submits or runs it (internal to the runtime).
#pragma once

#include <string>

namespace alloy::detail {

/// Whether some profiler takes ranges: Nsight Systems has injected its NVTX
/// library (NVTX_INJECTION64_PATH), or libroctx64 could be opened. Decided
/// once per process.
bool profiler_listening();

/// One range, from construction to destruction, on this thread; `name` is
/// called only when a profiler listens, so that building it costs nothing
/// otherwise.
class ProfilerRange {
 public:
  template <class Name>
  explicit ProfilerRange(Name&& name) : pushed_(profiler_listening()) {
    if (pushed_) push(name());
  }
  ~ProfilerRange() {
    if (pushed_) pop();
  }
  ProfilerRange(const ProfilerRange&) = delete;
  ProfilerRange& operator=(const ProfilerRange&) = delete;

 private:
  static void push(const std::string& name);
  static void pop();
  bool pushed_;
};

}  // namespace alloy::detail
