// The `autotune` command: picks devices, kernels and sizes, tunes each, writes
// profiles, prints the table.
#include <chrono>
#include <cmath>
#include <csignal>
#include <iostream>
#include <thread>
#include <map>
#include <set>

#include "alloy/autotune/capture_target.hpp"
#include "alloy/autotune/host_load.hpp"
#include "alloy/autotune/registry.hpp"
#include "alloy/error.hpp"
#include "alloy/profile.hpp"
#include "command_options.hpp"
#include "exit_status.hpp"
#include "progress_display.hpp"
#include "stderr_capture.hpp"
#include "report.hpp"

namespace alloy::autotune {
namespace {

using namespace command;

std::atomic<bool> interrupted{false};

extern "C" void on_interrupt(int) {
  interrupted.store(true);
  // A second Ctrl-C ends the process the usual way.
  std::signal(SIGINT, SIG_DFL);
}

struct Task {
  Device* device;
  const TuningTarget* target;
  Extent problem;
};

// One device of each kind unless the user names devices: identical devices
// share a fingerprint, hence a profile, so tuning both would only cost time.
std::vector<Device*> choose_devices(const Runtime& runtime, const std::vector<std::string>& wanted) {
  std::vector<Device*> chosen;
  if (wanted.empty()) {
    std::set<std::string> seen;
    for (Device* device : runtime.devices()) {
      if (seen.insert(device->info().fingerprint()).second) chosen.push_back(device);
    }
    return chosen;
  }
  for (const std::string& spec : wanted) {
    const bool is_index = !spec.empty() && spec.size() < 9 &&
                          spec.find_first_not_of("0123456789") == std::string::npos;
    bool matched = false;
    for (std::size_t i = 0; i < runtime.devices().size(); ++i) {
      Device* device = runtime.devices()[i];
      if ((is_index && std::stoul(spec) == i) || (!is_index && device->info().backend == spec)) {
        if (std::find(chosen.begin(), chosen.end(), device) == chosen.end()) chosen.push_back(device);
        matched = true;
      }
    }
    if (!matched) {
      throw InvalidArgument("--device " + spec + " matches no device; `alloy-info` lists them (" +
                            std::to_string(runtime.devices().size()) + " found)");
    }
  }
  return chosen;
}

std::vector<Extent> problems_for(const TuningTarget& target, const std::vector<std::string>& sizes) {
  if (sizes.empty()) return target.default_problems;
  const unsigned dimensions =
      target.default_problems.empty() ? 0 : target.default_problems.front().dimensions;
  std::vector<Extent> problems;
  for (const std::string& spec : sizes) {
    const std::size_t equals = spec.find('=');
    if (equals != std::string::npos) {
      if (spec.substr(0, equals) == target.kernel.name) problems.push_back(parse_extent(spec.substr(equals + 1)));
    } else if (const Extent extent = parse_extent(spec); extent.dimensions == dimensions) {
      problems.push_back(extent);
    }
  }
  return problems;
}

// A CPU device shares the cores with every other process: before measuring,
// a quarter of a second says whether others are busy on them.
void warn_if_the_host_is_busy(const std::vector<Device*>& devices) {
  const auto cpu = std::find_if(devices.begin(), devices.end(),
                                [](const Device* device) { return device->info().type == DeviceType::cpu; });
  if (cpu == devices.end()) return;
  const std::optional<CpuTimes> before = read_cpu_times();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const std::optional<CpuTimes> after = read_cpu_times();
  if (!before || !after) return;
  const double share = others_share(*before, *after);
  if (share <= busy_host_share) return;
  std::cerr << "autotune: other processes are using " << std::lround(share * 100)
            << " % of this machine's CPU time; " << (*cpu)->label()
            << " shares the cores with them, so its times will move with their load: tune when the machine "
               "is idle, or read the table's busy and provisional notes\n";
}

void list_targets(const std::vector<TuningTarget>& targets) {
  for (const TuningTarget& target : targets) {
    std::string problems;
    for (const Extent& problem : target.default_problems) problems.append(" ").append(problem.to_string());
    std::cout << target.kernel.name << "  " << target.description << "\n    parameters:";
    for (const TuningParameter& parameter : target.kernel.parameters) std::cout << ' ' << parameter.name;
    std::cout << "\n    default sizes:" << problems << '\n';
  }
}

int run(const CommandOptions& options) {
  std::vector<TuningTarget> targets;
  if (options.captures.empty()) {
    targets = registered_targets();
    for (const std::filesystem::path& manifest : options.manifests) {
      std::vector<TuningTarget> more = load_manifest(manifest);
      targets.insert(targets.end(), more.begin(), more.end());
    }
  }
  for (const std::filesystem::path& file : options.captures) {
    targets.push_back(capture_target(read_capture(file), options.capture_check));
  }
  if (options.list) {
    list_targets(targets);
    return exit_tuned;
  }
  for (const std::string& name : options.kernels) {
    if (std::none_of(targets.begin(), targets.end(),
                     [&](const TuningTarget& t) { return t.kernel.name == name; })) {
      std::cerr << "autotune: no kernel called " << name << "; `autotune --list` shows them\n";
      return exit_usage;
    }
  }

  Runtime runtime;
  const std::vector<Device*> devices = choose_devices(runtime, options.devices);
  std::vector<Task> tasks;
  for (Device* device : devices) {
    for (const TuningTarget& target : targets) {
      if (!options.kernels.empty() &&
          std::find(options.kernels.begin(), options.kernels.end(), target.kernel.name) ==
              options.kernels.end()) {
        continue;
      }
      for (const Extent& problem : problems_for(target, options.sizes)) tasks.push_back({device, &target, problem});
    }
  }
  if (tasks.empty()) {
    std::cerr << "autotune: nothing to tune: " << devices.size() << " device(s)"
              << (devices.empty() ? " (`alloy-info` says why)" : ", and no kernel matched the sizes given")
              << '\n';
    return exit_nothing_to_tune;
  }

  const std::filesystem::path profile_dir =
      options.profile_dir.empty() ? ProfileStore::default_dir() : options.profile_dir;
  if (profile_dir.empty()) {
    std::cerr << "autotune: cannot tell where profiles go: set ALLOY_PROFILE_DIR or HOME, or pass "
                 "--profile-dir\n";
    return exit_usage;
  }
  // A dry run resumes from the log like any run, but leaves it as it was.
  ResultsLog log(options.log_file.empty() ? profile_dir / "tuning-log.jsonl" : options.log_file,
                 options.dry_run ? ResultsLog::Writes::none : ResultsLog::Writes::append);

  warn_if_the_host_is_busy(devices);  // on the terminal, before stderr is captured
  // The compiler's own lines go beside the log, not over the progress line;
  // a dry run keeps no file.
  StderrCapture compiler_output(options.dry_run ? std::filesystem::path()
                                                : std::filesystem::path(log.file()).replace_extension(
                                                      ".compiler-output.txt"));
  TuneOptions tune_options = options.tune;
  tune_options.stop = &interrupted;
  ProgressDisplay progress(compiler_output.terminal());
  tune_options.on_progress = [&](const TuningProgress& update) { progress.update(update); };
  std::signal(SIGINT, on_interrupt);

  std::vector<ReportRow> rows;
  for (std::size_t i = 0; i < tasks.size() && !interrupted.load(); ++i) {
    const Task& task = tasks[i];
    const std::string title = task.target->kernel.name + " " + task.problem.to_string() + " on " +
                              task.device->label();
    progress.begin("[" + std::to_string(i + 1) + "/" + std::to_string(tasks.size()) + "] " + title);
    compiler_output.begin_section(title);
    ReportRow row;
    row.result.kernel = task.target->kernel.name;
    row.result.problem = task.problem;
    row.result.device = task.device->label();
    try {
      // What this machine's profiles already say for the nearest size is
      // the first candidate after the default.
      TuneOptions task_options = tune_options;
      const TunedChoice known = ProfileStore(profile_dir).lookup(task.device->info(), task.target->kernel,
                                                                 task.problem);
      if (known.match != ProfileMatch::defaults) task_options.starting_points.push_back(known.configuration);
      row.result = tune(runtime, *task.device, *task.target, task.problem, task_options, log);
      if (row.result.best) row.configuration = describe(task.target->kernel, *row.result.best);
      if (!options.dry_run) {
        row.profile_file = record_in_profile(profile_dir, task.device->info(), *task.target,
                                             row.result, task_options).string();
      }
    } catch (const std::exception& error) {
      // Whatever went wrong, it is this task's result: the others still run.
      row.error = error.what();
    }
    progress.end();
    rows.push_back(std::move(row));
  }
  std::signal(SIGINT, SIG_DFL);
  if (const std::size_t lines = compiler_output.finish(); lines > 0) {
    std::cerr << "autotune: the compiler printed " << lines << " line(s) while tuning; "
              << (options.dry_run              ? std::string("a dry run writes no file of them")
                  : compiler_output.kept() ? "they are in " + compiler_output.file().string()
                                           : "they could not be written to " + compiler_output.file().string())
              << '\n';
  }

  std::cout << (options.json ? format_json(rows) : format_table(rows));
  if (!options.json && !options.dry_run) std::cout << "profiles: " << profile_dir.string() << '\n';
  if (interrupted.load()) return exit_interrupted;
  const bool all_tuned = std::all_of(rows.begin(), rows.end(), [](const ReportRow& row) {
    return row.error.empty() && row.result.best.has_value();
  });
  return all_tuned ? exit_tuned : exit_some_failed;
}

}  // namespace

int run_autotune_command(int argc, char** argv) {
  ParsedCommand parsed = parse_command_line(argc, argv);
  if (!parsed.options) return parsed.exit_status;
  try {
    return run(*parsed.options);
  } catch (const InvalidArgument& error) {
    std::cerr << "autotune: " << error.what() << '\n';
    return exit_usage;
  } catch (const std::exception& error) {
    std::cerr << "autotune: " << error.what() << '\n';
    return exit_some_failed;
  }
}

}  // namespace alloy::autotune
