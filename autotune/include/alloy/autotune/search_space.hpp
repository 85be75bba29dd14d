// The valid configurations of one tunable kernel for one problem on one
// device, enumerated once and addressed by index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "alloy/tunable_kernel.hpp"

namespace alloy::autotune {

/// Every configuration of a kernel that keeps its constraints and fits the
/// device, in mixed-radix order of the parameters' value indices ("levels"):
/// the first parameter varies slowest. Constraints are checked as soon as the
/// parameters they name are set, so invalid branches are cut early; a space
/// of 10^6 raw points enumerates in well under a second.
///
/// Strategies see a point as its levels, so neighbours, mutation and
/// crossover are index arithmetic; find() maps levels back to a point.
/// Immutable after construction, so safe to share between threads.
class SearchSpace {
 public:
  /// Throws InvalidArgument when the kernel's description is inconsistent or
  /// the raw space has more than 2^40 points.
  SearchSpace(TunableKernel kernel, Extent problem, DeviceLimits limits);

  const TunableKernel& kernel() const { return kernel_; }
  const Extent& problem() const { return problem_; }
  const DeviceLimits& limits() const { return limits_; }

  /// Valid configurations.
  std::size_t size() const { return codes_.size(); }
  /// All combinations of values, valid or not.
  std::uint64_t raw_size() const { return raw_size_; }

  std::size_t parameter_count() const { return level_counts_.size(); }
  /// How many values parameter `parameter` has.
  std::size_t level_count(std::size_t parameter) const { return level_counts_[parameter]; }
  /// The index into its value list of `parameter`'s value at `point`.
  std::size_t level(std::size_t point, std::size_t parameter) const;
  std::vector<std::size_t> levels(std::size_t point) const;

  Configuration configuration(std::size_t point) const;
  /// The point with these levels; nothing when that combination is invalid
  /// or a level is out of range.
  std::optional<std::size_t> find(std::span<const std::size_t> levels) const;
  std::optional<std::size_t> find(const Configuration& configuration) const;
  /// The kernel's default configuration, when it is valid here.
  std::optional<std::size_t> default_point() const { return find(kernel_.default_configuration()); }

 private:
  void enumerate();

  TunableKernel kernel_;
  Extent problem_;
  DeviceLimits limits_;
  std::uint64_t raw_size_ = 1;
  std::vector<std::size_t> level_counts_;
  std::vector<std::uint64_t> strides_;  // mixed-radix place value of each parameter
  std::vector<std::uint64_t> codes_;    // ascending, one per valid point
};

}  // namespace alloy::autotune
