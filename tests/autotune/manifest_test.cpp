// Manifests: kernels described in JSON become tuning targets; mistakes are
// reported with the file and the field.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "alloy/autotune/registry.hpp"
#include "alloy/error.hpp"
#include "support/build_paths.hpp"
#include "support/temporary_folder.hpp"

namespace {

// A folder with a kernel source, to write manifests next to.
struct ManifestFolder {
  alloy::test::TemporaryFolder folder{"manifest"};
  const std::filesystem::path& path = folder.path;
  ManifestFolder() {
    std::ofstream(path / "scale.cl") << "KERNEL void scale(const int n, const float a, GLOBAL float* x) {}\n";
  }

  std::filesystem::path write(const std::string& text) const {
    const std::filesystem::path file = path / "manifest.json";
    std::ofstream(file) << text;
    return file;
  }
};

const char* valid_manifest = R"({
  "kernels": [{
    "name": "myapp.scale",
    "source_file": "scale.cl",
    "kernel": "scale",
    "options": "-DEXTRA=1",
    "parameters": [{"name": "WGS", "values": [32, 64, 128], "default": 64},
                   {"name": "CACHE", "values": [0, 1], "default": 0, "value_names": ["off", "on"]}],
    "constraints": [{"kind": "at_most", "left": "WGS*CACHE", "right": 64}],
    "launch": [{"problem_dimension": 0, "divide": 2, "local": "WGS"}],
    "local_memory_bytes": ["4*WGS*CACHE"],
    "harness": {
      "buffers": [{"name": "x", "elements": "2*$0", "fill": "zeros", "output": true},
                  {"name": "hist", "elements": 256, "type": "uint", "output": true, "compare": "sum"},
                  {"name": "keys", "elements": "$0*3/4", "type": "uchar", "fill": "skewed"},
                  {"name": "seven", "elements": "$0", "fill": "constant", "value": 7},
                  {"name": "data", "elements": "$0", "fill": "file", "file": "data/x.npy"},
                  {"name": "y", "elements": "$0", "output": true, "relative_tolerance": 0.25,
                   "reset": false,
                   "layout": {"parameter": "CACHE", "row_length": 4, "orders": {"off": "rows", "1": "blocks:8"}}}],
      "arguments": [{"problem_dimension": 0, "type": "ulong"}, {"float": 2.5}, {"buffer": 0}],
      "passes": [{"kernel": "finish", "arguments": [{"buffer": 1}],
                  "launch": [{"problem_dimension": 0, "divide": "$0", "local": 1}]}],
      "tolerance": 1e-5
    },
    "problems": [[1048576], [4096]],
    "description": "x *= a"
  }]
})";

}  // namespace

TEST_CASE("Autotune.Manifest.describes_a_target") {
  ManifestFolder folder;
  const std::vector<alloy::autotune::TuningTarget> targets =
      alloy::autotune::load_manifest(folder.write(valid_manifest));
  REQUIRE(targets.size() == 1);
  const alloy::autotune::TuningTarget& target = targets[0];
  CHECK(target.kernel.name == "myapp.scale");
  CHECK(target.kernel.source.source.find("KERNEL void scale") != std::string::npos);
  CHECK(target.kernel.source.options == "-DEXTRA=1");
  REQUIRE(target.kernel.parameters.size() == 2);
  CHECK(target.kernel.parameters[1].value_names == std::vector<std::string>{"off", "on"});
  REQUIRE(target.kernel.constraints.size() == 1);
  CHECK(target.kernel.constraints[0].left.parameters == std::vector<std::string>{"WGS", "CACHE"});
  CHECK(target.kernel.launch[0].divide.factor == 2);
  CHECK(target.harness.buffers[0].elements.factor == 2);
  CHECK(target.harness.buffers[0].elements.problem_dimensions == std::vector<unsigned>{0});
  CHECK(target.harness.buffers[0].fill == alloy::autotune::HarnessBuffer::Fill::zeros);
  // Types and checks: the harness's tolerance unless the buffer names its own.
  using alloy::autotune::OutputCheck;
  CHECK(target.harness.buffers[0].type == alloy::ScalarType::f32);
  CHECK(target.harness.buffers[0].check.kind == OutputCheck::Kind::elements);
  CHECK(target.harness.buffers[0].check.relative == doctest::Approx(1e-5));
  CHECK(target.harness.buffers[0].check.absolute == doctest::Approx(1e-5));
  CHECK(target.harness.buffers[1].type == alloy::ScalarType::u32);
  CHECK(target.harness.buffers[1].check.kind == OutputCheck::Kind::sum);
  CHECK(target.harness.buffers[2].type == alloy::ScalarType::u8);
  CHECK(target.harness.buffers[2].fill == alloy::autotune::HarnessBuffer::Fill::skewed);
  CHECK(target.harness.buffers[2].elements.factor == 3);
  CHECK(target.harness.buffers[2].divide.factor == 4);
  CHECK(target.harness.buffers[3].fill == alloy::autotune::HarnessBuffer::Fill::constant);
  CHECK(target.harness.buffers[3].constant == 7.0);
  CHECK(target.harness.arguments[0].type == alloy::ScalarType::u64);
  CHECK(target.harness.buffers[4].fill == alloy::autotune::HarnessBuffer::Fill::file);
  CHECK(target.harness.buffers[4].file == folder.path / "data" / "x.npy");  // beside the manifest
  CHECK(target.harness.buffers[5].check.relative == doctest::Approx(0.25));
  CHECK(target.harness.buffers[5].check.absolute == doctest::Approx(1e-5));
  // Outputs are written again before every timed run unless they say not to.
  CHECK(target.harness.buffers[0].reset_each_run);
  CHECK_FALSE(target.harness.buffers[2].reset_each_run);
  CHECK_FALSE(target.harness.buffers[5].reset_each_run);
  CHECK(target.harness.arguments[1].kind == alloy::autotune::HarnessArgument::Kind::float_constant);
  CHECK(target.harness.arguments[1].constant == doctest::Approx(2.5));
  CHECK_FALSE(target.harness.reference);  // the default configuration is the reference
  // A layout by value or value name; a pass with its own arguments and launch.
  REQUIRE(target.harness.buffers[5].layout);
  const alloy::autotune::BufferLayout& layout = *target.harness.buffers[5].layout;
  CHECK(layout.parameter == "CACHE");
  CHECK(layout.row_length.factor == 4);
  CHECK(layout.orders.at(0).kind == alloy::autotune::ElementOrder::Kind::rows);
  CHECK(layout.orders.at(1).kind == alloy::autotune::ElementOrder::Kind::blocks);
  CHECK(layout.orders.at(1).block == 8);
  CHECK_FALSE(target.harness.buffers[0].layout);
  REQUIRE(target.harness.passes.size() == 1);
  CHECK(target.harness.passes[0].kernel_name == "finish");
  CHECK(target.harness.passes[0].arguments.size() == 1);
  CHECK(target.harness.passes[0].launch[0].divide.problem_dimensions == std::vector<unsigned>{0});
  REQUIRE(target.default_problems.size() == 2);
  CHECK(target.default_problems[1].to_string() == "4096");
  // Configured as the runtime would launch it.
  const alloy::LaunchRange range =
      alloy::configured_launch(target.kernel, {128, 0}, target.default_problems[1]);
  CHECK(range.global.size[0] == 2048);
  CHECK(range.local->size[0] == 128);
}

TEST_CASE("Autotune.Manifest.mistakes_name_file_and_field") {
  ManifestFolder folder;
  auto error_for = [&](const std::string& from, const std::string& to) {
    std::string text = valid_manifest;
    const std::size_t at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from);
    text.replace(at, from.size(), to);
    try {
      alloy::autotune::load_manifest(folder.write(text));
    } catch (const alloy::InvalidArgument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK(error_for("\"scale.cl\"", "\"missing.cl\"").find("missing.cl") != std::string::npos);
  CHECK(error_for("\"default\": 64", "\"default\": 65").find("not among its values") != std::string::npos);
  CHECK(error_for("\"at_most\"", "\"sometimes\"").find("divides, at_most or equal") != std::string::npos);
  CHECK(error_for("\"WGS*CACHE\"", "\"WGS*NOPE\"").find("NOPE") != std::string::npos);
  CHECK(error_for("\"2*$0\"", "\"2*$7\"").find("$0, $1, $2") != std::string::npos);
  CHECK(error_for("{\"float\": 2.5}", "{\"double\": 2.5}").find("argument") != std::string::npos);
  CHECK(error_for("[[1048576], [4096]]", "[[0]]").find("zero") != std::string::npos);
  CHECK(error_for("\"type\": \"uint\"", "\"type\": \"uint32\"").find("uint32\"; use float") != std::string::npos);
  CHECK(error_for("\"compare\": \"sum\"", "\"compare\": \"roughly\"").find("elements, sum or sorted") !=
        std::string::npos);
  CHECK(error_for("\"skewed\"", "\"lumpy\"").find("use random, zeros, bits, normal, skewed") != std::string::npos);
  CHECK(error_for(", \"value\": 7", "").find("value") != std::string::npos);
  CHECK(error_for(", \"file\": \"data/x.npy\"", "").find("\"file\"") != std::string::npos);
  CHECK(error_for("\"$0*3/4\"", "\"$0*3/0\"").find("divides by zero") != std::string::npos);
  CHECK(error_for("\"$0*3/4\"", "\"$0/3/4\"").find("more than one '/'") != std::string::npos);
  CHECK(error_for("\"$0*3/4\"", "\"$0/WGS\"").find("follow the problem only") != std::string::npos);
  CHECK(error_for("\"type\": \"ulong\"", "\"type\": \"float\"").find("int, uint, long or ulong") !=
        std::string::npos);
  CHECK(error_for("\"relative_tolerance\": 0.25", "\"relative_tolerance\": -1").find("relative_tolerance") !=
        std::string::npos);
  CHECK(error_for("\"values\": [32, 64, 128]", "\"values\": \"many\"").find("values") != std::string::npos);
  CHECK(error_for("\"right\": 64", "\"right\": 99999999999999999999999").find("manifest") != std::string::npos);
  CHECK(error_for("{\n  \"kernels\"", "{\"kernels\": 3, \"x\"").find("manifest") != std::string::npos);
  CHECK(error_for("\"parameter\": \"CACHE\"", "\"parameter\": \"CASH\"").find("'CASH' is no parameter") !=
        std::string::npos);
  CHECK(error_for("\"1\": \"blocks:8\"", "\"1\": \"blocks:0\"").find("rows, columns or blocks:K") !=
        std::string::npos);
  CHECK(error_for(", \"1\": \"blocks:8\"", "").find("no order for CACHE=1") != std::string::npos);
  CHECK(error_for("\"off\": \"rows\"", "\"2\": \"rows\"").find("'2', which is no value of CACHE") !=
        std::string::npos);
  CHECK(error_for("\"kernel\": \"finish\"", "\"name\": \"finish\"").find("pass") != std::string::npos);
  const std::string message = error_for("\"launch\": [{\"problem_dimension\": 0, \"divide\": 2", "\"lunch\": [{\"problem_dimension\": 0, \"divide\": 2");
  CHECK(message.find("manifest.json") != std::string::npos);
  CHECK(message.find("launch") != std::string::npos);
  CHECK_THROWS_AS(alloy::autotune::load_manifest(folder.path / "absent.json"), alloy::InvalidArgument);
}

TEST_CASE("Autotune.Manifest.a_buffer_typed_unlike_its_parameter_is_refused") {
  ManifestFolder folder;
  auto error_with_source = [&](const std::string& source) {
    std::ofstream(folder.path / "scale.cl") << source;
    try {
      alloy::autotune::load_manifest(folder.write(valid_manifest));
    } catch (const alloy::InvalidArgument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  // Buffer 'x' gives no type, so it holds floats; the kernel reads uints.
  const std::string untyped = error_with_source("KERNEL void scale(const int n, const float a, GLOBAL uint* x) {}\n");
  CHECK(untyped.find("manifest.json") != std::string::npos);
  CHECK(untyped.find("buffer 'x' holds float (the default: it gives no \"type\")") != std::string::npos);
  CHECK(untyped.find("'GLOBAL uint* x', which points to uint; give the buffer \"type\": \"uint\"") !=
        std::string::npos);
  // A pass's parameters are checked too: 'hist' is declared uint.
  const std::string pass = error_with_source(
      "KERNEL void scale(const int n, const float a, GLOBAL float* x) {}\n"
      "KERNEL void finish(GLOBAL const float* restrict bins) {}\n");
  CHECK(pass.find("pass 'finish'") != std::string::npos);
  CHECK(pass.find("buffer 'hist' holds uint, but argument 0 of kernel 'finish'") != std::string::npos);
  // Matching types, and a parameter whose type is a macro, are accepted.
  CHECK(error_with_source("KERNEL void scale(const int n, const float a, GLOBAL float* x) {}\n"
                          "KERNEL void finish(GLOBAL uint* bins) {}\n") == "no error");
  CHECK(error_with_source("KERNEL void scale(const int n, const float a, GLOBAL REAL* x) {}\n") == "no error");
}

TEST_CASE("Autotune.Registry.program_targets_follow_builtins") {
  const std::size_t builtins = alloy::autotune::builtin_targets().size();
  ManifestFolder folder;
  alloy::autotune::register_target(alloy::autotune::load_manifest(folder.write(valid_manifest))[0]);
  const std::vector<alloy::autotune::TuningTarget> all = alloy::autotune::registered_targets();
  REQUIRE(all.size() == builtins + 1);
  CHECK(all.back().kernel.name == "myapp.scale");
  alloy::autotune::TuningTarget broken = all.back();
  broken.kernel.launch.clear();
  CHECK_THROWS_AS(alloy::autotune::register_target(broken), alloy::InvalidArgument);
}

TEST_CASE("Autotune.Manifest.host_reference_from_a_shared_library") {
  ManifestFolder folder;
  // Beside the manifest, named relative to it.
  std::filesystem::copy_file(alloy::test::build_paths::host_reference_library, folder.path / "libscale_reference.so");
  auto manifest_with = [&](const std::string& library, const std::string& function) {
    std::string text = valid_manifest;
    const std::string anchor = "\"arguments\":";
    text.insert(text.find(anchor), "\"reference\": {\"library\": \"" + library + "\", \"function\": \"" + function +
                                       "\"},\n      ");
    return folder.write(text);
  };
  const std::vector<alloy::autotune::TuningTarget> targets =
      alloy::autotune::load_manifest(manifest_with("libscale_reference.so", "scale_reference"));
  const alloy::autotune::HostReference& reference = targets.at(0).harness.reference;
  REQUIRE(reference);

  using alloy::autotune::HostArray;
  std::vector<HostArray> buffers{HostArray(alloy::ScalarType::f32, 4)};
  const std::span<float> in = buffers[0].view<float>();
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(i) - 1.5f;
  std::vector<HostArray> expected{HostArray(alloy::ScalarType::f32, 4)};
  reference(alloy::Extent(4), buffers, expected);
  for (std::size_t i = 0; i < in.size(); ++i) CHECK(expected[0].view<float>()[i] == 2.5f * in[i]);
  // A failure the function reports comes back with its message.
  try {
    reference(alloy::Extent(13), buffers, expected);
    FAIL("no error");
  } catch (const alloy::Error& error) {
    CHECK(std::string(error.what()).find("other than 13") != std::string::npos);
    CHECK(std::string(error.what()).find("scale_reference") != std::string::npos);
  }

  // Mistakes are found when the manifest is read, with the file named.
  auto error_for = [&](const std::string& library, const std::string& function) {
    try {
      alloy::autotune::load_manifest(manifest_with(library, function));
    } catch (const alloy::InvalidArgument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const std::string no_library = error_for("libabsent.so", "scale_reference");
  CHECK(no_library.find("manifest.json") != std::string::npos);
  CHECK(no_library.find("libabsent.so") != std::string::npos);
  CHECK(error_for("libscale_reference.so", "absent_function").find("no function 'absent_function'") !=
        std::string::npos);
}
