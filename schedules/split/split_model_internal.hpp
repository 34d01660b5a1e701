// Exposed for tests only: profiles from a table of layer times (the paper's section VI).
// Product code includes split_model.hpp.
#pragma once

#include "schedules/split/split_model.hpp"

namespace pipesim::split {

// Layer times looked up in a §VI table by each resource's type (the
// speeds of `worker` are not used). Throws std::invalid_argument on an
// unknown type, a table row of the wrong length, or profile_from_speeds' errors.
WorkerProfile profile_from_table(const Device& worker, const TimeTable& table, const std::vector<double>& output_bytes,
                                 double bandwidth);

}  // namespace pipesim::split
