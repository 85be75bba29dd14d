// A stencil's halo exchange as graph tasks: per neighbour, the strip toward
// it sent and its strip received into the halo on that side.
#pragma once

#include <array>
#include <cstddef>
#include <memory>

#include "alloy/buffer.hpp"
#include "alloy/graph.hpp"
#include "alloy/mpi/communicator.hpp"
#include "alloy/mpi/decomposition.hpp"

namespace alloy::mpi {

/// The exchange of one field: a local array of the decomposition's shape
/// (BlockDecomposition::local_elements() elements of `element_bytes`, a
/// multiple of 4). South and north strips are sent from and received into
/// the field itself; west and east ones are columns, so a kernel packs each
/// into a side buffer before its send and another unpacks each after its
/// receive. Row strips' tasks declare only those rows, so compute on rows
/// away from the halo need not wait for them; a column's unpack declares
/// the whole field (a kernel's argument is one slice), so with west or east
/// neighbours what reads the field after the exchange waits for it all.
///
///   mpi::HaloExchange exchange(world, decomposition, field.storage(), sizeof(float));
///   exchange.add_to(graph);   // then kernels that read the halo
///
/// Tags tag_base to tag_base + 3 (one per side) are this exchange's: give
/// exchanges in flight at once distinct bases. Cheap to copy: copies share
/// the side buffers, so two copies' exchanges are ordered by them.
class HaloExchange {
 public:
  HaloExchange(const Communicator& communicator, const BlockDecomposition& decomposition,
               std::shared_ptr<BufferStorage> field, std::size_t element_bytes);
  template <class T>
  HaloExchange(const Communicator& communicator, const BlockDecomposition& decomposition, const Buffer<T>& field)
      : HaloExchange(communicator, decomposition, field.storage(), sizeof(T)) {}

  /// Adds one exchange's tasks to `graph`.
  void add_to(Graph& graph, int tag_base = 0) const;

 private:
  /// A message's tag is that of the side it travels toward: what this rank
  /// sends toward `side`, its neighbour receives from the opposite side.
  static int tag_toward(Side side, int tag_base);
  void add_rows(Graph& graph, Side side, int tag_base) const;
  void add_columns(Graph& graph, Side side, int tag_base) const;
  /// Bytes [first, first + bytes) of the field.
  BufferSlice field_bytes(std::size_t first, std::size_t bytes) const;

  Communicator communicator_;
  BlockDecomposition decomposition_;
  std::shared_ptr<BufferStorage> field_;
  std::size_t element_bytes_;
  /// West and east: the packed strip sent, and the one received.
  struct ColumnBuffers {
    std::shared_ptr<BufferStorage> sent;
    std::shared_ptr<BufferStorage> received;
  };
  std::array<ColumnBuffers, 2> columns_;
};

}  // namespace alloy::mpi
