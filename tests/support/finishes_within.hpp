// A deadlock reported as a failure after a time limit, not left to hang.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>

namespace alloy::test {

/// Runs `body` on a thread of its own; a body still running after `limit`
/// is a deadlock: reported, then the test executable ends, since a blocked
/// thread cannot be joined.
inline void finishes_within(std::chrono::seconds limit, const char* what, std::function<void()> body) {
  auto done = std::async(std::launch::async, std::move(body));
  if (done.wait_for(limit) != std::future_status::ready) {
    // doctest reports at the end of the case, which never comes.
    std::fprintf(stderr, "%s did not finish within %lld s: deadlock\n", what,
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::quick_exit(1);
  }
  done.get();
}

}  // namespace alloy::test
