#!/usr/bin/env bash
# Runs the fuzz targets (fuzz_config, fuzz_record, fuzz_sweep, … : `targets` below) for a fixed time in all, on a scratch
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
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The fuzz targets, each run as the link fuzz_<name> to the one libFuzzer program (tests/fuzz/libfuzzer/),
# with its corpus tests/fuzz/corpus/<name>/ and dictionary tests/fuzz/<name>.dict (if there is one). A new
# target is one name here, one in tests/fuzz/libfuzzer/CMakeLists.txt and one in tests/fuzz/entries.cpp.
targets=(config record sweep reference record_cli labelled_csv idx ratings text_corpora)
# Two run at a time, one process each (the suite's machine has 2 cores): the budget is `seconds` of wall
# time in all, shared evenly, so each gets 2 * seconds / (number of fuzzers), at least 5 s.
per=$(( 2 * seconds / ${#targets[@]} ))
[ "$per" -ge 5 ] || per=5
cmake --build "$build" -j"$jobs" --target fuzzer
fuzz() {  # target: runs it; its exit status is libFuzzer's
  local t="$1" dict=()
  mkdir -p "$scratch/$t/corpus" "$scratch/$t/cwd" "$scratch/$t/artifacts"
  cp tests/fuzz/corpus/"$t"/* "$scratch/$t/corpus/"
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="$root/tests/fuzz/$t.dict")
  echo "fuzz_$t: ${per} s from $(ls "$scratch/$t/corpus" | wc -l) corpus files"
  cd "$scratch/$t/cwd" && "$root/$build/tests/fuzz/libfuzzer/fuzz_$t" -max_total_time="$per" -timeout=10 \
     -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 "${dict[@]}" \
     -artifact_prefix="$scratch/$t/artifacts/" "$scratch/$t/corpus" > "$scratch/$t/log" 2>&1
}
report() {  # target exit-status: prints its statistics; records a finding
  local t="$1" rc="$2"
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
}
failed=()
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pair=("${targets[@]:i:2}")
  declare -A pid=()
  for t in "${pair[@]}"; do
    fuzz "$t" &
    pid[$t]=$!
  done
  for t in "${pair[@]}"; do
    rc=0
    wait "${pid[$t]}" || rc=$?
    report "$t" "$rc"
  done
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzers with findings: ${failed[*]}" >&2
  exit 1
fi
