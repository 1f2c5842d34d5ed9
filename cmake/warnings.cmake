# Warnings as an INTERFACE target, linked PRIVATE by every tryon target.
add_library(tryon_warnings INTERFACE)
target_compile_options(tryon_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>)

# tryon_add_library(NAME SOURCES...): one library per folder, alias tryon::NAME,
# headers included as "NAME/header.hpp" from the repository root.
function(tryon_add_library name)
  add_library(tryon_${name} ${ARGN})
  add_library(tryon::${name} ALIAS tryon_${name})
  target_include_directories(tryon_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:include/tryon>)
  target_link_libraries(tryon_${name} PRIVATE tryon_warnings)
  set_target_properties(tryon_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
