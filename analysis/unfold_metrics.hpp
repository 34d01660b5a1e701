// A folded run's figures given to the whole job (sim/folding.hpp): each
// device and link not simulated gets those of the one it is an image of.
#pragma once

#include "analysis/metrics.hpp"
#include "sim/folding.hpp"

namespace pipesim {

// Devices (busy, idle, bubbles, peak memory, task counts) and links (bytes,
// busy time) copied from their images; memory violations repeated on every
// image, in device order. Collectives are counted by collective_metrics.
void unfold_metrics(Metrics& m, const Folding& folding);

}  // namespace pipesim
