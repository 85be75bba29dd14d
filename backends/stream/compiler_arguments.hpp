// Command-line arguments for the runtime compilers (NVRTC, hiprtc).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace alloy::stream {

/// The words of `options` plus the target option, kept alive for the
/// `const char**` the compilers take.
class CompilerArguments {
 public:
  CompilerArguments(const std::string& options, std::string target_option) {
    std::istringstream split(options);
    for (std::string word; split >> word;) words_.push_back(word);
    words_.push_back(std::move(target_option));
    for (const std::string& word : words_) pointers_.push_back(word.c_str());
  }

  int count() const { return static_cast<int>(pointers_.size()); }
  const char* const* data() const { return pointers_.data(); }

 private:
  std::vector<std::string> words_;
  std::vector<const char*> pointers_;
};

/// Compiler logs come with their terminating NULs counted in.
inline void trim_log(std::string& log) {
  while (!log.empty() && log.back() == '\0') log.pop_back();
}

}  // namespace alloy::stream
