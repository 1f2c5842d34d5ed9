"""The Python module: loading, drape results as numpy arrays and dicts, saving, checking, option
errors, the GIL released while draping, and Ctrl-C / progress cancellation."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from conftest import BODY, COARSE, PATTERN, SOURCE_DIR

REPORT_KEYS = ("status", "failures", "pattern", "avatar", "mesh", "simulation", "timings_s", "quality")
QUALITY_KEYS = ("body_intersections", "vertices_inside_body", "self_intersections", "seam_gap_max_m",
                "strain_max", "strain_mean", "moving_fraction")


def test_load_pattern_and_avatar(tryon_module, pattern, body):
    with open(PATTERN) as f:
        spec = json.load(f)["pattern"]
    assert pattern.name == PATTERN.stem
    assert pattern.num_panels == len(spec["panels"])
    assert pattern.num_stitches == len(spec["stitches"])
    v, t = body.vertices, body.triangles
    assert v.dtype == np.float64 and v.shape[1] == 3 and t.shape[1] == 3
    assert t.min() >= 0 and t.max() < len(v)
    # The design's frame: feet at y = 0, height from the vertices.
    assert v[:, 1].min() == pytest.approx(0.0, abs=1e-9)
    assert v[:, 1].max() == pytest.approx(body.height_m, rel=1e-6)
    assert 1.0 < body.height_m < 2.2


def test_drape_gives_numpy_mesh_report_and_fit_maps(tryon_module, pattern, body):
    r = tryon_module.drape(pattern, avatar=body, **COARSE)
    pos, tri = r.positions, r.triangles
    assert pos.dtype == np.float64 and pos.ndim == 2 and pos.shape[1] == 3
    assert np.isfinite(pos).all()
    assert tri.ndim == 2 and tri.shape[1] == 3 and tri.min() >= 0 and tri.max() < len(pos)
    assert r.rest.shape == (len(pos), 2)
    rep = r.report
    for key in REPORT_KEYS:
        assert key in rep, key
    for key in QUALITY_KEYS:
        assert key in rep["quality"], key
    assert rep["mesh"]["vertices"] == len(pos) and rep["mesh"]["triangles"] == len(tri)
    assert rep["mesh"]["panels"] == pattern.num_panels
    assert rep["simulation"]["frames"] == COARSE["max_frames"]
    assert rep["material"] == "cotton_jersey"
    assert (rep["status"] == "ok") == r.clean == (rep["failures"] == [])
    strain, dist = r.fit_maps["strain"], r.fit_maps["distance_m"]
    assert strain.shape == (len(pos),) and dist.shape == (len(pos),)
    assert strain.max() == pytest.approx(rep["fit_maps"]["strain"]["max"])
    # Seam pairs join vertices of the mesh; the report's seam gap is their largest distance.
    pairs = r.seam_pairs
    gap = np.linalg.norm(pos[pairs[:, 0]] - pos[pairs[:, 1]], axis=1).max()
    assert gap == pytest.approx(rep["quality"]["seam_gap_max_m"], rel=1e-9)


def test_paths_work_in_place_of_objects_and_options_reach_the_drape(tryon_module):
    r = tryon_module.drape(str(PATTERN), avatar=BODY, material="denim", integrator="explicit_euler",
                           resolution_cm=10, max_frames=3, threads=1)
    assert r.report["material"] == "denim"
    assert r.report["simulation"]["integrator"] == "explicit_euler"
    assert r.report["simulation"]["frames"] == 3


def test_save_writes_what_check_reads(tryon_module, pattern, body, tmp_path):
    r = tryon_module.drape(pattern, avatar=body, **COARSE)
    written = r.save(tmp_path / "out")
    on_disk = json.loads((tmp_path / "out" / "report.json").read_text())
    assert on_disk["status"] == r.report["status"] == written["status"]
    assert (tmp_path / "out" / "garment.obj").is_file()
    checked = tryon_module.check(tmp_path / "out" / "garment.obj", avatar=body)
    q, rq = checked["quality"], r.report["quality"]
    for key in ("body_intersections", "vertices_inside_body", "self_intersections"):
        assert q[key] == rq[key], key
    assert q["seam_gap_max_m"] == pytest.approx(rq["seam_gap_max_m"], abs=1e-6)
    assert q["strain_max"] == pytest.approx(rq["strain_max"], abs=1e-5)
    assert checked["mesh"]["vertices"] == len(r.positions)
    assert checked["clean"] == r.clean
    r.save(tmp_path / "glb", format="glb", preview=True, fit_map="distance")
    assert (tmp_path / "glb" / "garment.glb").read_bytes()[:4] == b"glTF"
    assert (tmp_path / "glb" / "preview.png").stat().st_size > 10000
    expect_valid_gltf(tmp_path / "glb" / "garment.glb")


def expect_valid_gltf(path):
    """The Khronos glTF validator (web/validate_gltf.mjs): 0 errors, 0 warnings; skips without it."""
    web = SOURCE_DIR / "web"
    if not (web / "node_modules" / "gltf-validator").is_dir():
        pytest.skip("the glTF validator is not installed (npm ci --prefix web; scripts/setup.sh does it)")
    run = subprocess.run(["node", str(web / "validate_gltf.mjs"), str(path)], capture_output=True, text=True)
    result = json.loads(run.stdout)
    assert result["errors"] == 0 and result["warnings"] == 0, result


def test_bad_input_raises_input_error_naming_the_problem(tryon_module, pattern, body, tmp_path):
    with pytest.raises(tryon_module.InputError, match="no_such_pattern.json"):
        tryon_module.load_pattern(tmp_path / "no_such_pattern.json")
    with pytest.raises(tryon_module.InputError, match="no_such_body.obj"):
        tryon_module.load_avatar(tmp_path / "no_such_body.obj")
    with pytest.raises(tryon_module.InputError, match="unknown material 'tweed'"):
        tryon_module.drape(pattern, avatar=body, material="tweed", **COARSE)
    with pytest.raises(tryon_module.InputError, match="resolution_cm"):
        tryon_module.drape(pattern, avatar=body, resolution_cm=0.01)
    with pytest.raises(TypeError, match="unknown drape option.*colour"):
        tryon_module.drape(pattern, avatar=body, colour="red")
    with pytest.raises(TypeError, match="avatar"):
        tryon_module.drape(pattern)
    assert issubclass(tryon_module.InputError, ValueError)


def test_progress_sees_every_frame_and_false_cancels(tryon_module, pattern, body):
    frames, limits = [], []

    def record(p):
        frames.append(p["frame"])
        limits.append(p["max_frames"])

    r = tryon_module.drape(pattern, avatar=body, progress=record, **COARSE)
    # Every frame, in order, up to the limit (the limit plus the frames of a sewing done again).
    assert frames == sorted(frames) and frames[-1] == limits[-1] >= COARSE["max_frames"]
    assert limits[-1] - COARSE["max_frames"] < COARSE["max_frames"]

    seen = []

    def stop_at_5(p):
        seen.append(p["frame"])
        return p["frame"] < 5

    r = tryon_module.drape(pattern, avatar=body, progress=stop_at_5, **dict(COARSE, max_frames=200))
    assert r.report["run"]["status"] == "cancelled"
    assert "cancelled" in r.report["failures"]
    assert max(seen) == 5 and r.report["simulation"]["frames"] < 200


def test_an_exception_in_progress_stops_the_drape_and_propagates(tryon_module, pattern, body):
    def boom(p):
        if p["frame"] == 3:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        tryon_module.drape(pattern, avatar=body, progress=boom, **dict(COARSE, max_frames=200))


def test_the_gil_is_released_while_draping(tryon_module, pattern, body):
    started, result = threading.Event(), {}

    def on_frame(p):
        started.set()

    def work():
        result["r"] = tryon_module.drape(pattern, avatar=body, progress=on_frame, **dict(COARSE, max_frames=60))

    t = threading.Thread(target=work)
    t.start()
    assert started.wait(60)
    spins = 0
    while t.is_alive():  # Python keeps running here only if the drape does not hold the GIL
        spins += 1
    t.join()
    assert result["r"].report["simulation"]["frames"] == 60
    assert spins > 10000


def test_ctrl_c_cancels_the_drape_and_raises_keyboard_interrupt(tmp_path):
    script = textwrap.dedent("""
        import signal, sys, time
        import tryon
        signal.signal(signal.SIGINT, signal.default_int_handler)
        tryon.set_log_level("error")
        frames = []
        def progress(p):
            if not frames:
                print("started", flush=True)
            frames.append(p["frame"])
        t0 = time.monotonic()
        try:
            tryon.drape(sys.argv[1], avatar=sys.argv[2], resolution_cm=3, max_frames=100000, progress=progress)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted at frame %d after %.2f s" % (frames[-1], time.monotonic() - t0), flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script, str(PATTERN), str(BODY)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(0.5)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        stopped_in = time.monotonic() - sent
    finally:
        p.kill()
    assert p.returncode == 0, err
    assert out.startswith("interrupted at frame"), out + err
    assert stopped_in < 30  # the next frame, not the 100000th


def test_version_threads_and_materials(tryon_module):
    assert tryon_module.__version__.count(".") == 2
    names = tryon_module.materials()
    assert "cotton_jersey" in names and "denim" in names
    presets = json.loads(open(tryon_module.materials_file()).read())
    assert list(presets["materials"]) == names
    assert os.path.isfile(tryon_module.materials_file())
    tryon_module.set_threads(1)
    tryon_module.set_threads(0)
    with pytest.raises(tryon_module.InputError):
        tryon_module.set_threads(-1)
    with pytest.raises(tryon_module.InputError):
        tryon_module.set_log_level("loud")


def test_animate_follows_a_mesh_sequence_and_saves_its_motion(tryon_module, pattern, tmp_path):
    # Three frames of the bundled body, the last two moved 2 cm and 4 cm along x (a list file
    # naming shifted copies): the garment goes along, and save() writes the motion.
    lines = [v for v in BODY.read_text().splitlines() if v.startswith("v ")]
    faces = [f for f in BODY.read_text().splitlines() if f.startswith("f ")]
    names = []
    for k in range(3):
        moved = ["v %.9f %s" % (float(v.split()[1]) + 0.02 * k, " ".join(v.split()[2:4])) for v in lines]
        path = tmp_path / ("frame_%d.obj" % k)
        path.write_text("\n".join(moved + faces) + "\n")
        names.append(path.name)
    (tmp_path / "walk.txt").write_text("\n".join(names) + "\n")
    motion = tryon_module.load_motion(tmp_path / "walk.txt", fps=30)
    assert motion.frames == 3 and motion.fps == 30
    assert np.allclose(motion.vertices(2) - motion.vertices(0), [0.04, 0, 0])
    a = tryon_module.animate(pattern, motion, resolution_cm=4, threads=2)
    assert a.frames == 3
    assert a.report["motion"]["frames_written"] == 3
    moved = a.positions(2).mean(axis=0) - a.positions(0).mean(axis=0)
    assert abs(moved[0] - 0.04) < 0.01, moved
    report = a.save(tmp_path / "out", with_body=True)
    assert (tmp_path / "out" / "garment.glb").exists()
    assert report["frames"][0]["frame"] == 0
    # The body's motion in the GLB (morph targets) reads back as the motion it was.
    back = tryon_module.load_motion(tmp_path / "out" / "garment.glb", fps=30)
    assert back.frames == 3
    assert np.allclose(back.vertices(2) - back.vertices(0), [0.04, 0, 0], atol=1e-6)
    with pytest.raises(tryon_module.InputError):
        tryon_module.load_motion(tmp_path / "walk.txt", first=2, last=5)
    with pytest.raises(tryon_module.InputError, match="one motion"):
        tryon_module.load_motion(tmp_path / "walk.txt", animation=1)
