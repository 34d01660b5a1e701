#include "studies/forked_run.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "sim/write_all.hpp"
#include "studies/subprocess.hpp"

namespace pipesim {

namespace {

struct Child {
  pid_t pid;
  int reply_fd;
};

// Forks a child that runs work() and writes "0" + its result, or "1" + the
// error, to a pipe; the caller reads it with collect().
Child fork_work(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // nothing buffered is inherited and printed twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]), ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string reply;
    try {
      reply = "0" + work();
    } catch (const std::exception& e) {
      reply = std::string("1") + e.what();
    } catch (...) {
      reply = "1unknown exception";
    }
    const bool sent = write_all(fds[1], reply) == 0;
    ::close(fds[1]);
    ::_exit(sent ? 0 : 1);  // no atexit handlers, no SimGrid teardown
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

// The child's reply, "0..." or "1..." or empty when it died; waits for it.
std::string collect(const Child& child, int& status) {
  std::string reply;
  char buf[65536];
  for (;;) {
    const ssize_t got = ::read(child.reply_fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    reply.append(buf, static_cast<std::size_t>(got));
  }
  ::close(child.reply_fd);
  status = wait_child(child.pid).status;
  return reply;
}

std::string result_of(const std::string& reply, int status) {
  if (reply.empty()) throw std::runtime_error("child " + describe_exit(status));
  if (reply[0] != '0') throw std::runtime_error(reply.substr(1));
  return reply.substr(1);
}

}  // namespace

std::string run_forked(const std::function<std::string()>& work) {
  int status = 0;
  const std::string reply = collect(fork_work(work), status);
  return result_of(reply, status);
}

std::vector<std::string> run_forked_all(const std::vector<std::function<std::string()>>& works) {
  std::vector<Child> children;
  try {
    for (const auto& work : works) children.push_back(fork_work(work));
  } catch (...) {
    for (const Child& child : children) {  // reaped before the error goes on
      int status = 0;
      collect(child, status);
    }
    throw;
  }
  std::vector<std::string> replies;
  std::vector<int> statuses(children.size(), 0);
  // Each child writes once it is done: reading them in order never waits on a circle.
  for (std::size_t i = 0; i < children.size(); ++i) replies.push_back(collect(children[i], statuses[i]));
  std::vector<std::string> results;
  for (std::size_t i = 0; i < replies.size(); ++i) results.push_back(result_of(replies[i], statuses[i]));
  return results;
}

}  // namespace pipesim
