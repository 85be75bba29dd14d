// The tuner's harnesses for alloy's own kernels: buffers, arguments, host
// references and the problems tuned when the user names none.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "alloy/autotune/harness.hpp"
#include "alloy/kernel_library.hpp"

namespace alloy::autotune {
namespace {

using Buffer = HarnessBuffer;
using Argument = HarnessArgument;

// The triad's scalar: not 1 or 0, so a kernel that drops it is caught.
constexpr float triad_scalar = 3.0f;

// C = op(A) x op(B) on the host, in double: the reference every gemm
// variant is checked against. A is M×K (K×M when transposed), B K×N (N×K).
template <class Real>
void gemm_reference(const Extent& problem, const kernel_library::GemmOptions& options,
                    const std::vector<HostArray>& buffers, std::vector<HostArray>& expected) {
  const std::size_t m_size = problem[0];
  const std::size_t n_size = problem[1];
  const std::size_t k_size = problem[2];
  const std::span<const Real> a = buffers[0].view<Real>();
  const std::span<const Real> b = buffers[1].view<Real>();
  const std::span<Real> c = expected[0].view<Real>();
  // i-k-j order: the inner loop runs along rows of B and of the
  // accumulator, which the host compiler vectorizes. A transposed B is
  // copied into that order first.
  std::vector<Real> b_rows;
  if (options.transpose_b) {
    b_rows.resize(k_size * n_size);
    for (std::size_t n = 0; n < n_size; ++n) {
      for (std::size_t k = 0; k < k_size; ++k) b_rows[k * n_size + n] = b[n * k_size + k];
    }
  }
  const Real* b_data = options.transpose_b ? b_rows.data() : b.data();
  std::vector<double> row(n_size);
  for (std::size_t m = 0; m < m_size; ++m) {
    std::fill(row.begin(), row.end(), 0.0);
    for (std::size_t k = 0; k < k_size; ++k) {
      const double a_mk = options.transpose_a ? a[k * m_size + m] : a[m * k_size + k];
      const Real* b_row = &b_data[k * n_size];
      for (std::size_t n = 0; n < n_size; ++n) row[n] += a_mk * b_row[n];
    }
    for (std::size_t n = 0; n < n_size; ++n) c[m * n_size + n] = static_cast<Real>(row[n]);
  }
}

TuningTarget gemm_target(const kernel_library::GemmOptions& options) {
  Harness harness;
  // Problem Extent(M, N, K). Sums of K products in any order: relative
  // errors of floats stay near 1e-5 for K = 2048 (doubles far below), while
  // a wrong index is off by O(1).
  const ScalarType type = options.element;
  const ParameterProduct a_elements{1, {}, {0, 2}}, b_elements{1, {}, {2, 1}};
  harness.buffers = {Buffer::input("a", a_elements, Buffer::Fill::random, type),
                     Buffer::input("b", b_elements, Buffer::Fill::random, type),
                     Buffer::checked_output("c", {1, {}, {0, 1}}, {OutputCheck::Kind::elements, 1e-3, 1e-3}, type)};
  harness.buffers[2].reset_each_run = false;  // every run writes all of C
  harness.arguments = {Argument::dimension(0), Argument::dimension(1), Argument::dimension(2),
                       Argument::buffer(0),    Argument::buffer(1),    Argument::buffer(2)};
  harness.reference = [options](const Extent& problem, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    if (options.element == ScalarType::f64) {
      gemm_reference<double>(problem, options, buffers, expected);
    } else {
      gemm_reference<float>(problem, options, buffers, expected);
    }
  };
  std::string description = options.element == ScalarType::f64 ? "C = A x B, row-major double matrices"
                                                                : "C = A x B, row-major float matrices";
  if (options.transpose_a) description += ", A stored K x M and transposed";
  if (options.transpose_b) description += ", B stored N x K and transposed";
  // MWG NWG KWG MDIMC NDIMC VWM VWN SA SB LAYOUT_AB. The first two are the
  // best of three 60-s runs at 1024 on PoCL (AMD EPYC, AVX-512): long
  // vector runs, no local memory, padded operands. The third is CLBlast's
  // default for GPUs: 16 x 16 work-items, both tiles in local memory.
  const std::vector<Configuration> starting_points = {{64, 128, 16, 8, 16, 4, 8, 0, 0, 1},
                                                      {64, 64, 16, 8, 8, 8, 8, 0, 0, 1},
                                                      {64, 64, 16, 16, 16, 2, 2, 1, 1, 0}};
  return {kernel_library::gemm(options), harness,
          {Extent(512, 512, 512), Extent(1024, 1024, 1024), Extent(2048, 2048, 2048)},
          description + "; problem M x N x K", starting_points};
}

TuningTarget transpose_target() {
  Harness harness;
  // Problem Extent(columns, rows).
  constexpr OutputCheck exact{OutputCheck::Kind::elements, 0, 0};  // a copy
  harness.buffers = {Buffer::input("in", {1, {}, {0, 1}}), Buffer::checked_output("out", {1, {}, {0, 1}}, exact)};
  harness.buffers[1].reset_each_run = false;  // every run writes all of it
  harness.arguments = {Argument::dimension(1), Argument::dimension(0), Argument::buffer(0),
                       Argument::buffer(1)};
  harness.reference = [](const Extent& problem, const std::vector<HostArray>& buffers,
                         std::vector<HostArray>& expected) {
    const std::size_t columns = problem[0];
    const std::size_t rows = problem[1];
    const std::span<const float> in = buffers[0].view<float>();
    const std::span<float> out = expected[0].view<float>();
    for (std::size_t row = 0; row < rows; ++row) {
      for (std::size_t column = 0; column < columns; ++column) {
        out[column * rows + row] = in[row * columns + column];
      }
    }
  };
  return {kernel_library::transpose(), harness, {Extent(2048, 2048)},
          "out = transpose(in), row-major floats; problem columns x rows"};
}

TuningTarget reduce_target() {
  Harness harness;
  // Zeros and ones: every partial sum is an integer below 2^24, so float
  // adds in any order are exact, and a lost or doubled block (WGS of them,
  // about half ones) always shows.
  harness.buffers = {Buffer::input("in", {1, {}, {0}}, Buffer::Fill::bits),
                     // Accumulated into atomically: every run must start at 0.
                     Buffer::checked_output("out", {1, {}, {}}, {OutputCheck::Kind::elements, 0, 0})};
  harness.arguments = {Argument::dimension(0), Argument::buffer(0), Argument::buffer(1)};
  harness.reference = [](const Extent& problem, const std::vector<HostArray>& buffers,
                         std::vector<HostArray>& expected) {
    const std::span<const float> in = buffers[0].view<float>();
    double sum = 0;
    for (std::size_t i = 0; i < problem[0]; ++i) sum += in[i];
    expected[0].view<float>()[0] = static_cast<float>(sum);
  };
  return {kernel_library::reduce(), harness, {Extent(std::size_t{1} << 24)},
          "out[0] += sum(in), floats, tree in local memory plus one atomic per work-group; "
          "problem n"};
}

TuningTarget triad_target() {
  Harness harness;
  // One rounding either way, as a device may fuse the multiply-add.
  harness.buffers = {Buffer::checked_output("a", {1, {}, {0}}, {OutputCheck::Kind::elements, 1e-6, 1e-6}),
                     Buffer::input("b", {1, {}, {0}}), Buffer::input("c", {1, {}, {0}})};
  harness.buffers[0].reset_each_run = false;  // every run writes all of a
  harness.arguments = {Argument::dimension(0), Argument::float_value(triad_scalar),
                       Argument::buffer(0), Argument::buffer(1), Argument::buffer(2)};
  harness.reference = [](const Extent& problem, const std::vector<HostArray>& buffers,
                         std::vector<HostArray>& expected) {
    const std::span<const float> b = buffers[1].view<float>();
    const std::span<const float> c = buffers[2].view<float>();
    const std::span<float> a = expected[0].view<float>();
    for (std::size_t i = 0; i < problem[0]; ++i) a[i] = b[i] + triad_scalar * c[i];
  };
  return {kernel_library::triad(), harness, {Extent(std::size_t{1} << 24)},
          "a = b + scalar * c, floats (STREAM triad); problem n"};
}

}  // namespace

const std::vector<TuningTarget>& builtin_targets() {
  static const std::vector<TuningTarget> targets = {
      gemm_target({}),           gemm_target({true, false}),    gemm_target({false, true}),
      gemm_target({true, true}), gemm_target({false, false, ScalarType::f64}),
      transpose_target(),        reduce_target(),               triad_target()};
  return targets;
}

}  // namespace alloy::autotune
