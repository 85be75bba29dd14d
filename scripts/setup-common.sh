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
alloy_install_packages() {
  local missing
  missing=$(alloy_missing_packages)
  [ -z "$missing" ] && return 0
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
