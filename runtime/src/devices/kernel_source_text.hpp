// Reading portable kernel source as text: what the declaration parser and
// the slice rewrite share.
#pragma once

#include <mutex>
#include <regex>
#include <string>
#include <string_view>

namespace alloy::detail {

/// `source` with comments and the contents of string and character literals
/// blanked out (newlines kept), so that neither can look like a declaration
/// or swallow one; every other character stays at its position.
std::string strip_comments_and_literals(std::string_view source);

/// `KERNEL <attributes or macros> void <name> (`; the name is group 1.
std::regex kernel_header(std::string_view name_pattern);

/// Held while matching kernel source with std::regex: libstdc++'s matching
/// of \b and \w from several threads at once (programs compile on several)
/// is reported by ThreadSanitizer as a data race inside the library.
std::unique_lock<std::mutex> regex_lock();

}  // namespace alloy::detail
