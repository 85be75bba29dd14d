// Chunk size from measured lane costs: per chunk a fixed cost (launch,
// transfer set-up) and a cost per element; the best size balances the fixed
// costs of many chunks against the unoverlapped first and last chunk.
#include "chunk_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace alloy::detail {
namespace {

/// The line through (n1, t1) and (n2, t2), never negative.
LaneCost line(std::size_t n1, double t1, std::size_t n2, double t2) {
  LaneCost cost;
  if (n2 != n1) cost.per_element_s = std::max(0.0, (t2 - t1) / (static_cast<double>(n2) - static_cast<double>(n1)));
  cost.fixed_s = std::max(0.0, t1 - cost.per_element_s * static_cast<double>(n1));
  return cost;
}

}  // namespace

double DeviceCost::stage_s(std::size_t n) const {
  if (copy_engines >= 2) return std::max({copy_in.at(n), compute.at(n), copy_out.at(n)});
  return std::max(copy_in.at(n) + copy_out.at(n), compute.at(n));
}

double DeviceCost::fill_and_drain_s(std::size_t n) const {
  return copy_in.at(n) + compute.at(n) + copy_out.at(n) - stage_s(n);
}

std::vector<DeviceCost> fit_costs(const StreamedChunks& calibration, const std::vector<ChunkSpan>& spans,
                                  const std::vector<unsigned>& copy_engines) {
  // Per chunk, each lane's total (several arrays: several copies).
  struct LaneTimes {
    double copy_in = 0, compute = 0, copy_out = 0;
  };
  std::vector<LaneTimes> per_chunk(spans.size());
  for (std::size_t i = 0; i < calibration.commands.size(); ++i) {
    const CommandTime& command = calibration.commands[i];
    LaneTimes& times = per_chunk[calibration.chunk_of_command[i]];
    const double seconds = static_cast<double>(command.duration().count()) * 1e-9;
    if (command.lane == Lane::copy_in) times.copy_in += seconds;
    if (command.lane == Lane::compute) times.compute += seconds;
    if (command.lane == Lane::copy_out) times.copy_out += seconds;
  }
  // Per ring and chunk length, each lane's fastest sample: a first launch
  // or transfer of a size may carry one-time costs (PoCL compiles a kernel
  // variant per work-group size) that later chunks do not pay.
  const std::size_t devices = copy_engines.size();
  std::vector<std::map<std::size_t, LaneTimes>> fastest(devices);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    auto [at, first] = fastest[i % devices].emplace(spans[i].length, per_chunk[i]);
    if (first) continue;
    at->second.copy_in = std::min(at->second.copy_in, per_chunk[i].copy_in);
    at->second.compute = std::min(at->second.compute, per_chunk[i].compute);
    at->second.copy_out = std::min(at->second.copy_out, per_chunk[i].copy_out);
  }
  std::vector<DeviceCost> costs(devices);
  for (std::size_t ring = 0; ring < devices; ++ring) {
    costs[ring].copy_engines = copy_engines[ring];
    if (fastest[ring].size() < 2) continue;  // one length: no line to fit
    const auto& [n1, short_times] = *fastest[ring].begin();
    const auto& [n2, long_times] = *fastest[ring].rbegin();
    costs[ring].copy_in = line(n1, short_times.copy_in, n2, long_times.copy_in);
    costs[ring].compute = line(n1, short_times.compute, n2, long_times.compute);
    costs[ring].copy_out = line(n1, short_times.copy_out, n2, long_times.copy_out);
  }
  return costs;
}

std::size_t best_chunk(const std::vector<DeviceCost>& costs, std::size_t elements, std::size_t smallest,
                       std::size_t largest) {
  largest = std::max(std::min(largest, elements), std::size_t{1});
  smallest = std::min(std::max<std::size_t>(smallest, 1), largest);
  const std::size_t devices = std::max<std::size_t>(costs.size(), 1);
  std::size_t best = largest;
  double best_time = INFINITY;
  // Candidates a quarter apart, from the longest down.
  for (double candidate = static_cast<double>(largest); candidate >= static_cast<double>(smallest);
       candidate /= 1.25) {
    const auto n = static_cast<std::size_t>(candidate);
    const std::size_t chunks = (elements + n - 1) / n;
    const std::size_t per_device = (chunks + devices - 1) / devices;
    double slowest = 0.0;
    for (const DeviceCost& cost : costs) {
      slowest = std::max(slowest, static_cast<double>(per_device) * cost.stage_s(n) + cost.fill_and_drain_s(n));
    }
    // A choice must be clearly better to win over a longer chunk: fewer
    // commands cost less than the model knows (host work per task).
    if (slowest < best_time * 0.99) {
      best_time = slowest;
      best = n;
    }
  }
  return best;
}

CalibrationSizes calibration_sizes(std::size_t bytes_per_element) {
  const std::size_t per_element = std::max<std::size_t>(bytes_per_element, 1);
  // 256 KiB of slots: transfers that size already run near full speed.
  const std::size_t short_chunk = std::max<std::size_t>((std::size_t{256} << 10) / per_element, 1);
  return {short_chunk, 4 * short_chunk};
}

}  // namespace alloy::detail
