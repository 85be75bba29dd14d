// Reports from traces written by hand, whose busy time, overlap, idle causes
// and diagnoses are known.
#include "alloy/utilization_report.hpp"

#include <nlohmann/json.hpp>

#include "alloy/trace_timeline.hpp"
#include "support/svg_text_bounds.hpp"
#include "support/test_devices.hpp"
#include "synthetic_trace.hpp"

namespace alloy::test {
namespace {

std::uint64_t idle(const DeviceUtilization& device, IdleCause cause) {
  return device.idle_by_cause[static_cast<std::size_t>(cause)];
}

std::vector<std::string> causes(const UtilizationReport& report) {
  std::vector<std::string> names;
  for (const Diagnosis& line : report.diagnoses) names.push_back(line.cause);
  return names;
}

}  // namespace

TEST_CASE("Report.busy_time_and_overlap_of_each_lane") {
  SyntheticTrace synthetic(1);
  synthetic.add(1, TraceKind::copy_in, 0, 0, 20);
  synthetic.kernel(2, 0, 20, 60, {1});
  synthetic.add(3, TraceKind::copy_in, 0, 40, 50);  // the next input, during the kernel
  synthetic.kernel(4, 0, 60, 100, {3});
  synthetic.add(5, TraceKind::copy_out, 0, 100, 110, {4});
  const UtilizationReport report = analyze(synthetic.trace());
  CHECK(report.window_ns == 110 * us);
  CHECK(report.tasks == 5);
  REQUIRE(report.devices.size() == 1);
  const DeviceUtilization& device = report.devices[0];
  CHECK(device.compute_ns == 80 * us);
  CHECK(device.busy == doctest::Approx(80.0 / 110));
  CHECK(device.copy_ns == 40 * us);
  CHECK(device.overlap_ns == 10 * us);
  CHECK(device.overlap == doctest::Approx(0.25));
  REQUIRE(device.lanes.size() == 3);
  CHECK(device.lanes[0].busy_ns == 80 * us);
  CHECK(device.lanes[1].busy_ns == 30 * us);
  CHECK(device.lanes[2].busy_ns == 10 * us);
  // Before the first kernel: its input; after the last: its output.
  CHECK(idle(device, IdleCause::transfer) == 30 * us);
  CHECK(device.gaps.size() == 2);
  REQUIRE(!report.diagnoses.empty());
  CHECK(report.diagnoses[0].cause == "transfer-bound");
  CHECK(report.diagnoses[0].saving_ns == 30 * us);
  CHECK(report.diagnoses[0].remedy.find("alloy::Pipeline") != std::string::npos);
}

TEST_CASE("Report.a_gap_is_split_among_host_tasks_submission_and_launch") {
  SyntheticTrace synthetic(1);
  synthetic.kernel(1, 0, 0, 10);
  synthetic.add(2, TraceKind::host, std::nullopt, 10, 50, {1});
  synthetic.kernel(3, 0, 55, 60, {2}).run_submitted_ns = 0;  // enqueued once the host task ended
  // The program submitted the next run at 80; it started at 90.
  TraceSlice& late = synthetic.kernel(4, 0, 90, 100);
  late.run_submitted_ns = 80 * us;
  late.enqueued_ns = 85 * us;
  const UtilizationReport report = analyze(synthetic.trace());
  const DeviceUtilization& device = report.devices[0];
  CHECK(idle(device, IdleCause::host_task) == 40 * us);
  CHECK(idle(device, IdleCause::launch) == (5 + 10) * us);
  CHECK(idle(device, IdleCause::submission) == 20 * us);
  CHECK(idle(device, IdleCause::transfer) == 0);
  REQUIRE(device.gaps.size() == 2);
  CHECK(device.gaps[0].main_cause() == IdleCause::host_task);
  CHECK(device.gaps[1].main_cause() == IdleCause::submission);
  CHECK(causes(report) == std::vector<std::string>{"host-task-bound", "submission-bound", "launch-bound"});
}

TEST_CASE("Report.compiling_is_a_cause_of_its_own_not_a_launch_gap") {
  SyntheticTrace synthetic(1);
  // The first kernel waited 130 us for its compile, then ran; the rest
  // started back to back.
  TraceSlice& compile = synthetic.add(1, TraceKind::compile, std::nullopt, 0, 130);
  compile.task.reset();
  compile.lane = "compile";
  synthetic.kernel(1, 0, 135, 140).run_submitted_ns = 0;
  for (std::uint64_t k = 2; k < 10; ++k) synthetic.kernel(k, 0, 140 + (k - 2) * 5, 145 + (k - 2) * 5).run_submitted_ns = 0;
  const UtilizationReport report = analyze(synthetic.trace());
  const DeviceUtilization& device = report.devices[0];
  CHECK(idle(device, IdleCause::compile) == 130 * us);
  CHECK(idle(device, IdleCause::launch) == 5 * us);
  REQUIRE(!report.diagnoses.empty());
  CHECK(report.diagnoses[0].cause == "compile-bound");
  CHECK(report.diagnoses[0].remedy.find("compile cache") != std::string::npos);
  CHECK(causes(report) != std::vector<std::string>{"launch-bound"});
}

TEST_CASE("Report.waiting_for_messages_is_communication_and_the_report_says_how_much_overlapped") {
  SyntheticTrace synthetic(1);
  synthetic.kernel(1, 0, 0, 40);
  // A message in flight from 10 to 90 (30 us of it beside the kernel); the
  // next kernel needs it. A second, overlapping one on its own track.
  TraceSlice& message = synthetic.add(2, TraceKind::async, std::nullopt, 10, 90);
  message.lane = "async 0";
  TraceSlice& other = synthetic.add(3, TraceKind::async, std::nullopt, 20, 60);
  other.lane = "async 1";
  synthetic.kernel(4, 0, 90, 100, {2}).run_submitted_ns = 0;
  const UtilizationReport report = analyze(synthetic.trace());
  const DeviceUtilization& device = report.devices[0];
  CHECK(idle(device, IdleCause::communication) == 50 * us);
  CHECK(idle(device, IdleCause::host_task) == 0);
  CHECK(report.communication_ns == 80 * us);
  CHECK(report.communication_overlap_ns == 30 * us);
  REQUIRE(!report.diagnoses.empty());
  CHECK(report.diagnoses[0].cause == "communication-bound");
  CHECK(report.to_text().find("communication: 80 us") != std::string::npos);
}

TEST_CASE("Report.a_program_that_streams_already_is_told_what_to_change_in_its_pipeline") {
  SyntheticTrace synthetic(1);
  synthetic.add(1, TraceKind::copy_in, 0, 0, 40).name = "task 1 'chunk 0: copy-in' (copy) of graph run 1";
  synthetic.kernel(2, 0, 40, 50, {1}).name = "task 2 'chunk 0: scale' (kernel) of graph run 1";
  synthetic.add(3, TraceKind::copy_out, 0, 50, 90, {2}).name = "task 3 'chunk 0: copy-out' (copy) of graph run 1";
  const UtilizationReport report = analyze(synthetic.trace());
  REQUIRE(!report.diagnoses.empty());
  CHECK(report.diagnoses[0].cause == "transfer-bound");
  CHECK(report.diagnoses[0].remedy.find("streams through alloy::Pipeline already") != std::string::npos);
  CHECK(report.diagnoses[0].remedy.find("PipelineOptions::depth") != std::string::npos);
  CHECK(report.diagnoses[0].remedy.find("stream the data through") == std::string::npos);
}

TEST_CASE("Report.a_host_task_two_steps_up_the_chain_is_still_waited_for") {
  SyntheticTrace synthetic(1);
  synthetic.kernel(1, 0, 0, 10);
  synthetic.add(2, TraceKind::host, std::nullopt, 10, 40, {1});
  synthetic.add(3, TraceKind::fill, 0, 40, 45, {2});
  synthetic.kernel(4, 0, 45, 50, {3});
  const DeviceUtilization device = analyze(synthetic.trace()).devices[0];
  CHECK(idle(device, IdleCause::host_task) == 30 * us);
  CHECK(idle(device, IdleCause::transfer) == 5 * us);
}

TEST_CASE("Report.many_short_kernels_are_launch_bound") {
  SyntheticTrace synthetic(1);
  for (std::uint64_t k = 0; k < 100; ++k) {
    synthetic.kernel(k, 0, k * 10, k * 10 + 2).run_submitted_ns = 0;  // all submitted at once
  }
  const UtilizationReport report = analyze(synthetic.trace());
  CHECK(report.devices[0].busy == doctest::Approx(200.0 / 992));
  CHECK(idle(report.devices[0], IdleCause::launch) == 99 * 8 * us);
  REQUIRE(!report.diagnoses.empty());
  CHECK(report.diagnoses[0].cause == "launch-bound");
  CHECK(report.diagnoses[0].finding.find("100 kernels of 2 us") != std::string::npos);
  CHECK(report.diagnoses[0].remedy.find("fewer, larger tasks") != std::string::npos);
}

TEST_CASE("Report.a_device_waiting_on_another_device") {
  SyntheticTrace synthetic(2);
  synthetic.kernel(1, 0, 0, 10);
  synthetic.kernel(2, 1, 10, 40, {1});
  synthetic.kernel(3, 0, 40, 50, {2});
  const UtilizationReport report = analyze(synthetic.trace());
  CHECK(idle(report.devices[0], IdleCause::other_device) == 30 * us);
  // Device 1 waits for device 0 first, then is done while device 0 computes.
  CHECK(idle(report.devices[1], IdleCause::other_device) == 10 * us);
  CHECK(idle(report.devices[1], IdleCause::starved) == 10 * us);
}

TEST_CASE("Report.one_device_starved_while_another_is_overloaded") {
  SyntheticTrace synthetic(2);
  for (std::uint64_t k = 0; k < 10; ++k) synthetic.kernel(k, 0, k * 10, k * 10 + 10);
  synthetic.kernel(10, 1, 0, 20);
  const UtilizationReport report = analyze(synthetic.trace());
  CHECK(report.devices[0].busy == doctest::Approx(1.0));
  CHECK(report.devices[1].busy == doctest::Approx(0.2));
  CHECK(idle(report.devices[1], IdleCause::starved) == 80 * us);
  REQUIRE(!report.diagnoses.empty());
  const Diagnosis& first = report.diagnoses[0];
  CHECK(first.cause == "placement");
  CHECK(first.saving_ns == (100 - 60) * us);  // balanced, each would compute 60
  CHECK(first.device == 1u);
  CHECK(first.remedy.find("earliest_finish_time") != std::string::npos);
}

TEST_CASE("Report.under_filled_and_untuned_kernels_ordered_by_saving") {
  SyntheticTrace synthetic(1, 8);
  synthetic.kernel(1, 0, 0, 80).work_groups = 2;       // 6 of 8 units idle: 60 to save
  synthetic.kernel(2, 0, 80, 180).profile_match = "defaults";  // assumed halved: 50
  synthetic.kernel(3, 0, 180, 200).work_groups = 64;
  const UtilizationReport report = analyze(synthetic.trace());
  REQUIRE(report.diagnoses.size() == 2);
  CHECK(report.diagnoses[0].cause == "under-filled");
  CHECK(report.diagnoses[0].saving_ns == 60 * us);
  CHECK(report.diagnoses[0].finding.find("as few as 2 work-groups on its 8 compute units") != std::string::npos);
  CHECK(report.diagnoses[1].cause == "untuned");
  CHECK(report.diagnoses[1].saving_ns == 50 * us);
  CHECK(report.diagnoses[1].remedy.find("autotune") != std::string::npos);
  REQUIRE(report.kernels.size() == 3);
  CHECK(report.kernels[0].kernel == "k2");  // most time first
  CHECK(report.kernels[0].profile_match == "defaults");
}

TEST_CASE("Report.kernels_on_a_profile_from_another_driver_are_diagnosed_stale") {
  SyntheticTrace synthetic(1, 8);
  synthetic.kernel(1, 0, 0, 500).profile_match = "other-driver";  // a tenth assumed saved: 50
  synthetic.kernel(2, 0, 500, 1000).profile_match = "device";
  const UtilizationReport report = analyze(synthetic.trace());
  REQUIRE(report.diagnoses.size() == 1);
  CHECK(report.diagnoses[0].cause == "stale-profile");
  CHECK(report.diagnoses[0].saving_ns == 50 * us);
  CHECK(report.diagnoses[0].finding.find("'k1'") != std::string::npos);
  CHECK(report.diagnoses[0].finding.find("another driver") != std::string::npos);
  CHECK(report.diagnoses[0].remedy.find("alloy-info --profiles") != std::string::npos);
}

TEST_CASE("Report.declared_work_gives_achieved_rates") {
  SyntheticTrace synthetic(1);
  TraceSlice& gemm = synthetic.kernel(1, 0, 0, 1000);
  gemm.flops = 2e6;  // 2 MFLOP in 1 ms: 2 GFLOP/s
  gemm.bytes = 4000000;
  const UtilizationReport report = analyze(synthetic.trace());
  REQUIRE(report.kernels.size() == 1);
  CHECK(*report.kernels[0].flops_per_second == doctest::Approx(2e9));
  CHECK(*report.kernels[0].bytes_per_second == doctest::Approx(4e9));
  CHECK(report.to_text().find("2 GFLOP/s") != std::string::npos);
}

TEST_CASE("Report.a_busy_device_has_nothing_to_fix") {
  SyntheticTrace synthetic(1);
  synthetic.kernel(1, 0, 0, 1000);
  synthetic.kernel(2, 0, 1000, 2000);
  const UtilizationReport report = analyze(synthetic.trace());
  REQUIRE(report.diagnoses.size() == 1);
  CHECK(report.diagnoses[0].cause == "none");
  CHECK(report.diagnoses[0].finding.find("100.0%") != std::string::npos);
}

TEST_CASE("Report.at_most_five_lines_largest_saving_first") {
  SyntheticTrace synthetic(2, 8);
  std::uint64_t at = 0;
  // On device 0, one of each: a copy, a host task, a late submission, a launch gap.
  synthetic.kernel(1, 0, at, at + 10);
  synthetic.add(2, TraceKind::copy_in, 0, 10, 60);
  synthetic.kernel(3, 0, 60, 70, {2});
  synthetic.add(4, TraceKind::host, std::nullopt, 70, 110, {3});
  synthetic.kernel(5, 0, 110, 120, {4}).run_submitted_ns = 0;
  TraceSlice& late = synthetic.kernel(6, 0, 150, 160);
  late.run_submitted_ns = 130 * us;
  late.work_groups = 1;
  synthetic.kernel(7, 0, 170, 180).profile_match = "defaults";
  synthetic.kernel(8, 1, 0, 5);  // starved device 1
  const UtilizationReport report = analyze(synthetic.trace());
  CHECK(report.diagnoses.size() == 5);
  for (std::size_t i = 1; i < report.diagnoses.size(); ++i) {
    CHECK(report.diagnoses[i - 1].saving_ns >= report.diagnoses[i].saving_ns);
  }
  CHECK(report.diagnoses[0].cause == "transfer-bound");
  const std::string text = report.to_text();
  CHECK(text.find("1. transfer-bound, up to 50 us to save") != std::string::npos);
  CHECK(text.find("6. ") == std::string::npos);
}

TEST_CASE("Report.json_carries_the_figures") {
  SyntheticTrace synthetic(1);
  synthetic.add(1, TraceKind::copy_in, 0, 0, 20);
  synthetic.kernel(2, 0, 20, 60, {1});
  const std::string json = analyze(synthetic.trace()).to_json();
  CHECK(json.find("\"compute_ns\": 40000") != std::string::npos);
  CHECK(json.find("\"transfers\": 20000") != std::string::npos);
  CHECK(json.find("\"cause\": \"transfer-bound\"") != std::string::npos);
}

TEST_CASE("Report.an_empty_trace") {
  const UtilizationReport report = analyze(SyntheticTrace(1).trace());
  CHECK(report.window_ns == 0);
  CHECK(report.devices[0].busy == 0);
  REQUIRE(report.diagnoses.size() == 1);
  CHECK(report.diagnoses[0].cause == "none");
}

TEST_CASE("Report.timeline_wraps_long_diagnoses_inside_the_picture") {
  SyntheticTrace synthetic(1);
  synthetic.kernel(1, 0, 0, 40);
  synthetic.kernel(2, 0, 60, 100);
  UtilizationReport report = analyze(synthetic.trace());
  // Findings and fixes of every length up to a few lines, in words of
  // every length from 1 to 12 characters.
  for (std::size_t length = 1; length <= 600; length += 37) {
    std::string text;
    for (std::size_t w = 0; text.size() < length; ++w) text += std::string(1 + w % 12, 'x') + ' ';
    report.diagnoses.push_back({"launch-bound", 0, 106'000, text, text});
  }
  CHECK(texts_past_the_edge(timeline_svg(synthetic.trace(), report)) == std::vector<std::string>{});
}

TEST_CASE("Report.time_held_back_for_critical_work_and_behind_other_jobs_kernels_are_causes_of_their_own") {
  SyntheticTrace synthetic(1);
  synthetic.kernel(1, 0, 0, 10);
  // Task 2 is held back while another job's critical work is pending, then
  // launched at 45 (enqueued as it starts).
  synthetic.held_back(2, 0, 10, 40, 1, 100);
  synthetic.kernel(2, 0, 45, 60).run_submitted_ns = 0;
  // Task 3 is handed in at 60 while other jobs have commands in flight and
  // starts at 90, behind them.
  TraceSlice& behind = synthetic.kernel(3, 0, 90, 100);
  behind.run_submitted_ns = 0;
  behind.enqueued_ns = 60 * us;
  behind.others_in_flight = 2;
  // Held back under a looser bound while its own kernel ran: no idle time.
  synthetic.held_back(4, 0, 92, 95, 2, 300);
  synthetic.kernel(4, 0, 100, 110).run_submitted_ns = 0;
  synthetic.device(0).memory_share = 4 << 20;
  synthetic.device(0).memory_peak = 3 << 20;
  const UtilizationReport report = analyze(synthetic.trace());
  CHECK(report.window_ns == 110 * us);
  const DeviceUtilization& device = report.devices[0];
  CHECK(device.compute_ns == 45 * us);  // held-back time is no lane's work
  CHECK(idle(device, IdleCause::held_back) == 30 * us);
  CHECK(idle(device, IdleCause::other_jobs) == 30 * us);
  CHECK(idle(device, IdleCause::launch) == 5 * us);
  REQUIRE(device.lanes.size() == 4);
  CHECK(device.lanes[3].lane == "held back");
  CHECK(device.lanes[3].busy_ns == 33 * us);
  CHECK(device.holds == 2);
  CHECK(device.tightest_bound_ns == 100 * us);
  CHECK(device.loosest_bound_ns == 300 * us);
  CHECK(causes(report) == std::vector<std::string>{"yielded-to-critical-work", "shared-device", "launch-bound"});
  CHECK(report.diagnoses[0].finding.find("held 2 tasks back") != std::string::npos);
  CHECK(report.diagnoses[1].remedy.find("critical") != std::string::npos);
  const std::string text = report.to_text();
  CHECK(text.find("yielded to critical work 30 us") != std::string::npos);
  CHECK(text.find("waited behind another job's kernels 30 us") != std::string::npos);
  CHECK(text.find("memory: at most 3.0 MiB of its 4.0 MiB share (75.0%)") != std::string::npos);
  CHECK(text.find("held work back 2 times for other jobs' critical work; in flight at most 100 us to 300 us "
                  "of predicted work") != std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(report.to_json());
  CHECK(json["devices"][0]["memory_share"] == 4 << 20);
  CHECK(json["devices"][0]["holds"] == 2);
  CHECK(json["devices"][0]["idle_ns"]["yielded to critical work"] == 30 * us);
}

}  // namespace alloy::test
