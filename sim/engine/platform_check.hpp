// Checks a platform file before SimGrid loads it: SimGrid 3.32 aborts the
// process (xbt_die) on several mistakes instead of throwing, and accepts
// others (negative latency, nan bandwidth) that make nonsense later.
#pragma once

#include <map>
#include <string>

namespace pipesim {

// Throws InputError "FILE: line N: ELEMENT 'ID': ATTRIBUTE: WHAT" on the first
// problem: numbers that are not finite or out of range, duplicate ids and
// routes, routes from a node to itself, references to undeclared names,
// missing required attributes, a "memory" property that is not a size, and
// platforms the effective SimGrid settings cannot run (links under
// network/model:Constant, multi-core hosts under cpu/optim:TI; those name
// --cfg). Returns whether a host or link follows a profile (an *_file
// attribute, or a <trace>): its speed, bandwidth or state then changes over
// time (Platform::time_varying). TEXT is FILE's content (read_input_file);
// text that is not well-formed XML, a profile file that is missing or not a
// regular file of at most 64 MiB, and a platform whose estimated memory
// (platform_size.hpp) exceeds MEMORY_LIMIT bytes are refused too. Call it
// with SimGrid's log threshold set (an Engine exists): it uses SimGrid's own
// unit parsers, which warn on unit-less values.
bool check_platform_file(const std::string& file, const std::string& text,
                         const std::map<std::string, std::string>& simgrid_config, double memory_limit);

}  // namespace pipesim
