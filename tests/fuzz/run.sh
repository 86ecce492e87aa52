#!/usr/bin/env bash
# Builds the libFuzzer programs fuzz_config and fuzz_record with clang++-14 (in build-fuzz/) and runs
# each for a fixed time on a scratch copy of the committed corpus (tests/fuzz/corpus/<target>/, which is
# not modified), in an empty working directory. Fails if a fuzzer reports a finding (crash, sanitizer
# report, an exception other than sgmcmc::Error, an Error naming no path, a timeout, > 1 GB allocated);
# the input is copied to build-fuzz/findings/. Needs clang-14 and libclang-rt-14-dev (scripts/deps.sh).
# Usage: tests/fuzz/run.sh [seconds per target, default 60] [build jobs, default nproc]
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
seconds="${1:-60}"
jobs="${2:-$(nproc)}"
# -Wno-psabi: Clang warns that manifolds/sphere.hpp's internal AVX vector helpers would change the ABI
# without -mavx (they are inline, never called across objects built with other flags); GCC does not.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-O1 -Wno-psabi" \
      -DSGMCMC_BUILD_TESTS=OFF -DSGMCMC_BUILD_APPS=OFF -DSGMCMC_UNIT_ONLY=OFF -DSGMCMC_BUILD_BENCH=OFF \
      -DSGMCMC_BUILD_EXPERIMENTS=OFF -DSGMCMC_SANITIZE=fuzzer-no-link,address,undefined -DSGMCMC_BUILD_FUZZ=ON > /dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_config fuzz_record
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=()
for t in config record; do
  mkdir -p "$scratch/$t/corpus" "$scratch/$t/cwd" "$scratch/$t/artifacts"
  cp tests/fuzz/corpus/"$t"/* "$scratch/$t/corpus/"
  echo "fuzz_$t: ${seconds} s from $(ls "$scratch/$t/corpus" | wc -l) corpus files"
  rc=0
  (cd "$scratch/$t/cwd" && "$root/build-fuzz/tests/fuzz/libfuzzer/fuzz_$t" -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 -dict="$root/tests/fuzz/$t.dict" \
     -artifact_prefix="$scratch/$t/artifacts/" "$scratch/$t/corpus" > "$scratch/$t/log" 2>&1) || rc=$?
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done )' "$scratch/$t/log" || true
  if [ "$rc" -ne 0 ] || [ -n "$(ls -A "$scratch/$t/artifacts")" ]; then
    mkdir -p build-fuzz/findings
    cp "$scratch/$t"/artifacts/* build-fuzz/findings/ 2>/dev/null || true
    cp "$scratch/$t/log" "build-fuzz/findings/fuzz_$t.log"
    tail -n 60 "$scratch/$t/log"
    echo "fuzz_$t: FINDING (exit $rc); input and log in build-fuzz/findings/" >&2
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzers with findings: ${failed[*]}" >&2
  exit 1
fi
