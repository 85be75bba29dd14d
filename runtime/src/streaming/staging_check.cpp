// Staged chunks' rates against the direct route measured before the run.
#include "staging_check.hpp"

#include <algorithm>
#include <cstdio>

namespace alloy::detail {
namespace {

std::string gigabytes_per_second(double seconds_per_byte) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB/s", seconds_per_byte > 0 ? 1e-9 / seconds_per_byte : 0.0);
  return text;
}

}  // namespace

double StagingObserved::staged_s_per_byte() const { return std::max(host_s_per_byte, transfer_s_per_byte); }

std::string StagingObserved::describe() const {
  return "staged " + gigabytes_per_second(staged_s_per_byte()) + " (host copies " +
         gigabytes_per_second(host_s_per_byte) + ", transfers " + gigabytes_per_second(transfer_s_per_byte) + ")";
}

StagingObserved observe_staging(const StreamedChunks& measured, const std::vector<ChunkSpan>& spans,
                                std::size_t input_bytes, std::size_t output_bytes,
                                std::chrono::nanoseconds host_busy) {
  std::size_t elements = 0;
  for (const ChunkSpan& span : spans) elements += span.length;
  // A reduction's partials also come out on the copy-out lane: a few bytes
  // per chunk, left in the transfer time.
  std::chrono::nanoseconds copy_in{0};
  std::chrono::nanoseconds copy_out{0};
  for (const CommandTime& command : measured.commands) {
    if (command.lane == Lane::copy_in) copy_in += command.duration();
    if (command.lane == Lane::copy_out) copy_out += command.duration();
  }
  StagingObserved observed;
  const std::size_t in_bytes = elements * input_bytes;
  const std::size_t out_bytes = elements * output_bytes;
  observed.bytes = in_bytes + out_bytes;
  const auto per_byte = [](std::chrono::nanoseconds time, std::size_t bytes) {
    return bytes == 0 ? 0.0 : static_cast<double>(time.count()) * 1e-9 / static_cast<double>(bytes);
  };
  observed.host_s_per_byte = per_byte(host_busy, observed.bytes);
  observed.transfer_s_per_byte = std::max(per_byte(copy_in, in_bytes), per_byte(copy_out, out_bytes));
  return observed;
}

bool staging_still_pays(const RouteTimes& before, const StagingObserved& observed) {
  if (before.bytes == 0 || observed.bytes == 0) return true;  // nothing to compare
  const double direct_s_per_byte = before.pageable_s / static_cast<double>(before.bytes);
  return observed.staged_s_per_byte() <= direct_s_per_byte;
}

}  // namespace alloy::detail
