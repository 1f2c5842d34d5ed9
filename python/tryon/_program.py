"""The `tryon` program beside this package, and the `tryon` command a pip install adds.

Where the program is, in the order find() tries:
  1. the one bundled in the package, tryon/bin/tryon (a `pip install .`);
  2. the build folder's, <build>/apps/tryon, when the package is <build>/python/tryon
     (PYTHONPATH=<build>/python);
  3. the installed prefix's, <prefix>/bin/tryon, when the package is below <prefix>
     (`cmake --install`: <prefix>/lib/python3/dist-packages/tryon);
  4. PATH.
"""
import os
import shutil
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _executable(path):
    return path.is_file() and os.access(path, os.X_OK)


def bundled():
    """The program a pip install puts inside the package (tryon/bin/tryon), or None."""
    candidate = _PACKAGE / "bin" / "tryon"
    return str(candidate) if _executable(candidate) else None


def beside_package():
    """The program of the tree this package is part of: bundled, build folder or installed prefix."""
    found = bundled()
    if found:
        return found
    build = _PACKAGE.parent.parent  # <build>/python/tryon -> <build>
    if (build / "CMakeCache.txt").is_file() and _executable(build / "apps" / "tryon"):
        return str(build / "apps" / "tryon")
    for parent in list(_PACKAGE.parents)[:4]:  # <prefix>/lib/python3/dist-packages -> <prefix>
        candidate = parent / "bin" / "tryon"
        if _executable(candidate):
            return str(candidate)
    return None


def find():
    """beside_package(), else PATH, else None."""
    return beside_package() or shutil.which("tryon")


def main():
    """The `tryon` command: runs the bundled program with this command's arguments."""
    program = bundled()
    if not program:
        print("tryon: this tryon package has no bundled program (%s/bin/tryon); it is installed "
              "with `pip install` only" % _PACKAGE, file=sys.stderr)
        return 127
    # A full path as argv[0]: the program finds its material presets relative to it.
    os.execv(program, [program] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
