// The parts of bench_autotune, one figure each (see main.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alloy/autotune/harness.hpp"
#include "alloy/runtime.hpp"

namespace alloy::bench {

const autotune::TuningTarget& builtin_target(const std::string& name);

enum class LaunchTiming {
  device_events,
  /// From each launch to its queue's end, on the host: how a library call
  /// that may run several kernels (CLBlast's) is timed too.
  host,
};

/// Median seconds of `repetitions` launches, after two warm-up launches.
double time_launches(Device& device, const Kernel& kernel, const LaunchRange& range,
                     const std::vector<KernelArg>& args, unsigned repetitions,
                     LaunchTiming timing = LaunchTiming::device_events);

/// Median seconds of each candidate configuration, measured once (checked
/// against the reference; a failure throws), then re-timed 3 runs at a
/// time over `rounds` rounds that take turns in a rotating order.
std::vector<double> side_by_side_medians(Runtime& runtime, Device& device, const autotune::TuningTarget& target,
                                         const Extent& problem, const std::vector<Configuration>& candidates,
                                         unsigned rounds);

/// (a) Each strategy replayed offline on an exhaustive results log of gemm at
/// `problem`, measured first (or resumed) into `log_file`.
nlohmann::json strategy_quality(Runtime& runtime, Device& device, const Extent& problem,
                                const std::filesystem::path& log_file, unsigned seeds);

/// (b) Tuning wall time per configuration with parallel compilation on and
/// off, compile caches disabled so every configuration compiles.
nlohmann::json compile_overlap(Device& device, const Extent& problem, std::size_t evaluations);

/// (c) SGEMM GFLOP/s: alloy's gemm as the profiles configure it, its
/// defaults, and CLBlast's SGEMM with its shipped and its own tuned
/// parameters on the same device, per size, all timed on the host.
nlohmann::json sgemm_versus_clblast(Runtime& runtime, Device& device, const std::vector<std::size_t>& sizes,
                                    const std::filesystem::path& clblast_parameters, double clblast_fraction);

/// CLBlast's SGEMM, C = A×B for n×n matrices, on the OpenCL device called
/// `device_name`: median host seconds per size with CLBlast's shipped
/// parameters, then with those its tuner finds (TuneXgemm on 1/`fraction` of
/// its space at 1024, kept in `parameters_file` for later runs; a file that
/// clblast_tuner_xgemm wrote is read too). Empty maps,
/// with `why`, when CLBlast or the device is missing.
struct ClblastSgemm {
  std::map<std::size_t, double> shipped_seconds;
  std::map<std::size_t, double> tuned_seconds;
  std::string tuned_parameters;
  std::string why;
};
ClblastSgemm clblast_sgemm(const std::string& device_name, const std::vector<std::size_t>& sizes,
                           const std::filesystem::path& parameters_file, double fraction);

/// (d) Triad bandwidth: as the profiles configure it and the defaults, beside
/// a plain one-element-per-work-item triad (work-group left to the driver,
/// or swept) and clpeak's float16 bandwidth, over `rounds` interleaved rounds.
nlohmann::json triad_bandwidth(Runtime& runtime, Device& device, std::size_t elements, unsigned rounds);

/// clpeak's float16 global-memory bandwidth of the OpenCL device called
/// `device_name`, in GB/s; nothing (with `why`) when clpeak is missing.
std::optional<double> clpeak_float16_gbps(const std::string& device_name, std::string& why);

/// (e) Enumerating spaces: a synthetic one of 10^6 raw points and gemm's.
nlohmann::json space_generation(Device& device);

/// (f) Three kernels alloy does not ship, each swept exhaustively, then
/// tuned `repeats` times with the `autotune` command's defaults; every pick
/// re-timed beside the exhaustive top 5 and the default over `rounds`
/// interleaved rounds.
nlohmann::json held_out_quality(Runtime& runtime, Device& device, unsigned repeats, unsigned rounds);

/// (g) gemm 1024, the held-out histogram and Jacobi stencil, each tuned with
/// the `autotune` defaults on a quiet machine and beside `background`
/// CPU-bound processes; both picks then re-timed side by side, quiet, over
/// `rounds` interleaved rounds. Target: the loaded pick within 1.15x of the
/// quiet one, or marked provisional.
nlohmann::json tuning_under_load(Runtime& runtime, Device& device, unsigned background, unsigned rounds);

/// The figures as a few readable lines.
std::string summarize(const nlohmann::json& figures);

}  // namespace alloy::bench
