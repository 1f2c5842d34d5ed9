"""tryon: drape sewing patterns on body meshes.

    import tryon
    shirt = tryon.load_pattern("shirt_specification.json")
    body = tryon.load_avatar("body.obj")
    result = tryon.drape(shirt, avatar=body, resolution_cm=2, material="denim", threads=2)
    result.positions      # (V, 3) float64 numpy array, metres
    result.triangles      # (F, 3) int32 numpy array
    result.report         # dict with report.json's schema
    result.save("out/")   # garment.obj + report.json
    tryon.check("out/garment.obj", avatar=body)

The simulation runs without the GIL; Ctrl-C stops it at the next frame and raises
KeyboardInterrupt. Bad input raises tryon.InputError (a ValueError) naming the file and problem.
`python3 -m tryon.dask MANIFEST -o OUTDIR` drapes a batch manifest on a Dask cluster.
"""
import os as _os

# OpenMP threads that spin long while waiting starve the working ones on a busy machine, and
# threads that never spin sleep between every two parallel regions: a short spin, as the tryon
# program sets (see apps/main.cpp), unless a policy is set; libgomp reads it once, when the
# extension loads it.
if "OMP_WAIT_POLICY" not in _os.environ:
    _os.environ.setdefault("GOMP_SPINCOUNT", "10000")

from ._tryon import (  # noqa: E402
    Avatar,
    DrapeResult,
    InputError,
    Pattern,
    __version__,
    materials,
    materials_file,
    set_log_level,
    set_threads,
)
from . import _tryon  # noqa: E402

__all__ = ["Avatar", "DrapeResult", "InputError", "Pattern", "__version__", "check", "drape", "load_avatar",
           "load_pattern", "materials", "materials_file", "set_log_level", "set_threads"]

#: Keyword options of drape() and their defaults (tryon::DrapeOptions, plus threads and progress).
DRAPE_OPTIONS = {
    "resolution_cm": 1.0,     # target triangle edge length
    "material": "cotton_jersey",  # preset name (tryon.materials()) or a JSON file
    "integrator": "implicit_euler",  # or explicit_euler
    "threads": 0,             # 0: all cores
    "max_frames": 600,        # frames of 1/60 s, sewing included
    "time_limit_s": 0.0,      # wall-clock limit (0: none)
    "self_collision": True,
    "seams": "sew",           # or merge
    "coarse_start_cm": 3.0,   # sew and drape at 3 cm first when at least 1.5x finer (0: off)
    "progress": None,         # f(dict(frame, max_frames, moving_fraction, phase, elapsed_s)); False stops
}


def load_pattern(path):
    """Reads a GarmentCode specification.json (or a 2021 template) -> Pattern."""
    return _tryon.load_pattern(_os.fspath(path))


def load_avatar(path, up="y"):
    """Reads a body mesh (OBJ, PLY, STL, glTF/GLB, FBX, COLLADA) -> Avatar (metres, Y up, feet at 0)."""
    return _tryon.load_avatar(_os.fspath(path), up)


def _as_pattern(pattern):
    return pattern if isinstance(pattern, Pattern) else load_pattern(pattern)


def _as_avatar(avatar):
    if avatar is None:
        raise TypeError("avatar= is required (an Avatar or a body file path)")
    return avatar if isinstance(avatar, Avatar) else load_avatar(avatar)


def drape(pattern, avatar=None, **options):
    """Sews and drapes `pattern` (Pattern or path) on `avatar` (Avatar or path) -> DrapeResult.

    Options (see DRAPE_OPTIONS): resolution_cm, material, integrator, threads, max_frames,
    time_limit_s, self_collision, seams, coarse_start_cm, progress.
    """
    unknown = sorted(set(options) - set(DRAPE_OPTIONS))
    if unknown:
        raise TypeError("unknown drape option(s) %s; known: %s" % (", ".join(unknown), ", ".join(DRAPE_OPTIONS)))
    return _tryon.drape(_as_pattern(pattern), _as_avatar(avatar), **options)


def check(cloth_path, avatar=None, rest=None, previous=None):
    """Quality of a cloth OBJ on a body (Avatar or path), as `tryon check` prints it -> dict."""
    return _tryon.check(_os.fspath(cloth_path), _as_avatar(avatar),
                        rest=_os.fspath(rest) if rest else "", previous=_os.fspath(previous) if previous else "")
