#!/usr/bin/env bash
# Builds the Python module `sgmcmc` and installs it for Debian's /usr/bin/python3 (docs/python.md):
# installs what is missing with apt (scripts/deps.sh: pybind11-dev, NumPy, pandas, xarray, netCDF4,
# numba), builds the extension in build/ (Release, this machine's vector units, as scripts/demo.sh),
# and installs the package into the interpreter's site directory (sysconfig's platlib, e.g.
# /usr/local/lib/python3.11/dist-packages), so `import sgmcmc` works from any folder. Then imports it.
# Usage: scripts/python.sh [--torch]   (--torch also installs python3-torch, for the PyTorch example)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/configure.sh
extra=()
if [ "${1:-}" = "--torch" ]; then extra=(python3-torch); fi
scripts/deps.sh "${python_packages[@]}" "${extra[@]}"
configure build -DCMAKE_BUILD_TYPE=Release "${python_options[@]}"
cmake --build build -j"$(nproc)" --target sgmcmc_python
cmake --install build --component python
cd /
/usr/bin/python3 -c "import sgmcmc; print('sgmcmc: installed for /usr/bin/python3 in', sgmcmc.__path__[0])"
