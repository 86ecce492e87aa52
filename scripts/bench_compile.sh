#!/usr/bin/env bash
# Compile time and peak compiler memory of each program in examples/, compiled exactly as an outside
# project compiles it (issue #12: a program that runs, saves and resumes chains compiles in <= 20 s;
# issue #39: the run-layer program <= 20 s and the custom CLI <= 40 s of CPU): BUILD_DIR is installed
# into a scratch prefix, examples/ is configured against it with find_package(sgmcmc) and
# CMAKE_BUILD_TYPE=Release (-O3 -DNDEBUG), and each compile command CMake writes for it (the flags the
# exported targets carry included) is run on its own, one at a time, object file only.
# Usage: scripts/bench_compile.sh [BUILD_DIR]   (a build tree with sgmcmc_run, sgmcmc_cli_lib and the
#        sgmcmc tool built, which the install needs; default build)
# Prints one line per program: CPU seconds (user + sys, the measure: wall time counts whatever else the
# machine runs), wall seconds, peak MB.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
[ -f "$build/CMakeCache.txt" ] || { echo "bench_compile: configure and build $build first" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S examples -B "$work/examples" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CXX_COMPILER_LAUNCHER= >/dev/null
echo "compiler: $(c++ --version | head -1); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
# commands.txt: per program its source, the directory and the command CMake would run (writing a
# scratch object); on stdout, save_resume.cpp's flags without the include paths.
python3 - "$work/examples/compile_commands.json" "$work/out.o" "$work/commands.txt" <<'PY'
import json, shlex, sys
commands, out, listing = json.load(open(sys.argv[1])), sys.argv[2], open(sys.argv[3], "w")
for c in sorted(commands, key=lambda c: c["file"]):
    args = shlex.split(c["command"])
    args[args.index("-o") + 1] = out
    print(c["file"], c["directory"], shlex.join(args), sep="\t", file=listing)
    if c["file"].endswith("save_resume.cpp"):
        paths = {"-I", "-isystem", "-iquote", "-o", "-c"}
        flags = [a for before, a in zip(args, args[1:])
                 if a not in paths and before not in paths and not a.startswith("-I")]
        print("flags (save_resume.cpp):", " ".join(flags))
PY
printf '%-44s %9s %9s %9s\n' program "CPU s" "wall s" "peak MB"
while IFS=$'\t' read -r src dir command; do
  (cd "$dir" && /usr/bin/time -f "%U %S %e %M" -o "$work/t.txt" sh -c "$command")
  read -r user sys wall kb < "$work/t.txt"
  awk -v p="${src#"$PWD"/}" -v u="$user" -v s="$sys" -v w="$wall" -v k="$kb" \
      'BEGIN { printf "%-44s %9.1f %9.1f %9.0f\n", p, u + s, w, k / 1024 }'
done < "$work/commands.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
