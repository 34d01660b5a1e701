#include "sim/engine/simgrid_guard.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "sim/write_all.hpp"

namespace pipesim {
namespace {

constexpr int kFatalSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr int kSignalCount = sizeof(kFatalSignals) / sizeof(kFatalSignals[0]);
constexpr size_t kMaxMessage = 300;  // as for SimGrid's exception messages

// Plain data only: the signal handler reads it.
struct GuardState {
  int depth = 0;           // guards nest; the outermost one does the work
  int capture_fd = -1;     // anonymous file receiving SimGrid's stderr (reused)
  int saved_stderr = -1;   // the real stderr
  char prefix[1024] = {};  // "pipesim: error: FILE: SimGrid rejected the platform: "
  size_t prefix_len = 0;
  struct sigaction previous[kSignalCount] = {};
};
GuardState state;
char capture_text[16384];
alignas(16) char alternate_stack[64 * 1024];  // a stack overflow must still reach the handler

const char* find(const char* text, const char* word) {
  for (; *text != '\0'; ++text) {
    size_t i = 0;
    while (word[i] != '\0' && text[i] == word[i]) ++i;
    if (word[i] == '\0') return text;
  }
  return nullptr;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGABRT:
      return "it aborted (SIGABRT)";
    case SIGSEGV:
      return "it crashed (SIGSEGV)";
    case SIGBUS:
      return "it crashed (SIGBUS)";
    case SIGFPE:
      return "it crashed (SIGFPE)";
    default:
      return "it crashed (SIGILL)";
  }
}

// Async-signal-safe: read, lseek, write and _exit only.
void on_fatal_signal(int sig) {
  ssize_t n = -1;
  if (state.capture_fd >= 0 && ::lseek(state.capture_fd, 0, SEEK_SET) == 0)
    n = ::read(state.capture_fd, capture_text, sizeof(capture_text) - 1);
  capture_text[n > 0 ? n : 0] = '\0';
  // SimGrid's fatal lines read "[0.000000] ./src/file.cpp:23: [root/CRITICAL] Message";
  // the message may start on the next line. Otherwise keep the first line written.
  const char* message = find(capture_text, "CRITICAL]");
  message = message != nullptr ? message + 9 : capture_text;
  while (*message == ' ' || *message == '\n' || *message == '\r' || *message == '\t') ++message;
  size_t length = 0;
  while (message[length] != '\0' && message[length] != '\n' && length < kMaxMessage) ++length;
  while (length > 0 && (message[length - 1] == ' ' || message[length - 1] == '\r')) --length;
  if (length == 0) {
    message = signal_name(sig);
    length = std::strlen(message);  // strlen is async-signal-safe since POSIX.1-2016
  }
  const int out = state.saved_stderr >= 0 ? state.saved_stderr : STDERR_FILENO;
  write_all(out, state.prefix, state.prefix_len);
  write_all(out, message, length);
  write_all(out, "\n", 1);
  ::_exit(2);
}

void install_handlers(bool save_previous) {
  static bool stack_ready = false;
  if (!stack_ready) {
    stack_t stack{};
    stack.ss_sp = alternate_stack;
    stack.ss_size = sizeof(alternate_stack);
    stack_ready = ::sigaltstack(&stack, nullptr) == 0;
  }
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;  // a fault inside the handler ends the process
  for (int i = 0; i < kSignalCount; ++i)
    ::sigaction(kFatalSignals[i], &action, save_previous ? &state.previous[i] : nullptr);
}

}  // namespace

SimGridGuard::SimGridGuard(const std::string& platform_file) {
  if (state.depth++ > 0) return;
  const int written = std::snprintf(state.prefix, sizeof(state.prefix),
                                    "pipesim: error: %s: SimGrid rejected the platform: ", platform_file.c_str());
  state.prefix_len = written < 0 ? 0 : std::min(static_cast<size_t>(written), sizeof(state.prefix) - 1);
  if (state.capture_fd < 0) state.capture_fd = ::memfd_create("pipesim-simgrid-stderr", MFD_CLOEXEC);
  std::fflush(stderr);
  if (state.capture_fd >= 0 && ::ftruncate(state.capture_fd, 0) == 0) {
    ::lseek(state.capture_fd, 0, SEEK_SET);
    state.saved_stderr = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
    if (state.saved_stderr >= 0) ::dup2(state.capture_fd, STDERR_FILENO);
  }
  install_handlers(true);
}

void SimGridGuard::rearm() {
  if (state.depth == 1) install_handlers(false);
}

SimGridGuard::~SimGridGuard() {
  if (--state.depth > 0) return;
  for (int i = 0; i < kSignalCount; ++i) ::sigaction(kFatalSignals[i], &state.previous[i], nullptr);
  std::fflush(stderr);
  if (state.saved_stderr >= 0) {
    ::dup2(state.saved_stderr, STDERR_FILENO);  // what SimGrid wrote (nothing at threshold critical) is dropped
    ::close(state.saved_stderr);
    state.saved_stderr = -1;
  }
}

}  // namespace pipesim
