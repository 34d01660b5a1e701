// A sweep's output folder (sweep -o DIR, sweep merge -o DIR): one writer at
// a time, and never a file the sweep reads.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pipesim {

// Creates DIR (with DIR/runs) if needed and holds an exclusive lock on
// DIR/.lock until destroyed, so that two sweeps (a resubmitted job, a
// command typed twice) never write one folder at once. Throws InputError
// "DIR: OPTION: WHAT" when another process holds it, or DIR cannot be made.
class SweepFolderLock {
 public:
  SweepFolderLock(const std::string& option, const std::string& dir);
  ~SweepFolderLock();
  SweepFolderLock(const SweepFolderLock&) = delete;
  SweepFolderLock& operator=(const SweepFolderLock&) = delete;

 private:
  int fd_ = -1;
};

// Checks, before anything is written, that no file a sweep writes in DIR
// (results.csv, plan.json, .lock, anything in runs/ or platforms/) is one of
// INPUTS ({what, path}), compared as files (a hard link, a symbolic link,
// another spelling of the path); and that DIR can be a folder. Throws
// InputError "PATH: OPTION: is WHAT, an input; choose another output folder".
void check_sweep_folder(const std::string& option, const std::string& dir,
                        const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace pipesim
