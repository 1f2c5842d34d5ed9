#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages, as root) and builds tryon into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake libeigen3-dev libassimp-dev libspdlog-dev nlohmann-json3-dev
          libcli11-dev libgtest-dev libbenchmark-dev libpng-dev libfcl-dev
          pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pytest python3-distributed
          python3-pip python3-venv python3-setuptools python3-wheel  # pip install . (pyproject.toml)
          clang-14 libclang-rt-14-dev libomp-14-dev  # clang: the libFuzzer targets (scripts/fuzz.sh)
          libfreetype-dev fonts-dejavu-core  # preview text
          libcpp-httplib-dev chromium curl)  # tryon view's server; the viewer's browser test
command -v npm > /dev/null || packages+=(nodejs npm)  # the viewer's three.js, the glTF validator
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The fit viewer's npm packages, pinned in web/package-lock.json (three.js, esbuild, and for the
# tests the Khronos glTF validator and playwright-core).
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  npm ci --prefix web --no-audit --no-fund > npm.log 2>&1 || { cat npm.log; exit 1; }
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j"$(nproc)" >> build.log 2>&1 || { tail -n 60 build.log; exit 1; }
echo "built: build/apps/tryon (log in build.log)"
