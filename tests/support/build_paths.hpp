// Paths of this build that the tests need: test executables, plugins, files
// of the source tree. Each test executable defines the ones it uses in a
// file that CMake generates (alloy_test_paths in tests/CMakeLists.txt), so
// the absolute folders enter that one small compile and no other: ccache then
// serves every other object to a clone of the tree in another folder.
#pragma once

namespace alloy::test::build_paths {

extern const char* const compile_cache;           // the tests' compile cache folder
extern const char* const autotune_executable;     // test_tuning
extern const char* const coordination_peer;       // test_unit
extern const char* const host_reference_library;  // test_autotune
extern const char* const runtime_library_dir;     // test_plugins
extern const char* const opencl_plugin;
extern const char* const other_interface_plugin;
extern const char* const not_a_plugin;
extern const char* const kernel_files;  // test_offline_compile: '|'-separated
extern const char* const broken_kernel;
extern const char* const doc_kernel_files;  // test_doc_kernels: '|'-separated
extern const char* const doc_json_files;    // test_doc_json: '|'-separated

}  // namespace alloy::test::build_paths
