"""tryon: drape sewing patterns on body meshes.

    import tryon
    shirt = tryon.load_pattern("shirt_specification.json")   # or a DXF-AAMA / ASTM file
    body = tryon.load_avatar("body.obj")                       # or tryon.Avatar.from_arrays(V, F)
    result = tryon.drape(shirt, avatar=body, resolution_cm=2, material="denim", threads=2)
    result.positions      # (V, 3) float64 numpy array, metres
    result.triangles      # (F, 3) int32 numpy array
    result.report         # dict with report.json's schema
    result.save("out/")   # garment.obj + report.json
    tryon.check("out/garment.obj", avatar=body)

The simulation runs without the GIL; Ctrl-C stops it at the next frame and raises
KeyboardInterrupt. Bad input raises tryon.InputError (a ValueError) naming the file and problem.
tryon.set_log_level("warning") (or logging.WARNING) quietens the log on stderr.
`python3 -m tryon.dask MANIFEST -o OUTDIR` drapes a batch manifest on a Dask cluster.
"""
import inspect as _inspect
import os as _os
import warnings as _warnings
from typing import TypedDict as _TypedDict

# OpenMP threads that spin long while waiting starve the working ones on a busy machine, and
# threads that never spin sleep between every two parallel regions: a short spin, as the tryon
# program sets (see apps/main.cpp), unless a policy is set; libgomp reads it once, when the
# extension loads it.
if "OMP_WAIT_POLICY" not in _os.environ:
    _os.environ.setdefault("GOMP_SPINCOUNT", "10000")

from ._tryon import (  # noqa: E402
    Animation,
    Avatar,
    DrapeResult,
    Motion,
    InputError,
    Pattern,
    __version__,
    get_log_level,
    load_motion,
    materials,
    materials_file,
    set_log_level,
    set_threads,
)
from . import _tryon  # noqa: E402

__all__ = ["DRAPE_OPTIONS", "Animation", "Avatar", "DrapeProgress", "DrapeResult", "InputError", "Motion", "Pattern",
           "__version__", "animate", "check", "drape", "get_log_level", "load_avatar", "load_motion", "load_pattern",
           "materials", "materials_file", "set_log_level", "set_threads"]

#: Keyword options of drape() and their defaults (tryon::DrapeOptions, plus threads and progress).
#: __init__.pyi declares the same with their types.
DRAPE_OPTIONS = {
    "resolution_cm": 1.0,     # target triangle edge length
    "material": "cotton_jersey",  # preset name (tryon.materials()) or a JSON file
    "integrator": "implicit_euler",  # or explicit_euler
    "threads": 0,             # 0: all cores
    "max_frames": 1200,       # frames of 1/60 s, sewing included
    "time_limit_s": 0.0,      # wall-clock limit (0: none)
    "self_collision": True,
    "seams": "sew",           # or merge
    "coarse_start_cm": 3.0,   # sew and drape at 3 cm first when at least 1.5x finer (0: off)
    "progress": None,         # f(DrapeProgress) once a frame; returning False stops the drape
}


class DrapeProgress(_TypedDict):
    """What drape()'s progress function is given once a frame."""
    frame: int
    max_frames: int
    moving_fraction: float  # share of the cloth's vertices still moving
    phase: str              # "sewing", "untangle", "drape"; "coarse sewing"... during a coarse start
    elapsed_s: float


def load_pattern(path, *, size=None, seam_file=None, avatar=None):
    """Reads a pattern as `tryon drape` does -> Pattern.

    GarmentCode specification.json (or a 2021 template), or a DXF-AAMA / ASTM D6673 file (chosen
    by content, else by the .dxf extension). A DXF's pieces are cut in `size` (default: the
    file's sample size), sewn by `seam_file` (default: NAME.seams.json beside the file, else the
    seam matcher's proposal) and arranged around `avatar` (an Avatar or a body file; default: a
    1.72 m body of average proportions). Raises InputError for an unreadable file or a pattern
    that cannot be sewn, and for size / seam_file given with a GarmentCode file.
    """
    return _tryon.load_pattern(_os.fspath(path), size=size or "",
                               seam_file=_os.fspath(seam_file) if seam_file else "",
                               avatar=None if avatar is None else _as_avatar(avatar))


def load_avatar(path, up="auto", *, facing="auto", metres_per_unit=None):
    """Reads a body mesh (OBJ, PLY, STL, glTF/GLB, FBX, COLLADA) -> Avatar (metres, Y up, facing +Z,
    feet at 0).

    The up axis and the way the body faces are found from its shape (avatar.frame says what was
    found); up="y" or "z" gives the axis, facing="keep" keeps the file's facing. The unit is
    detected from the height (a person is 1.0-2.2 m tall) unless metres_per_unit is given.
    Avatar.from_arrays(vertices, faces) makes one from numpy arrays the same way.
    """
    return _tryon.load_avatar(_os.fspath(path), up, facing=facing, metres_per_unit=metres_per_unit)


def _as_avatar(avatar):
    if avatar is None:
        raise TypeError("avatar= is required (an Avatar or a body file path)")
    return avatar if isinstance(avatar, Avatar) else load_avatar(avatar)


def _as_pattern(pattern, avatar):
    if not isinstance(pattern, Pattern):
        return load_pattern(pattern, avatar=avatar)  # a DXF is arranged around this body
    if pattern.format == "dxf" and pattern.arranged_for != avatar.name:
        _warnings.warn("DXF pattern '%s' was arranged around %s, not around '%s': load it with "
                       "tryon.load_pattern(path, avatar=body)"
                       % (pattern.name, "'%s'" % pattern.arranged_for if pattern.arranged_for else "a 1.72 m body",
                          avatar.name), stacklevel=3)
    return pattern


def drape(pattern, avatar=None, **options):
    """Sews and drapes `pattern` on `avatar` -> DrapeResult.

    pattern: a Pattern or a pattern file (a DXF file is arranged around the avatar); avatar: an
    Avatar or a body file. Keyword options (DRAPE_OPTIONS holds the defaults):
      resolution_cm=1.0        target triangle edge length (0.2-50)
      material="cotton_jersey" a preset name (tryon.materials()) or a JSON file ("file.json#name")
      integrator="implicit_euler" or "explicit_euler"
      threads=0                threads (0: all cores)
      max_frames=1200          frames of 1/60 s, sewing included
      time_limit_s=0.0         wall-clock limit (0: none)
      self_collision=True
      seams="sew"              "sew" (pulled shut around the body) or "merge" (joined at once)
      coarse_start_cm=3.0      sew and drape at this resolution first when at least 1.5x finer (0: off)
      progress=None            f(DrapeProgress) called once a frame; returning False stops the drape
    The GIL is released while it runs; Ctrl-C stops it at the next frame and raises
    KeyboardInterrupt. Raises InputError for bad input, TypeError for an unknown option.
    """
    unknown = sorted(set(options) - set(DRAPE_OPTIONS))
    if unknown:
        raise TypeError("unknown drape option(s) %s; known: %s" % (", ".join(unknown), ", ".join(DRAPE_OPTIONS)))
    body = _as_avatar(avatar)
    return _tryon.drape(_as_pattern(pattern, body), body, **options)


# help() and inspect show drape()'s real keyword options (the function takes **options so that an
# unknown one is named in the error with the known ones).
drape.__signature__ = _inspect.Signature(
    [_inspect.Parameter("pattern", _inspect.Parameter.POSITIONAL_OR_KEYWORD),
     _inspect.Parameter("avatar", _inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    + [_inspect.Parameter(name, _inspect.Parameter.KEYWORD_ONLY, default=value)
       for name, value in DRAPE_OPTIONS.items()],
    return_annotation=DrapeResult)


def check(cloth_path, avatar=None, rest=None, previous=None):
    """Quality of a cloth OBJ on a body (Avatar or path), as `tryon check` prints it -> dict.

    rest: an OBJ with the cloth's vertices whose vt / l give the rest coordinates and seams;
    previous: the cloth 1/60 s earlier (for moving_fraction).
    """
    return _tryon.check(_os.fspath(cloth_path), _as_avatar(avatar),
                        rest=_os.fspath(rest) if rest else "", previous=_os.fspath(previous) if previous else "")


def animate(pattern, motion, *, resolution_cm=1.0, material="cotton_jersey", threads=0, time_limit_s=0.0,
            max_step_travel_mm=1.0):
    """Drapes `pattern` on the first frame of `motion` and follows it -> Animation.

    pattern: a Pattern or a GarmentCode file; motion: a Motion (load_motion) or what load_motion
    reads (a rigged body with an animation, a folder or list of meshes). The GIL is released while
    it runs; Ctrl-C stops it at the next frame with the frames followed so far.
    """
    if not isinstance(motion, Motion):
        motion = load_motion(motion)
    if not isinstance(pattern, Pattern):
        pattern = load_pattern(pattern)
    return _tryon.animate(pattern, motion, resolution_cm=resolution_cm, material=material, threads=threads,
                          time_limit_s=time_limit_s, max_step_travel_mm=max_step_travel_mm)
