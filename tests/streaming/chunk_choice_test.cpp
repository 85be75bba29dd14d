// The pure parts of a pipeline's choices: the chunk size a lane model
// predicts fastest, the host-memory route measured times point to, and
// whether staged chunks kept up with what was measured before the run.
#include <doctest/doctest.h>

#include "streaming/chunk_sizing.hpp"
#include "streaming/host_memory_route.hpp"
#include "streaming/pipeline_report.hpp"
#include "streaming/staging_check.hpp"

namespace alloy::detail {
namespace {

/// Appends a command of `chunk` on device 0 that took `ns` on `lane`.
void add_command(StreamedChunks& measured, std::size_t chunk, Lane lane, std::uint64_t ns) {
  measured.commands.push_back({TaskId{measured.commands.size()}, 0, lane, 1000, 1000 + ns});
  measured.chunk_of_command.push_back(chunk);
}

}  // namespace

TEST_CASE("Streaming.ChunkSize.balances_fixed_costs_against_the_unoverlapped_ends") {
  // Each lane: 100 µs per chunk plus 1 ns per element; two copy engines.
  DeviceCost cost;
  cost.copy_in = cost.compute = cost.copy_out = {100e-6, 1e-9};
  cost.copy_engines = 2;
  const std::size_t elements = 100'000'000;
  const std::size_t chunk = best_chunk({cost}, elements, 1000, elements);
  // wall(c) = (N/c)(F + c s) + 2(F + c s): least near sqrt(N F / 2s) ≈ 2.2M.
  CHECK(chunk > 1'000'000);
  CHECK(chunk < 5'000'000);
  // No fixed cost: shorter is always a little faster (the ends shrink), but
  // a shorter chunk must win by 1% to be taken, as more commands cost the
  // host more than the model knows: the ends end up under 1% of the whole.
  DeviceCost free_chunks = cost;
  free_chunks.copy_in.fixed_s = free_chunks.compute.fixed_s = free_chunks.copy_out.fixed_s = 0;
  const std::size_t free_chunk = best_chunk({free_chunks}, elements, 1000, elements);
  CHECK(2.0 * static_cast<double>(free_chunk) < 0.01 * static_cast<double>(elements));
  CHECK(free_chunk > 1000);
  // Bounds hold: never above `largest` or the whole, never below `smallest`.
  CHECK(best_chunk({cost}, elements, 1000, 50'000) <= 50'000);
  CHECK(best_chunk({cost}, 10, 1000, elements) == 10);
}

TEST_CASE("Streaming.ChunkSize.fit_from_two_chunks_recovers_the_line") {
  StreamedChunks calibration;
  const std::vector<ChunkSpan> spans{{0, 1000}, {1000, 4000}};
  auto add = [&](std::size_t chunk, Lane lane, double seconds) {
    calibration.commands.push_back({{0}, 0, lane, 0, static_cast<std::uint64_t>(seconds * 1e9)});
    calibration.chunk_of_command.push_back(chunk);
  };
  add(0, Lane::copy_in, 10e-6 + 1000 * 2e-9);
  add(0, Lane::compute, 5e-6 + 1000 * 4e-9);
  add(0, Lane::copy_out, 10e-6 + 1000 * 2e-9);
  add(1, Lane::copy_in, 10e-6 + 4000 * 2e-9);
  add(1, Lane::compute, 5e-6 + 4000 * 4e-9);
  add(1, Lane::copy_out, 10e-6 + 4000 * 2e-9);
  const std::vector<DeviceCost> costs = fit_costs(calibration, spans, {1});
  REQUIRE(costs.size() == 1);
  CHECK(costs[0].copy_in.fixed_s == doctest::Approx(10e-6).epsilon(0.01));
  CHECK(costs[0].copy_in.per_element_s == doctest::Approx(2e-9).epsilon(0.01));
  CHECK(costs[0].compute.per_element_s == doctest::Approx(4e-9).epsilon(0.01));
  // One copy engine: both directions take turns.
  CHECK(costs[0].stage_s(1000) == doctest::Approx(costs[0].copy_in.at(1000) + costs[0].copy_out.at(1000)));
}

TEST_CASE("Streaming.HostMemory.the_route_follows_the_measured_times") {
  RouteTimes times;
  times.bytes = 1 << 22;
  times.pageable_s = 1.0;
  times.pinned_s = 1.0;
  times.host_copy_s = 0.5;
  CHECK(choose_route(times) == HostMemoryRoute::direct);  // as fast: nothing to gain
  times.pageable_s = 2.0;
  CHECK(choose_route(times) == HostMemoryRoute::staged);  // the host copy hides behind the transfer
  times.register_s = 0.1;
  times.host_copy_s = 1.5;
  CHECK(choose_route(times) == HostMemoryRoute::registered);
  times.register_s = 5.0;  // page-locking costs more than it saves
  CHECK(choose_route(times) == HostMemoryRoute::staged);
  times.host_copy_s = 3.0;
  CHECK(choose_route(times) == HostMemoryRoute::direct);
  CHECK(times.describe().find("registering") != std::string::npos);
}

TEST_CASE("Streaming.HostMemory.a_route_faster_by_less_than_the_noise_is_not_chosen") {
  RouteTimes times;
  times.bytes = 1 << 22;
  times.pageable_s = 1.0;
  times.pinned_s = 0.7;
  times.host_copy_s = 0.7;
  CHECK(choose_route(times) == HostMemoryRoute::staged);  // 30% faster on a quiet machine
  times.noise = 0.5;  // the samples spread by half their median: 30% is within it
  CHECK(choose_route(times) == HostMemoryRoute::direct);
  times.host_copy_s = times.pinned_s = 0.4;  // faster by more than the spread
  CHECK(choose_route(times) == HostMemoryRoute::staged);
}

TEST_CASE("Streaming.HostMemory.staging_is_dropped_when_its_chunks_ran_slower_than_direct_was_measured") {
  // Before the run: 1 MB went direct in 1 ms (1 GB/s), pinned in 0.25 ms,
  // and the host copied it in 0.5 ms: staging, twice as fast, was chosen.
  RouteTimes before;
  before.bytes = 1'000'000;
  before.pageable_s = 1e-3;
  before.pinned_s = 0.25e-3;
  before.host_copy_s = 0.5e-3;
  REQUIRE(choose_route(before) == HostMemoryRoute::staged);
  // Two chunks of 250,000 elements, 4 bytes in and 4 out per element: 2 MB
  // each way. Each copy took 0.25 ms per MB, as measured.
  StreamedChunks measured;
  for (std::size_t chunk : {0, 1}) {
    add_command(measured, chunk, Lane::copy_in, 250'000);
    add_command(measured, chunk, Lane::compute, 100'000);
    add_command(measured, chunk, Lane::copy_out, 250'000);
  }
  const std::vector<ChunkSpan> spans{{0, 250'000}, {250'000, 250'000}};
  // Host threads busy 2 ms for the 4 MB: 0.5 ms per MB, as measured.
  StagingObserved quiet = observe_staging(measured, spans, 4, 4, std::chrono::milliseconds(2));
  CHECK(quiet.bytes == 4'000'000);
  CHECK(quiet.host_s_per_byte == doctest::Approx(0.5e-9));
  CHECK(quiet.transfer_s_per_byte == doctest::Approx(0.25e-9));
  CHECK(staging_still_pays(before, quiet));
  CHECK(quiet.describe() == "staged 2.0 GB/s (host copies 2.0 GB/s, transfers 4.0 GB/s)");
  // A busy machine: the host threads took 6 ms, 1.5 ms per MB, slower than
  // the direct transfer's 1 ms: the rest goes direct.
  const StagingObserved busy = observe_staging(measured, spans, 4, 4, std::chrono::milliseconds(6));
  CHECK(busy.host_s_per_byte == doctest::Approx(1.5e-9));
  CHECK_FALSE(staging_still_pays(before, busy));
  // Slower transfers count too: copy-out at 1.25 ms per MB.
  measured.commands[2].ended_ns = measured.commands[5].ended_ns = 1000 + 1'250'000;
  const StagingObserved slow_out = observe_staging(measured, spans, 4, 4, std::chrono::milliseconds(2));
  CHECK(slow_out.transfer_s_per_byte == doctest::Approx(1.25e-9));
  CHECK_FALSE(staging_still_pays(before, slow_out));
}

TEST_CASE("Streaming.Report.the_bound_takes_each_lane_at_its_best_rate_whatever_the_chunks") {
  // Two chunks of 100 elements on device 0 (two copy engines): the second's
  // copy-in ran three times slower than the first's.
  StreamedChunks measured;
  add_command(measured, 0, Lane::copy_in, 100);
  add_command(measured, 0, Lane::compute, 50);
  add_command(measured, 0, Lane::copy_out, 50);
  add_command(measured, 1, Lane::copy_in, 300);
  add_command(measured, 1, Lane::compute, 50);
  add_command(measured, 1, Lane::copy_out, 50);
  const std::vector<ChunkSpan> spans{{0, 100}, {100, 100}};
  // Copy-in at 1 ns per element over all 200, then the last chunk's
  // compute and copy-out at 0.5 ns per element each.
  CHECK(chunk_free_bound(measured, spans, 0, 2, 100).count() == 200 + 50 + 50);
  // One copy engine: copy-in and copy-out take turns, then the last compute.
  CHECK(chunk_free_bound(measured, spans, 0, 1, 100).count() == 300 + 50);
  // One chunk of everything: filled and drained by the whole chunk, its
  // lanes one after the other; by a chunk of 50, as the same rates allow
  // streamed, which is what the one chunk is measured against.
  const std::vector<ChunkSpan> whole{{0, 200}, {200, 0}};
  StreamedChunks serial;
  add_command(serial, 0, Lane::copy_in, 200);
  add_command(serial, 0, Lane::compute, 100);
  add_command(serial, 0, Lane::copy_out, 100);
  CHECK(chunk_free_bound(serial, whole, 0, 2, 200).count() == 400);
  CHECK(chunk_free_bound(serial, whole, 0, 2, 50).count() == 200 + 25 + 25);
  CHECK(chunk_free_bound(measured, spans, 1, 2, 100).count() == 0);  // nothing ran on device 1
}

}  // namespace alloy::detail
