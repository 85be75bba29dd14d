// Reads kernel parameter lists from portable source and checks launch arguments.
#include <algorithm>
#include <cctype>
#include <regex>
#include <iterator>
#include <sstream>

#include "alloy/error.hpp"
#include "alloy/kernel_args.hpp"
#include "kernel_source_text.hpp"

namespace alloy {
namespace {

using detail::kernel_header;
using detail::regex_lock;
using detail::strip_comments_and_literals;

struct ScalarName {
  std::string_view name;
  ScalarType type;
};

// OpenCL C spellings first, then the C spellings that mean the same.
constexpr ScalarName scalar_names[] = {
    {"char", ScalarType::i8},           {"uchar", ScalarType::u8},
    {"short", ScalarType::i16},         {"ushort", ScalarType::u16},
    {"int", ScalarType::i32},           {"uint", ScalarType::u32},
    {"long", ScalarType::i64},          {"ulong", ScalarType::u64},
    {"float", ScalarType::f32},         {"double", ScalarType::f64},
    {"signed char", ScalarType::i8},    {"unsigned char", ScalarType::u8},
    {"unsigned short", ScalarType::u16}, {"unsigned int", ScalarType::u32},
    {"unsigned", ScalarType::u32},      {"unsigned long", ScalarType::u64},
};

/// Splits a parameter list at top-level commas; nothing if parentheses do not balance.
std::optional<std::vector<std::string>> split_parameters(const std::string& text, std::size_t open) {
  std::vector<std::string> parameters(1);
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ')' && depth == 0) return parameters;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parameters.emplace_back();
    } else {
      parameters.back() += c;
    }
  }
  return std::nullopt;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
      if (c == '*') words.emplace_back("*");
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

KernelParameter parse_parameter(const std::string& declaration) {
  KernelParameter parameter;
  parameter.declared_type = trim(declaration);
  std::vector<std::string> words = split_words(declaration);
  if (!words.empty() && words.back() != "*") {
    parameter.name = words.back();
    words.pop_back();
  }
  parameter.declared_type = trim(declaration.substr(0, declaration.rfind(parameter.name)));

  const bool is_pointer = std::find(words.begin(), words.end(), "*") != words.end();
  if (is_pointer) {
    const auto has = [&](const char* word) {
      return std::find(words.begin(), words.end(), word) != words.end();
    };
    parameter.kind = has("CONSTANT") ? KernelParameter::Kind::constant_pointer
                     : has("LOCAL")  ? KernelParameter::Kind::local_pointer
                                     : KernelParameter::Kind::global_pointer;
    return parameter;
  }
  std::string type_name;
  for (const std::string& word : words) {
    if (word == "const" || word == "volatile" || word == "restrict") continue;
    if (!type_name.empty()) type_name += ' ';
    type_name += word;
  }
  for (const ScalarName& known : scalar_names) {
    if (known.name == type_name) parameter.scalar_type = known.type;
  }
  return parameter;
}

std::string describe(const KernelSignature& signature, std::size_t index) {
  const KernelParameter& parameter = signature.parameters[index];
  return "argument " + std::to_string(index) + " '" + parameter.name + "' (" +
         parameter.declared_type + ") of kernel '" + signature.kernel_name + "'";
}

}  // namespace

std::string_view to_string(ScalarType type) {
  for (const ScalarName& known : scalar_names) {
    if (known.type == type) return known.name;
  }
  return "?";
}

std::optional<ScalarType> scalar_type_from_string(std::string_view text) {
  for (const ScalarName& known : scalar_names) {
    if (known.name == text) return known.type;
  }
  return std::nullopt;
}

std::size_t size_of(ScalarType type) {
  switch (type) {
    case ScalarType::i8: case ScalarType::u8: return 1;
    case ScalarType::i16: case ScalarType::u16: return 2;
    case ScalarType::i32: case ScalarType::u32: case ScalarType::f32: return 4;
    case ScalarType::i64: case ScalarType::u64: case ScalarType::f64: return 8;
  }
  return 0;
}

std::optional<KernelSignature> find_kernel_signature(std::string_view source,
                                                     std::string_view kernel_name) {
  const bool is_identifier =
      !kernel_name.empty() && std::all_of(kernel_name.begin(), kernel_name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      });
  if (!is_identifier) return std::nullopt;
  const std::string text = strip_comments_and_literals(source);
  const auto matching = regex_lock();
  const std::regex header = kernel_header(kernel_name);
  auto matches = std::sregex_iterator(text.begin(), text.end(), header);
  if (matches == std::sregex_iterator()) return std::nullopt;
  // Declared twice (say, in #if branches per backend): which one the compiler
  // sees is not known here, so the backend's own argument count must do.
  if (std::next(matches) != std::sregex_iterator()) return std::nullopt;

  const auto open = static_cast<std::size_t>(matches->position(0) + matches->length(0));
  const auto declarations = split_parameters(text, open);
  if (!declarations) return std::nullopt;

  KernelSignature signature;
  signature.kernel_name = std::string(kernel_name);
  if (declarations->size() == 1) {
    const std::string only = trim(declarations->front());
    if (only.empty() || only == "void") return signature;
  }
  for (const std::string& declaration : *declarations) {
    signature.parameters.push_back(parse_parameter(declaration));
  }
  return signature;
}

std::vector<std::string> declared_kernel_names(std::string_view source) {
  const std::string text = strip_comments_and_literals(source);
  const auto matching = regex_lock();
  const std::regex header = kernel_header("\\w+");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), header);
       it != std::sregex_iterator(); ++it) {
    names.push_back((*it)[1].str());
  }
  return names;
}

void check_kernel_args(const KernelSignature& signature, const KernelArg* args,
                       std::size_t count) {
  if (count != signature.parameters.size()) {
    const std::string which = count < signature.parameters.size()
                                  ? "; first missing: " + describe(signature, count)
                                  : "; pass one value per parameter in order";
    throw InvalidArgument("kernel '" + signature.kernel_name + "' takes " +
                          std::to_string(signature.parameters.size()) + " arguments, got " +
                          std::to_string(count) + which);
  }
  for (std::size_t i = 0; i < count; ++i) {
    const KernelParameter& parameter = signature.parameters[i];
    const KernelArg& arg = args[i];
    if (parameter.kind == KernelParameter::Kind::local_pointer) {
      throw InvalidArgument(describe(signature, i) +
                            " is a LOCAL pointer, which the portable dialect does not support; "
                            "declare a LOCAL array in the kernel body (docs/kernels.md)");
    }
    const bool wants_buffer = parameter.kind != KernelParameter::Kind::scalar;
    if (wants_buffer && arg.kind != KernelArg::Kind::buffer) {
      throw InvalidArgument(describe(signature, i) + " is a pointer and needs a DeviceBuffer, got a " +
                            std::string(to_string(arg.scalar_type)) + " value");
    }
    if (!wants_buffer && arg.kind == KernelArg::Kind::buffer) {
      throw InvalidArgument(describe(signature, i) + " is a scalar, got a DeviceBuffer");
    }
    if (!wants_buffer && parameter.scalar_type && *parameter.scalar_type != arg.scalar_type) {
      throw InvalidArgument(describe(signature, i) + " expects " +
                            std::string(to_string(*parameter.scalar_type)) + ", got " +
                            std::string(to_string(arg.scalar_type)) +
                            "; cast the value to the declared type");
    }
  }
}

std::optional<ScalarType> pointee_scalar_type(std::string_view declared_type) {
  std::string text(declared_type);
  std::replace(text.begin(), text.end(), '*', ' ');
  std::istringstream words(text);
  std::string word;
  std::string previous;
  while (words >> word) {
    if (previous == "unsigned" || previous == "signed") {
      if (auto type = scalar_type_from_string(previous + " " + word)) return type;
    }
    if (word != "unsigned" && word != "signed") {
      if (auto type = scalar_type_from_string(word)) return type;
    }
    previous = word;
  }
  if (previous == "unsigned") return ScalarType::u32;
  return std::nullopt;
}

}  // namespace alloy
