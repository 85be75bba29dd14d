// Fitting and querying the model strategy's regression trees.
#include "regression_forest.hpp"

#include <algorithm>
#include <cmath>

namespace alloy::autotune::strategies {

// Grows one tree on a bootstrap sample; holds the scratch buffers so that
// split search allocates once per tree, not once per node.
class RegressionForest::Builder {
 public:
  Builder(std::span<const std::uint32_t> levels, std::span<const double> targets,
          std::span<const std::size_t> level_counts, const Options& options, Rng& rng)
      : levels_(levels),
        targets_(targets),
        level_counts_(level_counts),
        options_(options),
        rng_(rng) {
    for (std::size_t f = 0; f < level_counts.size(); ++f) {
      if (level_counts[f] > 1) features_.push_back(f);
    }
    std::size_t widest = 0;
    for (std::size_t count : level_counts) widest = std::max(widest, count);
    sums_.resize(widest);
    counts_.resize(widest);
    tried_ = std::max<std::size_t>(
        1, static_cast<std::size_t>(
               std::ceil(options.feature_fraction * static_cast<double>(features_.size()))));
    min_leaf_ = std::max<std::size_t>(options.min_leaf, 1);
  }

  Tree build() {
    const std::size_t n = targets_.size();
    rows_.resize(n);
    for (std::size_t& row : rows_) row = uniform_below(rng_, n);
    tree_.clear();
    tree_.emplace_back();
    grow(0, 0, n, 0);
    return std::move(tree_);
  }

 private:
  struct Split {
    double gain = 0;
    std::size_t feature = 0;
    std::uint32_t threshold = 0;
  };

  std::uint32_t level(std::size_t row, std::size_t feature) const {
    return levels_[row * level_counts_.size() + feature];
  }

  void grow(std::size_t node, std::size_t begin, std::size_t end, std::size_t depth) {
    double sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += targets_[rows_[i]];
    const std::size_t n = end - begin;
    tree_[node].value = sum / static_cast<double>(n);
    if (depth >= options_.max_depth || n < 2 * min_leaf_) return;
    const Split split = best_split(begin, end, sum);
    if (split.gain <= 1e-12) return;
    const auto middle = std::partition(
        rows_.begin() + static_cast<std::ptrdiff_t>(begin),
        rows_.begin() + static_cast<std::ptrdiff_t>(end),
        [&](std::size_t row) { return level(row, split.feature) <= split.threshold; });
    const std::size_t mid = static_cast<std::size_t>(middle - rows_.begin());
    const auto left = static_cast<std::uint32_t>(tree_.size());
    tree_.emplace_back();
    tree_.emplace_back();
    tree_[node].feature = static_cast<std::uint32_t>(split.feature);
    tree_[node].threshold = split.threshold;
    tree_[node].left = left;
    tree_[node].right = left + 1;
    grow(left, begin, mid, depth + 1);
    grow(left + 1, mid, end, depth + 1);
  }

  // The split that most reduces the squared error, over a random subset of
  // the features.
  Split best_split(std::size_t begin, std::size_t end, double sum) {
    const std::size_t n = end - begin;
    const double base = sum * sum / static_cast<double>(n);
    Split best;
    for (std::size_t i = 0; i < tried_ && i < features_.size(); ++i) {
      std::swap(features_[i], features_[i + uniform_below(rng_, features_.size() - i)]);
      const std::size_t feature = features_[i];
      const std::size_t count = level_counts_[feature];
      std::fill_n(sums_.begin(), count, 0.0);
      std::fill_n(counts_.begin(), count, 0);
      for (std::size_t r = begin; r < end; ++r) {
        const std::uint32_t l = level(rows_[r], feature);
        sums_[l] += targets_[rows_[r]];
        ++counts_[l];
      }
      double left_sum = 0;
      std::size_t left_count = 0;
      for (std::size_t t = 0; t + 1 < count; ++t) {
        left_sum += sums_[t];
        left_count += counts_[t];
        if (counts_[t] == 0) continue;  // the same split as the level before
        const std::size_t right_count = n - left_count;
        if (left_count < min_leaf_ || right_count < min_leaf_) continue;
        const double right_sum = sum - left_sum;
        const double gain = left_sum * left_sum / static_cast<double>(left_count) +
                            right_sum * right_sum / static_cast<double>(right_count) - base;
        if (gain > best.gain) best = {gain, feature, static_cast<std::uint32_t>(t)};
      }
    }
    return best;
  }

  std::span<const std::uint32_t> levels_;
  std::span<const double> targets_;
  std::span<const std::size_t> level_counts_;
  const Options& options_;
  Rng& rng_;
  std::vector<std::size_t> features_;
  std::size_t tried_ = 1;
  std::size_t min_leaf_ = 1;
  std::vector<double> sums_;
  std::vector<std::size_t> counts_;
  std::vector<std::size_t> rows_;
  Tree tree_;
};

void RegressionForest::fit(std::span<const std::uint32_t> levels, std::span<const double> targets,
                           std::span<const std::size_t> level_counts, const Options& options,
                           Rng& rng) {
  trees_.clear();
  if (targets.empty()) return;
  Builder builder(levels, targets, level_counts, options, rng);
  for (std::size_t t = 0; t < options.trees; ++t) trees_.push_back(builder.build());
}

RegressionForest::Prediction RegressionForest::predict(std::span<const std::size_t> levels) const {
  if (trees_.empty()) return {};
  double sum = 0;
  double squares = 0;
  for (const Tree& tree : trees_) {
    std::size_t node = 0;
    while (tree[node].left != 0) {
      node =
          levels[tree[node].feature] <= tree[node].threshold ? tree[node].left : tree[node].right;
    }
    sum += tree[node].value;
    squares += tree[node].value * tree[node].value;
  }
  const double count = static_cast<double>(trees_.size());
  const double mean = sum / count;
  return {mean, std::sqrt(std::max(squares / count - mean * mean, 0.0))};
}

}  // namespace alloy::autotune::strategies
