// Comparing a kernel's outputs with the reference: exact for integers,
// within tolerances for floats, elementwise, as sums or as sorted multisets.
#include "alloy/autotune/verification.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>
#include <vector>

#include "alloy/scalar_dispatch.hpp"

namespace alloy::autotune {
namespace {

template <class T>
bool matches(T got, T expected, const OutputCheck& check) {
  if constexpr (std::is_floating_point_v<T>) {
    const double difference = std::fabs(double(got) - double(expected));
    // Written so that NaN fails.
    return difference <= check.absolute + check.relative * std::fabs(double(expected));
  } else {
    return got == expected;
  }
}

template <class T>
std::optional<std::string> compare_elements(const std::string& name, std::span<const T> got,
                                            std::span<const T> expected, const OutputCheck& check,
                                            const char* where) {
  std::size_t wrong = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (matches(got[i], expected[i], check)) continue;
    if (wrong++ == 0) first = i;
  }
  if (wrong == 0) return std::nullopt;
  std::ostringstream text;
  text.precision(9);
  text << "output '" << name << "': " << wrong << " of " << expected.size() << " elements wrong; first "
       << where << ' ' << first << " is ";
  if constexpr (std::is_floating_point_v<T>) {
    text << double(got[first]) << ", expected " << double(expected[first]);
  } else {
    text << +got[first] << ", expected " << +expected[first];
  }
  return text.str();
}

// Integer sums wrap like the device's arithmetic and compare exactly.
template <class T>
std::optional<std::string> compare_sums(const std::string& name, std::span<const T> got,
                                        std::span<const T> expected, const OutputCheck& check) {
  std::ostringstream text;
  text.precision(12);
  if constexpr (std::is_floating_point_v<T>) {
    double got_sum = 0;
    double expected_sum = 0;
    double magnitude = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      got_sum += got[i];
      expected_sum += expected[i];
      magnitude += std::fabs(double(expected[i]));
    }
    if (std::fabs(got_sum - expected_sum) <= check.absolute + check.relative * magnitude) return std::nullopt;
    text << "output '" << name << "': the sum is " << got_sum << ", expected " << expected_sum;
  } else {
    using Wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    std::uint64_t got_sum = 0;
    std::uint64_t expected_sum = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      got_sum += static_cast<std::uint64_t>(static_cast<Wide>(got[i]));
      expected_sum += static_cast<std::uint64_t>(static_cast<Wide>(expected[i]));
    }
    if (got_sum == expected_sum) return std::nullopt;
    text << "output '" << name << "': the sum is " << static_cast<Wide>(got_sum) << ", expected "
         << static_cast<Wide>(expected_sum);
  }
  return text.str();
}

template <class T>
std::vector<T> sorted(std::span<const T> values) {
  std::vector<T> copy(values.begin(), values.end());
  if constexpr (std::is_floating_point_v<T>) {
    // NaNs last, so sorting is well defined; they then fail the compare.
    std::sort(copy.begin(), copy.end(), [](T a, T b) { return std::isnan(b) ? !std::isnan(a) : a < b; });
  } else {
    std::sort(copy.begin(), copy.end());
  }
  return copy;
}

// A described buffer's values, as the kernel sees them: one array per
// field of the host's records, or the matrix's elements without the pitch's
// padding. Named "buffer.field" and "buffer" for messages.
std::vector<std::pair<std::string, HostArray>> described_values(const HarnessBuffer& buffer, const HostArray& array) {
  std::vector<std::pair<std::string, HostArray>> values;
  const std::byte* bytes = array.data();
  if (const auto* record = std::get_if<HostRecord>(&*buffer.host_layout)) {
    const std::size_t count = array.size_bytes() / record->size;
    for (const HostField& field : record->fields) {
      HostArray column(field.type, count);
      const std::size_t width = size_of(field.type);
      for (std::size_t r = 0; r < count; ++r) {
        std::memcpy(column.data() + r * width, bytes + r * record->size + field.offset, width);
      }
      values.emplace_back(buffer.name + "." + field.name, std::move(column));
    }
    return values;
  }
  const HostMatrix& matrix = std::get<HostMatrix>(*buffer.host_layout);
  const std::size_t width = size_of(matrix.element);
  const std::size_t lines = matrix.column_major ? matrix.columns : matrix.rows;
  HostArray elements(matrix.element, matrix.rows * matrix.columns);
  for (std::size_t line = 0; line < lines; ++line) {
    std::memcpy(elements.data() + line * matrix.line_length() * width, bytes + line * matrix.line_pitch() * width,
                matrix.line_length() * width);
  }
  values.emplace_back(buffer.name, std::move(elements));
  return values;
}

}  // namespace

std::optional<std::string> compare_output(const HarnessBuffer& buffer, const HostArray& got,
                                          const HostArray& expected) {
  if (buffer.host_layout && got.size_bytes() == expected.size_bytes()) {
    // Field by field: each with its own type's comparison.
    const auto got_values = described_values(buffer, got);
    const auto expected_values = described_values(buffer, expected);
    HarnessBuffer part = buffer;
    part.host_layout.reset();
    for (std::size_t v = 0; v < got_values.size(); ++v) {
      part.name = got_values[v].first;
      part.type = got_values[v].second.type();
      if (auto why = compare_output(part, got_values[v].second, expected_values[v].second)) return why;
    }
    return std::nullopt;
  }
  if (got.type() != expected.type() || got.size() != expected.size()) {
    throw InvalidArgument("comparing output '" + buffer.name + "': " + std::to_string(got.size()) + " " +
                          std::string(to_string(got.type())) + " elements against " +
                          std::to_string(expected.size()) + " " + std::string(to_string(expected.type())));
  }
  return with_scalar_type(expected.type(), [&](auto zero) -> std::optional<std::string> {
    using T = decltype(zero);
    const std::span<const T> got_values = got.view<T>();
    const std::span<const T> expected_values = expected.view<T>();
    switch (buffer.check.kind) {
      case OutputCheck::Kind::sum:
        return compare_sums(buffer.name, got_values, expected_values, buffer.check);
      case OutputCheck::Kind::sorted: {
        const std::vector<T> got_sorted = sorted(got_values);
        const std::vector<T> expected_sorted = sorted(expected_values);
        return compare_elements<T>(buffer.name, got_sorted, expected_sorted, buffer.check,
                                   "at sorted position");
      }
      case OutputCheck::Kind::elements:
        break;
    }
    return compare_elements(buffer.name, got_values, expected_values, buffer.check, "at element");
  });
}

}  // namespace alloy::autotune
