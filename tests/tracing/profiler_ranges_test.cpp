// Under rocprof each task is a named roctx range: with a libroctx64 on the
// library path (here a fake that records calls), every kernel and host task
// pushes one range named after it, and pops it on the same thread.
#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

#include "embedded/conformance_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

/// The fake's record of push and pop calls, one line each.
std::vector<std::string> roctx_events() {
  void* library = dlopen("libroctx64.so", RTLD_NOW | RTLD_NOLOAD);
  const bool opened = library != nullptr;
  REQUIRE_MESSAGE(opened, "the runtime did not open libroctx64.so (LD_LIBRARY_PATH has the fake)");
  auto events = reinterpret_cast<char* (*)()>(dlsym(library, "fake_roctx_events"));
  const bool found = events != nullptr;
  REQUIRE_MESSAGE(found, "the fake lacks fake_roctx_events");
  char* text = events();
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::free(text);
  dlclose(library);
  return lines;
}

}  // namespace

TEST_CASE("Executor.ProfilerRanges.every_task_is_a_named_range_on_one_thread") {
  if (!have_devices(1)) return;
  Buffer<int> data(std::vector<int>(256, 0));
  int seen_on_host = -1;
  {
    Executor executor(runtime(), on_selected_devices());
    TaskOptions named;
    named.name = "add one";
    executor.kernel(conformance, "add_to_range", {Extent(256)}, {0, 256, 1, read_write(data)}, named);
    named.name = "look";
    executor.host({read(data)}, [&] { seen_on_host = data.host()[0]; }, named);
    executor.wait();
  }
  CHECK(seen_on_host == 1);

  std::map<std::string, std::vector<std::string>> open_by_thread;  // each thread's stack of ranges
  std::vector<std::string> pushed;
  for (const std::string& line : roctx_events()) {
    CAPTURE(line);
    std::istringstream words(line);
    std::string thread, call;
    words >> thread >> call;
    if (call == "push") {
      std::string name;
      std::getline(words, name);
      pushed.push_back(name.substr(1));
      open_by_thread[thread].push_back(name.substr(1));
    } else {
      REQUIRE(call == "pop");
      REQUIRE(!open_by_thread[thread].empty());
      open_by_thread[thread].pop_back();
    }
  }
  for (const auto& [thread, open] : open_by_thread) CHECK(open.empty());
  REQUIRE(pushed.size() == 2);
  CHECK(pushed[0].find("'add one'") != std::string::npos);
  CHECK(pushed[1].find("'look'") != std::string::npos);
}

}  // namespace alloy::test
