// A plain-text table, as the summary and the plan print them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pipesim {

using Row = std::vector<std::string>;

// Columns padded to their widest cell, each line indented by two spaces:
// numbers right-aligned, the first column (names) and, with text_last, the
// last one left-aligned.
void write_table(std::ostream& os, const std::vector<Row>& rows, bool text_last = false);

}  // namespace pipesim
