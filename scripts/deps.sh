#!/usr/bin/env bash
# Installs the Debian packages sgmcmc needs that are missing (apt-get; as root, else through sudo).
# Usage: scripts/deps.sh [extra packages...]
set -euo pipefail
packages=(g++ cmake make ninja-build libeigen3-dev liblbfgspp-dev libfmt-dev nlohmann-json3-dev doctest-dev
          librandom123-dev libcli11-dev zlib1g-dev libnetcdf-c++4-dev pkg-config "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "sgmcmc: installing missing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "sgmcmc: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
