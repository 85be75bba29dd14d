// Reads kernel parameter lists from portable source and checks launch arguments.
#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "alloy/error.hpp"
#include "alloy/kernel_args.hpp"

namespace alloy {
namespace {

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

std::string strip_comments(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source.substr(i, 2) == "//") {
      i = source.find('\n', i);
      if (i == std::string_view::npos) break;
      out += '\n';
    } else if (source.substr(i, 2) == "/*") {
      i = source.find("*/", i + 2);
      if (i == std::string_view::npos) break;
      ++i;
      out += ' ';
    } else {
      out += source[i];
    }
  }
  return out;
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
    const bool is_constant = std::find(words.begin(), words.end(), "CONSTANT") != words.end();
    parameter.kind = is_constant ? KernelParameter::Kind::constant_pointer
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
  const std::string text = strip_comments(source);
  const std::regex header("\\bKERNEL\\s+void\\s+" + std::string(kernel_name) + "\\s*\\(");
  std::smatch match;
  if (!std::regex_search(text, match, header)) return std::nullopt;

  const std::size_t open = static_cast<std::size_t>(match.position(0) + match.length(0));
  const std::size_t close = text.find(')', open);
  if (close == std::string::npos) return std::nullopt;

  KernelSignature signature;
  signature.kernel_name = std::string(kernel_name);
  const std::string list = trim(text.substr(open, close - open));
  if (list.empty() || list == "void") return signature;
  std::stringstream parameters(list);
  for (std::string declaration; std::getline(parameters, declaration, ',');) {
    signature.parameters.push_back(parse_parameter(declaration));
  }
  return signature;
}

std::vector<std::string> declared_kernel_names(std::string_view source) {
  const std::string text = strip_comments(source);
  const std::regex header("\\bKERNEL\\s+void\\s+(\\w+)\\s*\\(");
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

}  // namespace alloy
