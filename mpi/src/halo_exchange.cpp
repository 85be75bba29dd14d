// Halo exchange tasks: row strips straight from and into the field, column
// strips through packed side buffers.
#include "alloy/mpi/halo_exchange.hpp"

#include <string>
#include <vector>

#include "alloy/error.hpp"
#include "alloy/mpi/messages.hpp"

namespace alloy::mpi {
namespace {

// Column strips as 32-bit words: any element of 4, 8 or more bytes.
const ProgramSource column_kernels{"alloy_halo_columns.cl", R"(
// strip[i] for i < count: word w of cell (row, first + c), i = (row * width + c) * words + w.
KERNEL void pack_columns(const int local_columns, const int first, const int width, const int words, const int count,
                         GLOBAL const uint* field, GLOBAL uint* strip) {
  const int i = (int)get_global_id(0);
  if (i >= count) return;
  const int w = i % words;
  const int cell = i / words;
  strip[i] = field[((cell / width) * local_columns + first + cell % width) * words + w];
}
KERNEL void unpack_columns(const int local_columns, const int first, const int width, const int words, const int count,
                           GLOBAL const uint* strip, GLOBAL uint* field) {
  const int i = (int)get_global_id(0);
  if (i >= count) return;
  const int w = i % words;
  const int cell = i / words;
  field[((cell / width) * local_columns + first + cell % width) * words + w] = strip[i];
}
)", ""};

std::size_t column_side(Side side) { return side == Side::west ? 0 : 1; }

}  // namespace

HaloExchange::HaloExchange(const Communicator& communicator, const BlockDecomposition& decomposition,
                           std::shared_ptr<BufferStorage> field, std::size_t element_bytes)
    : communicator_(communicator), decomposition_(decomposition), field_(std::move(field)),
      element_bytes_(element_bytes) {
  if (!field_ || element_bytes_ == 0 || element_bytes_ % 4 != 0) {
    throw InvalidArgument("a halo exchange needs a field of elements of 4, 8, ... bytes, not " +
                          std::to_string(element_bytes_));
  }
  if (field_->size() != decomposition_.local_elements() * element_bytes_) {
    throw InvalidArgument("a halo exchange's field holds " + std::to_string(field_->size()) + " bytes, but rank " +
                          std::to_string(decomposition_.rank()) + "'s block with its halo is " +
                          std::to_string(decomposition_.local_columns()) + " x " +
                          std::to_string(decomposition_.local_rows()) + " elements of " +
                          std::to_string(element_bytes_) + " bytes");
  }
  const std::size_t strip_bytes = static_cast<std::size_t>(decomposition_.halo()) *
                                  static_cast<std::size_t>(decomposition_.local_rows()) * element_bytes_;
  for (const Side side : {Side::west, Side::east}) {
    if (!decomposition_.neighbour(side)) continue;
    columns_[column_side(side)] = {std::make_shared<BufferStorage>(strip_bytes),
                                   std::make_shared<BufferStorage>(strip_bytes)};
  }
}

BufferSlice HaloExchange::field_bytes(std::size_t first, std::size_t bytes) const {
  return {field_, {first, first + bytes}};
}

void HaloExchange::add_to(Graph& graph, int tag_base) const {
  for (const Side side : all_sides) {
    if (!decomposition_.neighbour(side)) continue;
    if (side == Side::south || side == Side::north) {
      add_rows(graph, side, tag_base);
    } else {
      add_columns(graph, side, tag_base);
    }
  }
}

int HaloExchange::tag_toward(Side side, int tag_base) { return tag_base + static_cast<int>(side); }

void HaloExchange::add_rows(Graph& graph, Side side, int tag_base) const {
  const int neighbour = *decomposition_.neighbour(side);
  const BlockDecomposition::RowStrips strips = decomposition_.row_strips(side);
  const std::size_t bytes = strips.elements * element_bytes_;
  send(graph, communicator_, field_bytes(strips.first_sent * element_bytes_, bytes),
       {neighbour, tag_toward(side, tag_base)});
  receive(graph, communicator_, field_bytes(strips.first_received * element_bytes_, bytes),
          {neighbour, tag_toward(opposite(side), tag_base)});
}

void HaloExchange::add_columns(Graph& graph, Side side, int tag_base) const {
  const int neighbour = *decomposition_.neighbour(side);
  const BlockDecomposition::ColumnStrips strips = decomposition_.column_strips(side);
  const ColumnBuffers& buffers = columns_[column_side(side)];
  const int local_columns = decomposition_.local_columns();
  const int rows = decomposition_.local_rows();
  const int width = decomposition_.halo();
  const int words = static_cast<int>(element_bytes_ / 4);
  const int count = rows * width * words;
  const BufferSlice sent{buffers.sent, {0, buffers.sent->size()}};
  const BufferSlice received{buffers.received, {0, buffers.received->size()}};

  std::vector<TaskArg> pack{local_columns, strips.first_sent, width, words, count};
  // A kernel's buffer argument is one slice: the whole field. (Row by row
  // accesses would leave the rest of each row free, but a kernel takes its
  // accesses as its arguments.)
  pack.emplace_back(Access{field_bytes(0, field_->size()), AccessMode::read});
  pack.emplace_back(write(sent));
  TaskOptions packing;
  packing.name = std::string("pack the ") + to_string(side) + " halo strip";
  graph.kernel(column_kernels, "pack_columns", {Extent(static_cast<std::size_t>(count))}, std::move(pack), packing);
  send(graph, communicator_, sent, {neighbour, tag_toward(side, tag_base)});
  receive(graph, communicator_, received, {neighbour, tag_toward(opposite(side), tag_base)});

  std::vector<TaskArg> unpack{local_columns, strips.first_received, width, words, count, read(received)};
  // It changes only the halo columns: the rest must stay, so read_write.
  unpack.emplace_back(Access{field_bytes(0, field_->size()), AccessMode::read_write});
  TaskOptions unpacking;
  unpacking.name = std::string("unpack the ") + to_string(side) + " halo";
  graph.kernel(column_kernels, "unpack_columns", {Extent(static_cast<std::size_t>(count))}, std::move(unpack),
               unpacking);
}

}  // namespace alloy::mpi
