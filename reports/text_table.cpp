#include "reports/text_table.hpp"

#include <algorithm>

namespace pipesim {

void write_table(std::ostream& os, const std::vector<Row>& rows, bool text_last) {
  std::vector<std::size_t> width;
  for (const Row& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  for (const Row& r : rows) {
    std::string line = "  ";
    for (std::size_t c = 0; c < r.size(); ++c) {
      const std::string pad(width[c] - r[c].size(), ' ');
      const bool left = c == 0 || (text_last && c + 1 == r.size());
      line += (c == 0 ? "" : "  ") + (left ? r[c] + pad : pad + r[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << '\n';
  }
}

}  // namespace pipesim
