// Placeholder until the formulas land (docs/model-to-workload.md).
#include "models/transformer.hpp"
