# The Python module's prerequisites (python/ is added when TRYON_BUILD_PYTHON is on).
# Debian's python3-pybind11, numpy, pytest and distributed are packages of /usr/bin/python3:
# prefer it to another python3 first on PATH (pyenv...).
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
find_package(pybind11 CONFIG QUIET)
option(TRYON_BUILD_PYTHON "Build the Python module (needs pybind11)" ${pybind11_FOUND})

# Where `cmake --install` puts the package folder tryon/, under the prefix.
include(GNUInstallDirs)
if(EXISTS /usr/lib/python3/dist-packages)
  set(_tryon_py_dir lib/python3/dist-packages)  # Debian's layout
else()
  set(_tryon_py_dir ${CMAKE_INSTALL_LIBDIR}/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/site-packages)
endif()
set(TRYON_PYTHON_INSTALL_DIR ${_tryon_py_dir} CACHE STRING "Python package folder under the install prefix")
