// Launch geometry in OpenCL's convention: global size counts work-items.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

namespace alloy {

/// One to three extents; unused dimensions are 1.
struct Extent {
  std::array<std::size_t, 3> size{1, 1, 1};
  unsigned dimensions = 1;

  Extent() = default;
  explicit Extent(std::size_t x) : size{x, 1, 1}, dimensions(1) {}
  Extent(std::size_t x, std::size_t y) : size{x, y, 1}, dimensions(2) {}
  Extent(std::size_t x, std::size_t y, std::size_t z) : size{x, y, z}, dimensions(3) {}

  std::size_t operator[](unsigned d) const { return size[d]; }
  std::size_t count() const { return size[0] * size[1] * size[2]; }  ///< launches check overflow
  std::string to_string() const;  ///< "64x4"

  friend bool operator==(const Extent&, const Extent&) = default;
};

/// The global size must be a multiple of the local size in every dimension;
/// without a local size the backend chooses one.
struct LaunchRange {
  LaunchRange(Extent global_size, std::optional<Extent> local_size = std::nullopt)
      : global(global_size), local(local_size) {}

  /// Work-groups `[first, first + count)` of this range along dimension
  /// `dimension`: one slice of it, whose work-items keep the group and global
  /// ids they have in the whole range. Needs a local size.
  LaunchRange slice(unsigned dimension, std::size_t first, std::size_t count) const;
  /// The range's work-groups along `dimension` (its global over its local size).
  std::size_t groups(unsigned dimension) const;
  /// Whether the range starts past the whole range's first work-group.
  bool offset() const { return first_group != std::array<std::size_t, 3>{0, 0, 0}; }

  Extent global;
  std::optional<Extent> local;
  /// Where a slice starts, in work-groups per dimension: the first group's
  /// get_group_id (docs/kernels.md, "Slices"). Zeros for a whole launch.
  std::array<std::size_t, 3> first_group{0, 0, 0};

  friend bool operator==(const LaunchRange&, const LaunchRange&) = default;
};

}  // namespace alloy
