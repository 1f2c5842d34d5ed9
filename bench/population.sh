#!/usr/bin/env bash
# The population benchmark: drapes a set of garments, each on its body, one job at a time
# (`tryon batch`, each job in its own process, bounded by --time-limit), and writes
#   OUT/population.json  per sample: status, failures, intersections, seam gap, strain max,
#                        frames, the sewing order kept, seconds; and the totals (share
#                        clean, share within GarmentCodeData's own pass rule, median and
#                        p90 seconds)
#   OUT/population.md    the same as a table
# and prints the totals. Not a test: run it from the repository root on a quiet machine.
#
# usage: bench/population.sh [SET] [OUT]
#   SET  gcd        the GarmentCodeData samples of ../shared/data/patterns/garmentcodedata,
#                   each on the body its manifest.csv names (default)
#        templates  the 2021 Garment-Pattern-Generator templates: tops, dresses and
#                   jumpsuits on the T-pose body they were made for, skirts and trousers on
#                   mean_all, the TA-pose trousers on mean_all_apart
#        bodies     the bundled skirt, shirt and hoody (made for mean_all) on the sample
#                   bodies of ../shared/data/avatars/garmentcode/samples
#        FILE       a `tryon batch` manifest in JSON Lines, each job with its own options
#                   but for THREADS, RESOLUTION_CM and MAX_FRAMES when set
#   OUT  output folder (default: a new folder under /tmp)
# env:   RESOLUTION_CM (default: the drape's default, 1; a FILE's: its jobs' own), THREADS
#        (2; a FILE's: its jobs' own), JOBS (1),
#        TIME_LIMIT_S (300), MAX_FRAMES (the drape's default), EVERY (N: every Nth sample
#        only), FIRST (with EVERY: the sample to start from, counted from 0; 0), TRYON (the
#        program, default build/apps/tryon), SHARED (../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:-gcd}
out=${2:-$(mktemp -d /tmp/population.XXXXXX)}
tryon=${TRYON:-build/apps/tryon}
shared=${SHARED:-../shared/data}
[ -x "$tryon" ] || { echo "population: no program at $tryon (bash scripts/setup.sh builds it)" >&2; exit 2; }
mkdir -p "$out"
tryon=$(realpath "$tryon")
shared=$(realpath -m "$shared")

case "$set_name" in gcd|templates|bodies) from_file=0 ;; *) from_file=1 ;; esac

# The drape options every job gets, as JSON; a FILE's jobs keep their own, but for those set
# in the environment.
options=$(/usr/bin/python3 - "$from_file" <<EOF
import json, os, sys
o = {} if sys.argv[1] == "1" else {"threads": 2}
if os.environ.get("THREADS"): o["threads"] = int(os.environ["THREADS"])
if os.environ.get("RESOLUTION_CM"): o["resolution_cm"] = float(os.environ["RESOLUTION_CM"])
if os.environ.get("MAX_FRAMES"): o["max_frames"] = int(os.environ["MAX_FRAMES"])
print(json.dumps(o))
EOF
)

/usr/bin/python3 - "$set_name" "$shared" "$out/manifest.jsonl" "$options" "${EVERY:-1}" "${FIRST:-0}" <<'EOF'
import csv, json, os, sys
set_name, shared, manifest, options = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
every, first = int(sys.argv[5]), int(sys.argv[6])
bodies = os.path.join(shared, "avatars", "garmentcode")
jobs = []
def need(path):
    if not os.path.exists(path):
        sys.exit(f"population: {path} is missing (the shared data set is needed for '{set_name}')")
    return path
if set_name == "gcd":
    folder = need(os.path.join(shared, "patterns", "garmentcodedata"))
    for row in csv.DictReader(open(os.path.join(folder, "manifest.csv"))):
        jobs.append({"name": row["name"], "pattern": need(os.path.join(folder, row["name"] + "_specification.json")),
                     "avatar": need(os.path.join(bodies, row["body"]))})
elif set_name == "templates":
    folder = need(os.path.join(shared, "patterns", "garmentcode_gpg", "templates"))
    for group in sorted(os.listdir(folder)):
        for f in sorted(os.listdir(os.path.join(folder, group))):
            name = f[:-5]
            body = "mean_all_tpose.obj" if group in ("tee_jacket", "combos") else "mean_all.obj"
            if "TA_pose" in name: body = "mean_all_apart.obj"
            jobs.append({"name": name, "pattern": os.path.join(folder, group, f), "avatar": need(os.path.join(bodies, body))})
elif set_name == "bodies":
    samples = need(os.path.join(bodies, "samples"))
    for garment in ("skirt_2_panels.json", "shirt_mean_specification.json", "hoody_mean_specification.json"):
        for b in sorted(f for f in os.listdir(samples) if f.endswith(".obj")):
            jobs.append({"name": garment.split(".")[0].replace("_specification", "") + "-" + b[:-4],
                         "pattern": os.path.abspath(os.path.join("assets", "patterns", garment)),
                         "avatar": os.path.join(samples, b)})
else:
    # Its jobs, their paths made absolute (the manifest's folder is their base, and the copy
    # is in OUT).
    text = open(need(set_name)).read()
    if not text.lstrip().startswith("{"):  # CSV: its options are JSON in a cell
        sys.exit(f"population: {set_name} is not JSON Lines (run a CSV manifest with tryon batch)")
    base = os.path.dirname(os.path.abspath(set_name))
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip(): continue
        try:
            j = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"population: {set_name}, line {number}: not JSON ({e})")
        for key, owner in (("pattern", j), ("avatar", j), ("seam_file", j.get("options", {}))):
            if key in owner: owner[key] = os.path.join(base, owner[key])
        jobs.append(j)
with open(manifest, "w") as m:
    for i, j in enumerate(jobs):
        if i % every == first % every:
            j["options"] = {**j.get("options", {}), **options}
            m.write(json.dumps(j) + "\n")
EOF

given="options $options"; [ "$from_file" = 0 ] || given="options of $set_name, with $options"
echo "population: $(wc -l < "$out/manifest.jsonl") jobs, $given, time limit ${TIME_LIMIT_S:-300} s, $out" >&2
code=0
"$tryon" batch "$out/manifest.jsonl" -o "$out/jobs" --jobs "${JOBS:-1}" --time-limit "${TIME_LIMIT_S:-300}" --quiet || code=$?
[ "$code" -le 1 ] || { echo "population: tryon batch failed (exit $code)" >&2; exit "$code"; }

/usr/bin/python3 - "$out" "$set_name" "$options" "${TIME_LIMIT_S:-300}" <<'EOF'
import json, os, statistics, sys
out, set_name, options, limit = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4])
summary = json.load(open(os.path.join(out, "jobs", "summary.json")))
rows = []
for job in summary["jobs"]:
    row = {"name": job["name"], "status": job["status"], "failures": job.get("failures", []),
           "reason": job.get("reason", ""), "seconds": (job.get("timings_s") or {}).get("wall")}
    report = os.path.join(out, "jobs", job["name"], "report.json")
    if os.path.exists(report):
        r = json.load(open(report))
        q = r["quality"]
        row.update({"failures": r["failures"], "body_intersections": q["body_intersections"],
                    "vertices_inside_body": q["vertices_inside_body"], "self_intersections": q["self_intersections"],
                    "seam_gap_mm": round(1000 * q["seam_gap_max_m"], 2),
                    "strain_max": q["strain_max"], "frames": r["simulation"]["frames"]})
        # The sewing order kept: the fine mesh's, or its coarse start's when it started from it.
        sewing = r["run"].get("sewing") or (r["run"].get("coarse_start") or {}).get("sewing") or {}
        row["sewing"] = sewing.get("order_kept", "")
    # GarmentCodeData's own rule: at most 35 cloth edges through the body and 300 through the
    # cloth, settled within its limits, the simulation finished.
    row["within_gcd_rule"] = (row["status"] in ("ok", "not_clean") and "body_intersections" in row and
                              row["body_intersections"] <= 35 and row["self_intersections"] <= 300 and
                              not set(row["failures"]) & {"not_static", "time_limit", "simulation_failed", "cancelled"})
    rows.append(row)
n = len(rows)
secs = sorted(r["seconds"] for r in rows if r["seconds"] is not None)
def pct(p): return secs[min(len(secs) - 1, int(p * len(secs)))] if secs else None
totals = {"set": set_name, "options": options, "time_limit_s": limit, "samples": n,
          "clean": sum(r["status"] == "ok" for r in rows),
          "within_gcd_rule": sum(r["within_gcd_rule"] for r in rows),
          "median_s": statistics.median(secs) if secs else None, "p90_s": pct(0.9)}
failures = {}
for r in rows:
    for f in r["failures"]: failures[f] = failures.get(f, 0) + 1
totals["failures"] = dict(sorted(failures.items(), key=lambda kv: -kv[1]))
json.dump({"totals": totals, "samples": rows}, open(os.path.join(out, "population.json"), "w"), indent=1)
def cell(v, fmt="{}"): return "" if v is None else fmt.format(v)
lines = [f"# Population: {set_name}", "",
         f"{n} samples; options {json.dumps(options)}; time limit {limit:g} s a job.", "",
         f"- clean: {totals['clean']} of {n}",
         f"- within GarmentCodeData's pass rule (at most 35 body and 300 self intersections, settled): {totals['within_gcd_rule']} of {n}",
         f"- seconds a sample (wall): median {cell(totals['median_s'], '{:.1f}')}, p90 {cell(totals['p90_s'], '{:.1f}')}",
         f"- failures: " + ", ".join(f"{k} {v}" for k, v in totals["failures"].items()), "",
         "| sample | status | failures | body | inside | self | seam gap mm | strain max | frames | sewn | s |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
        r["name"], r["status"], " ".join(r["failures"]) or r["reason"], cell(r.get("body_intersections")),
        cell(r.get("vertices_inside_body")), cell(r.get("self_intersections")), cell(r.get("seam_gap_mm")),
        cell(r.get("strain_max"), "{:.3f}"), cell(r.get("frames")), r.get("sewing", "").replace("_", " "),
        cell(r["seconds"], "{:.1f}")))
open(os.path.join(out, "population.md"), "w").write("\n".join(lines) + "\n")
print(json.dumps(totals))
EOF
