// Exposed for tests only: the orders as PyTorch's CSV text, compared with PyTorch's files.
// Product code includes generated_orders.hpp.
#pragma once

#include "schedules/pytorch/generated_orders.hpp"

namespace pipesim {

// The orders as PyTorch's compute CSV text: rows of comma-separated cells,
// overlapped pairs as (aFm;bBn)OVERLAP_F_B.
std::string orders_csv_text(const ExplicitOrders& orders);

}  // namespace pipesim
