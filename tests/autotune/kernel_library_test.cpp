// alloy's tunable kernels on every device: the default configuration and a
// seeded sample of the tuning space each match the harness's host reference.
// The sample's seed is printed; ALLOY_KERNEL_SEED=<seed> replays one.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "alloy/autotune/harness.hpp"
#include "alloy/autotune/search_space.hpp"
#include "alloy/kernel_library.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using autotune::Harness;
using autotune::HarnessArgument;
using autotune::HarnessBuffer;
using autotune::SearchSpace;
using autotune::TuningTarget;

using Contents = std::vector<std::vector<float>>;

const TuningTarget& target(const std::string& name) {
  const std::vector<TuningTarget>& targets = autotune::builtin_targets();
  const auto found = std::find_if(targets.begin(), targets.end(),
                                  [&](const TuningTarget& t) { return t.kernel.name == name; });
  REQUIRE_MESSAGE(found != targets.end(), "no built-in target " << name);
  return *found;
}

unsigned sample_seed() {
  if (const char* text = std::getenv("ALLOY_KERNEL_SEED")) {
    return static_cast<unsigned>(std::strtoul(text, nullptr, 10));
  }
  return std::random_device{}();
}

std::size_t element_count(const TuningTarget& t, const HarnessBuffer& buffer, const Extent& problem) {
  // Buffer sizes name problem dimensions only, so any configuration will do.
  return static_cast<std::size_t>(
      evaluate(t.kernel, buffer.elements, t.kernel.default_configuration(), problem));
}

/// Every buffer's initial contents, as the tuner would fill them.
Contents initial_contents(const TuningTarget& t, const Extent& problem) {
  std::mt19937 random(12345);
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  Contents contents;
  for (const HarnessBuffer& buffer : t.harness.buffers) {
    std::vector<float>& data = contents.emplace_back(element_count(t, buffer, problem), 0.0f);
    if (buffer.fill == HarnessBuffer::Fill::random) {
      for (float& value : data) value = values(random);
    }
  }
  return contents;
}

Contents expected_outputs(const TuningTarget& t, const Extent& problem, const Contents& initial) {
  Contents expected;
  for (std::size_t i = 0; i < t.harness.buffers.size(); ++i) {
    if (t.harness.buffers[i].output) expected.emplace_back(initial[i].size(), 0.0f);
  }
  t.harness.reference(problem, initial, expected);
  return expected;
}

/// Runs `configuration` on `device` and returns its output buffers; nothing
/// when the compiled kernel takes fewer work-items per group than the
/// configuration needs, which the launch must report as InvalidArgument.
std::optional<Contents> run(Device& device, const TuningTarget& t, const Configuration& configuration,
                            const Extent& problem, const Contents& initial) {
  auto queue = device.create_queue();
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  for (const std::vector<float>& data : initial) buffers.push_back(upload(device, *queue, data));
  std::vector<KernelArg> args;
  for (const HarnessArgument& argument : t.harness.arguments) {
    switch (argument.kind) {
      case HarnessArgument::Kind::buffer: args.push_back(KernelArg::from(*buffers[argument.index])); break;
      case HarnessArgument::Kind::problem_dimension:
        args.push_back(KernelArg::from(static_cast<int>(problem[static_cast<unsigned>(argument.index)])));
        break;
      case HarnessArgument::Kind::int_constant:
        args.push_back(KernelArg::from(static_cast<int>(argument.constant)));
        break;
      case HarnessArgument::Kind::float_constant:
        args.push_back(KernelArg::from(static_cast<float>(argument.constant)));
        break;
    }
  }
  auto program = runtime().program(device, configured_source(t.kernel, configuration));
  auto kernel = program->kernel(t.kernel.kernel_name);
  const LaunchRange range = configured_launch(t.kernel, configuration, problem);
  if (range.local->count() > kernel->attributes().max_work_group_size) {
    CHECK_THROWS_AS(queue->launch(*kernel, range, std::span<const KernelArg>(args)), InvalidArgument);
    return std::nullopt;
  }
  queue->launch(*kernel, range, std::span<const KernelArg>(args));
  Contents outputs;
  for (std::size_t i = 0; i < t.harness.buffers.size(); ++i) {
    if (t.harness.buffers[i].output) {
      outputs.push_back(download<float>(*queue, *buffers[i], initial[i].size()));
    }
  }
  return outputs;
}

void check_matches(const TuningTarget& t, const Contents& expected, const Contents& got) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t b = 0; b < expected.size(); ++b) {
    std::size_t wrong = 0;
    std::size_t first_wrong = 0;
    for (std::size_t i = 0; i < expected[b].size(); ++i) {
      const double e = expected[b][i];
      if (!(std::fabs(got[b][i] - e) <= t.harness.tolerance * (1 + std::fabs(e)))) {
        if (wrong++ == 0) first_wrong = i;
      }
    }
    INFO("output " << b << ": " << wrong << " of " << expected[b].size() << " elements wrong; first ["
                   << first_wrong << "] = " << got[b][first_wrong] << ", expected "
                   << expected[b][first_wrong]);
    CHECK(wrong == 0);
  }
}

/// The default configuration and `sample` more, drawn from the space with a
/// printed seed, each checked against the host reference on every device.
void check_target(const std::string& name, const Extent& problem, int sample) {
  const TuningTarget& t = target(name);
  t.kernel.validate();
  const unsigned seed = sample_seed();
  MESSAGE(name << " " << problem.to_string() << ": sample seed " << seed);
  const Contents initial = initial_contents(t, problem);
  const Contents expected = expected_outputs(t, problem, initial);
  for_each_device([&](Device& device) {
    const SearchSpace space(t.kernel, problem, DeviceLimits::of(device.info()));
    const std::optional<std::size_t> default_point = space.default_point();
    REQUIRE_MESSAGE(default_point, "the default " << describe(t.kernel, t.kernel.default_configuration())
                                                  << " is not valid for " << problem.to_string());
    std::vector<std::size_t> points{*default_point};
    std::mt19937 random(seed);
    for (int i = 0; i < sample; ++i) points.push_back(random() % space.size());
    int refused = 0;
    for (const std::size_t point : points) {
      const Configuration configuration = space.configuration(point);
      INFO(name << " " << describe(t.kernel, configuration) << " on " << device.label()
                << " (seed " << seed << ")");
      const std::optional<Contents> got = run(device, t, configuration, problem, initial);
      if (got) {
        check_matches(t, expected, *got);
      } else {
        ++refused;
      }
    }
    if (refused > 0) MESSAGE(refused << " configurations needed larger work-groups than compiled");
  });
}

}  // namespace

TEST_CASE("KernelLibrary.Descriptions.consistent") {
  // The harness's arguments follow the kernel's declared parameters, and
  // every default is the source's own and valid for the default problems.
  for (const TuningTarget& t : autotune::builtin_targets()) {
    CAPTURE(t.kernel.name);
    CHECK_NOTHROW(t.kernel.validate());
    const std::optional<KernelSignature> signature =
        find_kernel_signature(t.kernel.source.source, t.kernel.kernel_name);
    REQUIRE(signature);
    REQUIRE(signature->parameters.size() == t.harness.arguments.size());
    for (std::size_t i = 0; i < t.harness.arguments.size(); ++i) {
      const KernelParameter& parameter = signature->parameters[i];
      CAPTURE(parameter.name);
      switch (t.harness.arguments[i].kind) {
        case HarnessArgument::Kind::buffer:
          CHECK(parameter.kind == KernelParameter::Kind::global_pointer);
          break;
        case HarnessArgument::Kind::problem_dimension:
        case HarnessArgument::Kind::int_constant:
          CHECK(parameter.scalar_type == ScalarType::i32);
          break;
        case HarnessArgument::Kind::float_constant:
          CHECK(parameter.scalar_type == ScalarType::f32);
          break;
      }
    }
    for (const TuningParameter& parameter : t.kernel.parameters) {
      CAPTURE(parameter.name);
      const std::string define = "#define " + parameter.name + " " + std::to_string(parameter.default_value);
      CHECK(t.kernel.source.source.find(define) != std::string::npos);
    }
    for (const Extent& problem : t.default_problems) {
      CAPTURE(problem.to_string());
      CHECK_FALSE(check_configuration(t.kernel, t.kernel.default_configuration(), problem, {}));
    }
    CHECK_FALSE(t.description.empty());
  }
}

// Distinct M, N and K, so a swapped dimension shows.
TEST_CASE("KernelLibrary.Gemm.matches_host") { check_target("alloy.gemm", Extent(256, 128, 96), 12); }

// Neither side a multiple of any tile: the bounds checks are exercised.
TEST_CASE("KernelLibrary.Transpose.matches_host") { check_target("alloy.transpose", Extent(100, 37), 12); }

// Prime-ish n: the last group is partial for every WGS and WPT.
TEST_CASE("KernelLibrary.Reduce.matches_host") { check_target("alloy.reduce", Extent(100003), 12); }

TEST_CASE("KernelLibrary.Triad.matches_host") { check_target("alloy.triad", Extent(100003), 12); }

TEST_CASE("KernelLibrary.Launch.work_group_beyond_compiled_limit_is_refused") {
  // The space honours the device's work-group limit, but a compiled kernel
  // may take fewer (registers on a GPU). The largest group of each kernel,
  // launched anyway, either runs or is refused with InvalidArgument.
  for_each_device([](Device& device) {
    bool provoked = false;
    for (const TuningTarget& t : autotune::builtin_targets()) {
      const Extent problem = t.kernel.name == "alloy.gemm" ? Extent(256, 256, 64) : Extent(4096, 64);
      const Extent shaped = t.kernel.launch.size() == 1 ? Extent(problem[0] * problem[1]) : problem;
      const SearchSpace space(t.kernel, shaped, DeviceLimits::of(device.info()));
      REQUIRE(space.size() > 0);
      std::size_t largest = 0;
      std::size_t largest_group = 0;
      for (std::size_t point = 0; point < space.size(); ++point) {
        const std::size_t group =
            configured_launch(t.kernel, space.configuration(point), shaped).local->count();
        if (group > largest_group) {
          largest = point;
          largest_group = group;
        }
      }
      const Configuration configuration = space.configuration(largest);
      INFO(t.kernel.name << " " << describe(t.kernel, configuration) << " on " << device.label());
      auto program = runtime().program(device, configured_source(t.kernel, configuration));
      if (program->kernel(t.kernel.kernel_name)->attributes().max_work_group_size < largest_group) {
        provoked = true;
      }
      const Contents initial = initial_contents(t, shaped);
      const std::optional<Contents> got = run(device, t, configuration, shaped, initial);
      if (got) check_matches(t, expected_outputs(t, shaped, initial), *got);
    }
    if (!provoked) {
      MESSAGE("every kernel on " << device.label()
                                 << " takes its largest configured work-group; nothing to refuse");
    }
  });
}

}  // namespace alloy::test
