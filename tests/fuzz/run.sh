#!/usr/bin/env bash
# Runs the libFuzzer programs fuzz_config and fuzz_record, both at once for a fixed time, on a scratch
# copy of the committed corpus (tests/fuzz/corpus/<target>/, which is not modified), in an empty working
# directory. They come from the sanitizer build (build-sanitize/, scripts/configure.sh: clang++-14, the
# library instrumented for coverage), which this configures and brings up to date first. Fails if a
# fuzzer reports a finding (crash, sanitizer report, an exception other than sgmcmc::Error, an Error
# naming no path, a timeout, > 1 GB allocated); the input is copied to build-sanitize/findings/. Needs
# clang-14 and libclang-rt-14-dev (scripts/deps.sh).
# Usage: tests/fuzz/run.sh [seconds, default 60] [build jobs, default nproc]
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
source scripts/configure.sh
seconds="${1:-60}"
jobs="${2:-$(nproc)}"
build=build-sanitize
configure "$build" "${sanitize_options[@]}"
cmake --build "$build" -j"$jobs" --target fuzz_config fuzz_record
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The two fuzzers run side by side, one process each (the suite's machine has 2 cores): the budget is
# `seconds` of wall time in all, not twice that.
fuzz() {  # target: runs it; its exit status is libFuzzer's
  local t="$1"
  mkdir -p "$scratch/$t/corpus" "$scratch/$t/cwd" "$scratch/$t/artifacts"
  cp tests/fuzz/corpus/"$t"/* "$scratch/$t/corpus/"
  echo "fuzz_$t: ${seconds} s from $(ls "$scratch/$t/corpus" | wc -l) corpus files"
  cd "$scratch/$t/cwd" && "$root/$build/tests/fuzz/libfuzzer/fuzz_$t" -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 -dict="$root/tests/fuzz/$t.dict" \
     -artifact_prefix="$scratch/$t/artifacts/" "$scratch/$t/corpus" > "$scratch/$t/log" 2>&1
}
declare -A pid
for t in config record; do
  fuzz "$t" &
  pid[$t]=$!
done
failed=()
for t in config record; do
  rc=0
  wait "${pid[$t]}" || rc=$?
  echo "fuzz_$t:"
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done )' "$scratch/$t/log" || true
  if [ "$rc" -ne 0 ] || [ -n "$(ls -A "$scratch/$t/artifacts")" ]; then
    mkdir -p "$build/findings"
    cp "$scratch/$t"/artifacts/* "$build/findings/" 2>/dev/null || true
    cp "$scratch/$t/log" "$build/findings/fuzz_$t.log"
    tail -n 60 "$scratch/$t/log"
    echo "fuzz_$t: FINDING (exit $rc); input and log in $build/findings/" >&2
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzers with findings: ${failed[*]}" >&2
  exit 1
fi
