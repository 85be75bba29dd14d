// Strategies by name, for the tuner's command line and configuration files.
#include <array>

#include "alloy/autotune/strategy.hpp"
#include "alloy/error.hpp"
#include "strategies/strategies.hpp"

namespace alloy::autotune {
namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<Strategy> (*make)(const SearchSpace&, std::uint64_t);
};

constexpr std::array<Entry, 5> entries = {{
    {"exhaustive", strategies::make_exhaustive},
    {"random", strategies::make_random},
    {"annealing", strategies::make_annealing},
    {"evolution", strategies::make_evolution},
    {"model", strategies::make_model},
}};

}  // namespace

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const Entry& entry : entries) names.emplace_back(entry.name);
  return names;
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, const SearchSpace& space,
                                        std::uint64_t seed) {
  for (const Entry& entry : entries) {
    if (entry.name == name) return entry.make(space, seed);
  }
  std::string valid;
  for (const Entry& entry : entries) valid.append(valid.empty() ? "" : ", ").append(entry.name);
  throw InvalidArgument("unknown search strategy '" + std::string(name) +
                        "'; the strategies are: " + valid);
}

}  // namespace alloy::autotune
