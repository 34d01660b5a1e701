// Keeps the ILP library non-empty until the formulation lands; reports the
// CBC version pipesim was built against.
#include <CbcConfig.h>

namespace pipesim {

const char* cbc_version() { return CBC_VERSION; }

}  // namespace pipesim
