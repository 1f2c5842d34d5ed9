// libFuzzer target: DXF-AAMA / ASTM D6673 text through what `tryon inspect` and `tryon drape`
// do before the simulation (fuzz::dxf in targets.cpp).
#include <cstddef>
#include <cstdint>

#include "fuzz/targets.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tryon::fuzz::quiet();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tryon::fuzz::dxf({reinterpret_cast<const char*>(data), size});
  return 0;
}
