# Writes OUTPUT, a ctest file with one test per gtest suite of TEST_BINARY,
# labelled with the suite's tier. Run after each build of the test program
# (CMakeLists.txt); ctest includes OUTPUT.
#
# One test per suite, not per test: the program forks each test from one
# start (tests/fork_per_test_main.cpp), so a suite costs one program start.
# Tiers (ctest -L TIER; README.md), by suite name, first match wins:
#   fuzz      a name with Fuzz (mutated inputs, tests/fuzz/test_fuzz_*.cpp)
#   ilp       Ilp* or */Ilp* (CBC solves)
#   slurm     a name with Slurm
#   extended  whole sweeps and plans, scripts, measured memory, and parameterized
#             grids (Prefix/Suite)
#   fast      the rest: one test per behaviour, seconds in all
execute_process(COMMAND "${TEST_BINARY}" --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${TEST_BINARY} --gtest_list_tests failed: ${failed}")
endif()

set(content "")
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # A suite line starts in column 0 and ends with '.', maybe before "  # TypeParam = ...".
  if(line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    if(suite MATCHES "Fuzz")
      set(tier fuzz)
    elseif(suite MATCHES "^Ilp|/Ilp")
      set(tier ilp)
    elseif(suite MATCHES "Slurm")
      set(tier slurm)
    elseif(suite MATCHES "/|^(MeasuredMemory|Sweep.*|PlanCli|OutputFailure|MakePlatform.*|MobileScripts|CliEngine)$")
      set(tier extended)
    else()
      set(tier fast)
    endif()
    string(APPEND content "add_test([=[${suite}]=] \"${TEST_BINARY}\" [=[--gtest_filter=${suite}.*]=])\n"
                          "set_tests_properties([=[${suite}]=] PROPERTIES LABELS ${tier} WORKING_DIRECTORY \"${WORKING_DIRECTORY}\")\n")
  endif()
endforeach()
file(WRITE "${OUTPUT}" "${content}")
