#pragma once
// The fuzz targets' bodies, shared by the libFuzzer binaries (fuzz/fuzzer.cpp, TRYON_FUZZ=ON)
// and by the regression test that replays every input a fuzzer ever found
// (tests/fuzz/test_fuzz_regressions.cpp, tests/fuzz_regressions/<target>/*). Each takes raw
// bytes, runs them through a reader the way the command line does, and returns normally when the
// input was read or refused with InputError; anything else escaping is a finding.
#include <string_view>

namespace tryon::fuzz {

/// GarmentCode JSON: parse_garmentcode, validate_pattern and, when valid, build_garment (5 cm).
void garmentcode(std::string_view bytes);

/// A body as OBJ: byte 0 picks the up axis (bit 0: Z up) and a given unit (bit 1; bit 2: cm,
/// else m); the rest is the file, through read_obj_mesh and make_avatar.
void body_obj(std::string_view bytes);

/// DXF-AAMA / ASTM D6673 text through what `tryon inspect` and `tryon drape` do with a DXF that
/// has no seam file: parse_dxf, cut_pieces (sample size), propose_seams, to_pattern, arrange for
/// a 1.72 m body, validate_pattern and, when valid, build_garment (5 cm).
void dxf(std::string_view bytes);

/// A BVH motion-capture clip: parse_bvh, then the forward kinematics of its rest pose, its first
/// and last frames and the pose halfway through (interpolated).
void bvh(std::string_view bytes);

/// Silences the logger (odd inputs log warnings, and logging slows fuzzing down).
void quiet();

}  // namespace tryon::fuzz
