#!/usr/bin/env bash
# Compile time and peak compiler memory of each program in examples/ (issue #12: a user program that
# runs, saves and resumes chains compiles in <= 20 s and <= 1 GB), compiled as the outside project
# compiles it: Release flags (-O3 -DNDEBUG) plus what the exported targets carry (-std=c++20,
# -ffp-contract=off, -fconcepts-diagnostics-depth=2), one translation unit at a time, object file only.
# For comparison, the same save-and-resume program as it had to be compiled before the registry moved
# into the compiled library (run/builtin.cpp included into the program's translation unit).
# Usage: scripts/bench_compile.sh [BUILD_DIR]   (a configured build tree, for its include/ links; default build)
# Prints one line per program: seconds, peak MB.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
[ -d "$build/include/sgmcmc" ] || { echo "bench_compile: configure $build first (cmake -S . -B $build)" >&2; exit 1; }
cxx="${CXX:-g++}"
flags=(-std=c++20 -O3 -DNDEBUG -ffp-contract=off -fconcepts-diagnostics-depth=2 -I"$build/include" -isystem /usr/include/eigen3)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
measure() {  # label source [extra flags...]
  local label="$1" src="$2"
  shift 2
  /usr/bin/time -f "%e %M" -o "$work/t.txt" "$cxx" "${flags[@]}" "$@" -c "$src" -o "$work/out.o"
  read -r secs kb < "$work/t.txt"
  printf '%-44s %7.1f s %7.0f MB\n' "$label" "$secs" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')"
}
echo "compiler: $("$cxx" --version | head -1); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for src in examples/*.cpp examples/*/*.cpp; do
  measure "$src" "$src" -iquote "$(dirname "$src")"
done
if [ -f examples/save_resume.cpp ]; then
  {
    echo '#include <sgmcmc/run/builtin.hpp>'
    cat run/builtin.cpp
    cat examples/save_resume.cpp
  } > "$work/save_resume_with_registry.cpp"
  measure "save_resume + registry in the same TU (before)" "$work/save_resume_with_registry.cpp"
fi
