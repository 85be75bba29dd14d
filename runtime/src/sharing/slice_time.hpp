// How long a background kernel's slices run while a critical job shares
// its device: the executor's option, ALLOY_SLICE_MS, or the default.
#pragma once

#include <chrono>
#include <optional>

namespace alloy::detail {

/// What critical work waits for at most behind one background slice, on a
/// GPU about ten kernel launches' worth; small enough that a critical request
/// of half a millisecond keeps close to its time alone.
inline constexpr std::chrono::microseconds default_slice_time{100};

/// `chosen` if set, else ALLOY_SLICE_MS (milliseconds, a decimal number
/// above 0), else default_slice_time. InvalidArgument for a time that is not
/// above 0 or a setting that is not a number.
std::chrono::microseconds slice_time_or_environment(std::optional<std::chrono::microseconds> chosen);

}  // namespace alloy::detail
