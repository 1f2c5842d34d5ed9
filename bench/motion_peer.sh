#!/usr/bin/env bash
# Side-by-side: a shirt following a moving body, tryon animate vs Blender 3.4 cloth,
# both judged per frame by the same checker (tryon check / animate's judge).
#
#   bench/motion_peer.sh OUT_DIR            (from anywhere; ~10 min on 2 cores)
#
# Env: TRYON (default build/apps/tryon), BLENDER (default blender), THREADS (tryon, 2),
#      BLENDER_THREADS (1), RES_CM (2), VARIANTS ("default thin"; which Blender runs).
# Writes OUT_DIR/{frames,drape,animate,blender_*}/ and OUT_DIR/summary.json, prints the summary.
set -euo pipefail
OUT=${1:?usage: motion_peer.sh OUT_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRYON=${TRYON:-$ROOT/build/apps/tryon}
BLENDER=${BLENDER:-blender}
THREADS=${THREADS:-2}
BLENDER_THREADS=${BLENDER_THREADS:-1}
RES_CM=${RES_CM:-2}
VARIANTS=${VARIANTS:-default thin}
PATTERN=$ROOT/assets/patterns/shirt_mean_specification.json
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)

# 1. motion: mean_all.obj turned 30 deg about +Y and moved 0.5 m along +X, 31 frames
python3 "$ROOT/bench/motion_frames.py" "$ROOT/assets/bodies/mean_all.obj" "$OUT/frames" >&2

# 2. tryon animate (exit 1 = not clean is a result)
rc=0; "$TRYON" animate "$PATTERN" --avatar "$OUT/frames" -o "$OUT/animate" --resolution-cm "$RES_CM" \
    --threads "$THREADS" --quiet >"$OUT/animate.log" 2>&1 || rc=$?
[ "$rc" -le 1 ] || { echo "tryon animate failed ($rc), see $OUT/animate.log" >&2; exit 1; }

# 3. the same drape animate starts from, as OBJ, for Blender
rc=0; "$TRYON" drape "$PATTERN" --avatar "$OUT/frames/frame_000.obj" -o "$OUT/drape" --resolution-cm "$RES_CM" \
    --threads "$THREADS" --quiet >"$OUT/drape.log" 2>&1 || rc=$?
[ "$rc" -le 1 ] || { echo "tryon drape failed ($rc), see $OUT/drape.log" >&2; exit 1; }

# 4. Blender cloth, then tryon check on every exported frame
for v in $VARIANTS; do
  case $v in
    default) extra=() ;;                                        # harness defaults: 0.02 body thickness + 0.015 cloth distance
    thin)    extra=(--thickness-outer 0.002 --distance 0.003) ;; # gap close to tryon's (few mm)
    *) echo "unknown variant $v" >&2; exit 1 ;;
  esac
  B=$OUT/blender_$v; mkdir -p "$B"
  nice -n 10 "$BLENDER" -b --factory-startup -t "$BLENDER_THREADS" --python "$ROOT/bench/blender_follow.py" -- \
      "$OUT/frames" "$OUT/drape/garment.obj" "$B/frames" "${extra[@]}" >"$B/blender.log" 2>&1
  grep '^{' "$B/blender.log" | tail -1 >"$B/blender.json"
  for c in "$B"/frames/cloth_*.obj; do
    k=$(basename "$c" .obj); k=${k#cloth_}
    "$TRYON" check "$c" --avatar "$OUT/frames/frame_$k.obj" --up y --facing keep >"$B/check_$k.json" 2>/dev/null || true
  done
done

# 5. summary
python3 - "$OUT" $VARIANTS <<'PY' | tee "$OUT/summary.json"
import glob, json, os, sys
out, variants = sys.argv[1], sys.argv[2:]
SHARE = 0.001  # self-intersecting vertices allowed, as a share of the garment's (tryon/animate.cpp)
def med(x):
    x = sorted(x); n = len(x)
    return x[n // 2] if n % 2 else 0.5 * (x[n // 2 - 1] + x[n // 2])
def row(q, verts):
    siv = q.get("self_intersecting_vertices", 2 * q["self_intersections"])  # same estimate as animate
    r = {"body_intersections": q["body_intersections"], "vertices_inside_body": q["vertices_inside_body"],
         "self_intersections": q["self_intersections"], "self_intersecting_vertices": siv,
         "seam_gap_max_m": q["seam_gap_max_m"], "strain_max": q["strain_max"]}
    r["clean"] = (r["body_intersections"] == 0 and r["vertices_inside_body"] == 0
                  and siv <= SHARE * verts and r["seam_gap_max_m"] < 1e-3)
    return r
def badness(r):
    return (not r["clean"], r["body_intersections"] + r["vertices_inside_body"], r["seam_gap_max_m"],
            r["self_intersecting_vertices"], r["strain_max"])
def summarise(rows, verts):
    worst = max(range(len(rows)), key=lambda k: badness(rows[k]))
    return {"frames": len(rows), "frames_clean": sum(r["clean"] for r in rows), "cloth_verts": verts,
            "worst_frame": dict(frame=worst, **rows[worst])}
res = {}
rep = json.load(open(os.path.join(out, "animate", "report.json")))
verts = rep["drape"]["mesh"]["vertices"]
rows = [row(f, verts) for f in rep["frames"]]
res["tryon"] = {"s_per_frame": rep["timings_s"]["follow_per_frame"], "s_per_frame_is": "mean (animate reports no per-frame list)",
                "drape_s": rep["timings_s"]["drape"], "follow_s": rep["timings_s"]["follow"],
                "status": rep["status"], **summarise(rows, verts)}
for v in variants:
    b = os.path.join(out, "blender_" + v)
    bj = json.load(open(os.path.join(b, "blender.json")))
    rows = []
    for p in sorted(glob.glob(os.path.join(b, "check_*.json"))):
        c = json.load(open(p)); rows.append(row(c["quality"], c["mesh"]["vertices"]))
    res["blender_" + v] = {"s_per_frame": bj["median_frame_s"], "s_per_frame_is": "median of stepped frames",
                           "sim_s": bj["sim_s"], "max_frame_s": bj["max_frame_s"],
                           "thickness_outer": bj["thickness_outer"], "distance_min": bj["distance_min"],
                           "body_vertex0_max_err_m": bj["body_vertex0_max_err_m"],
                           "body_centroid_shift_m": bj["body_centroid_shift_m"],
                           "cloth_centroid_shift_m": bj["cloth_centroid_shift_m"],
                           **summarise(rows, bj["cloth_verts"])}
print(json.dumps(res, indent=1))
PY
