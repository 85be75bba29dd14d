// Summaries of repeated timings that one slow run cannot move: the median
// with a distribution-free confidence interval. The tuner's and online
// tuning's, so that a profile's noise means one thing whoever wrote it.
#pragma once

#include <cstddef>
#include <vector>

namespace alloy {

struct TimeSummary {
  double median = 0;
  /// An interval that holds the true median with at least 95 % confidence
  /// where the samples allow it (from 6 samples up; below that, the range).
  double low = 0;
  double high = 0;
  std::size_t samples = 0;
};

/// Order statistics around the median, chosen from the binomial
/// distribution: no assumption of normal noise, which timings on a shared
/// device do not have. Empty input gives zeros.
TimeSummary summarize(std::vector<double> samples);

/// Relative standard deviation: 0 for fewer than two samples.
double relative_spread(const std::vector<double>& samples);

}  // namespace alloy
