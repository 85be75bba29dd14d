// bench_autotune's figures as a few readable lines (without --json).
#include <cstdio>
#include <string>

#include "bench_autotune.hpp"

namespace alloy::bench {
namespace {

std::string number(const nlohmann::json& value, const char* format) {
  if (!value.is_number()) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, value.get<double>());
  return text;
}

}  // namespace

std::string summarize(const nlohmann::json& figures) {
  std::string out = "device: " + figures.value("device", std::string()) + "\n";
  if (figures.contains("e_space_generation")) {
    const auto& e = figures["e_space_generation"];
    out += "(e) 10^6-point space enumerated in " + number(e["synthetic_seconds"], "%.3f") + " s; gemm space " +
           std::to_string(e["gemm_valid_points"].get<std::size_t>()) + " valid of " +
           std::to_string(e["gemm_raw_points"].get<std::size_t>()) + " in " + number(e["gemm_seconds"], "%.4f") + " s\n";
  }
  if (figures.contains("a_strategy_quality")) {
    const auto& a = figures["a_strategy_quality"];
    out += "(a) gemm " + a["problem"].get<std::string>() + ", " + std::to_string(a["space_size"].get<std::size_t>()) +
           " configurations, optimum " + number(a["optimum_gflops"], "%.1f") +
           " GFLOP/s; median (worst) ratio to optimum at 5% / 10% / 20% of the space:\n";
    for (const auto& [name, by_fraction] : a["strategies"].items()) {
      out += "    " + name + ":";
      for (const char* fraction : {"5%", "10%", "20%"}) {
        const auto& f = by_fraction[fraction];
        out += "  " + number(f["median_ratio_to_optimum"], "%.3f") + " (" +
               number(f["worst_ratio_to_optimum"], "%.3f") + ")";
      }
      out += "\n";
    }
  }
  if (figures.contains("b_compile_overlap")) {
    const auto& b = figures["b_compile_overlap"];
    out += "(b) seconds per configuration: serial compile " +
           number(b["seconds_per_configuration_serial"], "%.3f") + ", parallel " +
           number(b["seconds_per_configuration_parallel"], "%.3f") + " (" + number(b["speedup"], "%.2f") + "x)\n";
  }
  if (figures.contains("c_sgemm")) {
    for (const auto& row : figures["c_sgemm"]) {
      out += "(c) SGEMM " + std::to_string(row["n"].get<std::size_t>());
      out += ": alloy ";
      out += number(row["alloy_tuned_gflops"], "%.1f");
      out += " GFLOP/s (profile: ";
      out += row["profile_match"].get<std::string>();
      out += "), alloy default ";
      out += number(row["alloy_default_gflops"], "%.1f");
      out += ", CLBlast shipped ";
      out += number(row["clblast_gflops"], "%.1f");
      out += ", CLBlast tuned ";
      out += number(row["clblast_tuned_gflops"], "%.1f");
      out += " -> ";
      out += number(row.value("tuned_vs_clblast_tuned", nlohmann::json()), "%.2f");
      out += "x CLBlast tuned\n";
    }
  }
  if (figures.contains("d_triad")) {
    const auto& d = figures["d_triad"];
    out += "(d) triad: tuned ";
    out += number(d["tuned_gbps"], "%.1f");
    out += " GB/s (profile: ";
    out += d["profile_match"].get<std::string>();
    out += "), ";
    out += number(d["tuned_vs_plain_best"], "%.2f");
    out += "x the plain triad's best (";
    out += number(d["plain_best_gbps"], "%.1f");
    out += "), default ";
    out += number(d["default_gbps"], "%.1f");
    out += ", clpeak float16 ";
    out += number(d["clpeak_float16_gbps"], "%.1f");
    out += "\n";
  }
  if (figures.contains("f_held_out")) {
    for (const auto& kernel : figures["f_held_out"]) {
      // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
      out += "(f) ";
      out += kernel["kernel"].get<std::string>();
      out += ' ';
      out += kernel["problem"].get<std::string>();
      out += ", " + std::to_string(kernel["space_size"].get<std::size_t>()) + " configurations: picks at";
      for (const auto& pick : kernel["picks"]) {
        out += ' ';
        out += number(pick["vs_exhaustive_best"], "%.3f");
        out += 'x';
      }
      out += " of the exhaustive best, default ";
      out += number(kernel["default_vs_exhaustive_best"], "%.2f");
      out += kernel["every_pick_within_1_10"].get<bool>() ? "x\n" : "x  (a pick is over 1.10x)\n";
    }
  }
  if (figures.contains("g_under_load")) {
    for (const auto& tuned : figures["g_under_load"]) {
      out += "(g) ";
      out += tuned["kernel"].get<std::string>();
      out += ' ';
      out += tuned["problem"].get<std::string>();
      out += ": pick tuned under load ";
      out += number(tuned["loaded_vs_quiet"], "%.2f");
      out += "x the quiet pick's time";
      if (tuned["loaded"]["provisional"].get<bool>()) out += " (marked provisional)";
      out += tuned["target_met"].get<bool>() ? "\n" : "  (over 1.15x and not provisional)\n";
    }
  }
  return out;
}

}  // namespace alloy::bench
