// diagnose sample: runs one of three programs that keep a device idle for a
// different reason, traced, and prints alloy's report on it; --fixed runs
// the same program the way alloy's features fix it (README.md beside this).
//
//   diagnose transfer-bound|launch-bound|untuned [--fixed] [--trace FILE] [--json]
//   autotune --kernel alloy.gemm --size 512x512x512 && diagnose untuned --fixed
#include <cstdio>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>

#include "alloy/alloy.hpp"
#include "alloy/utilization_report.hpp"
#include "programs.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Runs a program that deliberately keeps its device idle, traced, and prints why it idled."};
  diagnose::Program program = diagnose::Program::transfer_bound;
  bool fixed = false;
  bool as_json = false;
  std::string profiles;
  std::string trace_file;
  std::string device_choice = "0";
  const std::map<std::string, diagnose::Program> programs = {{"transfer-bound", diagnose::Program::transfer_bound},
                                                             {"launch-bound", diagnose::Program::launch_bound},
                                                             {"untuned", diagnose::Program::untuned}};
  app.add_option("program", program, "which program")->required()->transform(CLI::CheckedTransformer(programs));
  app.add_flag("--fixed", fixed, "run it as alloy's features fix it");
  app.add_option("--profiles", profiles,
                 "tuning profiles for `untuned --fixed` (default: where autotune writes them); without "
                 "--fixed, untuned reads none");
  app.add_option("--trace", trace_file, "also write the Chrome trace here, and its SVG timeline beside it");
  app.add_flag("--json", as_json, "print the report as JSON");
  app.add_option("--device", device_choice,
                 "the device: its index as alloy-info lists it, or a backend name (its first device), e.g. "
                 "emulated with ALLOY_EMULATED_DEVICES=pcie5");
  CLI11_PARSE(app, argc, argv);

  try {
    alloy::RuntimeOptions runtime_options;
    if (program == diagnose::Program::untuned && !fixed) runtime_options.profiles = std::filesystem::path();
    if (!profiles.empty()) runtime_options.profiles = profiles;
    diagnose::define_emulated_models();
    alloy::Runtime runtime(runtime_options);
    alloy::Device* device = diagnose::find_device(runtime, device_choice);
    if (device == nullptr) {
      std::fprintf(stderr, "diagnose: no device '%s' among the %zu found; alloy-info lists them\n",
                   device_choice.c_str(), runtime.devices().size());
      return 1;
    }
    alloy::ExecutorOptions options;
    options.devices = {device};
    {
      // Compiles the kernels (into the runtime's cache), so that the traced
      // run shows the program, not its first compile.
      alloy::Executor warm_up(runtime, options);
      diagnose::run(warm_up, program, fixed);
    }
    options.trace = true;
    if (!trace_file.empty()) options.trace_file = trace_file;
    alloy::Executor executor(runtime, options);
    const diagnose::Outcome outcome = diagnose::run(executor, program, fixed);
    const alloy::UtilizationReport report = alloy::analyze(executor.trace());
    if (as_json) {
      std::cout << report.to_json() << '\n';
    } else {
      std::cout << "diagnose " << diagnose::name(program) << (fixed ? " (fixed)" : " (deliberate)") << ": "
                << outcome.summary << "\n\n"
                << report.to_text();
    }
    if (!outcome.verified) {
      std::fprintf(stderr, "diagnose: WRONG results: %s\n", outcome.summary.c_str());
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "diagnose: %s\n", error.what());
    return 1;
  }
  return 0;
}
