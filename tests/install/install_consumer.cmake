# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P install_consumer.cmake
# Installs the build into WORK_DIR/prefix, builds examples/consumer against it with
# find_package(tryon), and runs the consumer and the installed program on the sample.
cmake_minimum_required(VERSION 3.25)
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_consumer.cmake needs -D${v}=...")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
set(out ${WORK_DIR}/out)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(pattern ${SOURCE_DIR}/assets/patterns/shirt_mean_specification.json)
set(body ${SOURCE_DIR}/assets/bodies/mean_all.obj)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  set(run_code ${code} PARENT_SCOPE)
  set(run_out "${stdout}" PARENT_SCOPE)
  set(run_err "${stderr}" PARENT_SCOPE)
  message(STATUS "${what}: exit ${code}")
endfunction()

function(expect condition message_text)
  if(NOT ${condition})
    message(FATAL_ERROR "${message_text}\nstdout:\n${run_out}\nstderr:\n${run_err}")
  endif()
endfunction()

# 1. Install.
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
if(NOT run_code EQUAL 0)
  message(FATAL_ERROR "cmake --install failed:\n${run_out}\n${run_err}")
endif()
foreach(f include/tryon/tryon/tryon.hpp include/tryon/core/types.hpp share/tryon/materials.json bin/tryon
          lib/cmake/tryon/tryonConfig.cmake lib/cmake/tryon/tryonConfigVersion.cmake lib/cmake/tryon/tryonTargets.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()

# 2. Configure and build the consumer against the installed package only.
string(TIMESTAMP t0 "%s")
set(compiler_arg)
if(CMAKE_CXX_COMPILER)
  set(compiler_arg -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
endif()
run("configure consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer -B ${consumer_build}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release ${compiler_arg})
if(NOT run_code EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed:\n${run_out}\n${run_err}")
endif()
# It must have used the installed package, not the build tree.
file(STRINGS ${consumer_build}/CMakeCache.txt tryon_dir REGEX "^tryon_DIR:")
if(NOT tryon_dir MATCHES "${prefix}/lib/cmake/tryon")
  message(FATAL_ERROR "the consumer found tryon at '${tryon_dir}', not in ${prefix}")
endif()
run("build consumer" ${CMAKE_COMMAND} --build ${consumer_build})
if(NOT run_code EQUAL 0)
  message(FATAL_ERROR "building the consumer failed:\n${run_out}\n${run_err}")
endif()
string(TIMESTAMP t1 "%s")
math(EXPR seconds "${t1} - ${t0}")
message(STATUS "consumer configured and built in ${seconds} s")

# 3. Run it on the sample, coarsely: it finishes (clean or not) and saves the report.
run("consumer" ${consumer_build}/tryon_consumer ${pattern} ${body} ${out}/consumer 8 20)
message(STATUS "${run_out}")
if(NOT (run_code EQUAL 0 OR run_code EQUAL 1))
  message(FATAL_ERROR "tryon_consumer failed (exit ${run_code}):\n${run_out}\n${run_err}")
endif()
string(REGEX MATCH "status (ok|failed), ([0-9]+) frames seen by the callback, of ([0-9]+)" m "${run_out}")
expect(m "the consumer did not print a status")
expect(CMAKE_MATCH_2 "the progress callback never ran")
# The progress's limit is the drape's 20 frames plus those of a sewing done again and not kept
# (at most the sewing's half of the limit).
if(CMAKE_MATCH_2 GREATER CMAKE_MATCH_3 OR CMAKE_MATCH_3 LESS 20 OR CMAKE_MATCH_3 GREATER 30)
  message(FATAL_ERROR "the callback saw frame ${CMAKE_MATCH_2} of ${CMAKE_MATCH_3} in a 20-frame drape")
endif()
if(NOT EXISTS ${out}/consumer/report.json OR NOT EXISTS ${out}/consumer/garment.obj)
  message(FATAL_ERROR "the consumer did not save report.json and garment.obj in ${out}/consumer")
endif()
file(READ ${out}/consumer/report.json report)
string(JSON status GET "${report}" status)
string(REGEX MATCH "status ([a-z]+)" m "${run_out}")
if(NOT status STREQUAL CMAKE_MATCH_1)
  message(FATAL_ERROR "report.json says '${status}', the consumer printed '${CMAKE_MATCH_1}'")
endif()
string(JSON material GET "${report}" material)
if(NOT material STREQUAL "cotton_jersey")
  message(FATAL_ERROR "report.json's material is '${material}', not the default cotton_jersey")
endif()

# 4. The installed program finds its material presets in the prefix (not the source tree).
run("installed tryon" ${prefix}/bin/tryon -v drape ${pattern} --avatar ${body} -o ${out}/cli --material denim
    --resolution-cm 10 --max-frames 2)
if(NOT (run_code EQUAL 0 OR run_code EQUAL 1))
  message(FATAL_ERROR "the installed tryon failed (exit ${run_code}):\n${run_out}\n${run_err}")
endif()
string(FIND "${run_err}" "material presets: ${prefix}/share/tryon/materials.json" at)
if(at LESS 0)
  message(FATAL_ERROR "the installed tryon did not use ${prefix}/share/tryon/materials.json:\n${run_err}")
endif()

# 5. The installed Python package (when the module is built) imports from the prefix alone and
#    finds the presets there too.
if(PYTHON_EXECUTABLE AND PYTHON_INSTALL_DIR)
  set(package ${prefix}/${PYTHON_INSTALL_DIR})
  if(NOT EXISTS ${package}/tryon/__init__.py)
    message(FATAL_ERROR "the Python package is not installed in ${package}/tryon")
  endif()
  run("installed python module" ${CMAKE_COMMAND} -E env --unset=TRYON_MATERIALS_JSON PYTHONPATH=${package}
      ${PYTHON_EXECUTABLE} -c "import tryon\nprint(tryon.__file__)\nprint(tryon.materials_file())")  # no ";": run() takes a list
  if(NOT run_code EQUAL 0)
    message(FATAL_ERROR "importing the installed tryon package failed:\n${run_out}\n${run_err}")
  endif()
  string(FIND "${run_out}" "${package}/tryon/__init__.py" at_init)
  string(FIND "${run_out}" "${prefix}/share/tryon/materials.json" at_materials)
  if(at_init LESS 0 OR at_materials LESS 0)
    message(FATAL_ERROR "the installed package did not load from ${package} with the prefix's presets:\n${run_out}")
  endif()
endif()
message(STATUS "install + consumer: passed")
