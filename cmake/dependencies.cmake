# Every external dependency of tryon, found through find_package (Debian packages).
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(assimp REQUIRED)
find_package(spdlog REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(PNG REQUIRED)
find_package(Freetype REQUIRED)  # preview text (outputs/font)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)  # tryon view's local server
if(TRYON_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
