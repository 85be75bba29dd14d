// The kernels `autotune` knows: alloy's own, those a program registers, and
// those a manifest file describes.
#pragma once

#include <filesystem>
#include <vector>

#include "alloy/autotune/harness.hpp"

namespace alloy::autotune {

/// Adds a program's own kernel to what run_autotune_command() tunes. A
/// program that registers its kernels and then calls run_autotune_command()
/// from its main() is an `autotune` that knows them. Thread-safe.
void register_target(TuningTarget target);

/// builtin_targets() followed by the registered ones.
std::vector<TuningTarget> registered_targets();

/// Reads tuning targets from a JSON manifest (see docs/autotune.md): kernel
/// source files are found relative to the manifest. Throws InvalidArgument
/// naming the file and the field at fault.
std::vector<TuningTarget> load_manifest(const std::filesystem::path& file);

/// The `autotune` command line: tunes, prints a table (or --json), writes
/// profiles. Returns the process exit status (see `autotune --help`).
int run_autotune_command(int argc, char** argv);

}  // namespace alloy::autotune
