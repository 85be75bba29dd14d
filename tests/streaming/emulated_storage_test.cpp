// The emulated cuFile against the rules of the one it models
// (docs/emulated.md): its driver opens only with storage in the model, and
// a file handle only for a regular file opened with O_DIRECT on a file
// system that is not in memory; reads past the end come back short.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <vector>

#include "cufile_status.hpp"
#include "emulated_api.hpp"
#include "emulated_driver.hpp"
#include "emulated_storage.hpp"

namespace alloy::emulation {
namespace {

const stream::DirectStorageApi& storage() { return storage_api(); }

/// A file of `count` ints 0, 1, ... in the working folder (the build tree),
/// removed when the object goes.
struct CountingFile {
  std::filesystem::path path =
      std::filesystem::current_path() / ("emulated-storage-" + std::to_string(std::random_device{}()) + ".bin");
  explicit CountingFile(std::size_t count) {
    std::vector<int> values(count);
    std::iota(values.begin(), values.end(), 0);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(count * sizeof(int)));
  }
  ~CountingFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

}  // namespace

TEST_CASE("EmulatedDriver.Storage.the_driver_opens_only_with_storage_in_the_model") {
  use_machine_model(parse_machine_model("pcie5"));
  CHECK(storage().driver_open().code == stream::cufile_driver_not_initialized);
  use_machine_model(parse_machine_model("pcie5,storage=5"));
  REQUIRE(storage().driver_open().code == stream::cufile_success);
  CHECK(storage().driver_close().code == stream::cufile_success);
  CHECK(storage().driver_close().code == stream::cufile_driver_not_initialized);  // closed once too often
  use_machine_model(parse_machine_model("pcie5,storage=5,flavor=hip"));
  CHECK(storage().unavailable().find("HIP devices") == 0);
}

TEST_CASE("EmulatedDriver.Storage.handles_need_the_driver_a_regular_file_and_o_direct") {
  use_machine_model(parse_machine_model("pcie5,storage=5"));
  CountingFile file(1024);
  const int buffered = ::open(file.path.c_str(), O_RDONLY);
  const int direct = ::open(file.path.c_str(), O_RDONLY | O_DIRECT);
  const int folder = ::open(std::filesystem::current_path().c_str(), O_RDONLY | O_DIRECT);
  REQUIRE(buffered >= 0);
  REQUIRE(direct >= 0);
  stream::StorageHandle handle = nullptr;
  CHECK(storage().handle_register(direct, &handle).code == stream::cufile_driver_not_initialized);
  REQUIRE(storage().driver_open().code == stream::cufile_success);
  CHECK(storage().handle_register(buffered, &handle).code == stream::cufile_invalid_file_open_flag);
  if (folder >= 0) CHECK(storage().handle_register(folder, &handle).code == stream::cufile_invalid_file_type);
  REQUIRE(storage().handle_register(direct, &handle).code == stream::cufile_success);

  // Into device memory, past the end of the file: short, as cuFileRead is.
  REQUIRE(api().make_current({0, nullptr}) == emulated_success);
  stream::DevicePointer memory = 0;
  REQUIRE(api().allocate(&memory, 8192) == emulated_success);
  CHECK(storage().read(handle, memory, 8192, 0, 0) == 4096);
  CHECK(static_cast<int*>(host_address(memory))[1000] == 1000);
  CHECK(storage().read(handle, memory, 300, 10, 8000) == -stream::cufile_cuda_pointer_range_error);
  CHECK(storage().read(handle, memory, 16, 4, 1) == 16);  // unaligned both ways
  int first = 0;
  std::memcpy(&first, host_address(memory + 1), sizeof first);
  CHECK(first == 1);
  storage().handle_deregister(handle);
  CHECK(api().free(memory) == emulated_success);
  CHECK(storage().driver_close().code == stream::cufile_success);
  ::close(buffered);
  ::close(direct);
  if (folder >= 0) ::close(folder);
}

}  // namespace alloy::emulation
