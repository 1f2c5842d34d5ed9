#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (GoogleTest through ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 600
