// Output files appear whole or not at all: each is written to a temporary
// name and renamed once every output of the run has been produced.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pipesim {

class OutputFiles {
 public:
  ~OutputFiles();  // removes temporaries that were not committed
  // Writes the text to PATH's temporary; throws std::runtime_error naming PATH.
  void stage(const std::string& path, const std::string& text);
  // Renames every temporary to its final name.
  void commit();

 private:
  std::vector<std::pair<std::string, std::string>> staged_;  // (temporary, final)
};

}  // namespace pipesim
