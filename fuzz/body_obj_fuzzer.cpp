// libFuzzer target: a body as OBJ text through the path `--avatar body.obj` takes
// (fuzz::body_obj in targets.cpp).
#include <cstddef>
#include <cstdint>

#include "fuzz/targets.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tryon::fuzz::quiet();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tryon::fuzz::body_obj({reinterpret_cast<const char*>(data), size});
  return 0;
}
