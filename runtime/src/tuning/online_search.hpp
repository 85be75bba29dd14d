// The search behind online tuning: which configuration a tunable kernel's
// next real launch runs while it has no exact profile entry, decided from
// the times of its earlier launches.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <vector>

#include "alloy/tunable_kernel.hpp"

namespace alloy::detail {

struct OnlineSearchOptions {
  /// The extra device time tuning may cost (verification runs, candidates
  /// slower than the best), as a share of the kernel's device time so far.
  double budget = 0.05;
  /// Timed launches of a candidate before it is judged against the best.
  std::size_t samples = 3;
  /// A candidate replaces the best only when its median is faster by this
  /// share: timings on a running program are noisy, and a move on noise
  /// alone would wander.
  double margin = 0.03;
  /// A candidate whose first time is this many times the best's median is
  /// dropped at once: more samples would only spend the budget.
  double hopeless = 2.0;
  /// The best's most recent times kept: its median follows the device as
  /// its load changes.
  std::size_t best_window = 9;
};

/// Hill-climbing over one kernel's configurations for one problem and
/// device, on the program's own launches. From a starting configuration
/// (the nearest profile entry, else the defaults), it tries the neighbours
/// of the best so far — one parameter moved one value along its list —
/// and moves when a neighbour's median over a few launches beats the
/// best's by the margin; it has converged when no neighbour of the best is
/// left untried. Local search suits the few, noisy samples a running
/// program gives: each step needs only a handful of launches, and it
/// starts near a good point.
///
/// A candidate is first run as a verification (the caller runs it on
/// copies of the written buffers beside the best's real launch and compares
/// the results): its results are used only once verified(), and a rejected
/// one is never picked again.
///
/// The budget: a candidate is picked only while the extra time spent so
/// far, plus one launch of the best, stays within `budget` × the kernel's
/// device time. A verification run counts whole; a candidate's real launch
/// counts what it took beyond the best's median. A slow candidate can
/// overshoot by one launch; the search then waits, on the best, until the
/// program's device time has grown to cover it. Not thread-safe.
class OnlineSearch {
 public:
  /// Throws InvalidArgument when `start` is not valid for the problem and
  /// the device's limits.
  OnlineSearch(TunableKernel kernel, Extent problem, DeviceLimits limits, Configuration start,
               OnlineSearchOptions options = {});

  enum class Role {
    best,       ///< the best so far: its results are the launch's
    verify,     ///< a candidate on copies, beside the best's real launch
    candidate,  ///< a verified candidate: its results are the launch's
  };
  struct Pick {
    Configuration configuration;
    Role role = Role::best;
  };
  /// What the next launch runs.
  Pick next();

  /// The device time of a launch of `configuration`; `verification`: it
  /// ran on copies, beside a launch of the best. For a verification, say
  /// verified() or rejected() first: a candidate is judged on its samples
  /// only once verified.
  void timed(const Configuration& configuration, double seconds, bool verification);
  /// The current candidate's results matched the best's: its later
  /// launches are real ones.
  void verified(const Configuration& configuration);
  /// Its results did not match, or it did not build or launch: dropped.
  void rejected(const Configuration& configuration);

  bool converged() const { return !candidate_ && untried_.empty(); }
  const Configuration& best() const { return best_.configuration; }
  /// The median of the best's recent times; nothing before its first.
  std::optional<double> best_seconds() const;
  std::size_t best_samples() const { return best_.samples.size(); }
  /// relative_spread() of the best's recent times: a profile's noise, as the
  /// tuner measures it.
  double best_noise() const;
  /// The configurations the search will try next, in order: compile them
  /// ahead, off the launch path.
  std::vector<Configuration> upcoming() const;

  double extra_seconds() const { return extra_seconds_; }
  double kernel_seconds() const { return kernel_seconds_; }
  /// Candidates tried (verified or rejected) so far.
  std::size_t tried() const { return tried_.size(); }

 private:
  struct Timed {
    Configuration configuration;
    std::vector<double> samples;
    bool verified = false;
  };

  /// The untried neighbours of the best, each valid here.
  void queue_neighbours();
  /// Moves to the next untried neighbour, if any.
  void draw_candidate();
  /// After the candidate's samples: move to it, or keep the best.
  void judge_candidate();
  bool budget_allows() const;

  TunableKernel kernel_;
  Extent problem_;
  DeviceLimits limits_;
  OnlineSearchOptions options_;
  Timed best_;
  std::optional<Timed> candidate_;
  std::vector<Configuration> untried_;  ///< neighbours of the best, next first
  std::set<Configuration> tried_;       ///< judged or rejected: never again
  double extra_seconds_ = 0;
  double kernel_seconds_ = 0;
};

}  // namespace alloy::detail
