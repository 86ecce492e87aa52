# Sourced by scripts/demo.sh, scripts/test.sh and tests/fuzz/run.sh: one place for how a build folder is
# configured and which options the sanitizer build has.
#
# configure DIR [cmake -D options...]: configures DIR with Ninja (it compiles a target's objects while
# the libraries they link are still compiling; make waits, which left one core idle for minutes behind
# run/builtin.cpp). A folder configured earlier with another generator or compiler is wiped first:
# CMake refuses to switch generators in place, and a folder is only a cache.
configure() {
  local dir="$1"; shift
  local compiler="c++"
  for arg in "$@"; do
    case "$arg" in -DCMAKE_CXX_COMPILER=*) compiler="${arg#-DCMAKE_CXX_COMPILER=}" ;; esac
  done
  if [ -f "$dir/CMakeCache.txt" ]; then
    local generator cached
    generator="$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$dir/CMakeCache.txt")"
    cached="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")"
    if [ "$generator" != "Ninja" ] || [ "$(readlink -f "$(command -v "$cached" || echo "$cached")")" != \
                                         "$(readlink -f "$(command -v "$compiler")")" ]; then
      echo "sgmcmc: $dir was configured with $generator / $cached; starting it afresh" >&2
      rm -rf "$dir"
    fi
  fi
  cmake -G Ninja -S . -B "$dir" "$@" > /dev/null
}

# The Python module (python/, docs/python.md) for Debian's interpreter, whatever `python3` is first on
# the PATH (a pyenv or a virtualenv would build for another ABI): the packages it needs, and its options.
python_packages=(pybind11-dev python3-dev python3-numpy python3-pandas python3-xarray python3-netcdf4 python3-numba python3-pytest)
python_options=(-DSGMCMC_BUILD_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3)

# The optimised build of the suite: the statistical tests and the unit tests a sanitizer build cannot
# run or finds nothing in (SGMCMC_TESTS=optimised, tests/CMakeLists.txt), the tool built for MPI runs
# (Open MPI; tests/mpi/ runs it under mpirun with 1, 2 and 4 ranks), the Python module and its pytest
# suite (python/tests), native tier. Every option is given,
# so a cache left by scripts/demo.sh (which configures build/ without tests) cannot switch tests off.
optimised_options=(-DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_TESTS=ON -DSGMCMC_BUILD_APPS=ON -DSGMCMC_TESTS=optimised
                   -DSGMCMC_SANITIZE= -DSGMCMC_BUILD_BENCH=OFF -DSGMCMC_BUILD_EXPERIMENTS=OFF -DSGMCMC_BUILD_FUZZ=OFF
                   -DSGMCMC_MPI=ON -DSGMCMC_PORTABLE=OFF "${python_options[@]}")

# The sanitizer build: the unit tests, the CLI and the libFuzzer program (tests/fuzz/libfuzzer/), all
# built once with clang++-14 under AddressSanitizer and UndefinedBehaviorSanitizer, the library also with
# libFuzzer's coverage instrumentation (fuzzer-no-link) so the fuzzers see inside it. Clang compiles this
# build in about half GCC's time, and one build serves both the sanitizer tests and the fuzzers.
# It is the portable tier (SGMCMC_PORTABLE, baseline x86-64): the suite runs once in each tier, and
# tests/core/test_reproducibility.cpp checks the portable tier's recorded bits here.
# -gline-tables-only instead of Debug's -g: the sanitizers' reports still name file and line, and the
# build compiles in a sixth less time (tests/manifolds/test_manifolds.cpp: 83 s -> 69 s of CPU).
# -Wno-psabi: Clang warns that manifolds/sphere.hpp's internal AVX vector helpers would change the ABI
# without -mavx (they are inline, never called across objects built with other flags); GCC does not.
sanitize_options=(-DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-O1 -Wno-psabi"
                  -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only
                  -DSGMCMC_BUILD_TESTS=ON -DSGMCMC_BUILD_APPS=ON -DSGMCMC_TESTS=sanitized -DSGMCMC_BUILD_BENCH=OFF
                  -DSGMCMC_BUILD_EXPERIMENTS=OFF -DSGMCMC_SANITIZE=fuzzer-no-link,address,undefined
                  -DSGMCMC_BUILD_FUZZ=ON -DSGMCMC_PORTABLE=ON)
