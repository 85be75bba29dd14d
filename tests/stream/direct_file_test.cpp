// Direct file reads (GPUDirect Storage) in the stream-model code, over the
// host table with a fake cuFile: each refusal on the way is a reason naming
// the call and the code, the driver opens once and closes with the last
// device, reads land where asked, and failed or short reads are errors
// naming the file, the device and the code. cuFile's codes in words too.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <numeric>
#include <vector>

#include "alloy/error.hpp"
#include "cufile_status.hpp"
#include "direct_storage_api.hpp"
#include "host_stream_api.hpp"
#include "stream_platform.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using stream::StorageHandle;
using stream::StorageStatus;

constexpr int nvfs_driver_error = 5010;  ///< CU_FILE_NVFS_DRIVER_ERROR

/// What the fake cuFile answers and counts.
struct FakeStorage {
  std::mutex mutex;
  std::string unavailable;
  StorageStatus open_answer{};
  StorageStatus register_answer{};
  std::int64_t read_answer = 0;  ///< 0: read the file; else returned as it is (errno EIO for -1)
  std::size_t read_at_most = 0;  ///< 0: all asked; else at most this much once, then 0 (a short file)
  int opens = 0;
  int open_calls = 0;
  int closes = 0;
  int handles = 0;
};

FakeStorage& fake() {
  static FakeStorage instance;
  return instance;
}

void reset_fake() {
  FakeStorage& f = fake();
  std::lock_guard lock(f.mutex);
  f.unavailable.clear();
  f.open_answer = {};
  f.register_answer = {};
  f.read_answer = 0;
  f.read_at_most = 0;
  f.opens = f.open_calls = f.closes = f.handles = 0;
}

const stream::DirectStorageApi& fake_table() {
  static const stream::DirectStorageApi table = [] {
    stream::DirectStorageApi api;
    api.library = "cuFile (fake)";
    api.unavailable = [] {
      std::lock_guard lock(fake().mutex);
      return fake().unavailable;
    };
    api.status_name = [](StorageStatus status) { return stream::cufile_status_name(status); };
    api.hint = stream::cufile_hint;
    api.driver_open = {[] {
                         std::lock_guard lock(fake().mutex);
                         ++fake().open_calls;
                         if (fake().open_answer.code == 0) ++fake().opens;
                         return fake().open_answer;
                       },
                       "cuFileDriverOpen"};
    api.driver_close = {[] {
                          std::lock_guard lock(fake().mutex);
                          ++fake().closes;
                          return StorageStatus{};
                        },
                        "cuFileDriverClose"};
    api.handle_register = {[](int fd, StorageHandle* handle) {
                             std::lock_guard lock(fake().mutex);
                             if (fake().register_answer.code != 0) return fake().register_answer;
                             // Reads go to the host table's memory, which is not aligned for O_DIRECT.
                             ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_DIRECT);
                             ++fake().handles;
                             *handle = reinterpret_cast<StorageHandle>(static_cast<std::intptr_t>(fd));
                             return StorageStatus{};
                           },
                           "cuFileHandleRegister"};
    api.handle_deregister = {[](StorageHandle) {
                               std::lock_guard lock(fake().mutex);
                               --fake().handles;
                             },
                             "cuFileHandleDeregister"};
    api.read = {[](StorageHandle handle, stream::DevicePointer base, std::size_t bytes, std::int64_t offset,
                   std::int64_t buffer_offset) -> std::int64_t {
                  std::size_t limit = bytes;
                  {
                    std::lock_guard lock(fake().mutex);
                    if (fake().read_answer == -1) errno = EIO;
                    if (fake().read_answer != 0) return fake().read_answer;
                    if (fake().read_at_most == SIZE_MAX) return 0;  // the file "ended"
                    if (fake().read_at_most != 0) {
                      limit = std::min(limit, fake().read_at_most);
                      fake().read_at_most = SIZE_MAX;
                    }
                  }
                  const int fd = static_cast<int>(reinterpret_cast<std::intptr_t>(handle));
                  auto* into = reinterpret_cast<char*>(base) + buffer_offset;
                  return ::pread(fd, into, limit, offset);
                },
                "cuFileRead"};
    return api;
  }();
  return table;
}

/// The host table with the fake cuFile, as the CUDA plugin pairs libcuda's
/// table with cuFile's.
std::unique_ptr<Platform> platform_with_storage() {
  static const stream::StreamApi api = [] {
    stream::StreamApi copy = host_stream_api();
    copy.direct_storage = &fake_table();
    return copy;
  }();
  return std::unique_ptr<Platform>(stream::create_platform(api, ""));
}

/// A file of `count` ints 0, 1, 2, ...
std::filesystem::path counting_file(const TemporaryFolder& folder, std::size_t count) {
  std::vector<int> values(count);
  std::iota(values.begin(), values.end(), 0);
  const std::filesystem::path path = folder.path / "counting.bin";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(count * sizeof(int)));
  return path;
}

std::vector<int> read_back(Device& device, DeviceBuffer& buffer, std::size_t count) {
  std::vector<int> values(count);
  auto queue = device.create_queue();
  queue->read(buffer, 0, values.data(), count * sizeof(int));
  queue->finish();
  return values;
}

}  // namespace

TEST_CASE("StreamModel.DirectFile.an_api_without_a_storage_table_says_so") {
  TemporaryFolder folder("direct-file");
  std::unique_ptr<Platform> platform = host_stream_platform();
  const DirectFileOpening opening = platform->devices().at(0)->open_direct_file(counting_file(folder, 16));
  CHECK(opening.file == nullptr);
  CHECK(opening.reason.find("HostStream devices read no file into device memory directly") != std::string::npos);
}

TEST_CASE("StreamModel.DirectFile.reads_land_where_asked_and_the_driver_opens_once") {
  reset_fake();
  TemporaryFolder folder("direct-file");
  const std::filesystem::path path = counting_file(folder, 1000);
  {
    std::unique_ptr<Platform> platform = platform_with_storage();
    Device& first = *platform->devices().at(0);
    Device& second = *platform->devices().at(1);
    DirectFileOpening on_first = first.open_direct_file(path);
    DirectFileOpening on_second = second.open_direct_file(path);
    REQUIRE_MESSAGE(on_first.file, on_first.reason);
    REQUIRE_MESSAGE(on_second.file, on_second.reason);
    CHECK(on_first.file->size() == 4000);
    CHECK(on_first.file->how() == "GPUDirect Storage (cuFile (fake))");
    auto buffer = second.allocate(400 * sizeof(int));
    // Ints [100, 400) into the buffer from int 100 on.
    on_second.file->read(400, *buffer, 400, 1200);
    const std::vector<int> values = read_back(second, *buffer, 400);
    for (int i = 100; i < 400; ++i) REQUIRE(values[static_cast<std::size_t>(i)] == i);
    std::lock_guard lock(fake().mutex);
    CHECK(fake().open_calls == 1);
    CHECK(fake().handles == 2);
  }
  std::lock_guard lock(fake().mutex);
  CHECK(fake().handles == 0);
  CHECK(fake().closes == 1);  // with the last device
}

TEST_CASE("StreamModel.DirectFile.a_refused_driver_open_is_the_reason_and_asked_once") {
  reset_fake();
  fake().open_answer = {stream::cufile_cuda_driver_error, 100};
  TemporaryFolder folder("direct-file");
  const std::filesystem::path path = counting_file(folder, 16);
  std::unique_ptr<Platform> platform = platform_with_storage();
  Device& device = *platform->devices().at(0);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const DirectFileOpening opening = device.open_direct_file(path);
    CHECK(opening.file == nullptr);
    CHECK(opening.reason.find("cuFileDriverOpen failed with CU_FILE_CUDA_DRIVER_ERROR (cu_err 100) (5011): "
                              "CUDA Driver API error") != std::string::npos);
  }
  CHECK(fake().open_calls == 1);
}

TEST_CASE("StreamModel.DirectFile.an_unloadable_library_is_the_reason") {
  reset_fake();
  fake().unavailable = "libcufile.so.0 cannot be loaded (no such file)";
  TemporaryFolder folder("direct-file");
  std::unique_ptr<Platform> platform = platform_with_storage();
  const DirectFileOpening opening = platform->devices().at(0)->open_direct_file(counting_file(folder, 16));
  CHECK(opening.file == nullptr);
  CHECK(opening.reason == "libcufile.so.0 cannot be loaded (no such file)");
  CHECK(fake().open_calls == 0);
}

TEST_CASE("StreamModel.DirectFile.a_refused_handle_register_names_the_file_and_the_code") {
  reset_fake();
  fake().register_answer = {stream::cufile_io_not_supported, 0};
  TemporaryFolder folder("direct-file");
  const std::filesystem::path path = counting_file(folder, 16);
  std::unique_ptr<Platform> platform = platform_with_storage();
  const DirectFileOpening opening = platform->devices().at(0)->open_direct_file(path);
  CHECK(opening.file == nullptr);
  CHECK(opening.reason.find(path.string() + ": cuFileHandleRegister failed with CU_FILE_IO_NOT_SUPPORTED (5008)") !=
        std::string::npos);
  CHECK(opening.reason.find("file system GPUDirect Storage supports") != std::string::npos);
}

TEST_CASE("StreamModel.DirectFile.a_file_system_without_direct_io_is_the_reason") {
  reset_fake();
  // procfs refuses O_DIRECT with EINVAL, as tmpfs did before Linux 6.6.
  if (const int fd = ::open("/proc/cpuinfo", O_RDONLY | O_DIRECT); fd >= 0) {
    ::close(fd);
    skip("/proc/cpuinfo opens with O_DIRECT here: no file system at hand refuses it");
    return;
  }
  std::unique_ptr<Platform> platform = platform_with_storage();
  const DirectFileOpening opening = platform->devices().at(0)->open_direct_file("/proc/cpuinfo");
  CHECK(opening.file == nullptr);
  CHECK(opening.reason.find("/proc/cpuinfo cannot be opened with O_DIRECT (Invalid argument), which GPUDirect "
                            "Storage needs: its file system does no direct I/O") != std::string::npos);
}

TEST_CASE("StreamModel.DirectFile.failed_and_short_reads_name_the_file_the_device_and_the_code") {
  reset_fake();
  TemporaryFolder folder("direct-file");
  const std::filesystem::path path = counting_file(folder, 256);
  std::unique_ptr<Platform> platform = platform_with_storage();
  Device& device = *platform->devices().at(0);
  Device& other = *platform->devices().at(1);
  DirectFileOpening opening = device.open_direct_file(path);
  REQUIRE_MESSAGE(opening.file, opening.reason);
  auto buffer = device.allocate(1024);
  {
    std::lock_guard lock(fake().mutex);
    fake().read_answer = -nvfs_driver_error;
  }
  try {
    opening.file->read(0, *buffer, 0, 1024);
    FAIL("the read did not fail");
  } catch (const BackendError& error) {
    CHECK(error.vendor_code() == nvfs_driver_error);
    CHECK(error.call() == "cuFileRead");
    CHECK(error.device() == device.label());
    CHECK(std::string(error.what()).find(path.string()) != std::string::npos);
  }
  {
    std::lock_guard lock(fake().mutex);
    fake().read_answer = -1;
  }
  CHECK_THROWS_WITH_AS(opening.file->read(0, *buffer, 0, 1024), doctest::Contains("Input/output error"), BackendError);
  {
    std::lock_guard lock(fake().mutex);
    fake().read_answer = 0;
    fake().read_at_most = 100;
  }
  CHECK_THROWS_WITH_AS(opening.file->read(0, *buffer, 0, 1024), doctest::Contains("100 of 1024 bytes came back"),
                       Error);
  CHECK_THROWS_WITH_AS(opening.file->read(512, *buffer, 0, 1024), doctest::Contains("the file had 1024 bytes"), Error);
  auto elsewhere = other.allocate(1024);
  CHECK_THROWS_AS(opening.file->read(0, *elsewhere, 0, 1024), InvalidArgument);
  CHECK_THROWS_AS(opening.file->read(0, *buffer, 512, 1024), InvalidArgument);
}

TEST_CASE("CuFile.Status.codes_have_their_names_descriptions_and_what_to_do") {
  using stream::cufile_hint;
  using stream::cufile_status_name;
  CHECK(cufile_status_name({5001, 0}) == "CU_FILE_DRIVER_NOT_INITIALIZED");
  CHECK(cufile_status_name({-5008, 0}) == "CU_FILE_IO_NOT_SUPPORTED");  // as cuFileRead returns it
  CHECK(cufile_status_name({5011, 2}) == "CU_FILE_CUDA_DRIVER_ERROR (cu_err 2)");
  CHECK(cufile_status_name({5011, 2}, [](int) { return std::string("CUDA_ERROR_OUT_OF_MEMORY"); }) ==
        "CU_FILE_CUDA_DRIVER_ERROR (cu_err CUDA_ERROR_OUT_OF_MEMORY, 2)");
  CHECK(cufile_status_name({5999, 0}) == "CU_FILE error 5999");
  CHECK(cufile_hint({5001, 0}).find("nvidia-fs driver is not loaded") == 0);
  CHECK(cufile_hint({5001, 0}).find("modprobe nvidia_fs") != std::string::npos);
  CHECK(cufile_hint({5019, 0}).find("open the file with O_DIRECT") != std::string::npos);
  CHECK(cufile_hint({5999, 0}).empty());
}

}  // namespace alloy::test
