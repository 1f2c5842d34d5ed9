#!/usr/bin/env bash
# Time to rest of whole drapes: `tryon drape` over patterns × bodies × integrators × threads,
# REPS times each, one JSON line per run on stdout (from the run's report.json): status, frames,
# simulate and collision seconds, the collision share, and the quality figures; and the run's wall
# seconds and the CPU seconds the hypervisor gave to other guests meanwhile (steal_s, from
# /proc/stat: on a shared virtual machine a run with much steal is slow for reasons of its own).
# Not a test: run it from the repository root on a quiet machine and quote medians.
#
# usage: bench/drape_matrix.sh [REPS] > results.jsonl
# env:   PATTERNS, BODIES (space-separated paths; default: the bundled skirt on the bundled body),
#        INTEGRATORS (default "implicit_euler explicit_euler"), THREADS (default "1 2"),
#        RESOLUTION_CM (3), MAX_FRAMES (900), TIME_LIMIT_S (900), OUT (scratch folder)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
patterns=${PATTERNS:-assets/patterns/skirt_2_panels.json}
bodies=${BODIES:-assets/bodies/mean_all.obj}
integrators=${INTEGRATORS:-implicit_euler explicit_euler}
threads=${THREADS:-1 2}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
tryon=build/apps/tryon
# CPU time stolen by the hypervisor, all CPUs, in clock ticks (the 8th figure of /proc/stat's "cpu").
steal_ticks() { awk '$1 == "cpu" { print $9 }' /proc/stat 2> /dev/null || echo 0; }
[ -x "$tryon" ] || { echo "build first (bash scripts/setup.sh)" >&2; exit 2; }
for pattern in $patterns; do
  for body in $bodies; do
    for integrator in $integrators; do
      for t in $threads; do
        for rep in $(seq 1 "$reps"); do
          dir="$out/$(basename "${pattern%.*}")-$(basename "${body%.*}")-$integrator-t$t-r$rep"
          code=0
          steal0=$(steal_ticks)
          t0=$(date +%s.%N)
          "$tryon" drape "$pattern" --avatar "$body" -o "$dir" --integrator "$integrator" --threads "$t" \
            --resolution-cm "${RESOLUTION_CM:-3}" --max-frames "${MAX_FRAMES:-900}" \
            --time-limit "${TIME_LIMIT_S:-900}" --quiet 2> "$dir.log" || code=$?
          wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
          steal=$(awk -v a="$steal0" -v b="$(steal_ticks)" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }')
          if [ ! -f "$dir/report.json" ]; then
            echo "{\"pattern\": \"$pattern\", \"avatar\": \"$body\", \"integrator\": \"$integrator\", \"threads\": $t, \"rep\": $rep, \"exit\": $code, \"error\": \"no report (see $dir.log)\"}"
            continue
          fi
          python3 - "$dir/report.json" "$integrator" "$t" "$rep" "$code" "$wall" "$steal" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["timings_s"]
print(json.dumps({
    "pattern": r["pattern"], "avatar": r["avatar"], "integrator": sys.argv[2], "threads": int(sys.argv[3]),
    "rep": int(sys.argv[4]), "exit": int(sys.argv[5]), "status": r["status"], "failures": r["failures"],
    "frames": r["simulation"]["frames"], "static": r["simulation"]["static"],
    "simulate_s": t["simulate"], "collision_s": t["collision"], "total_s": t["total"],
    "collision_share": t["collision"] / t["simulate"] if t["simulate"] > 0 else None,
    "vertices": r["mesh"]["vertices"], "quality": r["quality"],
    "wall_s": float(sys.argv[6]), "steal_s": float(sys.argv[7])}))
EOF
        done
      done
    done
  done
done
