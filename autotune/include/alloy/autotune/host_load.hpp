// How busy the machine is with other processes' work. A tuner measuring on
// a CPU device shares the cores with them, and its times with their load;
// on a GPU, they compete for the host thread that launches.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace alloy::autotune {

/// Cumulative CPU time in clock ticks, over every core.
struct CpuTimes {
  std::uint64_t total = 0;  ///< every state
  std::uint64_t idle = 0;   ///< idle, and waiting for I/O
  std::uint64_t own = 0;    ///< this process, user and system
};

/// From the text of /proc/stat (its first, "cpu " line) and of
/// /proc/self/stat; nothing when either does not read as such.
std::optional<CpuTimes> parse_cpu_times(std::string_view proc_stat, std::string_view self_stat);

/// This machine's, now; nothing where /proc cannot be read.
std::optional<CpuTimes> read_cpu_times();

/// The share of the machine's CPU time between two readings that other
/// processes used: 0 when they left it idle, 1 when they kept every core busy.
double others_share(const CpuTimes& before, const CpuTimes& after);

/// Above this share, a tuning run says the machine was busy.
inline constexpr double busy_host_share = 0.25;

}  // namespace alloy::autotune
