// Checks of the `autotune` command's numeric options, with messages a person
// reads: CLI11's own range checks accept "-1" for unsigned options (it wraps
// round) and print an open upper limit as DBL_MAX's 309 digits.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

namespace alloy::autotune::command {

/// A whole number from `low` to `high`: no sign, no fraction, no exponent.
CLI::Validator whole_number(std::uint64_t low = 0, std::uint64_t high = UINT64_MAX);

/// A number of at least `low` (more than `low` when `open`).
CLI::Validator at_least(double low, bool open = false);

/// A number from `low` to `high`.
CLI::Validator between(double low, double high);

}  // namespace alloy::autotune::command
