// alloy's own tunable kernels: each embedded source with its tuning space,
// constraints and launch rules.
#include "alloy/kernel_library.hpp"

#include <string>

#include "embedded/gemm_source.hpp"
#include "embedded/reduce_source.hpp"
#include "embedded/transpose_source.hpp"
#include "embedded/triad_source.hpp"

namespace alloy::kernel_library {
namespace {

using Kind = TuningConstraint::Kind;

std::vector<std::string> off_on() { return {"off", "on"}; }

}  // namespace

const TunableKernel& gemm() {
  // Function-local statics: built on first use, never during static
  // initialisation of a program that merely links alloy.
  static const TunableKernel kernel = [] {
    TunableKernel k;
    k.name = "alloy.gemm";
    k.source = {"alloy/gemm.cl", std::string(alloy_kernels::gemm_source), ""};
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
                    {"SB", {0, 1}, 0, off_on()}};
    // Problem Extent(M, N, K): dimensions 0, 1, 2.
    k.constraints = {
        // Each work-item's rows (columns) form whole runs of VWM (VWN).
        {Kind::divides, {1, {"MDIMC", "VWM"}, {}}, {1, {"MWG"}, {}}},
        {Kind::divides, {1, {"NDIMC", "VWN"}, {}}, {1, {"NWG"}, {}}},
        // No bounds checks in the kernel: tiles cover the matrices exactly.
        {Kind::divides, {1, {"MWG"}, {}}, {1, {}, {0}}},
        {Kind::divides, {1, {"NWG"}, {}}, {1, {}, {1}}},
        {Kind::divides, {1, {"KWG"}, {}}, {1, {}, {2}}},
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
    k.local_memory_bytes = {{4, {"SA", "KWG", "MWG"}, {}}, {4, {"SB", "KWG", "NWG"}, {}}};
    return k;
  }();
  return kernel;
}

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
