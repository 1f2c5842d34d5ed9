# Instrumented builds, each in its own build folder (scripts/sanitize.sh, scripts/fuzz.sh).
#
# TRYON_SANITIZE=ON: every target (libraries, apps, tests) with AddressSanitizer and
#   UndefinedBehaviorSanitizer; any undefined behaviour aborts (no recovery), so ctest fails on it.
# TRYON_FUZZ=ON (clang only): every library with libFuzzer's coverage instrumentation plus ASan and
#   UBSan, and the fuzz targets in fuzz/ (each its own libFuzzer binary).
option(TRYON_SANITIZE "Build everything with -fsanitize=address,undefined" OFF)
option(TRYON_FUZZ "Build the libFuzzer fuzz targets in fuzz/ (needs clang)" OFF)

set(TRYON_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
if(TRYON_SANITIZE OR TRYON_FUZZ)
  add_compile_options(${TRYON_SANITIZER_FLAGS})
  add_link_options(-fsanitize=address,undefined)
endif()
if(TRYON_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TRYON_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  # Coverage for the libraries; the fuzz targets themselves link with -fsanitize=fuzzer (fuzz/CMakeLists.txt).
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
