// Every file pipesim reads as input (the platform and its profiles,
// workload and pattern YAML, PyTorch CSV orders, PipeDream graph.txt) goes
// through read_input_file, so that a directory, a device, a FIFO or a huge
// file is one clear error, never a read that hangs or fills memory.
#pragma once

#include <cstdint>
#include <string>

namespace pipesim {

// Largest input file: far above any real workload, pattern, profile or
// platform (a 1,000,000-layer workload written out in full is about 60 MiB;
// make_platform.py's 8 boxes of 64 GPUs, every route written out, 28 MiB).
constexpr std::uintmax_t kMaxInputFileBytes = 64ull << 20;

// The whole text of a regular file of at most kMaxInputFileBytes. Throws
// InputError(path, "", WHAT) otherwise; kind names what was expected
// ("a YAML file", "a CSV file"); max_bytes raises the limit for inputs that
// are large by nature (a profiler trace).
std::string read_input_file(const std::string& path, const std::string& kind,
                            std::uintmax_t max_bytes = kMaxInputFileBytes);

}  // namespace pipesim
