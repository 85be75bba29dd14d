// Reading harness inputs from .npy and raw files.
#include "input_files.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <string>

#include "alloy/error.hpp"

namespace alloy::autotune::detail {
namespace {

[[noreturn]] void refuse(const HarnessBuffer& buffer, const std::string& why) {
  throw InvalidArgument("harness buffer '" + buffer.name + "': input file " + buffer.file.string() + " " + why);
}

// NumPy's type codes for alloy's scalar types: '<f4', '|u1', ...
std::optional<ScalarType> npy_type(const std::string& descr) {
  if (descr.size() < 3 || descr[0] == '>') return std::nullopt;  // big-endian: not read
  static const std::pair<const char*, ScalarType> codes[] = {
      {"f4", ScalarType::f32}, {"f8", ScalarType::f64}, {"i1", ScalarType::i8},  {"u1", ScalarType::u8},
      {"i2", ScalarType::i16}, {"u2", ScalarType::u16}, {"i4", ScalarType::i32}, {"u4", ScalarType::u32},
      {"i8", ScalarType::i64}, {"u8", ScalarType::u64}};
  for (const auto& [code, type] : codes) {
    if (descr.substr(1) == code) return type;
  }
  return std::nullopt;
}

// The element count of a .npy file after its header; `in` is left at the data.
std::size_t read_npy_header(const HarnessBuffer& buffer, std::ifstream& in) {
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) refuse(buffer, "is not a .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_length = 0;
  unsigned char length_bytes[4] = {};
  in.read(reinterpret_cast<char*>(length_bytes), major == 1 ? 2 : 4);
  for (int i = (major == 1 ? 1 : 3); i >= 0; --i) header_length = header_length * 256 + length_bytes[i];
  if (!in || header_length > (1u << 20)) refuse(buffer, "has a damaged .npy header");
  std::string header(header_length, '\0');
  in.read(header.data(), header_length);
  if (!in) refuse(buffer, "has a damaged .npy header");

  std::smatch match;
  if (!std::regex_search(header, match, std::regex(R"('descr'\s*:\s*'([^']*)')"))) refuse(buffer, "has no 'descr'");
  const std::string descr = match[1];
  const std::optional<ScalarType> type = npy_type(descr);
  if (!type) refuse(buffer, "holds '" + descr + "' elements, which alloy does not read (little-endian numbers only)");
  if (*type != buffer.type) {
    refuse(buffer, "holds " + std::string(to_string(*type)) + " elements; the buffer is " +
                       std::string(to_string(buffer.type)));
  }
  if (!std::regex_search(header, match, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) refuse(buffer, "has no 'shape'");
  const std::string shape = match[1];
  std::size_t count = 1;
  std::size_t dimensions = 0;
  const std::regex number(R"(\d+)");
  for (auto it = std::sregex_iterator(shape.begin(), shape.end(), number); it != std::sregex_iterator(); ++it) {
    count *= std::stoull(it->str());
    ++dimensions;
  }
  if (dimensions > 1 && std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)"))) {
    refuse(buffer, "is in Fortran (column-major) order; save it in C order");
  }
  return count;
}

}  // namespace

HostArray read_input_file(const HarnessBuffer& buffer, std::size_t count) {
  std::ifstream in(buffer.file, std::ios::binary);
  if (!in) refuse(buffer, "cannot be read");
  std::size_t available = 0;
  if (buffer.file.extension() == ".npy") {
    available = read_npy_header(buffer, in);
  } else {
    in.seekg(0, std::ios::end);
    available = static_cast<std::size_t>(in.tellg()) / size_of(buffer.type);
    in.seekg(0);
  }
  if (available < count) {
    refuse(buffer, "holds " + std::to_string(available) + " " + std::string(to_string(buffer.type)) +
                       " elements; the problem needs " + std::to_string(count));
  }
  HostArray array(buffer.type, count);
  in.read(reinterpret_cast<char*>(array.data()), static_cast<std::streamsize>(array.size_bytes()));
  if (!in) refuse(buffer, "ended early");
  return array;
}

}  // namespace alloy::autotune::detail
