// libFuzzer entry point, built once per target with TRYON_FUZZ_TARGET naming its body in
// targets.cpp (see fuzz/CMakeLists.txt):
//   garmentcode_fuzzer: GarmentCode JSON through what `tryon inspect` / `drape` do before simulating;
//   body_obj_fuzzer:    a body as OBJ text through the path `--avatar body.obj` takes;
//   dxf_fuzzer:         DXF-AAMA / ASTM D6673 text through the same, for a DXF pattern;
//   bvh_fuzzer:         a BVH clip through the reader and the forward kinematics `animate` uses.
#include <cstddef>
#include <cstdint>

#include "fuzz/targets.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tryon::fuzz::quiet();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tryon::fuzz::TRYON_FUZZ_TARGET({reinterpret_cast<const char*>(data), size});
  return 0;
}
