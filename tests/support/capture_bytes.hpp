// A capture file's bytes, read, written and rewritten with a changed
// description whose checksum is made right again: what a hostile writer,
// not a broken disk, hands in.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "alloy/dialect.hpp"

namespace alloy::test {

inline std::string bytes_of(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void put(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

/// The file with its description replaced and a matching checksum.
inline std::string with_description(const std::string& file, const std::string& description) {
  std::uint64_t old_length = 0;
  std::memcpy(&old_length, file.data() + 12, 8);
  std::string out = file.substr(0, 12);
  const std::uint64_t length = description.size();
  out.append(reinterpret_cast<const char*>(&length), 8);
  out += description;
  out += file.substr(20 + old_length, file.size() - 8 - 20 - old_length);
  const std::uint64_t checksum = stable_hash(out);
  out.append(reinterpret_cast<const char*>(&checksum), 8);
  return out;
}

/// The description's JSON text.
inline std::string description_of(const std::string& file) {
  std::uint64_t length = 0;
  std::memcpy(&length, file.data() + 12, 8);
  return file.substr(20, length);
}

}  // namespace alloy::test
