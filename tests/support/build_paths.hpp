// Where the tests find the sources and the programs they run. The paths are
// compiled into one file (build_paths.cpp), so a build of another checkout
// recompiles that file instead of every test.
#pragma once

namespace pipesim::testing {
const char* source_dir();
const char* pipesim_binary();
const char* bare_pipeline_binary();
const char* bare_graph_binary();
}  // namespace pipesim::testing

#define PIPESIM_SOURCE_DIR (::pipesim::testing::source_dir())
#define PIPESIM_BINARY (::pipesim::testing::pipesim_binary())
#define PIPESIM_BARE_BINARY (::pipesim::testing::bare_pipeline_binary())
#define PIPESIM_BARE_GRAPH_BINARY (::pipesim::testing::bare_graph_binary())
