// Median and its confidence interval from order statistics.
#include "alloy/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace alloy {
namespace {

// P(X <= k) for X ~ Binomial(n, 1/2).
double binomial_half_cdf(std::size_t n, std::size_t k) {
  double term = std::pow(0.5, double(n));  // P(X = 0)
  double sum = term;
  for (std::size_t i = 1; i <= k; ++i) {
    term *= double(n - i + 1) / double(i);
    sum += term;
  }
  return sum;
}

}  // namespace

TimeSummary summarize(std::vector<double> samples) {
  TimeSummary summary;
  summary.samples = samples.size();
  if (samples.empty()) return summary;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  summary.median = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  // The interval [x(j), x(n-1-j)] (0-based) misses the median with
  // probability 2 P(X <= j) for X ~ Binomial(n, 1/2): take the largest j
  // that keeps that at most 5 %.
  std::size_t j = 0;
  while (2 * (j + 1) < n && 2.0 * binomial_half_cdf(n, j) <= 0.05) ++j;
  if (j > 0) --j;
  summary.low = samples[j];
  summary.high = samples[n - 1 - j];
  return summary;
}

double relative_spread(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0.0;
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(samples.size());
  double squares = 0;
  for (double v : samples) squares += (v - mean) * (v - mean);
  return mean > 0 ? std::sqrt(squares / double(samples.size())) / mean : 0.0;
}

}  // namespace alloy
