// A stream-model API table that emulates devices in host memory, for testing
// the CUDA/HIP backends' shared code without a GPU. It checks what real
// drivers would check (the right device current, memory of the right device)
// and can be told to fail calls, like a fault-injecting backend.
#pragma once

#include <memory>
#include <string>

#include "alloy/backend/device.hpp"
#include "stream_api.hpp"

namespace alloy::test {

/// Status codes of the host table; 0 is success.
enum HostStatus : stream::Status {
  host_success = 0,
  host_not_ready = 1,
  host_out_of_memory = 2,
  host_not_found = 3,
  host_wrong_device = 4,
  host_injected_failure = 5,
};

struct HostStreamOptions {
  int device_count = 2;
  std::size_t memory_bytes = std::size_t{64} << 20;  ///< per device
};

/// The table, for the given options. Its host kernels: `saxpy(int n, float a,
/// float* x, float* y)`, the sample's semantics, and `record_geometry(int*
/// out)`, which stores the grid and block it was launched with.
const stream::StreamApi& host_stream_api(const HostStreamOptions& options = {});

/// Events the table has created so far, and how many of them with timing.
struct HostEventCounts {
  std::size_t created = 0;
  std::size_t timed = 0;
};
HostEventCounts host_event_counts();

/// Makes the next call named `call` (e.g. "hostLaunch") fail once.
void fail_next_call(const std::string& call);

/// A platform over the host table, as a plugin would create it.
std::unique_ptr<Platform> host_stream_platform(const HostStreamOptions& options = {});

}  // namespace alloy::test
