// Adds the first-group parameters to kernel declarations.
#include "slice_parameters.hpp"

#include <algorithm>
#include <iterator>
#include <regex>

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

/// Names a slice would change the meaning of, or whose work spans work-groups.
bool reads_across_work_groups(const std::string& text) {
  static const std::regex names(
      "\\b(get_num_groups|get_global_size|global_barrier|atomic\\w*|atom_\\w*|blockIdx|gridDim|ALLOY_NO_SLICES)\\b");
  return std::regex_search(text, names);
}

}  // namespace

SliceParameters add_slice_parameters(std::string_view source) {
  SliceParameters unchanged{std::string(source), {}, false};
  const std::string text = strip_comments_and_literals(source);
  const auto matching = regex_lock();
  static const std::regex any_kernel("\\bKERNEL\\b");
  const auto kernel_words = std::distance(std::sregex_iterator(text.begin(), text.end(), any_kernel),
                                          std::sregex_iterator());
  const std::regex header = kernel_header("[A-Za-z_]\\w*");
  std::vector<Edit> edits;
  std::vector<std::string> kernels;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), header); it != std::sregex_iterator(); ++it) {
    const auto at = static_cast<std::size_t>(it->position(0));
    if (on_directive(text, at)) return unchanged;
    const std::size_t open = at + static_cast<std::size_t>(it->length(0));
    const std::size_t close = closing_parenthesis(text, open);
    if (close == std::string::npos) return unchanged;
    if (empty_parameter_list(text.substr(open, close - open))) {
      edits.push_back({open, close - open, "ALLOY_FIRST_GROUP_PARAMETERS_ONLY"});
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
    kernels.push_back((*it)[1].str());
  }
  // A KERNEL the pattern did not find (made by a macro, say) would take no
  // parameters while the prelude reads them for the whole program.
  if (kernels.empty() || static_cast<std::size_t>(kernel_words) != kernels.size()) return unchanged;

  SliceParameters result{std::string(source), std::move(kernels), !reads_across_work_groups(text)};
  for (auto edit = edits.rbegin(); edit != edits.rend(); ++edit) {
    result.source.replace(edit->position, edit->erased, edit->inserted);
  }
  return result;
}

}  // namespace alloy::detail
