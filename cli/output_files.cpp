#include "cli/output_files.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace pipesim {

OutputFiles::~OutputFiles() {
  for (const auto& [temporary, final_path] : staged_) std::remove(temporary.c_str());
}

void OutputFiles::stage(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  staged_.emplace_back(temporary, path);
  std::ofstream out(temporary, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(path + ": cannot write the output file");
}

void OutputFiles::commit() {
  for (const auto& [temporary, final_path] : staged_)
    if (std::rename(temporary.c_str(), final_path.c_str()) != 0)
      throw std::runtime_error(final_path + ": cannot write the output file");
  staged_.clear();
}

}  // namespace pipesim
