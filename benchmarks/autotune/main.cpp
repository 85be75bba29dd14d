// bench_autotune: how well and how fast alloy's tuner works, as ratios
// against baselines measured in the same run:
//   (a) best found by each strategy at 5/10/20 % of a gemm space vs the
//       exhaustive optimum (replayed offline from one exhaustive results log)
//   (b) tuning seconds per configuration, parallel compilation on vs off
//   (c) SGEMM GFLOP/s, alloy as profiled vs alloy's defaults vs CLBlast with
//       its shipped and its own tuned parameters, all timed on the host
//   (d) triad GB/s, as profiled and default vs a plain triad and clpeak
//   (e) seconds to enumerate a 10^6-point space
//   (f) picks on three kernels alloy does not ship vs their exhaustive best,
//       re-timed side by side (not in the default parts: about 10 minutes)
//   (g) tuning under load: gemm 1024, a histogram and a stencil tuned quiet
//       and beside CPU-bound background processes, the picks re-timed side
//       by side quietly (not in the default parts: about 7 minutes)
// (c) and (d) use the profiles `autotune` wrote on this machine.
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "alloy/error.hpp"
#include "bench_autotune.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Measures the auto-tuner: strategy quality, compile overlap, tuned SGEMM vs "
               "CLBlast, tuned triad bandwidth, space generation."};
  std::size_t device_index = 0;
  bool as_json = false;
  std::vector<std::string> parts = {"a", "b", "c", "d", "e"};
  std::string exhaustive_log = "bench_autotune_gemm_exhaustive.jsonl";
  std::string exhaustive_size = "512";
  unsigned seeds = 10;
  std::size_t overlap_evaluations = 24;
  std::vector<std::size_t> sgemm_sizes = {512, 1024, 2048};
  std::size_t triad_elements = std::size_t{1} << 24;
  std::string clblast_parameters = "bench_autotune_clblast_xgemm.json";
  double clblast_fraction = 128;
  unsigned held_out_repeats = 3;
  unsigned held_out_rounds = 15;
  unsigned background_processes = 2;
  app.add_option("--device", device_index, "device index as alloy-info lists it")->capture_default_str();
  app.add_flag("--json", as_json, "print the figures as JSON on stdout");
  app.add_option("--parts", parts, "which figures: a b c d e f g")->capture_default_str();
  app.add_option("--exhaustive-log", exhaustive_log, "results log of the exhaustive gemm run (a); resumed")
      ->capture_default_str();
  app.add_option("--exhaustive-size", exhaustive_size, "square gemm size for (a) and (b)")->capture_default_str();
  app.add_option("--seeds", seeds, "seeds per strategy and fraction (a)")->capture_default_str();
  app.add_option("--overlap-evaluations", overlap_evaluations, "configurations per run (b)")->capture_default_str();
  app.add_option("--sgemm-sizes", sgemm_sizes, "square sizes (c)")->capture_default_str();
  app.add_option("--triad-elements", triad_elements, "floats per triad array (d)")->capture_default_str();
  app.add_option("--clblast-parameters", clblast_parameters,
                 "CLBlast's tuned Xgemm parameters (c): read (as clblast_tuner_xgemm writes them, or "
                 "name: value), or tuned and written")
      ->capture_default_str();
  app.add_option("--clblast-fraction", clblast_fraction,
                 "CLBlast's tuner tries 1/N of its Xgemm space, as its -fraction N does (c)")
      ->check(CLI::Range(1.0, 1e9))
      ->capture_default_str();
  app.add_option("--repeats", held_out_repeats, "tuning runs per kernel (f)")->capture_default_str();
  app.add_option("--rounds", held_out_rounds, "interleaved re-timing rounds (f, g)")->capture_default_str();
  app.add_option("--background", background_processes, "CPU-bound background processes while tuning under load (g)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto wanted = [&](const char* part) { return std::find(parts.begin(), parts.end(), part) != parts.end(); };
  // (b) must compile every configuration; PoCL reads this once, at start-up.
  if (wanted("b")) ::setenv("POCL_KERNEL_CACHE", "0", 0);
  try {
    alloy::Runtime runtime;
    if (device_index >= runtime.devices().size()) {
      std::cerr << "bench_autotune: no device " << device_index << " (" << runtime.devices().size()
                << " found; alloy-info lists them)\n";
      return 2;
    }
    alloy::Device& device = *runtime.devices()[device_index];
    const std::size_t n = std::stoul(exhaustive_size);
    nlohmann::json figures = {{"device", device.label()}};
    if (wanted("e")) figures["e_space_generation"] = alloy::bench::space_generation(device);
    if (wanted("a")) {
      figures["a_strategy_quality"] =
          alloy::bench::strategy_quality(runtime, device, alloy::Extent(n, n, n), exhaustive_log, seeds);
    }
    if (wanted("b")) {
      figures["b_compile_overlap"] =
          alloy::bench::compile_overlap(device, alloy::Extent(n, n, n), overlap_evaluations);
    }
    if (wanted("c")) {
      figures["c_sgemm"] = alloy::bench::sgemm_versus_clblast(runtime, device, sgemm_sizes, clblast_parameters,
                                                              clblast_fraction);
    }
    if (wanted("d")) figures["d_triad"] = alloy::bench::triad_bandwidth(runtime, device, triad_elements, 5);
    if (wanted("f")) {
      figures["f_held_out"] = alloy::bench::held_out_quality(runtime, device, held_out_repeats, held_out_rounds);
    }
    if (wanted("g")) {
      figures["g_under_load"] =
          alloy::bench::tuning_under_load(runtime, device, background_processes, held_out_rounds);
    }
    std::cout << (as_json ? figures.dump(2) + '\n' : alloy::bench::summarize(figures));
  } catch (const alloy::Error& error) {
    std::cerr << "bench_autotune: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
