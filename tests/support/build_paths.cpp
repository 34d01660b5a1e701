#include "tests/support/build_paths.hpp"

// The only file that sees the build's paths (set in CMakeLists.txt).
namespace pipesim::testing {
const char* source_dir() { return BUILD_SOURCE_DIR; }
const char* pipesim_binary() { return BUILD_PIPESIM_BINARY; }
const char* bare_pipeline_binary() { return BUILD_BARE_BINARY; }
const char* bare_graph_binary() { return BUILD_BARE_GRAPH_BINARY; }
}  // namespace pipesim::testing
