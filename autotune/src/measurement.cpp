// Outcome names, as logs and tables show them.
#include <iterator>

#include "alloy/autotune/measurement.hpp"

namespace alloy::autotune {
namespace {

constexpr std::string_view outcome_names[] = {"ok",           "invalid",       "compile_error",
                                              "launch_refused", "wrong_result", "timeout"};

}  // namespace

std::string_view to_string(Outcome outcome) {
  return outcome_names[static_cast<std::size_t>(outcome)];
}

std::optional<Outcome> outcome_from_string(std::string_view text) {
  for (std::size_t i = 0; i < std::size(outcome_names); ++i) {
    if (outcome_names[i] == text) return static_cast<Outcome>(i);
  }
  return std::nullopt;
}

}  // namespace alloy::autotune
