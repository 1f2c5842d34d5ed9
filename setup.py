"""pip's way into the CMake build: `pip install --no-build-isolation .` (pyproject.toml).

setuptools (Debian's python3-setuptools) is the build backend; this file replaces its compiler
with the project's CMake build. build_ext configures and builds the targets `tryon_python` (the
extension tryon/_tryon*.so) and `tryon` (the program) with -DTRYON_BUILD_TESTS=OFF
-DTRYON_BUILD_BENCH=OFF, then puts in the package, beside the Python sources and stubs:
  tryon/_tryon<EXT_SUFFIX>              the extension
  tryon/bin/tryon                       the program (tryon.dask runs it; the `tryon` command execs it)
  tryon/share/tryon/materials.json      the material presets, found by both relative to themselves
                                        (tryon/materials.cpp: share/tryon/ above the binary)
so the installed package is whole wherever pip puts it (a venv, --prefix, --user).

Environment:
  TRYON_CMAKE_BUILD_DIR  the CMake build folder (default build-pip/cmake-<python> in the source
                         tree, kept between installs so a second one is quick). A folder already
                         configured (e.g. build/ from scripts/setup.sh) is built as it is, with its
                         own options; it must have the Python module on.
  TRYON_CMAKE_ARGS       more arguments for a fresh configure (e.g. "-DCMAKE_CXX_COMPILER=clang++").
  CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default: all cores).
setuptools' own staging folders are under the CMake build folder too (never build/, which is
scripts/setup.sh's CMake build).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    m = re.search(r"project\(\s*tryon\s+VERSION\s+([0-9][0-9.]*)", (ROOT / "CMakeLists.txt").read_text())
    if not m:
        sys.exit("setup.py: no project(tryon VERSION ...) in CMakeLists.txt")
    return m.group(1)


def cmake_build_dir():
    """(folder, given): TRYON_CMAKE_BUILD_DIR, else build-pip/cmake-<cpython-311> in the source tree."""
    given = os.environ.get("TRYON_CMAKE_BUILD_DIR")
    if given:
        return Path(given).resolve(), True
    return ROOT / "build-pip" / ("cmake-" + sys.implementation.cache_tag), False


def read_cache(build_dir):
    """CMakeCache.txt's entries {NAME: value}, or {} when the folder is not configured."""
    entries = {}
    try:
        text = (build_dir / "CMakeCache.txt").read_text()
    except OSError:
        return entries
    for line in text.splitlines():
        m = re.match(r"([A-Za-z_][A-Za-z0-9_.+-]*):[A-Z]+=(.*)$", line)
        if m:
            entries[m.group(1)] = m.group(2)
    return entries


def is_on(value):
    return value.upper() in ("1", "ON", "YES", "TRUE", "Y") if value else False


class CMakeBuild(build_ext):
    """build_ext running the CMake build and copying its products into the package."""

    def run(self):
        if self.inplace:
            raise SystemExit("tryon: editable installs (pip install -e) are not supported; use "
                             "PYTHONPATH=<build>/python with a CMake build, or pip install .")
        build_dir, given = cmake_build_dir()
        cache = read_cache(build_dir)
        if cache:
            source = cache.get("CMAKE_HOME_DIRECTORY", "")
            if source and Path(source).resolve() != ROOT:
                raise SystemExit("tryon: %s is the CMake build of %s, not of %s" % (build_dir, source, ROOT))
        if given and cache:
            if not is_on(cache.get("TRYON_BUILD_PYTHON", "")):
                raise SystemExit("tryon: %s was configured without the Python module: reconfigure it with "
                                 "-DTRYON_BUILD_PYTHON=ON (needs pybind11-dev python3-pybind11 python3-dev)"
                                 % build_dir)
            self.announce("tryon: reusing the CMake build in %s" % build_dir, level=2)
        else:
            self.configure(build_dir)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        self.spawn(["cmake", "--build", str(build_dir), "--target", "tryon_python", "tryon", "--parallel", jobs])
        self.copy_products(build_dir)

    def configure(self, build_dir):
        # The interpreter pip runs, resolved out of a venv (its headers and ABI are the base one's).
        python = os.path.realpath(sys.executable)
        args = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                "-DTRYON_BUILD_TESTS=OFF", "-DTRYON_BUILD_BENCH=OFF", "-DTRYON_BUILD_PYTHON=ON",
                "-DPython3_EXECUTABLE=" + python]
        args += shlex.split(os.environ.get("TRYON_CMAKE_ARGS", ""))
        self.spawn(args)

    def copy_products(self, build_dir):
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build_dir / "python" / "tryon" / ("_tryon" + suffix)
        if not built.is_file():
            others = sorted(p.name for p in (build_dir / "python" / "tryon").glob("_tryon*.so"))
            raise SystemExit("tryon: the build made %s, not %s for this Python (%s): was %s configured for another "
                             "interpreter?" % (", ".join(others) or "no extension", built.name, sys.executable,
                                               build_dir))
        program = build_dir / "apps" / "tryon"
        package = Path(self.build_lib) / "tryon"
        for ext in self.extensions:  # one: tryon._tryon
            target = Path(self.get_ext_fullpath(ext.name))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built, target)
        (package / "bin").mkdir(parents=True, exist_ok=True)
        shutil.copy2(program, package / "bin" / "tryon")
        (package / "share" / "tryon").mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "cloth" / "materials.json", package / "share" / "tryon" / "materials.json")


_build_dir, _ = cmake_build_dir()
_staging = _build_dir / "setuptools"
_staging.mkdir(parents=True, exist_ok=True)  # egg_info wants its folder to exist

setup(
    version=project_version(),
    ext_modules=[Extension("tryon._tryon", sources=[])],  # built by CMake (CMakeBuild)
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(_staging)}, "egg_info": {"egg_base": str(_staging)}},
)
