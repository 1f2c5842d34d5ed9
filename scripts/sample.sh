#!/usr/bin/env bash
# The main job on the bundled sample data, the GarmentCode body (assets/bodies/mean_all.obj):
#  - drapes the two-panel skirt at 3 cm until it rests: out/skirt/garment.obj (draped; uv = 2D
#    panel coordinates), out/skirt/report.json (quality report), out/skirt/preview.png;
#  - drapes GarmentCode's shirt (eight panels, two-piece sleeves) the same way: out/shirt/;
#  - and its sleeveless hoody (four torso panels and a two-panel hood): out/hoody/;
#  - each also as garment.glb (one mesh per panel, seams, fit maps, the body), and all three in
#    the fit viewer as one page: out/viewer.html (open it in a browser);
#  - and writes the shirt as placed, before sewing (triangulated, seams as line elements):
#    out/placed.obj, out/placed.png (front, side and back view) and out/inspect.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
build/apps/tryon drape assets/patterns/skirt_2_panels.json --avatar assets/bodies/mean_all.obj \
  -o out/skirt --resolution-cm 3 --max-frames 900 --preview --format both --with-body
build/apps/tryon drape assets/patterns/shirt_mean_specification.json --avatar assets/bodies/mean_all.obj \
  -o out/shirt --resolution-cm 3 --max-frames 600 --preview --format both --with-body
build/apps/tryon drape assets/patterns/hoody_mean_specification.json --avatar assets/bodies/mean_all.obj \
  -o out/hoody --resolution-cm 3 --max-frames 600 --preview --format both --with-body
build/apps/tryon view out --html out/viewer.html
build/apps/tryon inspect assets/patterns/shirt_mean_specification.json \
  --avatar assets/bodies/mean_all.obj -o out/placed.obj --preview out/placed.png --json > out/inspect.json
build/apps/tryon inspect assets/patterns/shirt_mean_specification.json --avatar assets/bodies/mean_all.obj -q
echo "wrote out/skirt/, out/shirt/ and out/hoody/ (garment.obj, garment.glb, report.json, preview.png), out/viewer.html, out/placed.obj, out/placed.png, out/inspect.json"
