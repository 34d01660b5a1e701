#!/usr/bin/env bash
# Builds pipesim and its tests with AddressSanitizer and UndefinedBehaviorSanitizer
# in build-asan/ and runs the whole test suite there. Any finding stops the
# process that made it (the test fails) with the sanitizer's report.
# SimGrid, Boost, yaml-cpp and CBC come from Debian and are not instrumented.
# Usage: scripts/sanitize.sh [extra ctest arguments, e.g. -R Fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Without -Werror: GCC 12 warns falsely (maybe-uninitialized in <regex>)
# on instrumented code; the normal build keeps -Werror.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPESIM_BENCHMARKS=OFF -DPIPESIM_WERROR=OFF "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build build-asan -j"$(nproc)"

# Leaks are checked, SimGrid's included (it has none in this suite);
# scripts/lsan.supp suppresses a library's own leak (CBC's, at its time limit).
# A finding exits with status 86, which no pipesim run uses (0, 1, 2), so
# the fuzz test (tests/fuzz/test_fuzz_contract.cpp) reports it as a broken contract.
export ASAN_OPTIONS="halt_on_error=1:exitcode=86:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=86:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
# Three tests skip themselves here (__SANITIZE_ADDRESS__): an ILP test
# whose CBC time limit (60 s) the instrumented model code cannot meet, the
# peak-RSS comparison (tests/bench/test_measured_memory.cpp: shadow memory
# inflates RSS 2-7x) and a run under `ulimit -v` (ASan cannot reserve its
# shadow there). The normal build runs them.
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" --timeout 1500 "$@"
