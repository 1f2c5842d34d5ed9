"""python3 -m tryon.dask on a LocalCluster of 2 workers: a good job, a missing pattern and a job
the manifest rules refuse; the OUTDIR layout and summary.json / summary.csv as `tryon batch`
writes them for the same manifest."""
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BODY, PATTERN

TRYON_BIN = os.environ.get("TRYON_BIN")
pytestmark = pytest.mark.skipif(not TRYON_BIN, reason="TRYON_BIN (the tryon program) is not set; ctest sets it")


def write_manifest(folder):
    jobs = [
        {"name": "good", "pattern": str(PATTERN), "avatar": str(BODY),
         "options": {"resolution_cm": 8, "max_frames": 20}},
        {"name": "missing", "pattern": "no_such_pattern.json", "avatar": str(BODY),
         "options": {"resolution_cm": 8, "max_frames": 20}},
        {"name": "refused", "pattern": str(PATTERN), "avatar": str(BODY), "options": {"colour": "red"}},
    ]
    path = folder / "jobs.jsonl"
    path.write_text("".join(json.dumps(j) + "\n" for j in jobs))
    return path


def run_dask(manifest, outdir, *extra):
    return subprocess.run([sys.executable, "-m", "tryon.dask", str(manifest), "-o", str(outdir), "--workers", "2",
                           "--tryon", TRYON_BIN, *extra], capture_output=True, text=True, timeout=600)


def test_dask_run_matches_tryon_batch(tmp_path):
    manifest = write_manifest(tmp_path)
    d = run_dask(manifest, tmp_path / "dask")
    assert d.returncode == 1, d.stderr  # not every job ok
    assert "on a LocalCluster of 2 workers" in d.stderr
    b = subprocess.run([TRYON_BIN, "batch", str(manifest), "-o", str(tmp_path / "batch"), "--quiet"],
                       capture_output=True, text=True, timeout=600)
    assert b.returncode == 1, b.stderr

    ds = json.loads((tmp_path / "dask" / "summary.json").read_text())
    bs = json.loads((tmp_path / "batch" / "summary.json").read_text())
    assert set(ds) == set(bs)
    assert ds["finished"] and not ds["interrupted"]
    assert ds["manifest"] == bs["manifest"] == str(manifest)
    assert ds["launched"] == bs["launched"] == 2  # the refused job never runs
    assert ds["counts"]["failed"] == bs["counts"]["failed"] == 2
    by_name = {j["name"]: j for j in ds["jobs"]}
    assert [j["name"] for j in ds["jobs"]] == [j["name"] for j in bs["jobs"]] == ["good", "missing", "refused"]
    for dj, bj in zip(ds["jobs"], bs["jobs"]):
        assert set(dj) == set(bj)
        for key in ("name", "line", "status", "failures", "exit_code", "signal", "launched", "pattern", "avatar",
                    "report_status"):
            assert dj[key] == bj[key], (dj["name"], key)
        assert set(dj["timings_s"]) == set(bj["timings_s"])
        # Reasons name the same problem; they differ only where they quote the output folder.
        assert dj["reason"].replace(str(tmp_path / "dask"), "OUT") == bj["reason"].replace(str(tmp_path / "batch"), "OUT")

    good, missing, refused = by_name["good"], by_name["missing"], by_name["refused"]
    assert good["status"] in ("ok", "not_clean") and good["exit_code"] in (0, 1)
    assert good["timings_s"]["wall"] > 0 and good["timings_s"]["total"] > 0
    assert missing["status"] == "failed" and missing["reason"].startswith("bad input: ")
    assert "no_such_pattern.json" in missing["reason"] and missing["exit_code"] == 2
    assert refused["reason"].startswith("manifest line 3: unknown option 'colour'") and not refused["launched"]

    # The OUTDIR layout: one folder per launched job with its log, the drape's files for the good one.
    out = tmp_path / "dask"
    assert sorted(p.name for p in out.iterdir()) == ["good", "missing", "summary.csv", "summary.json"]
    assert {"garment.obj", "report.json", "log.txt"} <= {p.name for p in (out / "good").iterdir()}
    report = json.loads((out / "good" / "report.json").read_text())
    assert report["status"] == good["report_status"]
    assert (out / "missing" / "log.txt").is_file() and not (out / "missing" / "report.json").exists()
    assert not [p for p in out.rglob(".*")]  # no temporary file left behind

    rows = list(csv.reader((out / "summary.csv").open()))
    brows = list(csv.reader((tmp_path / "batch" / "summary.csv").open()))
    assert rows[0] == brows[0]
    assert [r[:2] for r in rows[1:]] == [[j["name"], j["status"]] for j in ds["jobs"]]


def test_resume_skips_finished_jobs(tmp_path):
    manifest = write_manifest(tmp_path)
    run_dask(manifest, tmp_path / "out")
    before = (tmp_path / "out" / "good" / "report.json").stat().st_mtime_ns
    again = run_dask(manifest, tmp_path / "out", "--resume")
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    by_name = {j["name"]: j for j in s["jobs"]}
    assert by_name["good"]["status"] == "skipped" and not by_name["good"]["launched"]
    assert by_name["missing"]["status"] == "failed" and by_name["missing"]["launched"]  # no report: run again
    assert (tmp_path / "out" / "good" / "report.json").stat().st_mtime_ns == before
    assert again.returncode == 1


def test_a_bad_manifest_exits_2_and_runs_nothing(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"pattern": "a.json", "avatar": "b.obj"}\nnot json\n')
    r = run_dask(bad, tmp_path / "out")
    assert r.returncode == 2
    assert "line 2 is not JSON" in r.stderr
    assert not (tmp_path / "out").exists()
    r = run_dask(tmp_path / "absent.jsonl", tmp_path / "out")
    assert r.returncode == 2 and "absent.jsonl" in r.stderr


@pytest.mark.parametrize("target", ["runner", "group"])
def test_ctrl_c_stops_the_running_drapes_and_records_the_rest(tmp_path, target):
    """SIGINT to the runner alone (its tasks see a Dask event), or to its whole process group as
    a terminal's Ctrl-C does (the workers die too; their drapes die with them)."""
    long_job = {"pattern": str(PATTERN), "avatar": str(BODY), "options": {"resolution_cm": 3, "max_frames": 100000}}
    manifest = tmp_path / "long.jsonl"
    manifest.write_text("".join(json.dumps(dict(long_job, name="long%d" % i)) + "\n" for i in range(3)))
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "tryon.dask", str(manifest), "-o", str(out), "--workers", "2",
                          "--tryon", TRYON_BIN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        names = ["long0", "long1", "long2"]
        # Two workers of one thread each: two drapes run, the third waits.
        while sum((out / n / ".log.txt.partial").exists() for n in names) < 2:
            assert time.monotonic() < deadline and p.poll() is None, "two drapes never started"
            time.sleep(0.2)
        time.sleep(1)
        if target == "runner":
            p.send_signal(signal.SIGINT)
        else:
            os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 1, err
    s = json.loads((out / "summary.json").read_text())
    assert s["interrupted"] and s["finished"]
    ran = [j for j in s["jobs"] if j["launched"]]
    waited = [j for j in s["jobs"] if not j["launched"]]
    assert len(ran) == 2 and len(waited) == 1
    for j in ran:
        assert j["status"] == "failed" and j["reason"].startswith("interrupted"), j
        assert (out / j["name"] / "log.txt").is_file()
    assert waited[0]["status"] == "not_run" and "before this job started" in waited[0]["reason"]
    left = subprocess.run(["pgrep", "-f", "tryon drape .*%s" % out], capture_output=True, text=True)
    assert left.stdout == "", "drapes still running after the interrupt: " + left.stdout


def test_the_program_is_found_in_the_build_folder_of_the_package(tmp_path):
    """PYTHONPATH=<build>/python (as ctest sets it) and neither --tryon, TRYON_BIN nor a tryon on
    PATH: the runner uses <build>/apps/tryon."""
    env = {k: v for k, v in os.environ.items() if k != "TRYON_BIN"}
    env["PATH"] = "/usr/bin:/bin"
    found = subprocess.run([sys.executable, "-c", "import tryon.dask; print(tryon.dask.find_tryon())"],
                           env=env, capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    assert os.path.samefile(found.stdout.strip(), TRYON_BIN)
    import tryon
    assert Path(found.stdout.strip()) == Path(tryon.__file__).resolve().parents[2] / "apps" / "tryon"
    # The whole runner: the manifest is read by that program's `tryon batch --plan`.
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"pattern": "a.json", "avatar": "b.obj"}\nnot json\n')
    r = subprocess.run([sys.executable, "-m", "tryon.dask", str(bad), "-o", str(tmp_path / "out")],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "line 2 is not JSON" in r.stderr, r.stderr
    assert "cannot find the tryon program" not in r.stderr
