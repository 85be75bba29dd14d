// A harness buffer's contents read from a file: NumPy's .npy, or raw bytes.
#pragma once

#include <cstddef>

#include "alloy/autotune/harness.hpp"

namespace alloy::autotune::detail {

/// The first `count` elements of `buffer.file`: a .npy file whose element
/// type matches the buffer's (little-endian, C order), or any other file as
/// raw elements of the buffer's type. Throws InvalidArgument naming the file
/// when it cannot be read, has another type, or holds fewer elements.
HostArray read_input_file(const HarnessBuffer& buffer, std::size_t count);

}  // namespace alloy::autotune::detail
