// Hill-climbing on a running program's launches, within a budget of extra
// device time.
#include "online_search.hpp"

#include <algorithm>

#include "alloy/error.hpp"
#include "alloy/statistics.hpp"

namespace alloy::detail {
namespace {

double median(std::vector<double> samples) { return summarize(std::move(samples)).median; }

}  // namespace

OnlineSearch::OnlineSearch(TunableKernel kernel, Extent problem, DeviceLimits limits, Configuration start,
                           OnlineSearchOptions options)
    : kernel_(std::move(kernel)), problem_(problem), limits_(limits), options_(options) {
  if (const auto why = check_configuration(kernel_, start, problem_, limits_)) {
    throw InvalidArgument("online tuning of " + kernel_.name + ": the starting configuration " +
                          describe(kernel_, start) + " " + *why);
  }
  best_.configuration = std::move(start);
  best_.verified = true;
  tried_.insert(best_.configuration);
  queue_neighbours();
}

void OnlineSearch::queue_neighbours() {
  untried_.clear();
  for (std::size_t p = 0; p < kernel_.parameters.size(); ++p) {
    const std::vector<std::int64_t>& values = kernel_.parameters[p].values;
    const auto at = std::find(values.begin(), values.end(), best_.configuration[p]);
    const auto level = static_cast<std::size_t>(at - values.begin());
    for (const std::size_t next : {level - 1, level + 1}) {  // level - 1 wraps past 0: out of range
      if (next >= values.size()) continue;
      Configuration neighbour = best_.configuration;
      neighbour[p] = values[next];
      if (tried_.contains(neighbour) || check_configuration(kernel_, neighbour, problem_, limits_)) continue;
      untried_.push_back(std::move(neighbour));
    }
  }
}

void OnlineSearch::draw_candidate() {
  candidate_.reset();
  if (untried_.empty()) return;
  candidate_ = Timed{untried_.front(), {}, false};
  untried_.erase(untried_.begin());
}

bool OnlineSearch::budget_allows() const {
  const std::optional<double> launch = best_seconds();
  return launch && extra_seconds_ + *launch <= options_.budget * kernel_seconds_;
}

OnlineSearch::Pick OnlineSearch::next() {
  // The best is timed first, so that candidates have something to beat.
  const bool best_known = best_.samples.size() >= options_.samples;
  if (!best_known || !budget_allows()) return {best_.configuration, Role::best};
  if (!candidate_) draw_candidate();
  if (!candidate_) return {best_.configuration, Role::best};  // converged
  return {candidate_->configuration, candidate_->verified ? Role::candidate : Role::verify};
}

void OnlineSearch::timed(const Configuration& configuration, double seconds, bool verification) {
  kernel_seconds_ += seconds;
  if (configuration == best_.configuration && !verification) {
    best_.samples.push_back(seconds);
    if (best_.samples.size() > options_.best_window) best_.samples.erase(best_.samples.begin());
    return;
  }
  if (!candidate_ || candidate_->configuration != configuration) return;  // judged meanwhile: time counted
  const double best = best_seconds().value_or(seconds);
  extra_seconds_ += verification ? seconds : std::max(0.0, seconds - best);
  candidate_->samples.push_back(seconds);
  if (seconds > options_.hopeless * best || candidate_->samples.size() >= options_.samples) judge_candidate();
}

void OnlineSearch::verified(const Configuration& configuration) {
  if (candidate_ && candidate_->configuration == configuration) candidate_->verified = true;
}

void OnlineSearch::rejected(const Configuration& configuration) {
  tried_.insert(configuration);
  std::erase(untried_, configuration);
  if (candidate_ && candidate_->configuration == configuration) candidate_.reset();
}

void OnlineSearch::judge_candidate() {
  Timed candidate = std::move(*candidate_);
  candidate_.reset();
  tried_.insert(candidate.configuration);
  const std::optional<double> best = best_seconds();
  const bool faster = best && candidate.verified && candidate.samples.size() >= options_.samples &&
                      median(candidate.samples) < (1.0 - options_.margin) * *best;
  if (!faster) return;
  best_ = std::move(candidate);
  queue_neighbours();
}

std::optional<double> OnlineSearch::best_seconds() const {
  if (best_.samples.empty()) return std::nullopt;
  return median(best_.samples);
}

double OnlineSearch::best_noise() const { return relative_spread(best_.samples); }

std::vector<Configuration> OnlineSearch::upcoming() const {
  std::vector<Configuration> next;
  if (candidate_) next.push_back(candidate_->configuration);
  next.insert(next.end(), untried_.begin(), untried_.end());
  return next;
}

}  // namespace alloy::detail
