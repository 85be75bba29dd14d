// The tuner's last step: the configurations the search could not tell apart
// are timed again, taking turns, until they separate or are declared tied.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "alloy/autotune/measurement.hpp"
#include "alloy/autotune/statistics.hpp"

namespace alloy::autotune {

struct ConfirmOptions {
  /// false: the search's fastest measurement wins, as measured.
  bool enabled = true;
  /// Rounds before any candidate may be dropped, and the most rounds.
  unsigned min_rounds = 5;
  unsigned max_rounds = 25;
  /// Candidates besides the default, fastest first, when more overlap the best.
  std::size_t max_candidates = 8;
  /// The fastest this many besides the default are confirmed even where
  /// their intervals do not overlap the best's: a search's one measurement
  /// of each, minutes apart on a busy device, can be off by more than its
  /// own interval says.
  std::size_t min_candidates = 3;
  /// Share of a wall-time budget kept for confirming: the search stops
  /// when the rest is spent, and rounds stop at the budget's end.
  double budget_share = 0.15;
};

struct ConfirmationCandidate {
  Configuration configuration;
  bool is_default = false;
  /// Parameters whose value differs from the default's: ties go to the fewest.
  std::size_t distance_to_default = 0;
  std::vector<double> samples;  ///< one per round taken part in
  bool dropped = false;         ///< separated as slower than the best
};

/// The search's measurements worth confirming, fastest first: the fastest
/// `min_candidates`, then every ok one whose interval overlaps the fastest
/// one's widened by `drift` (how far the device's times moved during the
/// search, as a fraction), at most `max_candidates` in all; and the default,
/// which is always confirmed so its time is measured beside the pick.
/// Nothing when no measurement is ok.
std::vector<ConfirmationCandidate> confirmation_candidates(const std::vector<Measurement>& measurements,
                                                           const Configuration& defaults,
                                                           const ConfirmOptions& options, double drift = 0.0);

struct ConfirmationOutcome {
  std::size_t chosen = 0;  ///< index into the candidates
  unsigned rounds = 0;
  /// Candidates tied with the fastest median, the chosen one included (1:
  /// it is faster than every other).
  std::size_t tied = 1;
  /// The rounds could not tell the pick from some candidate still in: their
  /// intervals overlap and reach past the 5 % tie margin (or the budget
  /// ended the rounds before min_rounds). The pick is the best guess, not
  /// a finding.
  bool provisional = false;
};

/// Among the candidates not dropped, those tied with the fastest median
/// (within 5 % of it): the only one, or, when several are tied, never the
/// default over a candidate not shown to be slower, then the lowest
/// median, then the fewest parameters changed from the default.
/// `separation_tried` false (the budget ended the rounds before
/// min_rounds) makes the pick provisional.
ConfirmationOutcome choose_confirmed(const std::vector<ConfirmationCandidate>& candidates,
                                     bool separation_tried = true);

/// Runs rounds: each round times every candidate still in, in an order that
/// rotates, through `time_once(candidate, round)` (nothing: it failed this
/// time, and is dropped). From `min_rounds` on, a candidate whose interval
/// lies wholly above the fastest median's interval is dropped. Stops when
/// one is left, when every one left is tied for sure with the fastest (both
/// intervals within the tie margin), at `max_rounds`, or when
/// `out_of_time()` says so (checked before each timing), then chooses.
ConfirmationOutcome confirm(std::vector<ConfirmationCandidate>& candidates, const ConfirmOptions& options,
                            const std::function<std::optional<double>(std::size_t candidate, unsigned round)>& time_once,
                            const std::function<bool()>& out_of_time);

}  // namespace alloy::autotune
