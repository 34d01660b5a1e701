#include "cli/sweep_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "cli/output_files.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

namespace fs = std::filesystem;

using FileId = std::pair<dev_t, ino_t>;

bool file_id(const std::string& path, FileId& id) {
  struct stat s;
  if (::stat(path.c_str(), &s) != 0) return false;
  id = {s.st_dev, s.st_ino};
  return true;
}

}  // namespace

SweepFolderLock::SweepFolderLock(const std::string& option, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir, option, "cannot create the output folder: " + ec.message());
  const std::string path = (fs::path(dir) / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) throw InputError(dir, option, "cannot open its lock file .lock: " + std::string(std::strerror(errno)));
  // Not inherited across exec (O_CLOEXEC), so the runs never hold it; released by the kernel if the sweep dies.
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd_);
    throw InputError(
        dir, option,
        error == EWOULDBLOCK
            ? "another sweep is writing this folder (it holds .lock); wait for it to end, or choose another folder"
            : "cannot lock .lock: " + std::string(std::strerror(error)));
  }
  fs::create_directories(fs::path(dir) / "runs", ec);  // once it is ours
  if (ec) {
    ::close(fd_);
    throw InputError(dir, option, "cannot create the output folder: " + ec.message());
  }
}

SweepFolderLock::~SweepFolderLock() { ::close(fd_); }  // closing releases the lock

void check_sweep_folder(const std::string& option, const std::string& dir,
                        const std::vector<std::pair<std::string, std::string>>& inputs) {
  check_output_directory(option, dir);
  std::map<FileId, std::string> read;
  for (const auto& [what, path] : inputs)
    if (FileId id; file_id(path, id)) read.emplace(id, what);
  auto refuse_input = [&](const std::string& path) {
    FileId id;
    if (!file_id(path, id)) return;
    if (const auto it = read.find(id); it != read.end())
      throw InputError(path, option, "is " + it->second + ", an input; choose another output folder");
  };
  const fs::path folder(dir);
  for (const char* name : {"results.csv", "plan.json", ".lock"}) refuse_input((folder / name).string());
  for (const char* sub : {"runs", "platforms"}) {
    std::error_code ec;
    for (fs::directory_iterator it(folder / sub, ec), end; !ec && it != end; it.increment(ec))
      refuse_input(it->path().string());
  }
}

}  // namespace pipesim
