// alloy's own tunable kernels: each embedded source with its tuning space,
// constraints and launch rules.
#include "alloy/kernel_library.hpp"

#include <array>
#include <string>

#include "alloy/error.hpp"

#include "embedded/gemm_source.hpp"
#include "embedded/reduce_source.hpp"
#include "embedded/transpose_source.hpp"
#include "embedded/triad_source.hpp"

namespace alloy::kernel_library {
namespace {

using Kind = TuningConstraint::Kind;

std::vector<std::string> off_on() { return {"off", "on"}; }

TunableKernel make_gemm(const GemmOptions& options) {
  TunableKernel k;
  const bool wide = options.element == ScalarType::f64;
  k.name = std::string(wide ? "alloy.dgemm" : "alloy.gemm");
  if (options.transpose_a || options.transpose_b) {
    k.name += std::string(".") + (options.transpose_a ? "t" : "n") + (options.transpose_b ? "t" : "n");
  }
  // The variant is fixed for every configuration: shared defines, part of
  // the source hash, so each variant has profile entries of its own.
  std::string defines;
  if (options.transpose_a) defines += "-DTRANSA=1 ";
  if (options.transpose_b) defines += "-DTRANSB=1 ";
  if (wide) defines += "-DREAL=double ";
  if (!defines.empty()) defines.pop_back();
  k.source = {"alloy/gemm.cl", std::string(alloy_kernels::gemm_source), defines};
  k.kernel_name = "gemm";
  // Defaults are the source's own: small tiles, no vectors, no local
  // memory, like CLBlast's untuned kernel, which is slow but runs anywhere.
  // VWN goes to 16: a run of 16 floats fills an AVX-512 register, and on
  // CPUs that is worth 1.5x over runs of 8.
  k.parameters = {{"MWG", {16, 32, 64, 128}, 16, {}},
                  {"NWG", {16, 32, 64, 128}, 16, {}},
                  {"KWG", {8, 16, 32}, 8, {}},
                  {"MDIMC", {8, 16, 32}, 8, {}},
                  {"NDIMC", {8, 16, 32}, 8, {}},
                  {"VWM", {1, 2, 4, 8}, 1, {}},
                  {"VWN", {1, 2, 4, 8, 16}, 1, {}},
                  {"SA", {0, 1}, 0, off_on()},
                  {"SB", {0, 1}, 0, off_on()},
                  // How A and B lie on the device. A row of 1024 or 2048
                  // floats is a power of two bytes long, so the same
                  // column of consecutive rows falls into one cache set;
                  // padding rows to an odd number of cache lines spreads
                  // them (on PoCL, AMD EPYC, 1.4-3.4x faster at 1024 and
                  // 2048 with the same tiles).
                  {"LAYOUT_AB", {0, 1}, 0, {"row_major", "odd_padded:16"}}};
  // Problem Extent(M, N, K): dimensions 0, 1, 2. Any size: tiles on the
  // edges of C and a last partial step along K check their bounds.
  k.constraints = {
      // Each work-item's rows (columns) form whole runs of VWM (VWN).
      {Kind::divides, {1, {"MDIMC", "VWM"}, {}}, {1, {"MWG"}, {}}},
      {Kind::divides, {1, {"NDIMC", "VWN"}, {}}, {1, {"NWG"}, {}}},
      // A cached tile is loaded in equal shares by every work-item of the
      // group. Weighted by SA (SB): with caching off the right side is 0,
      // which every group size divides.
      {Kind::divides, {1, {"MDIMC", "NDIMC"}, {}}, {1, {"SA", "KWG", "MWG"}, {}}},
      {Kind::divides, {1, {"MDIMC", "NDIMC"}, {}}, {1, {"SB", "KWG", "NWG"}, {}}},
  };
  // Dimension 0 runs along n, so neighbouring work-items touch neighbouring
  // columns of row-major B and C.
  k.launch = {{1, {1, {"NDIMC"}, {}}, {1, {"NWG"}, {}}, {1, {"NDIMC"}, {}}},
              {0, {1, {"MDIMC"}, {}}, {1, {"MWG"}, {}}, {1, {"MDIMC"}, {}}}};
  // A is M x K (K x M transposed), B K x N (N x K); C is written as it is.
  k.matrices = {{"a", options.element, options.transpose_a ? "K" : "M", options.transpose_a ? "M" : "K", "LAYOUT_AB"},
                {"b", options.element, options.transpose_b ? "N" : "K", options.transpose_b ? "K" : "N", "LAYOUT_AB"}};
  const auto element = static_cast<std::int64_t>(size_of(options.element));
  k.local_memory_bytes = {{element, {"SA", "KWG", "MWG"}, {}}, {element, {"SB", "KWG", "NWG"}, {}}};
  return k;
}

}  // namespace

const TunableKernel& gemm(const GemmOptions& options) {
  if (options.element != ScalarType::f32 && options.element != ScalarType::f64) {
    throw InvalidArgument("gemm takes float or double matrices, not " + std::string(to_string(options.element)));
  }
  // Function-local statics: built on first use, never during static
  // initialisation of a program that merely links alloy.
  static const std::array<TunableKernel, 8> variants = [] {
    std::array<TunableKernel, 8> made;
    for (int v = 0; v < 8; ++v) {
      made[v] = make_gemm({(v & 1) != 0, (v & 2) != 0, (v & 4) != 0 ? ScalarType::f64 : ScalarType::f32});
    }
    return made;
  }();
  return variants[(options.transpose_a ? 1 : 0) + (options.transpose_b ? 2 : 0) +
                  (options.element == ScalarType::f64 ? 4 : 0)];
}

const TunableKernel& gemm() { return gemm(GemmOptions{}); }

const TunableKernel& transpose() {
  static const TunableKernel kernel = [] {
    TunableKernel k;
    k.name = "alloy.transpose";
    k.source = {"alloy/transpose.cl", std::string(alloy_kernels::transpose_source), ""};
    k.kernel_name = "transpose";
    // Work-items per group are TILE_DIM × GROUP_ROWS, each copying
    // TILE_DIM / GROUP_ROWS rows: a launch rule's local size is a product, so
    // the rows per work-item cannot be the parameter itself.
    k.parameters = {{"TILE_DIM", {8, 16, 32, 64}, 16, {}},
                    {"GROUP_ROWS", {1, 2, 4, 8, 16, 32}, 4, {}},
                    {"PAD", {0, 1}, 0, off_on()},
                    {"USE_LOCAL", {0, 1}, 1, off_on()}};
    k.constraints = {
        {Kind::divides, {1, {"GROUP_ROWS"}, {}}, {1, {"TILE_DIM"}, {}}},
        // Padding without the local tile is the same kernel twice over.
        {Kind::at_most, {1, {"PAD"}, {}}, {1, {"USE_LOCAL"}, {}}},
    };
    // Problem Extent(columns, rows); any size, rounded up to whole tiles.
    k.launch = {{0, {}, {}, {1, {"TILE_DIM"}, {}}},
                {1, {1, {"GROUP_ROWS"}, {}}, {1, {"TILE_DIM"}, {}}, {1, {"GROUP_ROWS"}, {}}}};
    k.local_memory_bytes = {{4, {"USE_LOCAL", "TILE_DIM", "TILE_DIM"}, {}},
                            {4, {"USE_LOCAL", "PAD", "TILE_DIM"}, {}}};
    return k;
  }();
  return kernel;
}

const TunableKernel& reduce() {
  static const TunableKernel kernel = [] {
    TunableKernel k;
    k.name = "alloy.reduce";
    k.source = {"alloy/reduce.cl", std::string(alloy_kernels::reduce_source), ""};
    k.kernel_name = "reduce";
    // WGS must be a power of two: the tree halves it.
    k.parameters = {{"WGS", {16, 32, 64, 128, 256, 512, 1024}, 64, {}},
                    {"WPT", {1, 2, 4, 8, 16, 32, 64}, 1, {}}};
    k.launch = {{0, {}, {1, {"WPT"}, {}}, {1, {"WGS"}, {}}}};
    k.local_memory_bytes = {{4, {"WGS"}, {}}};
    return k;
  }();
  return kernel;
}

const TunableKernel& triad() {
  static const TunableKernel kernel = [] {
    TunableKernel k;
    k.name = "alloy.triad";
    k.source = {"alloy/triad.cl", std::string(alloy_kernels::triad_source), ""};
    k.kernel_name = "triad";
    // WGS = 0 leaves the work-group to the driver: on PoCL that beat every
    // fixed size of a plain triad.
    k.parameters = {{"WGS", {0, 8, 16, 32, 64, 128, 256, 512, 1024}, 64, {}},
                    {"WPT", {1, 2, 4, 8}, 1, {}}};
    k.launch = {{0, {}, {1, {"WPT"}, {}}, {1, {"WGS"}, {}}}};
    return k;
  }();
  return kernel;
}

}  // namespace alloy::kernel_library
