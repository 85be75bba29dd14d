// A stand-in for ROCm's libroctx64: records each range pushed and popped, per
// thread, for profiler_ranges_test to read back (fake_roctx_events).
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

namespace {

std::mutex mutex;
std::string events;  // one line per call: "<thread> push <name>" or "<thread> pop"

std::string thread_name() {
  std::ostringstream name;
  name << std::this_thread::get_id();
  return name.str();
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int roctxRangePushA(const char* message) {
  std::lock_guard lock(mutex);
  events += thread_name() + " push " + message + "\n";
  return 0;
}

__attribute__((visibility("default"))) int roctxRangePop() {
  std::lock_guard lock(mutex);
  events += thread_name() + " pop\n";
  return 0;
}

/// What was recorded so far; the caller frees the copy.
__attribute__((visibility("default"))) char* fake_roctx_events() {
  std::lock_guard lock(mutex);
  return strdup(events.c_str());
}
}
