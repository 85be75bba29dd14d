// Harness inputs: every fill gives the distribution it names, for floats and
// integers, the same for the same seed; .npy and raw files are read or
// refused with the reason; buffer sizes divide.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>

#include "alloy/autotune/input_generation.hpp"
#include "alloy/error.hpp"
#include "support/temporary_folder.hpp"

namespace alloy::autotune {
namespace {

using Fill = HarnessBuffer::Fill;

HarnessBuffer filled(Fill fill, ScalarType type, double constant = 0) {
  HarnessBuffer buffer = HarnessBuffer::input("in", {1, {}, {0}}, fill, type);
  buffer.constant = constant;
  return buffer;
}

template <class T>
std::vector<T> values_of(Fill fill, std::size_t count = 100000, std::uint64_t seed = 7) {
  const HostArray array = initial_contents(filled(fill, scalar_type_of<T>()), count, seed);
  const std::span<const T> view = array.view<T>();
  return {view.begin(), view.end()};
}

double mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
}

}  // namespace

TEST_CASE("Autotune.Inputs.uniform_normal_and_constant") {
  const std::vector<float> uniform = values_of<float>(Fill::random);
  CHECK(*std::min_element(uniform.begin(), uniform.end()) >= -1.0f);
  CHECK(*std::max_element(uniform.begin(), uniform.end()) < 1.0f);
  // Integers over the type's whole range.
  const std::vector<std::uint8_t> bytes = values_of<std::uint8_t>(Fill::random);
  CHECK(*std::min_element(bytes.begin(), bytes.end()) == 0);
  CHECK(*std::max_element(bytes.begin(), bytes.end()) == 255);
  const std::vector<std::int64_t> longs = values_of<std::int64_t>(Fill::random, 1000);
  CHECK(std::count_if(longs.begin(), longs.end(), [](std::int64_t v) { return v < -(std::int64_t{1} << 61); }) > 100);

  const std::vector<double> normal = values_of<double>(Fill::normal);
  CHECK(std::abs(mean(normal)) < 0.02);
  std::vector<double> squares;
  for (double v : normal) squares.push_back(v * v);
  CHECK(std::sqrt(mean(squares)) == doctest::Approx(1.0).epsilon(0.02));
  // Integers: centred in the range, a sixteenth of it wide.
  std::vector<double> shorts;
  for (std::int16_t v : values_of<std::int16_t>(Fill::normal)) shorts.push_back(v);
  CHECK(std::abs(mean(shorts)) < 50);
  std::vector<double> uints;
  for (std::uint32_t v : values_of<std::uint32_t>(Fill::normal)) uints.push_back(v);
  CHECK(mean(uints) == doctest::Approx(2147483647.5).epsilon(0.01));
  // Clamped, never wrapped.
  for (std::uint64_t v : values_of<std::uint64_t>(Fill::normal, 10000)) REQUIRE(v > 0);

  const HostArray constant = initial_contents(filled(Fill::constant, ScalarType::i32, 42), 1000, 1);
  for (std::int32_t v : constant.view<std::int32_t>()) REQUIRE(v == 42);
  const HostArray zeros = initial_contents(filled(Fill::zeros, ScalarType::f64), 1000, 1);
  for (double v : zeros.view<double>()) REQUIRE(v == 0.0);
  const std::vector<std::int32_t> bits = values_of<std::int32_t>(Fill::bits);
  CHECK(std::count(bits.begin(), bits.end(), 1) + std::count(bits.begin(), bits.end(), 0) == 100000);
  CHECK(std::count(bits.begin(), bits.end(), 1) > 45000);
}

TEST_CASE("Autotune.Inputs.skewed_and_sorted") {
  // Zipf: 1 is the most common value, then 2, and so on; none below 1.
  for (const auto& values : {values_of<std::uint32_t>(Fill::skewed)}) {
    std::map<std::uint32_t, std::size_t> counts;
    for (std::uint32_t v : values) ++counts[v];
    CHECK(counts.begin()->first == 1);
    CHECK(counts[1] > counts[2]);
    CHECK(counts[2] > counts[10]);
    CHECK(counts[10] > counts[1000]);
    CHECK(double(counts[1]) / double(values.size()) > 0.05);  // the hot key
    CHECK(counts.rbegin()->first <= 65536);
  }
  // Bytes are skewed within their own range.
  const std::vector<std::uint8_t> bytes = values_of<std::uint8_t>(Fill::skewed);
  CHECK(std::count(bytes.begin(), bytes.end(), 0) == 0);
  CHECK(std::count(bytes.begin(), bytes.end(), 1) > std::count(bytes.begin(), bytes.end(), 100));

  const std::vector<float> sorted = values_of<float>(Fill::sorted);
  CHECK(std::is_sorted(sorted.begin(), sorted.end()));
  CHECK(sorted.front() < -0.99f);
  CHECK(sorted.back() > 0.99f);
  const std::vector<std::int32_t> sorted_ints = values_of<std::int32_t>(Fill::sorted);
  CHECK(std::is_sorted(sorted_ints.begin(), sorted_ints.end()));
}

TEST_CASE("Autotune.Inputs.same_seed_same_contents") {
  for (Fill fill : {Fill::random, Fill::normal, Fill::skewed, Fill::sorted, Fill::bits}) {
    CAPTURE(int(fill));
    CHECK(values_of<float>(fill, 1000, 3) == values_of<float>(fill, 1000, 3));
    CHECK(values_of<std::uint16_t>(fill, 1000, 3) == values_of<std::uint16_t>(fill, 1000, 3));
    CHECK(values_of<float>(fill, 1000, 3) != values_of<float>(fill, 1000, 4));
  }
}

TEST_CASE("Autotune.Inputs.buffer_sizes_divide_and_round_up") {
  TunableKernel kernel;
  kernel.name = "test.sizes";
  kernel.kernel_name = "k";
  kernel.parameters = {{"WGS", {64}, 64, {}}};
  kernel.launch = {{0, {}, {}, {1, {"WGS"}, {}}}};
  HarnessBuffer buffer = HarnessBuffer::input("partials", {1, {}, {0, 1}});
  buffer.divide = {4, {}, {}};
  CHECK(buffer_elements(kernel, buffer, Extent(100, 2)) == 50);
  CHECK(buffer_elements(kernel, buffer, Extent(101, 1)) == 26);  // rounded up: every item has a place
  buffer.divide = {1, {}, {1}};
  CHECK(buffer_elements(kernel, buffer, Extent(100, 8)) == 100);
  buffer.divide = {0, {}, {}};
  CHECK(buffer_elements(kernel, buffer, Extent(100, 8)) == 0);
}

}  // namespace alloy::autotune

namespace alloy::autotune {
namespace {

// A .npy file as NumPy writes one: magic, version 1.0, a header padded to a
// multiple of 64 bytes, then the elements.
void write_npy(const std::filesystem::path& file, const std::string& descr, const std::string& shape,
               const void* data, std::size_t bytes, bool fortran = false) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': (" + shape + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(file, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  out.put(char(length & 0xff)).put(char(length >> 8));
  out << header;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

std::string error_reading(const HarnessBuffer& buffer, std::size_t count) {
  try {
    initial_contents(buffer, count, 1);
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Autotune.Inputs.read_from_npy_and_raw_files") {
  test::TemporaryFolder folder{"inputs"};
  const std::vector<float> floats = {1.5f, -2.0f, 3.25f, 4.0f, 5.5f};
  write_npy(folder.path / "floats.npy", "<f4", "5,", floats.data(), floats.size() * sizeof(float));
  HarnessBuffer buffer = HarnessBuffer::input("x", {1, {}, {0}}, HarnessBuffer::Fill::file);
  buffer.file = folder.path / "floats.npy";
  // The first elements, as many as the problem needs.
  const HostArray read = initial_contents(buffer, 4, 1);
  CHECK(std::vector<float>(read.view<float>().begin(), read.view<float>().end()) ==
        std::vector<float>(floats.begin(), floats.begin() + 4));
  CHECK(error_reading(buffer, 6).find("holds 5 float elements; the problem needs 6") != std::string::npos);
  buffer.type = ScalarType::i32;
  CHECK(error_reading(buffer, 4).find("holds float elements; the buffer is int") != std::string::npos);

  // Two dimensions in C order: every element counts.
  std::vector<std::uint8_t> bytes(4 * 8);
  std::iota(bytes.begin(), bytes.end(), std::uint8_t{0});
  write_npy(folder.path / "bytes.npy", "|u1", "4, 8", bytes.data(), bytes.size());
  HarnessBuffer keys = HarnessBuffer::input("keys", {1, {}, {0}}, HarnessBuffer::Fill::file, ScalarType::u8);
  keys.file = folder.path / "bytes.npy";
  CHECK(initial_contents(keys, 32, 1).view<std::uint8_t>()[31] == 31);
  write_npy(folder.path / "fortran.npy", "|u1", "4, 8", bytes.data(), bytes.size(), true);
  keys.file = folder.path / "fortran.npy";
  CHECK(error_reading(keys, 32).find("Fortran") != std::string::npos);
  write_npy(folder.path / "big.npy", ">f4", "5,", floats.data(), floats.size() * sizeof(float));
  buffer.type = ScalarType::f32;
  buffer.file = folder.path / "big.npy";
  CHECK(error_reading(buffer, 4).find("'>f4'") != std::string::npos);

  // Any other file is raw elements of the buffer's type.
  std::ofstream(folder.path / "raw.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(floats.data()), std::streamsize(floats.size() * sizeof(float)));
  buffer.file = folder.path / "raw.bin";
  CHECK(initial_contents(buffer, 5, 1).view<float>()[4] == 5.5f);
  CHECK(error_reading(buffer, 9).find("holds 5 float elements; the problem needs 9") != std::string::npos);
  std::ofstream(folder.path / "fake.npy") << "not numpy at all";
  buffer.file = folder.path / "fake.npy";
  CHECK(error_reading(buffer, 1).find("is not a .npy file") != std::string::npos);
  buffer.file = folder.path / "absent.npy";
  CHECK(error_reading(buffer, 1).find("absent.npy cannot be read") != std::string::npos);
}

}  // namespace alloy::autotune
