#!/usr/bin/env python3
"""Every C++ snippet in README.md and docs/*.md is checked, so the docs cannot drift from the code.

A ```cpp block is either
  - an excerpt: the fence is preceded by `<!-- excerpt: PATH -->` (PATH relative to the repository).
    Every non-blank line of the block, stripped, must occur in that file in the same order (other lines
    may lie between); a line that is only `// ...`, `...` or `// …` is an elision. The file itself is
    compiled by the suite (an example, a test or a library header), so the excerpt is compiled code; or
  - a complete translation unit, compiled on its own with `CXX -std=c++20 -fsyntax-only FLAGS`; it may
    include the examples' own headers by name (`#include "oblique.hpp"`: each folder of examples/ is on
    the quote include path).

Catches: a README or docs snippet that no longer compiles (a renamed function, a missing include), an
excerpt whose file changed under it, a snippet that was never code. Fails if it finds no snippet at
all (a broken extraction must not pass).

Usage: check_snippets.py SOURCE_DIR CXX [FLAGS...]
"""
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ELISIONS = {"// ...", "...", "// …", "…"}
MARKER = re.compile(r"<!--\s*excerpt:\s*(\S+)\s*-->")


def blocks(path):
    """(first line number, excerpt path or None, code) for each ```cpp block of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```cpp":
            start = i
            excerpt = None
            for back in (i - 1, i - 2):  # the marker on the line before, or before a blank line
                if back >= 0:
                    m = MARKER.search(lines[back])
                    if m:
                        excerpt = m.group(1)
                        break
                    if lines[back].strip():
                        break
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            if j == len(lines):
                raise SystemExit(f"{path}:{start + 1}: a ```cpp block is never closed")
            yield start + 1, excerpt, "\n".join(lines[i + 1:j]) + "\n"
            i = j + 1
        else:
            i += 1


def check_excerpt(source_dir, where, excerpt, code):
    target = source_dir / excerpt
    if not target.is_file():
        return f"{where}: the excerpt's file {excerpt} does not exist"
    haystack = [l.strip() for l in target.read_text(encoding="utf-8").splitlines()]
    k = 0
    for n, line in enumerate(code.splitlines(), 1):
        s = line.strip()
        if not s or s in ELISIONS:
            continue
        while k < len(haystack) and haystack[k] != s:
            k += 1
        if k == len(haystack):
            return f"{where}: line {n} of the excerpt is not in {excerpt} (in order): {s!r}"
        k += 1
    return None


def compile_unit(cxx, flags, where, code):
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write(code)
        name = f.name
    try:
        r = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", *flags, name], capture_output=True, text=True)
    finally:
        os.unlink(name)
    if r.returncode != 0:
        return f"{where}: does not compile as a translation unit:\n{r.stderr[:4000]}"
    return None


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    source_dir = pathlib.Path(sys.argv[1])
    cxx, flags = sys.argv[2], sys.argv[3:]
    for folder in sorted(p for p in (source_dir / "examples").iterdir() if p.is_dir()):
        flags += ["-iquote", str(folder)]
    docs = [source_dir / "README.md", *sorted((source_dir / "docs").glob("*.md"))]
    excerpts, units = [], []
    for doc in docs:
        for line, excerpt, code in blocks(doc):
            where = f"{doc.relative_to(source_dir)}:{line}"
            (excerpts if excerpt else units).append((where, excerpt, code))
    if not excerpts and not units:
        raise SystemExit("no ```cpp block found in README.md or docs/: the extraction is broken")
    failures = [e for e in (check_excerpt(source_dir, w, x, c) for w, x, c in excerpts) if e]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        failures += [e for e in pool.map(lambda u: compile_unit(cxx, flags, u[0], u[2]), units) if e]
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{len(excerpts)} excerpts checked against their files, {len(units)} snippets compiled; "
          f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
