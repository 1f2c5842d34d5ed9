# Type stub of the tryon package (__init__.py; the classes are the extension's, _tryon.pyi).
# drape()'s keyword options and defaults are DRAPE_OPTIONS' (python/tests checks they agree).
import os
import pathlib
from typing import Any, Callable, Literal, Optional, TypedDict, Union

from ._tryon import (
    Animation as Animation,
    Avatar as Avatar,
    DrapeResult as DrapeResult,
    Motion as Motion,
    InputError as InputError,
    Pattern as Pattern,
    __version__ as __version__,
    get_log_level as get_log_level,
    load_motion as load_motion,
    materials as materials,
    materials_file as materials_file,
    set_threads as set_threads,
)

StrPath = Union[str, os.PathLike[str]]
LogLevel = Union[Literal["trace", "debug", "info", "warning", "warn", "error", "critical", "off"], str, int]

__all__: list[str]

DRAPE_OPTIONS: dict[str, Any]

class DrapeProgress(TypedDict):
    """What drape()'s progress function is given once a frame."""
    frame: int
    max_frames: int
    moving_fraction: float
    phase: str
    elapsed_s: float

def load_pattern(path: StrPath, *, size: Optional[str] = None, seam_file: Optional[StrPath] = None,
                 avatar: Union[Avatar, StrPath, None] = None) -> Pattern:
    """Reads a GarmentCode JSON or DXF pattern as `tryon drape` does (DXF: size, seam file, arranged around avatar)."""

def load_avatar(path: StrPath, up: Literal["auto", "y", "z"] = "auto", *, facing: Literal["auto", "keep"] = "auto",
                metres_per_unit: Optional[float] = None) -> Avatar:
    """Reads a body mesh (OBJ, PLY, STL, glTF/GLB, FBX, COLLADA) into metres, Y up, facing +Z, feet at y = 0."""

def drape(pattern: Union[Pattern, StrPath], avatar: Union[Avatar, StrPath], *,
          resolution_cm: float = 1.0,
          material: Union[str, StrPath] = "cotton_jersey",
          integrator: Literal["implicit_euler", "explicit_euler"] = "implicit_euler",
          threads: int = 0,
          max_frames: int = 1200,
          time_limit_s: float = 0.0,
          self_collision: bool = True,
          seams: Literal["sew", "merge"] = "sew",
          coarse_start_cm: float = 3.0,
          progress: Optional[Callable[[DrapeProgress], Optional[bool]]] = None) -> DrapeResult:
    """Sews and drapes `pattern` on `avatar` (the GIL is released while it runs)."""

def check(cloth_path: StrPath, avatar: Union[Avatar, StrPath], rest: Optional[StrPath] = None,
          previous: Optional[StrPath] = None) -> dict[str, Any]:
    """Quality of a cloth OBJ on a body, as `tryon check` prints it."""

def set_log_level(level: LogLevel) -> None:
    """'trace', 'debug', 'info', 'warning', 'error', 'critical', 'off' (any case) or a logging level number."""

def animate(pattern: Union[Pattern, StrPath], motion: Union[Motion, StrPath], *, resolution_cm: float = 1.0,
            material: str = "cotton_jersey", threads: int = 0, time_limit_s: float = 0.0,
            max_step_travel_mm: float = 1.0) -> Animation:
    """Drapes a pattern on the first frame of a motion and follows it."""
