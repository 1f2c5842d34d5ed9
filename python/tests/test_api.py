"""The package's surface: reprs, log levels by name or logging number, bodies from numpy arrays,
DXF patterns, docstrings, and the type stubs (__init__.pyi, _tryon.pyi) against the runtime."""
import ast
import inspect
import logging
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import BODY, COARSE, PATTERN, SOURCE_DIR

SKIRT = SOURCE_DIR / "assets" / "patterns" / "skirt_2_panels.json"
ONE_PIECE_DXF = SOURCE_DIR / "tests" / "hostile" / "patterns" / "valid_one_piece.dxf"
SHARED_TANK = SOURCE_DIR.parent / "shared" / "data" / "patterns" / "dxf" / "WM_SLIM_TANK.DXF"


# ---- reprs ----------------------------------------------------------------------------------

def test_reprs_name_what_they_hold(tryon_module, pattern, body):
    assert repr(pattern) == "<tryon.Pattern '%s' (garmentcode): %d panels, %d stitches>" % (
        PATTERN.stem, pattern.num_panels, pattern.num_stitches)
    assert repr(body) == "<tryon.Avatar 'mean_all': %d vertices, %d triangles, %.3f m tall>" % (
        len(body.vertices), len(body.triangles), body.height_m)
    r = tryon_module.drape(pattern, avatar=body, **COARSE)
    rep = r.report
    verdict = "clean" if r.clean else "NOT clean (%s)" % ", ".join(rep["failures"])
    assert repr(r) == "<tryon.DrapeResult '%s' on 'mean_all': %s, %d vertices, %d frames, %.1f s>" % (
        PATTERN.stem, verdict, len(r.positions), rep["simulation"]["frames"], rep["timings_s"]["total"])
    assert r.name == PATTERN.stem and r.avatar is body


# ---- log levels -----------------------------------------------------------------------------

@pytest.fixture
def restore_log_level(tryon_module):
    before = tryon_module.get_log_level()
    yield
    tryon_module.set_log_level(before)


@pytest.mark.parametrize("given, level", [
    ("debug", "debug"), ("info", "info"), ("warning", "warning"), ("warn", "warning"), ("error", "error"),
    ("critical", "critical"), ("off", "off"), ("trace", "trace"), ("WARNING", "warning"), ("Info", "info"),
    (logging.DEBUG, "debug"), (logging.INFO, "info"), (logging.WARNING, "warning"), (logging.ERROR, "error"),
    (logging.CRITICAL, "critical"), (logging.NOTSET, "trace"), (15, "info"), (100, "off")])
def test_log_levels_by_python_names_and_logging_numbers(tryon_module, restore_log_level, given, level):
    tryon_module.set_log_level(given)
    assert tryon_module.get_log_level() == level


def test_unknown_log_levels_are_refused(tryon_module, restore_log_level):
    for bad in ("loud", "", "warnings"):
        with pytest.raises(ValueError, match="log level must be"):
            tryon_module.set_log_level(bad)
    for bad in (None, 2.5, True):
        with pytest.raises(TypeError):
            tryon_module.set_log_level(bad)


def test_the_log_level_decides_what_reaches_stderr(tryon_module, restore_log_level, capfd):
    capfd.readouterr()
    tryon_module.set_log_level(logging.INFO)
    tryon_module.load_avatar(BODY)
    assert "[info] body mean_all" in capfd.readouterr().err
    tryon_module.set_log_level("warning")
    tryon_module.load_avatar(BODY)
    assert capfd.readouterr().err == ""


# ---- bodies from arrays -----------------------------------------------------------------------

def test_avatar_from_arrays_is_normalised_as_a_loaded_body(tryon_module, body):
    v, f = body.vertices, body.triangles
    in_cm = tryon_module.Avatar.from_arrays(v * 100 + [3.0, 50.0, 0.0], f.astype(np.int64), name="scan")
    assert in_cm.name == "scan" and in_cm.unit == "cm" and in_cm.metres_per_unit == pytest.approx(0.01)
    assert in_cm.height_m == pytest.approx(body.height_m, rel=1e-9)
    assert in_cm.vertices[:, 1].min() == pytest.approx(0.0, abs=1e-12)  # feet moved to y = 0
    np.testing.assert_allclose(in_cm.vertices[:, [0, 2]], v[:, [0, 2]] + [0.03, 0.0], atol=1e-9)
    np.testing.assert_array_equal(in_cm.triangles, f)

    z_up = np.column_stack([v[:, 0], -v[:, 2], v[:, 1]])  # the body turned Z-up
    turned = tryon_module.Avatar.from_arrays(z_up, f.astype(np.uint32), up="z")
    np.testing.assert_allclose(turned.vertices, v, atol=1e-12)
    given = tryon_module.Avatar.from_arrays(v.tolist(), f.tolist(), metres_per_unit=1.0)
    assert given.unit == "m" and given.name == "body"
    # Found from the shape: Z up and facing +x (a quarter turn about the up axis) come back.
    z_up_facing_x = np.column_stack([v[:, 2], v[:, 0], v[:, 1]])
    found = tryon_module.Avatar.from_arrays(z_up_facing_x, f)
    np.testing.assert_allclose(found.vertices, v, atol=1e-12)
    assert found.frame["up"] == "+z" and found.frame["facing"] == "+x" and found.frame["facing_detected"]
    kept = tryon_module.Avatar.from_arrays(z_up_facing_x, f, facing="keep")
    assert kept.frame["facing_detected"] is False
    with pytest.raises(tryon_module.InputError):
        tryon_module.Avatar.from_arrays(v, f, facing="north")

    r = tryon_module.drape(PATTERN, avatar=in_cm, **COARSE)
    assert r.avatar.name == "scan" and r.report["avatar"] == "scan"


def test_avatar_from_bad_arrays_says_what_is_wrong(tryon_module, body):
    v, f = body.vertices, body.triangles
    Avatar, InputError = tryon_module.Avatar, tryon_module.InputError
    with pytest.raises(InputError, match=r"vertices must have shape \(N, 3\), not \(%d, 2\)" % len(v)):
        Avatar.from_arrays(v[:, :2], f)
    with pytest.raises(TypeError, match="faces must be an array of integers, not one of dtype 'float64'"):
        Avatar.from_arrays(v, f.astype(float))
    with pytest.raises(InputError, match="face 0 uses vertex %d of %d" % (len(v), len(v))):
        Avatar.from_arrays(v, np.vstack([[0, 1, len(v)], f]))
    with pytest.raises(InputError, match="face 0 uses vertex -1"):
        Avatar.from_arrays(v, np.vstack([[0, 1, -1], f]))
    with pytest.raises(InputError, match="no faces"):
        Avatar.from_arrays(v, np.zeros((0, 3), int))
    bad = v.copy()
    bad[5, 1] = np.nan
    with pytest.raises(InputError, match="scan"):
        Avatar.from_arrays(bad, f, name="scan")
    with pytest.raises(InputError, match="not a person's size"):
        Avatar.from_arrays(v * 50, f)
    n = 11  # a flat sheet as tall as a person, 200 triangles
    sheet = np.array([[0.05 * i, 0.17 * j, 0.0] for j in range(n) for i in range(n)])
    quads = [(j * n + i, j * n + i + 1, (j + 1) * n + i, (j + 1) * n + i + 1)
             for j in range(n - 1) for i in range(n - 1)]
    sheet_faces = np.array([t for a, b, c, d in quads for t in ((a, b, d), (a, d, c))])
    with pytest.raises(InputError, match="encloses no volume|does not enclose"):
        Avatar.from_arrays(sheet, sheet_faces)
    with pytest.raises(InputError, match="up must be"):
        Avatar.from_arrays(v, f, up="x")
    with pytest.raises(TypeError, match="vertices must be an array of numbers, not one of dtype 'object'"):
        Avatar.from_arrays(object(), f)


# ---- DXF patterns -----------------------------------------------------------------------------

def test_load_pattern_reads_dxf_and_refuses_dxf_options_for_json(tryon_module, body, tmp_path):
    p = tryon_module.load_pattern(ONE_PIECE_DXF)
    assert p.format == "dxf" and p.num_panels == 1 and p.panel_names == ["FRONT"]
    assert p.arranged_for == "" and "1.72 m body" in repr(p)
    on_body = tryon_module.load_pattern(ONE_PIECE_DXF, size="M", avatar=body)
    assert on_body.arranged_for == "mean_all" and "arranged on 'mean_all'" in repr(on_body)
    with pytest.raises(tryon_module.InputError, match="size 'XXL'|XXL"):
        tryon_module.load_pattern(ONE_PIECE_DXF, size="XXL")
    with pytest.raises(tryon_module.InputError, match="no_such.seams.json"):
        tryon_module.load_pattern(ONE_PIECE_DXF, seam_file=tmp_path / "no_such.seams.json")
    with pytest.raises(tryon_module.InputError, match="not a DXF file"):
        tryon_module.load_pattern(PATTERN, size="M")
    assert tryon_module.load_pattern(PATTERN).format == "garmentcode"


@pytest.mark.skipif(not SHARED_TANK.is_file(), reason="shared data not found: %s" % SHARED_TANK)
def test_a_dxf_path_is_arranged_around_the_body_it_is_draped_on(tryon_module, body):
    tank = tryon_module.load_pattern(SHARED_TANK)
    assert tank.format == "dxf" and tank.num_stitches > 0 and tank.notes
    with pytest.warns(UserWarning, match="arranged around a 1.72 m body, not around 'mean_all'"):
        tryon_module.drape(tank, avatar=body, resolution_cm=8, max_frames=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = tryon_module.drape(SHARED_TANK, avatar=body, resolution_cm=8, max_frames=3)
        tryon_module.drape(tryon_module.load_pattern(SHARED_TANK, avatar=body), avatar=body, resolution_cm=8,
                           max_frames=3)
    assert r.report["mesh"]["panels"] == tank.num_panels


# ---- docstrings and stubs ---------------------------------------------------------------------

def test_public_names_have_docstrings(tryon_module):
    for name in tryon_module.__all__:
        obj = getattr(tryon_module, name)
        if callable(obj):
            assert (obj.__doc__ or "").strip(), name
    for cls in (tryon_module.Avatar, tryon_module.Pattern, tryon_module.DrapeResult):
        for attr, value in vars(cls).items():
            if not attr.startswith("_"):
                assert (value.__doc__ or "").strip(), "%s.%s" % (cls.__name__, attr)


def _stub(tryon_module, name):
    path = Path(tryon_module.__file__).parent / name
    return ast.parse(path.read_text(), str(path))


def _functions(tree):
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _keyword_defaults(fn):
    return {a.arg: ast.literal_eval(d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults)}


def test_the_stubs_give_drape_its_real_options(tryon_module):
    fn = _functions(_stub(tryon_module, "__init__.pyi"))["drape"]
    assert [a.arg for a in fn.args.args] == ["pattern", "avatar"]
    assert _keyword_defaults(fn) == tryon_module.DRAPE_OPTIONS
    assert list(_keyword_defaults(fn)) == list(tryon_module.DRAPE_OPTIONS)
    ext = _functions(_stub(tryon_module, "_tryon.pyi"))["drape"]
    assert _keyword_defaults(ext) == tryon_module.DRAPE_OPTIONS
    # The runtime signature (help(), inspect) shows the same options.
    sig = inspect.signature(tryon_module.drape)
    assert {n: p.default for n, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY} == tryon_module.DRAPE_OPTIONS
    # The extension's own defaults agree too (pybind11 writes them in the docstring's signature).
    doc = tryon_module._tryon.drape.__doc__
    for name, value in tryon_module.DRAPE_OPTIONS.items():
        if value is not None:
            assert "%s: %s = %r" % (name, type(value).__name__, value) in doc, name


def test_the_stubs_declare_every_public_name(tryon_module):
    init = _stub(tryon_module, "__init__.pyi")
    declared = set()
    for n in init.body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            declared.add(n.name)
        elif isinstance(n, ast.ImportFrom):
            declared.update(alias.asname or alias.name for alias in n.names)
        elif isinstance(n, ast.AnnAssign):
            declared.add(n.target.id)
    assert set(tryon_module.__all__) <= declared, set(tryon_module.__all__) - declared

    ext = _stub(tryon_module, "_tryon.pyi")
    ext_names = {n.name for n in ext.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    runtime = {n for n in dir(tryon_module._tryon) if not n.startswith("_")}
    assert ext_names == runtime
    for cls in (n for n in ext.body if isinstance(n, ast.ClassDef)):
        members = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
        public = {n for n in vars(getattr(tryon_module._tryon, cls.name)) if not n.startswith("_")}
        if cls.name != "InputError":
            assert members == public, cls.name
    # Every function's parameters match the extension's.
    for name, fn in _functions(ext).items():
        doc = getattr(tryon_module._tryon, name).__doc__.splitlines()[0]
        params = [a.arg for a in fn.args.args + fn.args.kwonlyargs]
        for p in params:
            assert "%s: " % p in doc, (name, p, doc)
