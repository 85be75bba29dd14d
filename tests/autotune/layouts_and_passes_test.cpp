// Harnesses for real kernels' data: a layout parameter that changes how the
// buffers lie on the device, checked against one host reference on the
// canonical order; and a kernel followed by a second pass in every run.
#include <numeric>
#include <string>

#include "alloy/autotune/evaluator.hpp"
#include "alloy/autotune/tuner.hpp"
#include "embedded/layouts_and_passes_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using autotune::BufferLayout;
using autotune::ElementOrder;
using autotune::HarnessArgument;
using autotune::HarnessBuffer;
using autotune::HostArray;
using autotune::Outcome;

ProgramSource source() { return {"layouts_and_passes.cl", std::string(alloy_kernels::layouts_and_passes_source), ""}; }

// LAYOUT 0, 1, 2: records as rows (an array of structures), as columns (a
// structure of arrays), and in blocks of four.
BufferLayout record_layout(std::int64_t fields) {
  return {"LAYOUT", {fields, {}, {}},
          {{0, {ElementOrder::Kind::rows, 1}}, {1, {ElementOrder::Kind::columns, 1}},
           {2, {ElementOrder::Kind::blocks, 4}}}};
}

// record_mix over problem[0] records.
autotune::TuningTarget records_target() {
  autotune::TuningTarget target;
  TunableKernel& kernel = target.kernel;
  kernel.name = "test.record_mix";
  kernel.source = source();
  kernel.kernel_name = "record_mix";
  kernel.parameters = {{"LAYOUT", {0, 1, 2}, 0, {"aos", "soa", "aosoa4"}}, {"WGS", {16, 32}, 16, {}}};
  kernel.launch = {{0, {}, {}, {1, {"WGS"}, {}}}};
  target.harness.buffers = {HarnessBuffer::input("in", {4, {}, {0}}), HarnessBuffer::checked_output("out", {2, {}, {0}})};
  target.harness.buffers[0].layout = record_layout(4);
  target.harness.buffers[1].layout = record_layout(2);
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::buffer(0), HarnessArgument::buffer(1)};
  // On records as the host holds them: an array of structures.
  target.harness.reference = [](const Extent&, const std::vector<HostArray>& buffers, std::vector<HostArray>& expected) {
    const std::span<const float> in = buffers[0].view<float>();
    const std::span<float> out = expected[0].view<float>();
    for (std::size_t r = 0; r < out.size() / 2; ++r) {
      out[2 * r] = in[4 * r] + in[4 * r + 1];
      out[2 * r + 1] = in[4 * r + 2] * in[4 * r + 3];
    }
  };
  return target;
}

// partial_sums then finish_sums: the sum of problem[0] uints, exactly.
autotune::TuningTarget two_pass_target() {
  autotune::TuningTarget target;
  TunableKernel& kernel = target.kernel;
  kernel.name = "test.two_pass_sum";
  kernel.source = source();
  kernel.kernel_name = "partial_sums";
  kernel.parameters = {{"ITEMS", {1, 4, 16}, 1, {}}, {"WGS", {16, 32}, 16, {}}};
  kernel.launch = {{0, {}, {1, {"ITEMS"}, {}}, {1, {"WGS"}, {}}}};
  target.harness.buffers = {
      HarnessBuffer::input("in", {1, {}, {0}}, HarnessBuffer::Fill::random, ScalarType::u32),
      HarnessBuffer::input("partials", {1, {}, {0}}, HarnessBuffer::Fill::zeros, ScalarType::u32),
      HarnessBuffer::checked_output("sum", {1, {}, {}}, {}, ScalarType::u32)};
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::buffer(0), HarnessArgument::buffer(1)};
  // One work-item: global = problem[0] / problem[0].
  target.harness.passes = {{"finish_sums",
                            {HarnessArgument::dimension(0), HarnessArgument::buffer(1), HarnessArgument::buffer(2)},
                            {{0, {}, {1, {}, {0}}, {1, {}, {}}}}}};
  target.harness.reference = [](const Extent&, const std::vector<HostArray>& buffers, std::vector<HostArray>& expected) {
    const std::span<const std::uint32_t> in = buffers[0].view<std::uint32_t>();
    expected[0].view<std::uint32_t>()[0] = std::accumulate(in.begin(), in.end(), std::uint32_t{0});
  };
  return target;
}

}  // namespace

TEST_CASE("Autotune.Evaluator.layouts_rearrange_inputs_and_map_outputs_back") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget target = records_target();
    autotune::Evaluator evaluator(runtime(), device, target, Extent(4096));
    for (std::int64_t layout : {0, 1, 2}) {
      const autotune::Measurement measurement = evaluator.measure({layout, 32});
      INFO("LAYOUT=" << layout << ": " << measurement.detail);
      CHECK(measurement.outcome == Outcome::ok);
    }
    // Without the layouts, the kernel's own order reads the wrong elements.
    autotune::TuningTarget unarranged = target;
    for (HarnessBuffer& buffer : unarranged.harness.buffers) buffer.layout.reset();
    autotune::Evaluator wrong(runtime(), device, unarranged, Extent(4096));
    CHECK(wrong.measure({0, 16}).outcome == Outcome::ok);
    CHECK(wrong.measure({1, 16}).outcome == Outcome::wrong_result);
    CHECK(wrong.measure({2, 16}).outcome == Outcome::wrong_result);
    // 4098 records are no whole blocks of four: that layout cannot run.
    autotune::Evaluator odd(runtime(), device, target, Extent(4098));
    const autotune::Measurement blocks = odd.measure({2, 16});
    CHECK(blocks.outcome == Outcome::invalid);
    CHECK(blocks.detail.find("blocks of 4") != std::string::npos);
    CHECK(odd.measure({1, 16}).outcome == Outcome::ok);
  });
}

TEST_CASE("Autotune.Evaluator.layout_without_a_host_reference_compares_canonically") {
  for_each_device([](Device& device) {
    // The default (LAYOUT=1) is the reference; the others agree with it
    // only once their outputs are put back in canonical order.
    autotune::TuningTarget target = records_target();
    target.harness.reference = nullptr;
    target.kernel.parameters[0].default_value = 1;
    autotune::Evaluator evaluator(runtime(), device, target, Extent(1024));
    CHECK(evaluator.measure({0, 16}).outcome == Outcome::ok);
    CHECK(evaluator.measure({2, 16}).outcome == Outcome::ok);
  });
}

TEST_CASE("Autotune.Tuner.layouts_through_search_and_confirmation") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget target = records_target();
    autotune::ResultsLog log({});
    autotune::TuneOptions options;
    options.strategy = "exhaustive";
    const autotune::TuningResult result = autotune::tune(runtime(), device, target, Extent(1 << 16), options, log);
    CHECK(result.outcomes.at(Outcome::ok) == 6);
    REQUIRE(result.best);
    MESSAGE("picked " << describe(target.kernel, *result.best) << " after " << result.confirmation_rounds
                      << " confirmation rounds on " << device.label());
  });
}

TEST_CASE("Autotune.Evaluator.second_pass_runs_in_every_evaluation") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget target = two_pass_target();
    const Extent size(100003);  // no ITEMS divides it
    autotune::Evaluator evaluator(runtime(), device, target, size);
    for (std::int64_t items : {1, 4, 16}) {
      const autotune::Measurement measurement = evaluator.measure({items, 16});
      INFO("ITEMS=" << items << ": " << measurement.detail);
      CHECK(measurement.outcome == Outcome::ok);
      CHECK(measurement.seconds > 0);
    }
    // The first pass alone leaves the sum unwritten.
    autotune::TuningTarget one_pass = target;
    one_pass.harness.passes.clear();
    autotune::Evaluator partial(runtime(), device, one_pass, size);
    CHECK(partial.measure({4, 16}).outcome == Outcome::wrong_result);
    // A pass the source lacks fails each configuration, naming it.
    autotune::TuningTarget misnamed = target;
    misnamed.harness.passes[0].kernel_name = "no_such_pass";
    autotune::Evaluator absent(runtime(), device, misnamed, size);
    const autotune::Measurement missing = absent.measure({4, 16});
    CHECK(missing.outcome == Outcome::compile_error);
    CHECK(missing.detail.find("no_such_pass") != std::string::npos);
  });
}

}  // namespace alloy::test
