# `cmake --install`: headers (include/tryon/<folder>/<header>.hpp, matching the libraries'
# INSTALL_INTERFACE include/tryon), the static libraries, the tryon program, the material presets
# (share/tryon/materials.json, found at run time by tryon/materials.cpp) and a CMake package:
# find_package(tryon) gives tryon::tryon (everything) and tryon::<folder> (one library).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TRYON_COMPONENT_LIBS core collision garments avatars cloth quality outputs pipeline api)

# Every library in one target for users: tryon::tryon.
add_library(tryon_all INTERFACE)
add_library(tryon::tryon ALIAS tryon_all)
foreach(lib ${TRYON_COMPONENT_LIBS})
  target_link_libraries(tryon_all INTERFACE tryon::${lib})
  # Exported as tryon::<lib>, the same name as the alias used inside the build.
  set_target_properties(tryon_${lib} PROPERTIES EXPORT_NAME ${lib})
endforeach()
set_target_properties(tryon_all PROPERTIES EXPORT_NAME tryon)
set_target_properties(tryon_warnings PROPERTIES EXPORT_NAME warnings)
target_compile_features(tryon_all INTERFACE cxx_std_20)

set(TRYON_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tryon)
set(_tryon_lib_targets)
foreach(lib ${TRYON_COMPONENT_LIBS})
  list(APPEND _tryon_lib_targets tryon_${lib})
endforeach()

# Headers: each library's folder (pipeline and api both live in tryon/), but for the avatars'
# Assimp helpers, internal to avatars/ (they include Assimp's headers).
foreach(dir core collision garments avatars cloth quality outputs tryon)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tryon/${dir}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "scene_animation.hpp" EXCLUDE)
endforeach()

# tryon_warnings is linked PRIVATE (LINK_ONLY, no effect on users) but static libraries still name it.
install(TARGETS ${_tryon_lib_targets} tryon_all tryon_warnings EXPORT tryonTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tryon)
install(TARGETS tryon RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/cloth/materials.json DESTINATION ${CMAKE_INSTALL_DATADIR}/tryon)
install(EXPORT tryonTargets NAMESPACE tryon:: DESTINATION ${TRYON_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tryonConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tryonConfig.cmake INSTALL_DESTINATION ${TRYON_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tryonConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tryonConfig.cmake ${PROJECT_BINARY_DIR}/tryonConfigVersion.cmake
        DESTINATION ${TRYON_CMAKE_DIR})
