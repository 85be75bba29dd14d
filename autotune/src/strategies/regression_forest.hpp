// A small random forest over levels: the model strategy's surrogate of
// log time, whose trees' disagreement says how unsure a prediction is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rng.hpp"

namespace alloy::autotune::strategies {

/// Bagged regression trees. Features are levels (small non-negative
/// integers), so a split is "level <= t" and split search counts per level
/// instead of sorting.
class RegressionForest {
 public:
  struct Options {
    std::size_t trees = 12;
    std::size_t max_depth = 14;
    std::size_t min_leaf = 1;
    double feature_fraction = 0.7;  ///< of the features tried at each split
  };

  struct Prediction {
    double mean = 0;
    double spread = 0;  ///< standard deviation over the trees
  };

  /// `levels` holds one row of `level_counts.size()` levels per target.
  /// Replaces any earlier fit; with no targets every prediction is zero.
  void fit(std::span<const std::uint32_t> levels, std::span<const double> targets,
           std::span<const std::size_t> level_counts, const Options& options, Rng& rng);

  Prediction predict(std::span<const std::size_t> levels) const;

 private:
  struct Node {
    double value = 0;  // the mean target of a leaf
    std::uint32_t feature = 0;
    std::uint32_t threshold = 0;  // level <= threshold goes left
    std::uint32_t left = 0;       // 0: a leaf (the root is never a child)
    std::uint32_t right = 0;
  };
  using Tree = std::vector<Node>;

  class Builder;

  std::vector<Tree> trees_;
};

}  // namespace alloy::autotune::strategies
