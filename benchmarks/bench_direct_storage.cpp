// A file read into device memory both ways: straight from storage
// (GPUDirect Storage, InputFile's direct reads) and through host memory
// (O_DIRECT reads into pinned buffers, each copied up while the next is
// read: the route Pipeline::input_file takes without GDS). Each route reads
// the whole file --repeats times; the best and median GB/s are printed with
// their ratio, or why a route could not run, and the bytes that arrived are
// checked against the file's known contents.
//
//   build/gpu/bin/bench_direct_storage --megabytes 1024 --dir /mnt/nvme
//   ALLOY_EMULATED_DEVICES=pcie5,storage=7 bench_direct_storage --backend emulated --megabytes 256
//
// The file goes in --dir, the current folder by default: /tmp may be a
// memory file system, which GPUDirect Storage refuses and which no disk
// limits. It is kept and reused by later runs of the same size.
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "alloy/alloy.hpp"
#include "alloy/input_file.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::size_t megabytes = 1024;
  std::filesystem::path dir = ".";
  std::string backend = "cuda";
  int repeats = 3;
  std::size_t chunk_megabytes = 16;
  unsigned threads = 4;
};

/// The file's contents: word i of 8 bytes, from its index alone, so that
/// what arrives can be checked without reading the file again.
std::uint64_t word(std::uint64_t index) {
  std::uint64_t z = index + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Order-dependent, so that bytes in the wrong place do not pass.
std::uint64_t checksum(const std::uint64_t* words, std::size_t count) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) sum = sum * 0x100000001b3ull + words[i];
  return sum;
}

std::uint64_t expected_checksum(std::size_t count) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) sum = sum * 0x100000001b3ull + word(i);
  return sum;
}

/// Writes the file unless one of the right size and contents is there.
bool write_file(const std::filesystem::path& path, std::size_t bytes) {
  std::error_code ignored;
  if (std::filesystem::file_size(path, ignored) == bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    const bool same = fd >= 0 && ::pread(fd, &first, 8, 0) == 8 &&
                      ::pread(fd, &last, 8, static_cast<off_t>(bytes - 8)) == 8 && first == word(0) &&
                      last == word(bytes / 8 - 1);
    if (fd >= 0) ::close(fd);
    if (same) return false;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  std::vector<std::uint64_t> block(std::size_t{8} << 20);
  for (std::size_t at = 0; at < bytes; at += block.size() * 8) {
    const std::size_t words = std::min(block.size(), (bytes - at) / 8);
    for (std::size_t i = 0; i < words; ++i) block[i] = word(at / 8 + i);
    if (::pwrite(fd, block.data(), words * 8, static_cast<off_t>(at)) != static_cast<ssize_t>(words * 8)) {
      ::close(fd);
      throw std::runtime_error("writing " + path.string() + ": " + std::strerror(errno) + "; is the disk full?");
    }
  }
  ::fsync(fd);
  ::close(fd);
  return true;
}

/// Runs `read_chunk(offset, bytes, thread)` over the file in chunks, on
/// `threads` threads taking chunks in turn; the seconds it took.
template <class ReadChunk>
double timed_read(std::size_t bytes, std::size_t chunk, unsigned threads, ReadChunk&& read_chunk) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  std::vector<std::exception_ptr> failures(threads);
  const auto started = Clock::now();
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        for (std::size_t at = next.fetch_add(chunk); at < bytes; at = next.fetch_add(chunk)) {
          read_chunk(at, std::min(chunk, bytes - at), t);
        }
      } catch (...) {
        failures[t] = std::current_exception();
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  return seconds;
}

/// Through host memory: per thread two pinned buffers, one read (O_DIRECT)
/// while the other's copy to the device runs.
struct PinnedRoute {
  struct Lane {
    std::unique_ptr<alloy::Queue> queue;
    std::unique_ptr<alloy::HostBuffer> pinned[2];
    std::shared_ptr<alloy::Event> copied[2];
    int turn = 0;
  };
  std::vector<Lane> lanes;

  PinnedRoute(alloy::Device& device, unsigned threads, std::size_t chunk) : lanes(threads) {
    for (Lane& lane : lanes) {
      lane.queue = device.create_queue();
      lane.queue->set_timing(false);
      for (auto& buffer : lane.pinned) buffer = device.allocate_host(chunk + 4096);
    }
  }

  void read(const alloy::InputFile& file, alloy::DeviceBuffer& into, std::size_t at, std::size_t bytes,
            unsigned thread) {
    Lane& lane = lanes[thread];
    const int turn = lane.turn;
    lane.turn ^= 1;
    if (lane.copied[turn]) lane.copied[turn]->wait();
    // Aligned for O_DIRECT.
    const auto address = reinterpret_cast<std::uintptr_t>(lane.pinned[turn]->data());
    auto* aligned = reinterpret_cast<std::byte*>((address + 4095) / 4096 * 4096);
    file.read(at, aligned, bytes);
    lane.copied[turn] = lane.queue->write(into, at, aligned, bytes);
  }

  void finish() {
    for (Lane& lane : lanes) lane.queue->finish();
  }
};

struct RouteResult {
  std::vector<double> gigabytes_per_second;
  bool verified = false;
  std::string unavailable;

  double best() const { return *std::max_element(gigabytes_per_second.begin(), gigabytes_per_second.end()); }
  double median() const {
    std::vector<double> sorted = gigabytes_per_second;
    std::sort(sorted.begin(), sorted.end());
    return sorted[sorted.size() / 2];
  }
};

bool verify(alloy::Device& device, alloy::DeviceBuffer& buffer, std::size_t bytes) {
  std::vector<std::uint64_t> back(bytes / 8);
  auto queue = device.create_queue();
  queue->read(buffer, 0, back.data(), bytes);
  queue->finish();
  return checksum(back.data(), back.size()) == expected_checksum(back.size());
}

void clear(alloy::Device& device, alloy::DeviceBuffer& buffer) {
  auto queue = device.create_queue();
  const std::uint32_t zero = 0;
  queue->fill(buffer, 0, &zero, 4, buffer.size());
  queue->finish();
}

void print(const char* route, const RouteResult& result) {
  if (!result.unavailable.empty()) {
    std::printf("  %-34s not available: %s\n", route, result.unavailable.c_str());
    return;
  }
  std::printf("  %-34s best %6.2f GB/s, median %6.2f GB/s, bytes %s\n", route, result.best(), result.median(),
              result.verified ? "verified" : "WRONG");
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"A file read into device memory with GPUDirect Storage and through pinned host memory"};
  app.add_option("--megabytes", options.megabytes, "File size in MiB")->check(CLI::PositiveNumber);
  app.add_option("--dir", options.dir, "Folder for the file (not a memory file system such as /tmp may be)");
  app.add_option("--backend", options.backend, "cuda, emulated (ALLOY_EMULATED_DEVICES with storage=<GB/s>), ...");
  app.add_option("--repeats", options.repeats, "Reads of the whole file per route")->check(CLI::PositiveNumber);
  app.add_option("--chunk-megabytes", options.chunk_megabytes, "MiB per read")->check(CLI::PositiveNumber);
  app.add_option("--threads", options.threads, "Reads in flight")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  try {
    alloy::Runtime runtime;
    alloy::Device* device = nullptr;
    for (alloy::Device* candidate : runtime.devices()) {
      if (candidate->info().backend == options.backend && device == nullptr) device = candidate;
    }
    if (device == nullptr) {
      std::string why = "not loaded";
      for (const alloy::BackendStatus& status : runtime.backends()) {
        if (status.name == options.backend) why = status.reason.empty() ? "0 devices" : status.reason;
      }
      std::fprintf(stderr, "bench_direct_storage: no %s device (%s)\n", options.backend.c_str(), why.c_str());
      return 1;
    }
    const std::size_t bytes = options.megabytes << 20;
    const std::size_t chunk = std::min(options.chunk_megabytes << 20, bytes);
    const std::filesystem::path path =
        options.dir / ("alloy-direct-storage-" + std::to_string(options.megabytes) + "MiB.bin");
    const bool written = write_file(path, bytes);
    auto direct_file = alloy::InputFile::open(path);
    auto host_file = alloy::InputFile::open(path, {.direct = false});
    std::unique_ptr<alloy::DeviceBuffer> buffer = device->allocate(bytes);
    std::printf("bench_direct_storage: %zu MiB, %s (%s), into %s; chunks of %zu MiB, %u threads, %d repeats\n",
                options.megabytes, path.string().c_str(), written ? "written" : "reused", device->label().c_str(),
                chunk >> 20, options.threads, options.repeats);

    RouteResult direct;
    const alloy::DirectFileOpening& opening = direct_file->direct(*device);
    if (!opening.file) {
      direct.unavailable = opening.reason;
    } else {
      for (int r = 0; r < options.repeats; ++r) {
        clear(*device, *buffer);
        const double seconds =
            timed_read(bytes, chunk, options.threads,
                       [&](std::size_t at, std::size_t size, unsigned) { direct_file->read(at, *buffer, at, size); });
        direct.gigabytes_per_second.push_back(static_cast<double>(bytes) / seconds * 1e-9);
      }
      direct.verified = verify(*device, *buffer, bytes);
    }

    RouteResult staged;
    PinnedRoute route(*device, options.threads, chunk);
    for (int r = 0; r < options.repeats; ++r) {
      clear(*device, *buffer);
      const auto started = Clock::now();
      timed_read(bytes, chunk, options.threads, [&](std::size_t at, std::size_t size, unsigned thread) {
        route.read(*host_file, *buffer, at, size, thread);
      });
      route.finish();  // the last copies are part of the read
      const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
      staged.gigabytes_per_second.push_back(static_cast<double>(bytes) / seconds * 1e-9);
    }
    staged.verified = verify(*device, *buffer, bytes);

    print("GPUDirect Storage:", direct);
    print(("pinned staging, " + host_file->host_reads() + ":").c_str(), staged);
    if (direct.unavailable.empty()) {
      std::printf("  ratio (GPUDirect Storage / staging, best): %.2fx\n", direct.best() / staged.best());
    }
    const bool ok = (direct.unavailable.empty() ? direct.verified : true) && staged.verified;
    return ok ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_direct_storage: %s\n", error.what());
    return 1;
  }
}
