// Yes/no settings read from the environment (ALLOY_REPORT,
// ALLOY_ABORT_ON_ERROR), in the spellings people use for them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace alloy::detail {

/// 1, true, yes and on are true; 0, false, no and off are false, in any
/// letter case; any other text is neither.
std::optional<bool> parse_flag(std::string_view text);

/// What to say of `variable`=`text` when it is neither.
std::string not_a_flag(const char* variable, std::string_view text);

/// The setting `variable`: false when unset or empty. Throws InvalidArgument
/// (not_a_flag) for text that is neither true nor false, so a typo does not
/// silently leave the setting off.
bool flag_from_environment(const char* variable);

}  // namespace alloy::detail
