#!/usr/bin/env bash
# Writes the fuzzers' seed corpora into OUTDIR/<target>/, generated at run time (nothing from
# ../shared/data is copied into the repository):
#   garmentcode_fuzzer: every JSON under ../shared/data/patterns and tests/hostile/patterns;
#   body_obj_fuzzer:    each OBJ under ../shared/data/avatars cut to its first 1500 vertices (and the
#                       faces among them), and tests/hostile/bodies/*.obj, each behind the target's
#                       mode byte (0: Y up, unit detected; 1: Z up);
#   dxf_fuzzer:         every DXF under ../shared/data/patterns/dxf and tests/hostile/patterns;
#   bvh_fuzzer:         every BVH under ../shared/data/avatars cut to its first 10 frames, and a
#                       two-joint clip.
# usage: scripts/fuzz_seeds.sh OUTDIR   (TRYON_SHARED_DATA overrides ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: fuzz_seeds.sh OUTDIR}
shared=${TRYON_SHARED_DATA:-../shared/data}
mkdir -p "$out/garmentcode_fuzzer" "$out/body_obj_fuzzer" "$out/dxf_fuzzer" "$out/bvh_fuzzer"
[ -d "$shared" ] || echo "fuzz_seeds: $shared not found; hand-written seeds only" >&2

n=0
while IFS= read -r -d '' f; do
  cp "$f" "$out/garmentcode_fuzzer/$(printf '%03d' $n)_$(basename "$f")"; n=$((n + 1))
done < <(find "$shared/patterns" tests/hostile/patterns -name '*.json' -size -256k -print0 2>/dev/null)

cut_obj() {  # first $2 vertices of OBJ $1 (v and vt lines), and the faces using only them
  awk -v max="$2" '
    /^v /  { if (++nv <= max) print; next }
    /^vt / { if (++nt <= max) print; next }
    /^f /  { ok = 1
             for (i = 2; i <= NF; i++) { split($i, p, "/"); if (p[1] < 1 || p[1] > max || (p[2] != "" && p[2] > max)) ok = 0 }
             if (ok) print; next }' "$1"
}
n=0
while IFS= read -r -d '' f; do
  for mode in 0 1; do
    { printf "\\x0$mode"; cut_obj "$f" 1500; } > "$out/body_obj_fuzzer/$(printf '%03d' $n)_m${mode}_$(basename "$f")"
  done
  n=$((n + 1))
done < <(find "$shared/avatars" -name '*.obj' -print0 2>/dev/null)
for f in tests/hostile/bodies/*.obj; do
  { printf '\x00'; cat "$f"; } > "$out/body_obj_fuzzer/hostile_$(basename "$f")"
done
n=0
while IFS= read -r -d '' f; do
  cp "$f" "$out/dxf_fuzzer/$(printf '%03d' $n)_$(basename "$f")"; n=$((n + 1))
done < <(find "$shared/patterns" tests/hostile/patterns -iname '*.dxf' -print0 2>/dev/null)
n=0
while IFS= read -r -d '' f; do
  awk '/^Frames:/ { print "Frames: 10"; next } /^Frame Time:/ { print; m = 1; next } m && ++k > 10 { exit } { print }' "$f" \
    > "$out/bvh_fuzzer/$(printf '%03d' $n)_$(basename "$f")"
  n=$((n + 1))
done < <(find "$shared/avatars" -iname '*.bvh' -print0 2>/dev/null)
printf 'HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n JOINT Knee\n {\n  OFFSET 0 -1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -1 0\n  }\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0 0 0 0 0 0 0\n1 0 0 90 0 0 45 0 0\n' \
  > "$out/bvh_fuzzer/two_joints.bvh"
echo "fuzz_seeds: $(ls "$out/garmentcode_fuzzer" | wc -l) GarmentCode seeds, $(ls "$out/body_obj_fuzzer" | wc -l) body seeds, $(ls "$out/dxf_fuzzer" | wc -l) DXF seeds, $(ls "$out/bvh_fuzzer" | wc -l) BVH seeds in $out"
