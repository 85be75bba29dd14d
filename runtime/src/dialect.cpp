// Puts the portable-dialect prelude in front of kernel sources.
#include "alloy/dialect.hpp"

#include "embedded/alloy_prelude_source.hpp"

namespace alloy {

std::string_view kernel_prelude() { return alloy_kernels::alloy_prelude_source; }

std::string compose_kernel_source(std::string_view name, std::string_view source) {
  // Quotes or backslashes in the name would end the #line string early.
  std::string line_name;
  for (char c : name) line_name += (c == '"' || c == '\\') ? '_' : c;
  std::string full(kernel_prelude());
  full += "\n#line 1 \"" + line_name + "\"\n";
  full += source;
  return full;
}

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace alloy
