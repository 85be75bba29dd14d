// Puts the portable-dialect prelude in front of kernel sources.
#include "alloy/dialect.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "alloy/error.hpp"
#include "embedded/alloy_prelude_source.hpp"
#include "slice_parameters.hpp"

namespace alloy {

std::string_view kernel_prelude() { return alloy_kernels::alloy_prelude_source; }

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

namespace {

/// "#define NAME VALUE" for "NAME=VALUE", "#define NAME 1" for "NAME", as -D does.
std::string define_line(const std::string& definition, const ProgramSource& source) {
  const std::size_t equals = definition.find('=');
  const std::string name = definition.substr(0, equals);
  if (!is_identifier(name)) {
    throw InvalidArgument("program " + source.name + ": option -D" + definition +
                          " does not name a macro; write -DNAME or -DNAME=VALUE");
  }
  const std::string value = equals == std::string::npos ? "1" : definition.substr(equals + 1);
  return "#define " + name + " " + value + "\n";
}

}  // namespace

ComposedSource compose_kernel_source(const ProgramSource& source) {
  ComposedSource composed;
  std::string defines;
  std::istringstream options(source.options);
  for (std::string option; options >> option;) {
    if (option == "-D") {
      std::string definition;
      options >> definition;
      defines += define_line(definition, source);
    } else if (option.starts_with("-D")) {
      defines += define_line(option.substr(2), source);
    } else {
      composed.compiler_options += (composed.compiler_options.empty() ? "" : " ") + option;
    }
  }
  // Quotes or backslashes in the name would end the #line string early.
  std::string line_name;
  for (char c : source.name) line_name += (c == '"' || c == '\\') ? '_' : c;
  detail::SliceParameters sliced = detail::add_slice_parameters(source.source);
  // Before the prelude, which declares the slice's parameters only for a
  // source whose kernels all take them.
  composed.text = sliced.kernels.empty() ? "#define ALLOY_TAKES_FIRST_GROUP 0\n" : "#define ALLOY_TAKES_FIRST_GROUP 1\n";
  composed.text += kernel_prelude();
  composed.text += "\n" + defines + "#line 1 \"" + line_name + "\"\n";
  composed.text += sliced.source;
  composed.takes_first_group = !sliced.kernels.empty();
  composed.sliceable = sliced.sliceable;
  return composed;
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
