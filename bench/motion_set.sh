#!/usr/bin/env bash
# The motions of docs/motion.md, one after another: the shirt and the skirt on a body turning
# and walking away (mesh sequence), CesiumMan's walk (rigged glTF) and a CMU clip on a MakeHuman
# body (BVH); a line of figures a run and a table at the end.
#
#   bench/motion_set.sh OUT_DIR [animate options...]     (from anywhere; ~15 min on 2 cores)
#
# Env: TRYON (default build/apps/tryon), THREADS (2), RES_CM (3), TIME_LIMIT_S (300 a run),
#      CASES (the motions to run, default "turn cesium cmu"),
#      SHARED (default ../shared/data next to the repository; the rigged and BVH cases need it).
# Writes OUT_DIR/<case>/{report.json,log} and OUT_DIR/summary.tsv.
set -euo pipefail
OUT=${1:?usage: motion_set.sh OUT_DIR [animate options...]}; shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRYON=${TRYON:-$ROOT/build/apps/tryon}
THREADS=${THREADS:-2}
RES_CM=${RES_CM:-3}
TIME_LIMIT_S=${TIME_LIMIT_S:-300}
CASES=${CASES:-turn cesium cmu}
SHARED=${SHARED:-$ROOT/../shared/data}
AV=$SHARED/avatars
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)

declare -A BODY=(
  [turn]="--avatar $OUT/turn_frames"
  [cesium]="--avatar $AV/rigged_cesiumman/CesiumMan.glb --blend-in 15"
  [cmu]="--avatar $AV/makehuman/derived/makehuman_female.obj --motion $AV/motion_cmu/01_01.bvh --rig $AV/makehuman/rig --base-mesh $AV/makehuman/raw/base.obj --frames 30:120 --blend-in 15"
)
for body in $CASES; do
  [ -n "${BODY[$body]:-}" ] || { echo "motion_set.sh: unknown case '$body' (turn, cesium, cmu)" >&2; exit 2; }
done
case " $CASES " in *" turn "*) [ -d "$OUT/turn_frames" ] || python3 "$ROOT/bench/motion_frames.py" "$ROOT/assets/bodies/mean_all.obj" "$OUT/turn_frames" >&2 ;; esac
GARMENTS="shirt_mean_specification skirt_2_panels"
printf 'case\tframes\tclean\tsteps_max\ts_per_frame\tfollow_s\tstatus\n' >"$OUT/summary.tsv"
for body in $CASES; do
  for g in $GARMENTS; do
    name=${body}_${g%%_*}
    # shellcheck disable=SC2086
    rc=0; "$TRYON" animate "$ROOT/assets/patterns/$g.json" ${BODY[$body]} -o "$OUT/$name" --resolution-cm "$RES_CM" \
        --threads "$THREADS" --time-limit "$TIME_LIMIT_S" --quiet "$@" >"$OUT/$name.log" 2>&1 || rc=$?
    [ "$rc" -le 1 ] || { echo "$name: tryon animate failed ($rc), see $OUT/$name.log" >&2; continue; }
    python3 - "$OUT/$name/report.json" "$name" >>"$OUT/summary.tsv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); m = r["motion"]; t = r["timings_s"]
print(f'{sys.argv[2]}\t{m["frames_written"]}/{m["frames"]}\t{m["frames_clean"]}\t{m["steps_per_frame"]}\t'
      f'{t["follow_per_frame"]:.2f}\t{t["follow"]:.1f}\t{m["status"]}')
PY
    tail -n 1 "$OUT/summary.tsv" >&2
  done
done
column -t "$OUT/summary.tsv"
