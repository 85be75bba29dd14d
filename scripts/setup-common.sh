# shellcheck shell=bash
# Shared by scripts/demo and scripts/test (sourced, not run): installs the
# Debian 12 packages alloy builds with, then configures and builds a preset.

# Every system package the build, tests and samples use.
ALLOY_PACKAGES=(
  cmake ninja-build g++ pkg-config ccache
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd
  doctest-dev nlohmann-json3-dev libcli11-dev libtbb-dev libbenchmark-dev
  libamdhip64-dev libclblast-dev
  openmpi-bin libopenmpi-dev  # alloy::mpi, its tests and samples (mpiexec)
  clpeak         # bench_autotune (d): the device's peak bandwidth
  clblast-utils  # clblast_tuner_xgemm: CLBlast's tuned parameters for bench_autotune (c)
  libopenblas-dev  # bench_kernels: gemm against OpenBLAS on the host's cores
  python3-pip    # pip download: NVIDIA's cuFile wheel (alloy_install_cufile)
)

alloy_missing_packages() {
  local package
  for package in "${ALLOY_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      printf '%s ' "$package"
    fi
  done
}

# Installs what is missing when run as root; otherwise prints the exact command and stops.
# Then NVIDIA's cuFile, where it can (alloy_install_cufile).
alloy_install_packages() {
  local missing
  missing=$(alloy_missing_packages)
  if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "alloy needs these Debian packages: $missing" >&2
      echo "Install them, then run this script again:" >&2
      echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends $missing" >&2
      exit 1
    fi
    echo "Installing: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y --no-install-recommends $missing
  fi
  alloy_install_cufile
}

# NVIDIA's cuFile (GPUDirect Storage): cufile.h and libcufile.so.0 from the
# nvidia-cufile wheel on PyPI, unpacked into ALLOY_CUFILE_DIR, where the CUDA
# backend's CMake looks (backends/cuda/CMakeLists.txt). The backend builds
# against the header and opens the library at run time; pip only downloads,
# nothing is installed into Python. Best effort: without it, CUDA devices
# read files through host memory, and the loader's test says why it skips.
ALLOY_CUFILE_DIR=${ALLOY_CUFILE_DIR:-/opt/alloy/cufile}
ALLOY_CUFILE_WHEEL=nvidia-cufile==1.20.0.107
alloy_install_cufile() {
  [ -f "$ALLOY_CUFILE_DIR/include/cufile.h" ] && [ -f "$ALLOY_CUFILE_DIR/lib/libcufile.so.0" ] && return 0
  if ! mkdir -p "$ALLOY_CUFILE_DIR" 2>/dev/null || [ ! -w "$ALLOY_CUFILE_DIR" ]; then
    echo "cuFile not fetched: $ALLOY_CUFILE_DIR is not writable (run as root, or set ALLOY_CUFILE_DIR)" >&2
    return 0
  fi
  local work header library
  work=$(mktemp -d)
  if python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$work" "$ALLOY_CUFILE_WHEEL" &&
    python3 -m zipfile -e "$work"/nvidia_cufile-*.whl "$work/unpacked"; then
    header=$(find "$work/unpacked" -name cufile.h | head -n 1)
    library=$(find "$work/unpacked" -name libcufile.so.0 | head -n 1)
  fi
  if [ -n "${header:-}" ] && [ -n "${library:-}" ]; then
    mkdir -p "$ALLOY_CUFILE_DIR/include" "$ALLOY_CUFILE_DIR/lib"
    cp "$header" "$ALLOY_CUFILE_DIR/include/cufile.h"
    cp "$library" "$ALLOY_CUFILE_DIR/lib/libcufile.so.0"
    echo "cuFile ($ALLOY_CUFILE_WHEEL) in $ALLOY_CUFILE_DIR"
  else
    echo "cuFile not fetched ($ALLOY_CUFILE_WHEEL from PyPI): CUDA devices will read files through host memory" >&2
  fi
  rm -rf "$work"
}

# Configures and builds the given CMake preset (default: Release), then says
# how many of its compiles came from the compiler cache (scripts/ccache),
# from a log of this build's compiles alone: another build may run beside it.
alloy_build() {
  local preset=${1:-default}
  local stats_log=$PWD/build/$preset/ccache-stats.log
  mkdir -p "build/$preset"
  : > "$stats_log"
  CCACHE_STATSLOG=$stats_log cmake --preset "$preset"
  CCACHE_STATSLOG=$stats_log cmake --build --preset "$preset"
  local hits misses
  hits=$(grep -c -E '^(direct|preprocessed)_cache_hit$' "$stats_log" || true)
  misses=$(grep -c -x 'cache_miss' "$stats_log" || true)
  if [ $((hits + misses)) -gt 0 ]; then
    echo "ccache ($preset): $hits of $((hits + misses)) compiles from the cache ($((100 * hits / (hits + misses)))%)"
  elif ! command -v ccache >/dev/null; then
    echo "ccache ($preset): not installed, every compile ran"
  else
    echo "ccache ($preset): nothing to compile"
  fi
}
