// The floor for reading a profiler trace: nlohmann-json parses the whole
// file into a tree and counts its complete ("X") events (an execution
// trace: its nodes), printed on standard output. What bench_import.cpp
// times `pipesim import` against.
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: pipesim_bare_json TRACE.json\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const nlohmann::json trace = nlohmann::json::parse(text);
  long count = 0;
  if (trace.contains("nodes"))
    count = static_cast<long>(trace.at("nodes").size());
  else
    for (const auto& e : trace.at("traceEvents")) count += e.value("ph", "") == "X";
  std::cout << count << "\n";
  return 0;
}
