// Typed kernel arguments and the kernel signatures they are checked against.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace alloy {

class DeviceBuffer;

/// The scalar types a portable kernel parameter can have, named as in OpenCL C.
enum class ScalarType { i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 };

std::string_view to_string(ScalarType type);  ///< "int", "float", "ulong", ...
/// The OpenCL C spelling ("int", "ulong", ...) or a C one ("unsigned int");
/// nothing for any other text.
std::optional<ScalarType> scalar_type_from_string(std::string_view text);
std::size_t size_of(ScalarType type);

template <class T>
constexpr ScalarType scalar_type_of() {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                "kernel scalars are integers or floating point; bool has no portable size");
  if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "only float and double");
    return sizeof(T) == 4 ? ScalarType::f32 : ScalarType::f64;
  } else {
    constexpr bool is_signed = std::is_signed_v<T>;
    switch (sizeof(T)) {
      case 1: return is_signed ? ScalarType::i8 : ScalarType::u8;
      case 2: return is_signed ? ScalarType::i16 : ScalarType::u16;
      case 4: return is_signed ? ScalarType::i32 : ScalarType::u32;
      default: return is_signed ? ScalarType::i64 : ScalarType::u64;
    }
  }
}

/// One argument of a launch: a device buffer or a scalar value with its type.
/// A scalar is copied in. A buffer argument points at its DeviceBuffer, which
/// must live until the launch's event completes (Queue::launch); graph and
/// executor tasks take buffers as Accesses instead, and keep them alive.
struct KernelArg {
  enum class Kind { buffer, scalar };

  Kind kind = Kind::scalar;
  const DeviceBuffer* buffer = nullptr;
  ScalarType scalar_type = ScalarType::i32;
  std::array<std::byte, 8> value{};

  static KernelArg from(const DeviceBuffer& buffer) {
    KernelArg arg;
    arg.kind = Kind::buffer;
    arg.buffer = &buffer;
    return arg;
  }

  template <class T>
    requires std::is_arithmetic_v<T>
  static KernelArg from(T scalar) {
    KernelArg arg;
    arg.scalar_type = scalar_type_of<T>();
    std::memcpy(arg.value.data(), &scalar, sizeof(T));
    return arg;
  }

  std::size_t scalar_bytes() const { return size_of(scalar_type); }
};

/// A kernel parameter as declared in the portable source.
struct KernelParameter {
  enum class Kind { global_pointer, constant_pointer, local_pointer, scalar };

  std::string name;
  std::string declared_type;  ///< as written, e.g. "GLOBAL const float* restrict"
  Kind kind = Kind::scalar;
  /// Set for scalars of a known type; a type the parser cannot resolve (a
  /// macro, say) is left to the backend's own size check.
  std::optional<ScalarType> scalar_type;
};

struct KernelSignature {
  std::string kernel_name;
  std::vector<KernelParameter> parameters;
};

/// Finds `KERNEL void name(...)` (attributes or macros allowed before `void`) in
/// portable source, ignoring comments and string literals. Returns nothing
/// when the kernel is not declared exactly once that way in the text.
std::optional<KernelSignature> find_kernel_signature(std::string_view source,
                                                     std::string_view kernel_name);

/// The element type a pointer parameter points to, from its declared type:
/// "GLOBAL const float* restrict" → f32, "GLOBAL unsigned int*" → u32;
/// nothing for a type that is no scalar (float4, a struct).
std::optional<ScalarType> pointee_scalar_type(std::string_view declared_type);

/// Names of all kernels declared as `KERNEL void name(` in the source.
std::vector<std::string> declared_kernel_names(std::string_view source);

/// Throws InvalidArgument naming the first argument that does not match.
void check_kernel_args(const KernelSignature& signature, const KernelArg* args,
                       std::size_t count);

}  // namespace alloy
