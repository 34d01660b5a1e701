#include "cli/workload_overrides.hpp"

#include <stdexcept>

#include "cli/command_line.hpp"

namespace pipesim {

void add_set_option(CLI::App* command, std::vector<std::string>& texts) {
  command
      ->add_option("--set", texts,
                   "override a workload field before it is read, e.g.\nmicrobatches=32, schedule=gpipe, "
                   "placement.stages=8,\nschedule.k=2 (an empty VALUE removes it); repeatable")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

std::vector<WorkloadOverride> parse_overrides(const std::vector<std::string>& texts) {
  std::vector<WorkloadOverride> out;
  for (const std::string& text : texts) {
    try {
      out.push_back(parse_workload_override(text));
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--set: ") + e.what());
    }
  }
  return out;
}

}  // namespace pipesim
