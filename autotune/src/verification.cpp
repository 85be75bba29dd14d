// Comparing a kernel's outputs with the reference: exact for integers,
// within tolerances for floats, elementwise, as sums or as sorted multisets.
#include "alloy/autotune/verification.hpp"

#include <algorithm>
#include <cmath>
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

}  // namespace

std::optional<std::string> compare_output(const HarnessBuffer& buffer, const HostArray& got,
                                          const HostArray& expected) {
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
