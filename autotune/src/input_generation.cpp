// Input distributions for tuning harnesses: uniform, normal, skewed (Zipf),
// sorted, constant, zeros and bits, for every scalar type.
#include "alloy/autotune/input_generation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "alloy/scalar_dispatch.hpp"
#include "input_files.hpp"

namespace alloy::autotune {
namespace {

template <class T>
T uniform_value(std::mt19937_64& random) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::uniform_real_distribution<T>(T(-1), T(1))(random);
  } else {
    return static_cast<T>(random());  // the low bytes of a draw: the type's whole range
  }
}

template <class T>
T normal_value(std::mt19937_64& random) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::normal_distribution<T>(T(0), T(1))(random);
  } else {
    const double low = double(std::numeric_limits<T>::min());
    const double high = double(std::numeric_limits<T>::max());
    const double value = std::normal_distribution<double>(0.5 * (low + high), (high - low) / 16)(random);
    // Clamped below the top: the double nearest a 64-bit maximum rounds up past it.
    return static_cast<T>(std::clamp(std::round(value), low, std::nextafter(high, low)));
  }
}

// Zipf's law over 1..k: value v comes up in proportion to 1 / v^1.1, so the
// first few values are most of the input (hot keys, frequent words).
class Zipf {
 public:
  explicit Zipf(std::uint64_t k) {
    cumulative_.reserve(std::size_t(k));
    double sum = 0;
    for (std::uint64_t v = 1; v <= k; ++v) cumulative_.push_back(sum += std::pow(double(v), -1.1));
  }
  std::uint64_t operator()(std::mt19937_64& random) const {
    const double u = std::uniform_real_distribution<double>(0, cumulative_.back())(random);
    return std::uint64_t(std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin()) + 1;
  }

 private:
  std::vector<double> cumulative_;
};

template <class T>
std::uint64_t skew_range() {
  if constexpr (std::is_floating_point_v<T>) {
    return 65536;
  } else {
    return std::min<std::uint64_t>(65536, std::uint64_t(std::numeric_limits<T>::max()));
  }
}

}  // namespace

std::int64_t buffer_elements(const TunableKernel& kernel, const HarnessBuffer& buffer, const Extent& problem) {
  const std::int64_t whole = evaluate(kernel, buffer.elements, {}, problem);
  const std::int64_t divide = evaluate(kernel, buffer.divide, {}, problem);
  return divide > 0 && whole > 0 ? (whole + divide - 1) / divide : 0;
}

HostArray initial_contents(const HarnessBuffer& buffer, std::size_t count, std::uint64_t seed) {
  if (buffer.fill == HarnessBuffer::Fill::file) return detail::read_input_file(buffer, count);
  if (buffer.fill == HarnessBuffer::Fill::given) {
    if (!buffer.given || buffer.given->type() != buffer.type || buffer.given->size() != count) {
      throw InvalidArgument("harness buffer '" + buffer.name + "' is given no contents of " + std::to_string(count) +
                            " " + std::string(to_string(buffer.type)) + " elements");
    }
    return *buffer.given;
  }
  HostArray array(buffer.type, count);
  std::mt19937_64 random(seed);
  with_scalar_type(buffer.type, [&](auto zero) {
    using T = decltype(zero);
    const std::span<T> values = array.view<T>();
    switch (buffer.fill) {
      case HarnessBuffer::Fill::zeros:
        break;
      case HarnessBuffer::Fill::bits:
        for (T& value : values) value = T(random() & 1u);
        break;
      case HarnessBuffer::Fill::random:
        for (T& value : values) value = uniform_value<T>(random);
        break;
      case HarnessBuffer::Fill::sorted:
        for (T& value : values) value = uniform_value<T>(random);
        std::sort(values.begin(), values.end());
        break;
      case HarnessBuffer::Fill::normal:
        for (T& value : values) value = normal_value<T>(random);
        break;
      case HarnessBuffer::Fill::skewed: {
        const Zipf zipf(skew_range<T>());
        for (T& value : values) value = static_cast<T>(zipf(random));
        break;
      }
      case HarnessBuffer::Fill::constant:
        std::fill(values.begin(), values.end(), static_cast<T>(buffer.constant));
        break;
      case HarnessBuffer::Fill::file:
      case HarnessBuffer::Fill::given:
        break;  // above
    }
  });
  return array;
}

}  // namespace alloy::autotune
