"""Drape a batch manifest on a Dask cluster: one Dask task per job.

    python3 -m tryon.dask MANIFEST -o OUTDIR [--scheduler ADDRESS] [--workers N]
                          [--threads-per-job N] [--time-limit S] [--kill-grace S] [--resume]
                          [--tryon PATH] [--quiet]

MANIFEST is `tryon batch`'s (JSON Lines or CSV). The manifest is read by `tryon batch --plan`,
so job names, relative paths, option checks and refusals are exactly the batch's. Each job then
runs on a Dask worker as a `tryon drape` child process writing OUTDIR/<name>/ (garment, report.json,
log.txt), and the client writes OUTDIR/summary.json and summary.csv in `tryon batch`'s format,
rewritten whole after every finished job. A failed job (bad input, crash, timeout, lost worker)
is recorded in the summary, never raised.

Why a child process per job rather than the Python module in the worker: a crash or a hang is
then the job's failure, not the worker's (a segfault inside a Dask worker would kill it and
Dask would retry the task elsewhere, possibly killing more workers); a time limit can be
enforced by killing the process; OpenMP threads of one drape do not share a worker process with
another's; and the outcome (exit code, report.json, log) is read exactly as `tryon batch` reads
it. The price, starting a process and loading the body per job, is small next to a drape.

Without --scheduler a LocalCluster of --workers processes (default: 1 per 2 cores) runs on this
machine; with --scheduler tcp://HOST:8786 the jobs go to that cluster, whose workers must have
tryon installed (the `tryon` program at the same path, or --tryon) and see the manifest's
pattern and body files and OUTDIR at the same paths (a shared file system).

Exit codes: 0 all jobs ok, 1 any job not ok (or interrupted), 2 bad manifest or usage.
"""
import argparse
import csv
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tryon import _program

EXIT_OK, EXIT_NOT_CLEAN, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class BadInput(Exception):
    """Nothing can run: the manifest is refused (what `tryon batch` exits 2 for), the output
    folder cannot be made, or the scheduler cannot be reached."""


def find_tryon(explicit=None):
    """The `tryon` program: --tryon, $TRYON_BIN, the one of the tree this package is part of (bundled
    by pip in tryon/bin/, <build>/apps/tryon for PYTHONPATH=<build>/python, or <prefix>/bin/tryon
    for <prefix>/lib/python3/dist-packages/tryon), or PATH."""
    if explicit:
        return str(Path(explicit).resolve())
    if os.environ.get("TRYON_BIN"):
        return os.environ["TRYON_BIN"]
    found = _program.find()
    if found:
        return found
    raise FileNotFoundError("cannot find the tryon program: give --tryon PATH or set TRYON_BIN")


def plan(tryon_bin, manifest, outdir):
    """The batch's jobs as `tryon batch MANIFEST -o OUTDIR --plan` prints them."""
    p = subprocess.run([tryon_bin, "batch", str(manifest), "-o", str(outdir), "--plan", "--quiet"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if p.returncode == EXIT_BAD_INPUT:
        lines = [line.replace("[tryon] [error] ", "") for line in p.stderr.splitlines() if line.strip()]
        raise BadInput(lines[-1] if lines else "bad manifest '%s'" % manifest)
    if p.returncode != 0:
        raise RuntimeError("tryon batch --plan failed (exit %d): %s" % (p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


# ---------------------------------------------------------------------------------------------
# One job, run on a Dask worker. Mirrors apps/batch.cpp's start_job and finish_job.

OUTPUT_FILES = ("report.json", "garment.obj", "garment.glb", "preview.png", "log.txt")


def read_report(path):
    try:
        with open(path) as f:
            report = json.load(f)
        return report if isinstance(report, dict) else None
    except (OSError, ValueError):
        return None


def reason_from_log(log):
    """The error a failed drape gave: its last "[error]" log line, else the last meaningful line."""
    try:
        text = Path(log).read_text(errors="replace")
    except OSError:
        return ""
    last_error = last = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("Run with --help"):
            continue
        at = line.find("[error] ")
        if at >= 0:
            last_error = line[at + 8:]
        last = line
    return last_error or last


def signal_name(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "signal %d" % sig


def _die_with_parent():
    """In the drape's child process before exec: SIGKILL when the worker thread that started it
    dies (prctl PR_SET_PDEATHSIG, Linux), so closing a worker never leaves a drape running."""
    if _LIBC is not None:
        _LIBC.prctl(1, signal.SIGKILL)


try:
    import ctypes
    _LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
except OSError:
    _LIBC = None


def _stop_requested(event):
    try:
        return event is not None and event.is_set()
    except Exception:  # the scheduler is gone: the client has stopped
        return True


def run_job(job, tryon_bin, threads, time_limit_s=0.0, kill_grace_s=30.0, stop_event=None):
    """Runs one planned job as `tryon drape ...` in OUTDIR/<name>/; returns its outcome
    {status, reason, exit_code, signal, wall_s, launched, report}. Never raises.
    `stop_event`: name of a distributed.Event polled once a second; when set, the drape is killed."""
    start = time.monotonic()
    out = {"status": "failed", "reason": "", "exit_code": None, "signal": None, "wall_s": 0.0,
           "launched": False, "report": None}
    d = Path(job["drape_args"][job["drape_args"].index("-o") + 1])
    event = None
    if stop_event:
        try:
            from distributed import Event
            event = Event(stop_event)
        except Exception:  # not inside a Dask worker
            event = None
    if _stop_requested(event):
        out.update(status="not_run", reason="the Dask run was stopped by SIGINT before this job started")
        return out
    try:
        d.mkdir(parents=True, exist_ok=True)
        for f in OUTPUT_FILES:
            (d / f).unlink(missing_ok=True)
        args = [tryon_bin, "drape"] + list(job["drape_args"])
        if "--threads" not in args and threads > 0:
            args += ["--threads", str(threads)]
        limit = job.get("time_limit_s") or 0.0
        if limit <= 0 and time_limit_s > 0:
            limit = time_limit_s
            args += ["--time-limit", json.dumps(limit)]
        deadline = limit + kill_grace_s if limit > 0 else None
        with open(d / ".log.txt.partial", "wb") as log:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True,  # its own process group, killed whole
                                    preexec_fn=_die_with_parent)
    except OSError as e:
        out["reason"] = "could not start the drape: %s" % e
        out["wall_s"] = time.monotonic() - start
        return out
    out["launched"] = True
    killed = None
    last_poll = 0.0
    while True:
        try:
            code = proc.wait(timeout=0.2)
            break
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if killed is None and deadline is not None and now - start > deadline:
            killed = "timeout"
        elif killed is None and now - last_poll > 1.0:
            last_poll = now
            if _stop_requested(event):
                killed = "interrupt"
        if killed:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    out["wall_s"] = time.monotonic() - start
    try:
        os.replace(d / ".log.txt.partial", d / "log.txt")
    except OSError:
        pass
    for f in d.iterdir():  # a killed drape's temporary outputs (".garment.obj.tmp<pid>")
        if f.name.startswith(".") and ".tmp" in f.name:
            f.unlink(missing_ok=True)
    out["report"] = read_report(d / "report.json")
    if code < 0:
        out["signal"] = signal_name(-code)
    else:
        out["exit_code"] = code
    if killed == "timeout":
        out["reason"] = "timeout: killed after %.1f s (time limit + %.1f s grace)" % (out["wall_s"], kill_grace_s)
        out["report"] = None
        return out
    if killed == "interrupt":
        out["reason"] = "interrupted: the Dask run was stopped by SIGINT"
        out["report"] = None
        return out
    if code < 0:
        out["reason"] = "crashed: %s (%s)" % (out["signal"], signal.strsignal(-code))
        return out
    why = reason_from_log(d / "log.txt")
    if code in (EXIT_OK, EXIT_NOT_CLEAN) and out["report"] is not None:
        out["status"] = "ok" if code == EXIT_OK else "not_clean"
        if (out["status"] == "ok") != (out["report"].get("status") == "ok"):
            out["reason"] = "the exit code and report.json's status disagree"
        return out
    if code in (EXIT_OK, EXIT_NOT_CLEAN):
        out["reason"] = "exit %d but no readable report.json" % code
    elif code == EXIT_BAD_INPUT:
        out["reason"] = "bad input: " + why
    elif code == EXIT_INTERNAL:
        out["reason"] = "internal error: " + why
    elif code == 127:
        out["reason"] = "could not start the drape: " + why
    else:
        out["reason"] = "exit code %d: %s" % (code, why)
    return out


# ---------------------------------------------------------------------------------------------
# The summary, in apps/batch.cpp's format (summary_entry, summary_csv, write_summary).

def summary_entry(job, o):
    report = o.get("report")
    timings = dict(report["timings_s"]) if report and isinstance(report.get("timings_s"), dict) else {}
    if o.get("launched") and o.get("wall_s") is not None:  # unknown for a task lost with its worker
        timings["wall"] = o["wall_s"]
    return {"name": job["name"], "line": job["line"], "status": o["status"], "reason": o["reason"],
            "failures": report.get("failures", []) if report else [],
            "timings_s": timings, "exit_code": o.get("exit_code"), "signal": o.get("signal"),
            "launched": bool(o.get("launched")), "pattern": job["pattern"], "avatar": job["avatar"],
            "report_status": report.get("status") if report else None}


def summary_csv(entries):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["name", "status", "reason", "failures", "exit_code", "signal", "wall_s", "total_s", "pattern", "avatar"])

    def number(t, key):
        v = t.get(key)
        return json.dumps(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else ""

    for e in entries:
        w.writerow([e["name"], e["status"], e["reason"], ";".join(e["failures"]),
                    "" if e["exit_code"] is None else str(e["exit_code"]), e["signal"] or "",
                    number(e["timings_s"], "wall"), number(e["timings_s"], "total"), e["pattern"], e["avatar"]])
    return buf.getvalue()


def write_atomic(path, text):
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix="." + path.name + ".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


COUNT_KEYS = ("ok", "not_clean", "failed", "skipped", "not_run")


def write_summary(outdir, manifest, jobs, outcomes, finished, interrupted, wall_s):
    entries = [summary_entry(j, o) for j, o in zip(jobs, outcomes)]
    counts = {k: sum(o["status"] == k for o in outcomes) for k in COUNT_KEYS}
    counts["pending"] = len(outcomes) - sum(counts.values())
    summary = {"manifest": manifest, "finished": finished, "interrupted": interrupted,
               "launched": sum(bool(o.get("launched")) for o in outcomes), "counts": counts,
               "wall_s": wall_s, "jobs": entries}
    write_atomic(outdir / "summary.json", json.dumps(summary, indent=2) + "\n")
    write_atomic(outdir / "summary.csv", summary_csv(entries))
    return summary


# ---------------------------------------------------------------------------------------------
# The run.

def interrupted_outcome(job_dir, since):
    """What the client records for a job whose task did not report back after an interrupt: a
    drape that had started in this run (its log was written after `since`, a time.time()) was
    stopped; any other never started."""
    partial, log = job_dir / ".log.txt.partial", job_dir / "log.txt"
    try:
        os.replace(partial, log)
    except OSError:
        pass
    try:
        started = log.stat().st_mtime >= since
    except OSError:
        started = False
    if started:
        return {"status": "failed", "reason": "interrupted: the Dask run was stopped by SIGINT", "launched": True}
    return {"status": "not_run", "reason": "the Dask run was stopped by SIGINT before this job started"}


def default_workers():
    return max(1, (os.cpu_count() or 1) // 2)


def run(manifest, outdir, scheduler=None, workers=None, threads_per_job=None, time_limit_s=0.0,
        kill_grace_s=30.0, resume=False, tryon_bin=None, log=None):
    """Drapes every job of `manifest` into `outdir` on Dask; returns the summary dict (also
    written to OUTDIR/summary.json). Raises BadInput when nothing can run (see BadInput)."""
    from distributed import Client, Event, LocalCluster, as_completed

    t0, started_at = time.monotonic(), time.time()
    log = log or (lambda text: None)
    tryon_bin = find_tryon(tryon_bin)
    the_plan = plan(tryon_bin, manifest, outdir)
    manifest, outdir = the_plan["manifest"], Path(the_plan["outdir"])
    jobs = the_plan["jobs"]
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput("cannot create the output folder '%s': %s" % (outdir, e))

    outcomes = [{"status": "pending", "reason": "", "launched": False, "report": None} for _ in jobs]
    queue = []
    for i, job in enumerate(jobs):
        if job["error"]:
            outcomes[i].update(status="failed", reason="manifest line %d: %s" % (job["line"], job["error"]))
            continue
        report = read_report(outdir / job["name"] / "report.json") if resume else None
        if report is not None:
            outcomes[i].update(status="skipped", reason="resume: report.json exists", report=report)
            continue
        queue.append(i)

    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout=30)
        except (OSError, TimeoutError) as e:
            raise BadInput("cannot reach the Dask scheduler at %s: %s" % (scheduler, e))
        threads = threads_per_job if threads_per_job is not None else 0  # 0: the drape's default, all cores
        where = "scheduler %s" % scheduler
    else:
        workers = workers or default_workers()
        # One job at a time per worker process; no dashboard (its fixed port may be taken).
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        threads = threads_per_job if threads_per_job is not None else max(1, (os.cpu_count() or 1) // workers)
        where = "a LocalCluster of %d workers" % workers
    log("tryon.dask: %d jobs from '%s', %d to run on %s, %s threads each"
        % (len(jobs), manifest, len(queue), where, threads or "all"))

    def save(finished, interrupted=False):
        return write_summary(outdir, manifest, jobs, outcomes, finished, interrupted, time.monotonic() - t0)

    interrupted = False
    futures = {}
    run_id = uuid.uuid4().hex[:12]
    stop = Event("tryon-dask-stop-" + run_id, client=client)  # set on Ctrl-C
    try:
        save(False)
        for i in queue:
            # pure=False: a job run twice is two runs; the key names the job (and this run) in the dashboard.
            f = client.submit(run_job, jobs[i], tryon_bin, threads, time_limit_s, kill_grace_s, stop.name,
                              key="tryon-%s-%s" % (run_id, jobs[i]["name"]), pure=False, retries=0)
            futures[f] = i
        for f in as_completed(list(futures)):
            i = futures[f]
            try:
                outcomes[i] = f.result()
            except Exception as e:  # the task itself failed (a worker died...): the job's failure
                outcomes[i].update(status="failed", reason="dask: %s: %s" % (type(e).__name__, e))
            log("%s: %s%s" % (jobs[i]["name"], outcomes[i]["status"],
                              " (%s)" % outcomes[i]["reason"] if outcomes[i]["reason"] else ""))
            save(False)
    except KeyboardInterrupt:
        interrupted = True
        log("tryon.dask: interrupted; stopping the running drapes")
        try:
            stop.set()  # running tasks kill their drapes within a second; waiting ones do not start
        except Exception:
            pass
        deadline = time.monotonic() + 5
        for f, i in futures.items():
            if outcomes[i]["status"] != "pending":
                continue
            try:
                outcomes[i] = f.result(timeout=max(0.1, deadline - time.monotonic()))
            except BaseException:  # the worker went down with the interrupt (a terminal's Ctrl-C)
                try:
                    f.cancel()
                except Exception:
                    pass
                outcomes[i].update(interrupted_outcome(outdir / jobs[i]["name"], started_at))
    finally:
        summary = save(True, interrupted)
        for closable in (client, cluster):
            try:
                if closable is not None:
                    closable.close()
            except Exception:  # already down
                pass
    c = summary["counts"]
    log("tryon.dask: %d jobs: %d ok, %d not clean, %d failed, %d skipped%s in %.1f s; summary in %s"
        % (len(jobs), c["ok"], c["not_clean"], c["failed"], c["skipped"], ", INTERRUPTED" if interrupted else "",
           summary["wall_s"], outdir / "summary.json"))
    return summary


def all_ok(summary):
    return not summary["interrupted"] and all(
        j["status"] == "ok" or (j["status"] == "skipped" and j["report_status"] == "ok") for j in summary["jobs"])


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m tryon.dask",
                                description="drape a tryon batch manifest on Dask distributed (one task per job)")
    p.add_argument("manifest", help="JSON Lines or CSV manifest (the `tryon batch` format)")
    p.add_argument("-o", "--output", required=True, help="output folder: <name>/ per job, summary.json, summary.csv")
    p.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster here)")
    p.add_argument("--workers", type=int, help="LocalCluster worker processes (default: one per 2 cores)")
    p.add_argument("--threads-per-job", type=int,
                   help="drape threads unless a job sets them (default: cores / workers locally, all cores on a cluster)")
    p.add_argument("--time-limit", type=float, default=0.0, help="per-job time limit in s unless the job sets one")
    p.add_argument("--kill-grace", type=float, default=30.0, help="s after a job's time limit before it is killed")
    p.add_argument("--resume", action="store_true", help="skip jobs whose report.json exists")
    p.add_argument("--tryon", help="the tryon program (default: $TRYON_BIN, the one beside this package: bundled, "
                                   "the build folder's or the install prefix's, else PATH)")
    p.add_argument("--quiet", action="store_true", help="no per-job lines")
    a = p.parse_args(argv)
    if a.workers is not None and a.workers < 1:
        p.error("--workers must be at least 1")
    if a.workers is not None and a.scheduler:
        p.error("--workers sizes the LocalCluster; with --scheduler the cluster has its own workers")
    log = None if a.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    try:
        summary = run(a.manifest, a.output, scheduler=a.scheduler, workers=a.workers, threads_per_job=a.threads_per_job,
                      time_limit_s=a.time_limit, kill_grace_s=a.kill_grace, resume=a.resume, tryon_bin=a.tryon, log=log)
    except (BadInput, FileNotFoundError) as e:
        print("tryon.dask: %s" % e, file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK if all_ok(summary) else EXIT_NOT_CLEAN


if __name__ == "__main__":
    # Run as tryon.dask, not __main__: Dask workers then import run_job by name instead of
    # receiving a pickled copy of this module's globals.
    from tryon.dask import main as _main
    sys.exit(_main())
