// The `autotune` command line, parsed with CLI11.
#include "command_options.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

#include "alloy/error.hpp"
#include "exit_status.hpp"
#include "number_checks.hpp"

namespace alloy::autotune::command {

Extent parse_extent(const std::string& text) {
  std::vector<std::size_t> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('x', start), text.size());
    const std::string part = text.substr(start, end - start);
    if (part.empty() || part.size() > 12 || part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoull(part) == 0) {
      throw InvalidArgument("size \"" + text + "\" is not like 1024 or 1024x1024x512");
    }
    sizes.push_back(std::stoull(part));
    start = end + 1;
  }
  if (sizes.size() > 3) throw InvalidArgument("size \"" + text + "\" has more than 3 dimensions");
  sizes.resize(3, 1);
  Extent extent(sizes[0], sizes[1], sizes[2]);
  extent.dimensions = static_cast<unsigned>(std::count(text.begin(), text.end(), 'x') + 1);
  return extent;
}

ParsedCommand parse_command_line(int argc, char** argv) {
  CLI::App app{
      "Tunes alloy's tunable kernels (and those of --manifest files) for this machine's devices and "
      "writes the profiles the runtime then uses by itself.\n\n"
      "Exit status: 0 every kernel tuned; 1 some tuning failed (see the table); 2 bad command "
      "line; 3 nothing to tune (no device or no kernel matched); 130 interrupted (measurements so far "
      "are logged and profiles written)."};
  CommandOptions options;
  double budget_seconds = 0;
  double budget_fraction = 0;
  std::size_t budget_evaluations = 0;
  std::size_t budget_stall = 0;
  bool serial_compile = false;
  app.add_option("-k,--kernel", options.kernels, "kernel to tune, e.g. alloy.gemm (repeatable; default: all)");
  std::string compare = "elements";
  double tolerance = options.capture_check.relative;
  CLI::Option* capture =
      app.add_option("-c,--capture", options.captures,
                     "a launch captured with ALLOY_CAPTURE (repeatable): tunes that kernel on that data at that "
                     "size, checking every configuration against the captured outputs")
          ->check(CLI::ExistingFile);
  app.add_option("--compare", compare,
                 "how captured outputs are compared: elements, sum, or sorted (any order); integers always "
                 "exactly")
      ->check(CLI::IsMember({"elements", "sum", "sorted"}))
      ->capture_default_str();
  app.add_option("--tolerance", tolerance,
                 "relative and absolute tolerance for captured float outputs: |got - expected| <= t + t*|expected|")
      ->capture_default_str()
      ->check(at_least(0));
  CLI::Option* size_option = app.add_option("-s,--size", options.sizes,
                 "problem size [kernel=]NxMxK, e.g. 1024x1024x1024 or alloy.triad=16777216 "
                 "(repeatable; default: each kernel's own)");
  size_option->excludes(capture);
  app.add_option("-d,--device", options.devices,
                 "device index as alloy-info lists it, or a backend name (repeatable; default: one "
                 "device of each kind)");
  app.add_option("-m,--manifest", options.manifests, "JSON file describing more kernels to tune")
      ->check(CLI::ExistingFile)
      ->excludes(capture);
  app.add_option("--profile-dir", options.profile_dir,
                 "where profiles are written (default: $ALLOY_PROFILE_DIR, else "
                 "$XDG_DATA_HOME/alloy/profiles)");
  app.add_option("--log", options.log_file,
                 "results log to append to and resume from (default: tuning-log.jsonl in the "
                 "profile folder)");
  app.add_option("--strategy", options.tune.strategy, "search strategy")
      ->check(CLI::IsMember(strategy_names()))
      ->capture_default_str();
  app.add_option("--seed", options.tune.seed, "seed for the strategy")
      ->capture_default_str()
      ->check(whole_number());
  app.add_option("--budget-seconds", budget_seconds, "wall time per kernel and size (0: no limit)")
      ->default_val(60)->check(at_least(0));
  app.add_option("--budget-evaluations", budget_evaluations,
                 "configurations measured per kernel and size (0: no limit)")
      ->default_val(0)->check(whole_number());
  app.add_option("--budget-fraction", budget_fraction,
                 "share of each space to measure at most, 0..1 (0: no limit)")
      ->default_val(0.0)->check(between(0, 1));
  app.add_option("--budget-stall", budget_stall,
                 "stop after this many measurements without a better one (0: never)")
      ->default_val(40)->check(whole_number());
  app.add_option("--max-repetitions", options.tune.measure.max_repetitions,
                 "timed runs per configuration at most")
      ->capture_default_str()
      ->check(whole_number(3, 1000));
  app.add_option("--timeout", options.tune.measure.timeout_seconds,
                 "wall seconds one run may take (a compile at first launch included) before it counts as a "
                 "timeout; once a configuration has run, a run the device times at over 20 times the best "
                 "so far (at least 0.2 s) is one too")
      ->capture_default_str()
      ->check(at_least(0, true));
  app.add_flag("--layouts-persist", options.tune.measure.layouts_persist,
               "the program keeps its data in the device layouts across many launches: do not price "
               "converting layout arguments into each configuration's layouts and back");
  app.add_flag("--serial-compile", serial_compile,
               "compile each configuration just before measuring it, not ahead in parallel");
  app.add_flag("--json", options.json, "print the results as JSON on stdout");
  app.add_flag("--list", options.list, "list the kernels that can be tuned, then exit");
  app.add_flag("--dry-run", options.dry_run,
               "tune and report, but write nothing: no profile, no results log (an existing log "
               "is still read, and resumed from)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);
    return {std::nullopt, status == 0 ? 0 : exit_usage};
  }
  // Sizes are checked here, so a mistake is a usage error even with no device.
  for (const std::string& size : options.sizes) {
    const std::size_t equals = size.find('=');
    try {
      parse_extent(equals == std::string::npos ? size : size.substr(equals + 1));
    } catch (const InvalidArgument& error) {
      std::cerr << "autotune: --size: " << error.what() << '\n';
      return {std::nullopt, exit_usage};
    }
  }
  options.capture_check.kind = compare == "sum"      ? OutputCheck::Kind::sum
                               : compare == "sorted" ? OutputCheck::Kind::sorted
                                                     : OutputCheck::Kind::elements;
  options.capture_check.relative = options.capture_check.absolute = tolerance;
  if (budget_seconds > 0) options.tune.budget.wall_time = std::chrono::duration<double>(budget_seconds);
  if (budget_evaluations > 0) options.tune.budget.evaluations = budget_evaluations;
  if (budget_fraction > 0) options.tune.budget.space_fraction = budget_fraction;
  if (budget_stall > 0) options.tune.budget.stall = budget_stall;
  if (serial_compile) options.tune.overlap = CompileOverlap::off;
  return {std::move(options), 0};
}

}  // namespace alloy::autotune::command
