// Adds the first-group parameters to kernel declarations.
#include "slice_parameters.hpp"

#include <cctype>
#include <utility>

#include "kernel_source_text.hpp"

namespace alloy::detail {
namespace {

struct Edit {
  std::size_t position;
  std::size_t erased;
  std::string_view inserted;
};

/// Whether `position` lies on a preprocessor directive, continued lines included.
bool on_directive(const std::string& text, std::size_t position) {
  std::size_t start = text.rfind('\n', position);
  start = start == std::string::npos ? 0 : start + 1;
  // Walk back over lines that a backslash continues into this one.
  while (start >= 2 && text[start - 2] == '\\') {
    const std::size_t previous = text.rfind('\n', start - 2);
    start = previous == std::string::npos ? 0 : previous + 1;
  }
  const std::size_t first = text.find_first_not_of(" \t", start);
  return first != std::string::npos && text[first] == '#';
}

/// The position of the ')' closing the list opened just before `open`.
std::size_t closing_parenthesis(const std::string& text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && depth-- == 0) return i;
  }
  return std::string::npos;
}

bool empty_parameter_list(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return true;
  const std::size_t last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1) == "void";
}

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Each identifier of `text` with its position, in order.
std::vector<std::pair<std::size_t, std::string_view>> identifiers(const std::string& text) {
  std::vector<std::pair<std::size_t, std::string_view>> found;
  for (std::size_t i = 0; i < text.size();) {
    if (!is_word(text[i])) {
      ++i;
      continue;
    }
    const std::size_t begin = i;
    while (i < text.size() && is_word(text[i])) ++i;
    if (std::isdigit(static_cast<unsigned char>(text[begin]))) continue;  // a number
    found.emplace_back(begin, std::string_view(text).substr(begin, i - begin));
  }
  return found;
}

/// Names a slice would change the meaning of, or whose work spans work-groups.
bool reads_across_work_groups(std::string_view name) {
  return name == "get_num_groups" || name == "get_global_size" || name == "global_barrier" ||
         name.starts_with("atomic") || name.starts_with("atom_") || name == "blockIdx" || name == "gridDim" ||
         name == "ALLOY_NO_SLICES";
}

}  // namespace

SliceParameters add_slice_parameters(std::string_view source) {
  SliceParameters unchanged{std::string(source), {}, false};
  // Read word by word rather than with std::regex: every compile and cache
  // lookup composes its source, and this is much cheaper.
  const std::string text = strip_comments_and_literals(source);
  const auto words = identifiers(text);
  std::vector<Edit> edits;
  std::vector<std::string> kernels;
  bool reads_across = false;
  for (std::size_t w = 0; w < words.size(); ++w) {
    reads_across = reads_across || reads_across_work_groups(words[w].second);
    if (words[w].second != "KERNEL") continue;
    const std::size_t at = words[w].first;
    if (on_directive(text, at)) return unchanged;
    // KERNEL <attributes or macros> void <name> (: no ; { } before void.
    std::size_t v = w + 1;
    while (v < words.size() && words[v].second != "void") ++v;
    if (v + 1 >= words.size() || text.find_first_of(";{}", at) < words[v].first) return unchanged;
    const auto [name_at, name] = words[v + 1];
    const std::size_t open = text.find_first_not_of(" \t\r\n", name_at + name.size());
    if (open == std::string::npos || text[open] != '(') return unchanged;
    const std::size_t close = closing_parenthesis(text, open + 1);
    if (close == std::string::npos) return unchanged;
    if (empty_parameter_list(text.substr(open + 1, close - open - 1))) {
      edits.push_back({open + 1, close - open - 1, "ALLOY_FIRST_GROUP_PARAMETERS_ONLY"});
    } else {
      edits.push_back({close, 0, " ALLOY_FIRST_GROUP_PARAMETERS"});
    }
    const std::size_t next = text.find_first_not_of(" \t\r\n", close + 1);
    if (next == std::string::npos) return unchanged;
    if (text[next] == '{') {
      edits.push_back({next + 1, 0, " ALLOY_ENTER_KERNEL"});
    } else if (text[next] != ';') {
      return unchanged;  // something between the list and the body: not read here
    }
    kernels.emplace_back(name);
  }
  if (kernels.empty()) return unchanged;

  SliceParameters result{std::string(source), std::move(kernels), !reads_across};
  for (auto edit = edits.rbegin(); edit != edits.rend(); ++edit) {
    result.source.replace(edit->position, edit->erased, edit->inserted);
  }
  return result;
}

}  // namespace alloy::detail
