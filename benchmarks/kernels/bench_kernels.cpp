// Kernel figures on the first device (PoCL in CI), each case beside its
// baseline in the same run:
//   nbody/aos           the n-body step over the application's structs as they are;
//   nbody/tuned_layout  the same step in the layout and work-group size that
//                       tuning on a captured launch chose, the executor
//                       converting the bodies in and out on every step;
//   nbody/capture_tuning  the wall time of that: capture, then tune on it;
//   records/aos, records/tuned_layout  an in-place record update, the
//                       same way round (a memory-bound kernel: there the
//                       conversions cost what the layout saves);
//   gemm/alloy/N        alloy's gemm as this machine's profiles configure it
//                       (`autotune --kernel alloy.gemm --size 1024x1024x1024`
//                       first), against gemm/clblast/N, CLBlast's SGEMM with
//                       the parameters it ships, and gemm/openblas/N,
//                       OpenBLAS's SGEMM on the same cores.
//
//   build/default/bin/bench_kernels --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>

#include "alloy/alloy.hpp"
#include "alloy/autotune/capture_target.hpp"
#include "alloy/autotune/tuner.hpp"
#include "clblast_gemm.hpp"
#include "nbody.hpp"

#ifdef ALLOY_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace {

alloy::Runtime& runtime() {
  static alloy::Runtime shared;
  return shared;
}

alloy::Device& device() {
  if (runtime().devices().empty()) throw alloy::Error("bench_kernels: no device; run alloy-info");
  return *runtime().devices().front();
}

constexpr int bodies = 32768;
constexpr int steps = 10;
// Floating-point operations per pair in the step (nbody_layouts.cl).
constexpr double flops_per_pair = 22;

alloy::ExecutorOptions on_the_device() {
  alloy::ExecutorOptions options;
  options.devices = {&device()};
  return options;
}

/// A folder of this process's own, removed at exit: captures and profiles
/// made here never reach the machine's own.
const std::filesystem::path& scratch() {
  static const struct Folder {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("alloy-bench-kernels-" + std::to_string(std::random_device{}()));
    Folder() { std::filesystem::create_directories(path); }
    ~Folder() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } folder;
  return folder.path;
}

// Captures the first n-body launch, tunes on it (every configuration) and
// writes the profile into `profiles`; returns the configuration chosen.
alloy::Configuration capture_and_tune(const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  const std::vector<nbody::Body> initial = nbody::make_bodies(bodies, 7);
  {
    alloy::ExecutorOptions options = on_the_device();
    options.capture = nbody::tuned_step().name;
    options.capture_directory = folder;
    alloy::Buffer<nbody::Body> a{std::span<const nbody::Body>(initial)}, b(initial.size());
    a.describe(nbody::body_record());
    b.describe(nbody::body_record());
    alloy::Executor executor(runtime(), options);
    alloy::Graph one;
    one.kernel(nbody::tuned_step(), alloy::Extent(bodies), {bodies, nbody::time_step, alloy::read(a), alloy::write(b)});
    executor.run(one);
    executor.wait();
  }
  const alloy::Capture capture =
      alloy::read_capture(folder / alloy::capture_file_name(nbody::tuned_step().name, alloy::Extent(bodies)));
  const alloy::autotune::TuningTarget target = alloy::autotune::capture_target(capture);
  alloy::autotune::ResultsLog log(folder / "log.jsonl", alloy::autotune::ResultsLog::Writes::none);
  alloy::autotune::TuneOptions options;
  options.strategy = "exhaustive";
  const alloy::autotune::TuningResult result =
      alloy::autotune::tune(runtime(), device(), target, capture.problem, options, log);
  if (!result.best) throw alloy::Error("bench_kernels: tuning the captured n-body launch found nothing");
  alloy::autotune::record_in_profile(folder / "profiles", device().info(), target, result, options);
  return *result.best;
}

/// The profile folder where the n-body kernel is tuned for the device: made once.
const std::filesystem::path& tuned_profiles() {
  static const std::filesystem::path folder = [] {
    const std::filesystem::path made = scratch() / "nbody";
    const alloy::Configuration best = capture_and_tune(made);
    std::fprintf(stderr, "n-body tuned on its captured launch: %s\n",
                 alloy::describe(nbody::tuned_step(), best).c_str());
    return made / "profiles";
  }();
  return folder;
}

void report_nbody(benchmark::State& state) {
  const double flops = double(bodies) * (2 * nbody::range + 1) * flops_per_pair * steps;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void time_nbody(benchmark::State& state, alloy::Runtime& on, bool fields) {
  const std::vector<nbody::Body> initial = nbody::make_bodies(bodies, 7);
  alloy::Buffer<nbody::Body> a{std::span<const nbody::Body>(initial)}, b(initial.size());
  a.describe(nbody::body_record());
  b.describe(nbody::body_record());
  alloy::ExecutorOptions options;
  options.devices = {on.devices().front()};
  alloy::Executor executor(on, options);
  const alloy::Graph graph = nbody::steps_graph(fields, bodies, steps, a, b);
  executor.run(graph);  // compiles; the bodies reach the device
  executor.wait();
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  report_nbody(state);
}

void nbody_aos(benchmark::State& state) { time_nbody(state, runtime(), false); }

void nbody_tuned_layout(benchmark::State& state) {
  alloy::RuntimeOptions options;
  options.profiles = tuned_profiles();
  alloy::Runtime tuned(options);
  const alloy::TunedChoice choice =
      tuned.profiles().lookup(tuned.devices().front()->info(), nbody::tuned_step(), alloy::Extent(bodies));
  state.SetLabel(alloy::describe(nbody::tuned_step(), choice.configuration));
  time_nbody(state, tuned, true);
}

void nbody_capture_tuning(benchmark::State& state) {
  int run = 0;
  for (auto _ : state) capture_and_tune(scratch() / ("capture-tuning-" + std::to_string(run++)));
  state.counters["configurations"] = double(nbody::tuned_step().parameters[0].values.size() *
                                            nbody::tuned_step().parameters[1].values.size());
}

// ---- An in-place record update: x += dt * vx, y += dt * vy. ----

struct Particle {
  float x, y, vx, vy;
  std::int32_t id;
  float charge;
  double energy;
};

constexpr int particles = 1 << 22;

alloy::HostRecord particle_record() {
  return alloy::host_record<Particle>(
      "Particle", {ALLOY_HOST_FIELD(Particle, x), ALLOY_HOST_FIELD(Particle, y), ALLOY_HOST_FIELD(Particle, vx),
                   ALLOY_HOST_FIELD(Particle, vy), ALLOY_HOST_FIELD(Particle, id),
                   ALLOY_HOST_FIELD(Particle, charge), ALLOY_HOST_FIELD(Particle, energy)});
}

const alloy::ProgramSource host_struct_update{
    "update_host_struct.cl",
    "typedef struct { float x, y, vx, vy; int id; float charge; double energy; } Particle;\n"
    "KERNEL void update(const int n, const float dt, GLOBAL Particle* p) {\n"
    "  const int i = (int)get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  p[i].x += dt * p[i].vx;\n"
    "  p[i].y += dt * p[i].vy;\n"
    "}\n",
    ""};

alloy::TunableKernel field_update() {
  alloy::TunableKernel kernel;
  kernel.name = "bench.record_update";
  kernel.source = {"update_fields.cl",
                   "KERNEL void update(const int n, const float dt, GLOBAL float* p) {\n"
                   "  const int i = (int)get_global_id(0);\n"
                   "  if (i >= n) return;\n"
                   "  FIELD(p, i, x) += dt * FIELD(p, i, vx);\n"
                   "  FIELD(p, i, y) += dt * FIELD(p, i, vy);\n"
                   "}\n",
                   ""};
  kernel.kernel_name = "update";
  kernel.parameters = {{"LAYOUT", {0, 1, 2}, 1, {"aos", "soa", "aosoa:16"}}};
  kernel.launch = {{0, {}, {}, {64, {}, {}}}};
  kernel.records = {{"p",
                     {{"x", alloy::ScalarType::f32}, {"y", alloy::ScalarType::f32},
                      {"vx", alloy::ScalarType::f32}, {"vy", alloy::ScalarType::f32}},
                     "n",
                     "LAYOUT"}};
  return kernel;
}

void time_update(benchmark::State& state, bool fields) {
  std::vector<Particle> initial(particles, Particle{0, 0, 1, 2, 0, 0, 0});
  alloy::Buffer<Particle> buffer{std::span<const Particle>(initial)};
  buffer.describe(particle_record());
  alloy::Graph graph;
  if (fields) {
    graph.kernel(field_update(), alloy::Extent(particles), {particles, 0.5f, alloy::read_write(buffer)});
  } else {
    graph.kernel(host_struct_update, "update", alloy::LaunchRange(alloy::Extent(particles), alloy::Extent(64)),
                 {particles, 0.5f, alloy::read_write(buffer)});
  }
  alloy::Executor executor(runtime(), on_the_device());
  executor.run(graph);
  executor.wait();
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  // What the update itself must move: x, y, vx, vy read and x, y written.
  state.counters["GB/s"] = benchmark::Counter(double(particles) * 24 * double(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
}

void records_aos(benchmark::State& state) { time_update(state, false); }
void records_tuned_layout(benchmark::State& state) {
  state.SetLabel("soa, converted in and out every launch");
  time_update(state, true);
}

// ---- gemm ----

void report_gemm(benchmark::State& state, std::size_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) *
                                                     double(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
}

void gemm_alloy(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const alloy::TunableKernel& gemm = alloy::kernel_library::gemm();
  const alloy::TunedKernel tuned = runtime().tuned(device(), gemm, alloy::Extent(n, n, n));
  state.SetLabel(std::string(alloy::to_string(tuned.choice.match)) + " " + alloy::describe(gemm, tuned.choice.configuration));
  auto queue = device().create_queue();
  const std::vector<float> values(n * n, 0.5f);
  // A and B in the layout the configuration chose (rows padded, say).
  const alloy::HostMatrix square{n, n, false, 0, alloy::ScalarType::f32};
  const std::vector<std::byte> operand =
      alloy::matrix_argument_bytes(gemm, tuned.choice.configuration, "a", square, std::as_bytes(std::span(values)));
  auto a = device().allocate(operand.size());
  auto b = device().allocate(operand.size());
  auto c = device().allocate(values.size() * sizeof(float));
  queue->write(*a, 0, operand.data(), operand.size());
  queue->write(*b, 0, operand.data(), operand.size());
  queue->finish();
  const int size = int(n);
  // PoCL finishes compiling a kernel at its first launch: not in the timing.
  queue->launch(*tuned.kernel, tuned.range, size, size, size, *a, *b, *c);
  queue->finish();
  for (auto _ : state) {
    queue->launch(*tuned.kernel, tuned.range, size, size, size, *a, *b, *c);
    queue->finish();
  }
  report_gemm(state, n);
}

void gemm_clblast(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  alloy::bench::ClblastGemm clblast(device().info().name, n);
  clblast.run();
  if (!clblast.why_not().empty()) {
    state.SkipWithError(clblast.why_not().c_str());
    return;
  }
  for (auto _ : state) clblast.run();
  report_gemm(state, n);
}

// OpenBLAS on the same cores as the PoCL device: the rate a CPU gemm can
// reach there.
void gemm_openblas(benchmark::State& state) {
#ifdef ALLOY_HAVE_OPENBLAS
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float> a(n * n, 0.5f), b(n * n, 0.5f);
  std::vector<float> c(n * n);
  const int size = int(n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, size, size, size, 1.0f, a.data(), size, b.data(), size,
                0.0f, c.data(), size);
  }
  if (c[0] != 0.25f * float(n)) state.SkipWithError("OpenBLAS computed a wrong product");
  report_gemm(state, n);
#else
  state.SkipWithError("OpenBLAS was not found when alloy was configured (libopenblas-dev)");
#endif
}

void gemm_sizes(benchmark::internal::Benchmark* benchmark) {
  for (const int n : {256, 512, 1000, 1024, 1537, 2048}) benchmark->Arg(n);
}

}  // namespace

BENCHMARK(nbody_capture_tuning)->Name("nbody/capture_tuning")->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(nbody_aos)->Name("nbody/aos")->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(nbody_tuned_layout)->Name("nbody/tuned_layout")->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(records_aos)->Name("records/aos")->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(records_tuned_layout)->Name("records/tuned_layout")->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(gemm_alloy)->Name("gemm/alloy")->Apply(gemm_sizes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(gemm_clblast)->Name("gemm/clblast")->Apply(gemm_sizes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(gemm_openblas)->Name("gemm/openblas")->Apply(gemm_sizes)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
