// Confirming the search's best: interleaved rounds, intervals that separate
// or tie, a tie that goes to the faster median and never keeps the default
// by default, and a pick marked provisional when the rounds could not tell.
#include "alloy/autotune/confirmation.hpp"

#include <algorithm>

namespace alloy::autotune {
namespace {

// Medians this close are a tie, whatever the intervals say.
constexpr double tie_margin = 0.05;

std::size_t distance(const Configuration& configuration, const Configuration& defaults) {
  std::size_t changed = 0;
  for (std::size_t p = 0; p < configuration.size() && p < defaults.size(); ++p) {
    if (configuration[p] != defaults[p]) ++changed;
  }
  return changed;
}

// The candidate still in with the lowest median, or nothing.
std::optional<std::size_t> fastest(const std::vector<ConfirmationCandidate>& candidates,
                                   const std::vector<TimeSummary>& summaries) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].dropped || summaries[i].samples == 0) continue;
    if (!best || summaries[i].median < summaries[*best].median) best = i;
  }
  return best;
}

std::vector<TimeSummary> summaries_of(const std::vector<ConfirmationCandidate>& candidates) {
  std::vector<TimeSummary> summaries;
  for (const ConfirmationCandidate& candidate : candidates) summaries.push_back(summarize(candidate.samples));
  return summaries;
}

// Whether every candidate still in besides `chosen` is told apart from it:
// separated (its interval wholly above the chosen one's), or tied for sure
// (both intervals within the tie margin of the chosen median), so that
// whichever of the two is faster, the pick loses at most the margin.
bool resolved(const std::vector<ConfirmationCandidate>& candidates, const std::vector<TimeSummary>& summaries,
              std::size_t chosen) {
  const TimeSummary& best = summaries[chosen];
  const double floor = (1.0 - tie_margin) * best.median;
  const double ceiling = (1.0 + tie_margin) * best.median;
  const auto within_margin = [&](const TimeSummary& summary) {
    return summary.low >= floor && summary.high <= ceiling;
  };
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i == chosen || candidates[i].dropped || summaries[i].samples == 0) continue;
    const bool separated = summaries[i].low > best.high;
    if (!separated && !(within_margin(summaries[i]) && within_margin(best))) return false;
  }
  return true;
}

}  // namespace

std::vector<ConfirmationCandidate> confirmation_candidates(const std::vector<Measurement>& measurements,
                                                           const Configuration& defaults,
                                                           const ConfirmOptions& options, double drift) {
  std::vector<const Measurement*> ok;
  for (const Measurement& measurement : measurements) {
    if (measurement.outcome == Outcome::ok) ok.push_back(&measurement);
  }
  std::vector<ConfirmationCandidate> candidates;
  if (ok.empty()) return candidates;
  std::stable_sort(ok.begin(), ok.end(), [](const Measurement* a, const Measurement* b) { return a->seconds < b->seconds; });
  const double best_high = std::max(ok.front()->high, ok.front()->seconds) * (1.0 + std::max(drift, 0.0));
  bool have_default = false;
  for (const Measurement* measurement : ok) {
    const bool is_default = measurement->configuration == defaults;
    const std::size_t others = candidates.size() - (have_default ? 1 : 0);
    const bool overlaps = std::min(measurement->low, measurement->seconds) <= best_high;
    const bool among_fastest = others < options.min_candidates;
    if (!is_default && ((!overlaps && !among_fastest) || others >= options.max_candidates)) continue;
    if (is_default && have_default) continue;
    have_default = have_default || is_default;
    candidates.push_back({measurement->configuration, is_default, distance(measurement->configuration, defaults), {}, false});
  }
  return candidates;
}

ConfirmationOutcome choose_confirmed(const std::vector<ConfirmationCandidate>& candidates,
                                     bool separation_tried) {
  const std::vector<TimeSummary> summaries = summaries_of(candidates);
  std::vector<std::size_t> in;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].dropped && summaries[i].samples > 0) in.push_back(i);
  }
  ConfirmationOutcome outcome;
  if (in.empty()) return outcome;
  // Tied with the fastest median: not separated from it, and not much
  // slower either (a candidate fast one run in four has a wide interval,
  // but its median says what it usually does).
  const std::size_t fastest_in = *std::min_element(in.begin(), in.end(), [&](std::size_t a, std::size_t b) {
    return summaries[a].median < summaries[b].median;
  });
  std::erase_if(in, [&](std::size_t i) {
    return summaries[i].median > (1.0 + tie_margin) * summaries[fastest_in].median;
  });
  outcome.tied = in.size();
  const bool any_other = std::any_of(in.begin(), in.end(), [&](std::size_t i) { return !candidates[i].is_default; });
  std::optional<std::size_t> chosen;
  for (std::size_t i : in) {
    if (candidates[i].is_default && any_other) continue;
    // The faster median; the fewer parameters changed from the default only
    // where the medians are equal.
    const bool faster = chosen && summaries[i].median < summaries[*chosen].median;
    const bool as_fast_and_nearer = chosen && summaries[i].median == summaries[*chosen].median &&
                                    candidates[i].distance_to_default < candidates[*chosen].distance_to_default;
    if (!chosen || faster || as_fast_and_nearer) chosen = i;
  }
  outcome.chosen = *chosen;
  outcome.provisional = !separation_tried || !resolved(candidates, summaries, outcome.chosen);
  return outcome;
}

ConfirmationOutcome confirm(std::vector<ConfirmationCandidate>& candidates, const ConfirmOptions& options,
                            const std::function<std::optional<double>(std::size_t, unsigned)>& time_once,
                            const std::function<bool()>& out_of_time) {
  unsigned rounds = 0;
  auto still_in = [&] {
    return std::count_if(candidates.begin(), candidates.end(), [](const auto& c) { return !c.dropped; });
  };
  bool stopped = false;
  while (!stopped && rounds < options.max_rounds && still_in() > 1) {
    ++rounds;
    // Rotating the order evens out what running first or after a given
    // neighbour does to a time (caches, clocks ramping).
    bool timed = false;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const std::size_t i = (k + rounds) % candidates.size();
      if (candidates[i].dropped) continue;
      if (out_of_time()) {
        stopped = true;
        if (!timed) --rounds;
        break;
      }
      timed = true;
      const std::optional<double> seconds = time_once(i, rounds);
      if (seconds) {
        candidates[i].samples.push_back(*seconds);
      } else {
        candidates[i].dropped = true;
      }
    }
    if (rounds < options.min_rounds) continue;
    const std::vector<TimeSummary> summaries = summaries_of(candidates);
    const std::optional<std::size_t> best = fastest(candidates, summaries);
    if (!best) break;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (i != *best && !candidates[i].dropped && summaries[i].low > summaries[*best].high) {
        candidates[i].dropped = true;
      }
    }
    // Tied for sure with the fastest: more rounds would not change the pick
    // by more than the tie margin.
    if (resolved(candidates, summaries, *best)) break;
  }
  ConfirmationOutcome outcome = choose_confirmed(candidates, rounds >= options.min_rounds);
  outcome.rounds = rounds;
  return outcome;
}

}  // namespace alloy::autotune
