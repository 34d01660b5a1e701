#include "studies/subprocess.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace pipesim {
namespace {

// posix_spawn_file_actions_t, destroyed on every path out of start_process.
class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  void open(int fd, const std::string& path, int flags) {
    ::posix_spawn_file_actions_addopen(&actions_, fd, path.c_str(), flags, 0644);
  }
  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

}  // namespace

pid_t start_process(const std::vector<std::string>& args, const ChildOutput& output) {
  if (args.empty()) throw std::invalid_argument("start_process: no program");
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  FileActions files;
  files.open(0, "/dev/null", O_RDONLY);
  files.open(1, output.out, O_WRONLY | O_CREAT | O_TRUNC);
  files.open(2, output.err, O_WRONLY | O_CREAT | O_TRUNC);
  pid_t pid = -1;
  // glibc reports a failed exec or open here, not as the child's exit status.
  const int failed = ::posix_spawnp(&pid, argv[0], files.get(), nullptr, argv.data(), environ);
  if (failed != 0) throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(failed));
  return pid;
}

ChildEnd wait_child(pid_t pid) {
  ChildEnd end;
  for (;;) {
    end.pid = ::wait4(pid, &end.status, 0, &end.usage);
    if (end.pid >= 0) return end;
    if (errno != EINTR) throw std::runtime_error(std::string("waiting for a child process: ") + std::strerror(errno));
  }
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace pipesim
