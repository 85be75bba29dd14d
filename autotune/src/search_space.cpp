// Enumerates a tuning space depth-first, cutting a branch at the first
// constraint its parameters break.
#include "alloy/autotune/search_space.hpp"

#include <algorithm>
#include <limits>

#include "alloy/error.hpp"

namespace alloy::autotune {
namespace {

constexpr std::uint64_t max_raw_points = std::uint64_t{1} << 40;
constexpr std::int64_t saturated = std::numeric_limits<std::int64_t>::max() / 4;

// A ParameterProduct with names resolved to parameter indices and problem
// dimensions folded into the factor, so the inner loop does no lookups.
struct IndexedProduct {
  std::int64_t factor = 1;
  std::vector<std::size_t> parameters;

  std::int64_t value(const std::vector<std::int64_t>& values) const {
    std::int64_t product = factor;
    for (std::size_t p : parameters) {
      const std::int64_t v = values[p];
      if (product == 0 || v == 0) return 0;
      product = product > saturated / v ? saturated : product * v;
    }
    return product;
  }
  // The enumeration depth after which every parameter is set.
  std::size_t ready_depth() const {
    std::size_t depth = 0;
    for (std::size_t p : parameters) depth = std::max(depth, p + 1);
    return depth;
  }
};

IndexedProduct index(const TunableKernel& kernel, const ParameterProduct& product,
                     const Extent& problem) {
  IndexedProduct indexed;
  indexed.factor = product.factor;
  for (unsigned d : product.problem_dimensions) {
    const auto size = static_cast<std::int64_t>(problem[d]);
    indexed.factor = indexed.factor > saturated / std::max<std::int64_t>(size, 1) ? saturated
                                                                                 : indexed.factor * size;
  }
  for (const std::string& name : product.parameters) indexed.parameters.push_back(*kernel.parameter_index(name));
  return indexed;
}

struct IndexedConstraint {
  TuningConstraint::Kind kind;
  IndexedProduct left;
  IndexedProduct right;

  bool holds(const std::vector<std::int64_t>& values) const {
    const std::int64_t l = left.value(values);
    const std::int64_t r = right.value(values);
    switch (kind) {
      case TuningConstraint::Kind::divides: return l != 0 && r % l == 0;
      case TuningConstraint::Kind::at_most: return l <= r;
      case TuningConstraint::Kind::equal: return l == r;
    }
    return false;
  }
};

}  // namespace

SearchSpace::SearchSpace(TunableKernel kernel, Extent problem, DeviceLimits limits)
    : kernel_(std::move(kernel)), problem_(problem), limits_(limits) {
  kernel_.validate();
  const std::size_t count = kernel_.parameters.size();
  level_counts_.resize(count);
  strides_.resize(count);
  for (std::size_t p = count; p-- > 0;) {
    level_counts_[p] = kernel_.parameters[p].values.size();
    strides_[p] = raw_size_;
    if (raw_size_ > max_raw_points / level_counts_[p]) {
      throw InvalidArgument("tunable kernel '" + kernel_.name +
                            "': its space has more than 2^40 configurations; narrow the "
                            "parameters' value lists");
    }
    raw_size_ *= level_counts_[p];
  }
  enumerate();
}

void SearchSpace::enumerate() {
  const std::size_t count = kernel_.parameters.size();
  // Constraints grouped by the depth at which they can first be checked.
  std::vector<std::vector<IndexedConstraint>> checks(count + 1);
  for (const TuningConstraint& constraint : kernel_.constraints) {
    IndexedConstraint indexed{constraint.kind, index(kernel_, constraint.left, problem_),
                              index(kernel_, constraint.right, problem_)};
    const std::size_t depth = std::max(indexed.left.ready_depth(), indexed.right.ready_depth());
    checks[depth].push_back(std::move(indexed));
  }
  std::vector<std::int64_t> values(count, 0);
  for (const IndexedConstraint& constraint : checks[0]) {
    if (!constraint.holds(values)) return;  // no configuration can be valid
  }

  std::vector<std::size_t> levels(count, 0);
  std::size_t depth = 0;
  std::uint64_t code = 0;
  // Iterative depth-first walk: levels[depth] is the next value to try there.
  while (true) {
    if (depth == count) {
      // Limits and launch geometry are checked on whole configurations only.
      if (!check_configuration(kernel_, values, problem_, limits_)) codes_.push_back(code);
      if (count == 0) return;
      --depth;
      code -= levels[depth] * strides_[depth];
      ++levels[depth];
      continue;
    }
    if (levels[depth] == level_counts_[depth]) {
      if (depth == 0) return;
      levels[depth] = 0;
      --depth;
      code -= levels[depth] * strides_[depth];
      ++levels[depth];
      continue;
    }
    values[depth] = kernel_.parameters[depth].values[levels[depth]];
    const bool valid = std::all_of(checks[depth + 1].begin(), checks[depth + 1].end(),
                                   [&](const IndexedConstraint& c) { return c.holds(values); });
    if (!valid) {
      ++levels[depth];
      continue;
    }
    code += levels[depth] * strides_[depth];
    ++depth;
  }
}

std::size_t SearchSpace::level(std::size_t point, std::size_t parameter) const {
  return static_cast<std::size_t>((codes_[point] / strides_[parameter]) % level_counts_[parameter]);
}

std::vector<std::size_t> SearchSpace::levels(std::size_t point) const {
  std::vector<std::size_t> result(parameter_count());
  for (std::size_t p = 0; p < result.size(); ++p) result[p] = level(point, p);
  return result;
}

Configuration SearchSpace::configuration(std::size_t point) const {
  Configuration configuration(parameter_count());
  for (std::size_t p = 0; p < configuration.size(); ++p) {
    configuration[p] = kernel_.parameters[p].values[level(point, p)];
  }
  return configuration;
}

std::optional<std::size_t> SearchSpace::find(std::span<const std::size_t> levels) const {
  if (levels.size() != parameter_count()) return std::nullopt;
  std::uint64_t code = 0;
  for (std::size_t p = 0; p < levels.size(); ++p) {
    if (levels[p] >= level_counts_[p]) return std::nullopt;
    code += levels[p] * strides_[p];
  }
  const auto at = std::lower_bound(codes_.begin(), codes_.end(), code);
  if (at == codes_.end() || *at != code) return std::nullopt;
  return static_cast<std::size_t>(at - codes_.begin());
}

std::optional<std::size_t> SearchSpace::find(const Configuration& configuration) const {
  if (configuration.size() != parameter_count()) return std::nullopt;
  std::vector<std::size_t> levels(configuration.size());
  for (std::size_t p = 0; p < configuration.size(); ++p) {
    const auto& values = kernel_.parameters[p].values;
    const auto at = std::find(values.begin(), values.end(), configuration[p]);
    if (at == values.end()) return std::nullopt;
    levels[p] = static_cast<std::size_t>(at - values.begin());
  }
  return find(levels);
}

}  // namespace alloy::autotune
