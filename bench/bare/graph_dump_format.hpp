// The task-graph dump that bench/bare/bare_graph.cpp runs on bare SimGrid.
// Written by bench/bare/graph_dump.hpp from a pipesim TaskGraph; this header
// is all the two sides share (no pipesim code), so the bare program stays
// what a researcher would write by hand.
//
// Layout: native byte order (little-endian here), no padding between fields,
// arrays one after the other:
//   char     magic[8]                 "PSGRAPH1"
//   u32      device_count, reserved (0)
//   u64      task_count, dependency_count, ordered_count
//   per device: u32 length, then that many bytes: its SimGrid host name
//            (pipesim's device order: Platform::devices)
//   u8       kind[task_count]         kCompute or kTransfer
//   i32      device[task_count]       compute: the device; transfer: the source
//   i32      peer[task_count]         transfer: the destination; -1 for compute
//   f64      amount[task_count]       flops or bytes
//   f64      priority[task_count]     lowest runs first among a device's ready tasks
//   u32      dep_offsets[task_count + 1]   dependencies in compressed rows
//   u32      dep_ids[dependency_count]
//   u32      order_offsets[device_count + 1]  per-device orders in compressed rows
//   u32      order_ids[ordered_count]
// Lanes, resources other than the device's own host and shares (seed 004,
// DualPipeV) have no field: graphs that use them are not dumped.
#pragma once

#include <cstdint>

namespace pipesim::bare {

inline constexpr char kGraphDumpMagic[8] = {'P', 'S', 'G', 'R', 'A', 'P', 'H', '1'};
inline constexpr std::uint8_t kCompute = 0, kTransfer = 1;

}  // namespace pipesim::bare
