// Reading portable kernel source as text.
#include "kernel_source_text.hpp"

namespace alloy::detail {

std::string strip_comments_and_literals(std::string_view source) {
  std::string out(source);
  std::size_t i = 0;
  auto blank_until = [&](std::size_t end) {
    for (; i < end && i < out.size(); ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
  };
  while (i < out.size()) {
    if (out.compare(i, 2, "//") == 0) {
      const std::size_t end = out.find('\n', i);
      blank_until(end == std::string::npos ? out.size() : end);
    } else if (out.compare(i, 2, "/*") == 0) {
      const std::size_t end = out.find("*/", i + 2);
      blank_until(end == std::string::npos ? out.size() : end + 2);
    } else if (out[i] == '"' || out[i] == '\'') {
      const char quote = out[i++];
      while (i < out.size() && out[i] != quote && out[i] != '\n') {
        if (out[i] == '\\' && i + 1 < out.size()) out[i++] = ' ';
        out[i++] = ' ';
      }
      ++i;  // the closing quote stays
    } else {
      ++i;
    }
  }
  return out;
}

std::regex kernel_header(std::string_view name_pattern) {
  return std::regex("\\bKERNEL\\b[^;{}]*?\\bvoid\\s+(" + std::string(name_pattern) +
                    ")\\s*\\(");
}

std::unique_lock<std::mutex> regex_lock() {
  static std::mutex mutex;
  return std::unique_lock<std::mutex>(mutex);
}

}  // namespace alloy::detail
