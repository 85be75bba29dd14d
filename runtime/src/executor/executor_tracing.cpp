// An executor's self-measurement: what ALLOY_TRACE and ALLOY_REPORT ask for,
// Executor::trace(), and the trace file and report written when it goes.
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "alloy/error.hpp"
#include "alloy/executor.hpp"
#include "alloy/log.hpp"
#include "support/environment_flag.hpp"
#include "executor_state.hpp"
#include "tracing/trace_output.hpp"

namespace alloy::detail {
namespace {

/// The file for the n-th executor given ALLOY_TRACE: NAME.json, NAME-2.json, ...
std::filesystem::path numbered(const std::filesystem::path& file, unsigned n) {
  if (n <= 1) return file;
  std::filesystem::path named = file;
  named.replace_filename(file.stem().string() + "-" + std::to_string(n) + file.extension().string());
  return named;
}

/// This process's rank when a launcher started several (mpiexec, srun):
/// their variables say, before MPI is even initialized.
std::optional<std::string> launcher_rank() {
  static constexpr std::pair<const char*, const char*> variables[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},  // Open MPI
      {"PMI_RANK", "PMI_SIZE"},                          // MPICH, Intel MPI (Hydra)
      {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"},    // MVAPICH
      {"SLURM_PROCID", "SLURM_NTASKS"},                  // srun
  };
  for (const auto& [rank, size] : variables) {
    const char* rank_text = std::getenv(rank);
    const char* size_text = std::getenv(size);
    if (rank_text == nullptr || *rank_text == '\0') continue;
    if (size_text != nullptr && std::string_view(size_text) == "1") return std::nullopt;  // alone
    return std::string(rank_text);
  }
  return std::nullopt;
}

/// ALLOY_TRACE's file for this process: NAME.rankR.json under a launcher of
/// several processes, so that ranks do not overwrite one another's.
std::filesystem::path for_this_process(const std::filesystem::path& file) {
  const std::optional<std::string> rank = launcher_rank();
  if (!rank) return file;
  std::filesystem::path named = file;
  named.replace_filename(file.stem().string() + ".rank" + *rank + file.extension().string());
  return named;
}

}  // namespace

ExecutorOptions with_tracing_from_environment(ExecutorOptions options) {
  static std::atomic<unsigned> traced_from_environment{0};
  if (options.trace_file.empty()) {
    if (const char* file = std::getenv("ALLOY_TRACE"); file != nullptr && *file != '\0') {
      options.trace_file = numbered(for_this_process(file), ++traced_from_environment);
    }
  }
  if (flag_from_environment("ALLOY_REPORT")) options.report = true;
  options.trace = options.trace || options.report || !options.trace_file.empty();
  return options;
}

std::unique_ptr<TraceRecorder> make_recorder(const ExecutorOptions& options, const std::vector<Device*>& devices) {
  if (!options.trace) return nullptr;
  return std::make_unique<TraceRecorder>(devices, std::max(1u, options.compute_lanes));
}

Trace ExecutorState::trace() {
  Trace trace = recorder->trace();
  std::lock_guard lock(mutex);
  for (std::size_t d = 0; d < trace.devices.size(); ++d) {
    trace.devices[d].memory_share = sharing.memory_share(d);
    trace.devices[d].memory_peak = sharing.memory_peak(d);
  }
  return trace;
}

void ExecutorState::write_trace_at_exit() {
  if (!recorder || (options.trace_file.empty() && !options.report)) return;
  try {
    write_trace_output(trace(), options.trace_file, options.report);
  } catch (const std::exception& error) {
    log_warning(std::string("executor could not write its trace: ") + error.what());
  }
}

}  // namespace alloy::detail

namespace alloy {

Trace Executor::trace() {
  if (!state_->traces()) {
    throw Error("Executor::trace: this executor does not trace; make it with ExecutorOptions::trace = true "
                "(or set ALLOY_TRACE=FILE or ALLOY_REPORT=1)");
  }
  wait();
  return state_->trace();
}

}  // namespace alloy
