#!/usr/bin/env bash
# The main job on the bundled sample data: the GarmentCode shirt on the GarmentCode body.
# Writes out/placed.obj (triangulated, placed garment; seams as line elements),
# out/placed.png (front, side and back view) and out/inspect.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
build/apps/tryon inspect assets/patterns/shirt_mean_specification.json \
  --avatar assets/bodies/mean_all.obj -o out/placed.obj --preview out/placed.png --json > out/inspect.json
build/apps/tryon inspect assets/patterns/shirt_mean_specification.json --avatar assets/bodies/mean_all.obj -q
echo "wrote out/placed.obj, out/placed.png, out/inspect.json"
