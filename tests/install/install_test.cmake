# Driven by ctest (see CMakeLists.txt beside this file).
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${prefix}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
if(NOT EXISTS "${prefix}/include/sgmcmc/samplers/sghmc.hpp" OR NOT EXISTS "${prefix}/include/sgmcmc/version.hpp")
  message(FATAL_ERROR "installed tree lacks headers under include/sgmcmc/")
endif()
# What the exported targets carry into a user's code (docs/api.md): no warning suppressions anywhere, no
# instruction set on the header-only core; -march=native only on the compiled libraries of the native
# tier, whose code the user's program shares.
file(GLOB exports "${prefix}/lib*/cmake/sgmcmc/sgmcmc-*-targets.cmake")
foreach(export IN LISTS exports)
  file(READ "${export}" text)
  if(text MATCHES "-Wno-")
    message(FATAL_ERROR "${export} carries a warning suppression into users' code")
  endif()
  if(export MATCHES "-(core|data)-targets" AND text MATCHES "-march")
    message(FATAL_ERROR "${export}: the header-only core carries an instruction set into users' code")
  endif()
endforeach()
# -O1: what this test catches (a header or target missing from the install, a program that does not
# build or run against it) does not depend on the level; examples/samplers.cpp compiles in 28 s
# instead of 39 at -O3 and runs in the same 2 s (at -O0 it would take 24).
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples" -B "${WORK_DIR}/build"
                        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"
                        RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring examples/ against the installed package failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building examples/ against the installed package failed (${rc})")
endif()
file(GLOB programs "${WORK_DIR}/build/example_*")
if(NOT programs)
  message(FATAL_ERROR "no example programs were built")
endif()
set(custom_cli "${WORK_DIR}/build/example_custom_cli")
list(REMOVE_ITEM programs "${custom_cli}")
foreach(p IN LISTS programs)
  execute_process(COMMAND "${p}" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${p} failed (${rc}): ${out}")
  endif()
  message(STATUS "${p}: ${out}")
endforeach()

# The user's own CLI (examples/custom_cli): a user manifold (oblique) and a user potential (columns_vmf)
# registered beside the shipped entries, built against the installed package (sgmcmc::cli), run from
# its embedded config and from a JSON file, resumed and summarised. Catches: cli/main.hpp or its CLI11
# dependency missing from the install, a registration that does not reach the parser, a run record the
# summary or resume cannot read back. (The answer's correctness: tests/cli/custom_cli_stat.cpp.)
if(NOT EXISTS "${custom_cli}")
  message(FATAL_ERROR "examples/custom_cli was not built")
endif()
function(run_cli)
  execute_process(COMMAND "${custom_cli}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "example_custom_cli ${ARGN} failed (${rc}): ${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
run_cli(list)
if(NOT out MATCHES "oblique" OR NOT out MATCHES "columns_vmf" OR NOT out MATCHES "sggmc")
  message(FATAL_ERROR "example_custom_cli list lacks the user's entries or the shipped ones: ${out}")
endif()
run_cli(run -q -o "${WORK_DIR}/embedded.json")
run_cli(run -q "${SOURCE_DIR}/examples/custom_cli/oblique_vmf.json" -o "${WORK_DIR}/file.json")
run_cli(resume "${WORK_DIR}/file.json" --steps 100 -q -o "${WORK_DIR}/resumed.json")
run_cli(summary "${WORK_DIR}/resumed.json" --json)
string(JSON mean GET "${out}" summary 5 mean)
message(STATUS "example_custom_cli: run, resume, summary ok (E[x_6] = ${mean}; exact 0.750671)")
# The user's own output format (examples/custom_cli/table_format.hpp: "table", a plain-text draws table),
# registered by the tool beside the shipped formats: `--format json,table` writes the record and
# BASE.txt, a header of parameter names and one line per kept draw; `run --help` lists it. Catches: a
# user format the command line does not offer or whose writer is never made or finished, and
# cli/main.hpp's format registry (run/output/formats.hpp) missing from the install.
file(WRITE "${WORK_DIR}/table_config.json" [=[{"manifold": {"name": "oblique", "n": 3, "k": 2},
 "target": {"name": "columns_vmf", "mu": [0, 0, 1], "kappa": 4},
 "sampler": {"name": "gsgnht", "step_size": 0.05, "diffusion": 1},
 "steps": 300, "burn_in": 100, "thin": 2, "chains": 2, "seed": 5}]=])
run_cli(run --help)
if(NOT out MATCHES "table" OR NOT out MATCHES "netcdf")
  message(FATAL_ERROR "example_custom_cli run --help does not list the user's format beside the shipped ones: ${out}")
endif()
run_cli(run -q "${WORK_DIR}/table_config.json" -o "${WORK_DIR}/table.json" --format json,table)
if(NOT EXISTS "${WORK_DIR}/table.json" OR NOT EXISTS "${WORK_DIR}/table.txt")
  message(FATAL_ERROR "example_custom_cli run --format json,table did not write table.json and table.txt")
endif()
file(READ "${WORK_DIR}/table.json" table_record)
string(JSON draws_0 GET "${table_record}" chains 0 draws)
string(JSON draws_1 GET "${table_record}" chains 1 draws)
math(EXPR expected_lines "1 + ${draws_0} + ${draws_1}")
file(STRINGS "${WORK_DIR}/table.txt" table_lines)
list(LENGTH table_lines table_count)
list(GET table_lines 0 table_header)
if(NOT table_header STREQUAL "chain draw x.1.1 x.2.1 x.3.1 x.1.2 x.2.2 x.3.2" OR NOT table_count EQUAL expected_lines
   OR NOT expected_lines EQUAL 201)
  message(FATAL_ERROR "table.txt: header '${table_header}' and ${table_count} lines; expected the oblique names and ${expected_lines} (201) lines")
endif()
message(STATUS "example_custom_cli: --format json,table ok (${table_count} lines)")

# Concept errors at the point of use: a potential whose gradient lacks the engine parameter, built
# against the installed package (whose target carries GCC's -fconcepts-diagnostics-depth=2), must fail
# with one screen of error naming the requirement, not pages from inside a sampler's step (before the
# samplers' `step` required PotentialFor: 46 lines naming kick.hpp, never the requirement).
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/wrong_potential" -B "${WORK_DIR}/wrong_potential"
                        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring tests/install/wrong_potential failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/wrong_potential" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(APPEND out "${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "a potential without the engine parameter compiled")
endif()
string(REGEX MATCHALL "[^\n]*(error|note|required)[^\n]*" diagnostics "${out}")
list(LENGTH diagnostics lines)
if(NOT out MATCHES "PotentialFor" OR NOT out MATCHES "p\\.gradient\\(x, g, rng\\)" OR lines GREATER 40)
  message(FATAL_ERROR "the wrong potential's error does not name PotentialFor and p.gradient(x, g, rng) in at most 40 diagnostic lines (${lines}):\n${out}")
endif()
message(STATUS "wrong potential: ${lines} diagnostic lines naming PotentialFor")

# find_package(sgmcmc COMPONENTS core) with only the core's dependencies: nlohmann_json, CLI11, zlib and
# pkg-config (netCDF) hidden from the user's project. Catches: the core's targets naming another
# component's dependency, a config file that looks for every dependency whatever was asked for.
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/core_only" -B "${WORK_DIR}/core_only"
                        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON
                        -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring a core-only project failed (${rc}): ${out}${err}")
endif()
if("${out}${err}" MATCHES "CMAKE_BUILD_TYPE is empty")
  message(FATAL_ERROR "a Release configure was warned of an empty build type: ${out}${err}")
endif()
# Without a build type the targets add no optimisation: the package says so when the project configures.
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/core_only" -B "${WORK_DIR}/core_only_no_build_type"
                        -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX REPLACE "[ \n]+" " " said "${out}${err}")  # CMake wraps a warning's lines
if(NOT rc EQUAL 0 OR NOT said MATCHES "CMAKE_BUILD_TYPE is empty, so your program is compiled without optimisation and the samplers it instantiates run 20 to 70 times slower. Configure with -DCMAKE_BUILD_TYPE=Release")
  message(FATAL_ERROR "configuring without a build type did not say that nothing is optimised (${rc}): ${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/core_only" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building a core-only project failed (${rc}): ${out}${err}")
endif()
execute_process(COMMAND "${WORK_DIR}/core_only/core_only" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
# SGLD at h = 0.05 on N(0, 1): stationary variance 1/(1 - h/2) = 1.0256; 99,000 draws with an
# autocorrelation time near 2/h = 40 leave ESS ≈ 2500, so MCSE 0.02 (mean) and 0.03 (variance): 5 MCSE.
if(NOT rc EQUAL 0 OR NOT out MATCHES "^mean (-?[0-9.]+) variance ([0-9.]+)")
  message(FATAL_ERROR "the core-only program failed (${rc}): ${out}")
endif()
set(mean "${CMAKE_MATCH_1}")
set(variance "${CMAKE_MATCH_2}")
if(mean GREATER 0.1 OR mean LESS -0.1 OR variance GREATER 1.18 OR variance LESS 0.87)
  message(FATAL_ERROR "the core-only program's moments are off: ${out}")
endif()
# The same, asking for an unknown component: a message naming it, not a CMake error from inside.
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/unknown_component" -B "${WORK_DIR}/unknown_component"
                        -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "unknown component 'plotting'")
  message(FATAL_ERROR "find_package(sgmcmc COMPONENTS plotting) did not name the unknown component: ${out}${err}")
endif()
message(STATUS "core-only project: configured without nlohmann_json, CLI11, zlib, netCDF; mean ${mean}, variance ${variance}")
