"""Shared fixtures: the bundled sample (assets/) and coarse drape options that keep tests quick."""
import os
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("TRYON_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PATTERN = SOURCE_DIR / "assets" / "patterns" / "shirt_mean_specification.json"
BODY = SOURCE_DIR / "assets" / "bodies" / "mean_all.obj"
# Coarse and short: a few tenths of a second per drape.
COARSE = {"resolution_cm": 8, "max_frames": 20, "threads": 2}


@pytest.fixture(scope="session")
def tryon_module():
    import tryon
    tryon.set_log_level("warn")
    return tryon


@pytest.fixture(scope="session")
def pattern(tryon_module):
    return tryon_module.load_pattern(PATTERN)


@pytest.fixture(scope="session")
def body(tryon_module):
    return tryon_module.load_avatar(BODY)
