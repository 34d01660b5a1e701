#include "cli/output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <sstream>

#include "sim/input_error.hpp"
#include "sim/write_all.hpp"

namespace pipesim {
namespace {

namespace fs = std::filesystem;

std::string error_text(int error) { return std::strerror(error); }

// Same file when both exist (hard links, "./w.yaml" and "w.yaml"), else
// the same absolute path once the existing part is resolved.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb, e;
  if (fs::exists(a, ea) && fs::exists(b, eb)) return fs::equivalent(a, b, e);
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea), cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  return !ea && !eb && ca == cb;
}

std::string directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

bool writable_directory(const std::string& dir) { return ::access(dir.c_str(), W_OK | X_OK) == 0; }

// DIR will hold new files: it is a writable directory, or (CREATE) it can be
// created in its nearest existing ancestor. Returns what is wrong, or "".
std::string directory_problem(const std::string& dir, bool create) {
  std::error_code ec;
  const bool exists = fs::exists(dir, ec);
  if (ec) return "cannot use '" + dir + "': " + ec.message();  // a loop of symbolic links, a permission
  if (exists) {
    if (!fs::is_directory(dir, ec)) return "'" + dir + "' is not a directory";
    return writable_directory(dir) ? "" : "cannot write in directory '" + dir + "'";
  }
  if (!create) return "no such directory '" + dir + "'";
  fs::path ancestor = fs::absolute(dir, ec);
  while (ancestor.has_parent_path() && ancestor != ancestor.parent_path() && !fs::exists(ancestor, ec))
    ancestor = ancestor.parent_path();
  if (!fs::is_directory(ancestor, ec)) return "'" + ancestor.string() + "' is not a directory";
  return writable_directory(ancestor.string()) ? "" : "cannot create a directory in '" + ancestor.string() + "'";
}

// What a commit did so far, undone unless it finished: temporaries and
// backups removed, replaced files restored, created directories removed.
struct Transaction {
  struct Replaced {
    std::string path, backup;  // backup empty: the file is new
  };
  std::vector<std::string> temporaries, created_directories;
  std::vector<Replaced> replaced;
  bool done = false;

  ~Transaction() {
    if (done) {
      for (const Replaced& r : replaced)
        if (!r.backup.empty()) ::unlink(r.backup.c_str());
      return;
    }
    for (const std::string& t : temporaries) ::unlink(t.c_str());
    for (auto r = replaced.rbegin(); r != replaced.rend(); ++r) {
      if (r->backup.empty())
        ::unlink(r->path.c_str());
      else
        std::rename(r->backup.c_str(), r->path.c_str());
    }
    for (auto d = created_directories.rbegin(); d != created_directories.rend(); ++d) ::rmdir(d->c_str());
  }
};

// Throws InputError "PATH: OPTION: WHAT".
struct Failure {
  std::string path, option;
  [[noreturn]] void operator()(const std::string& what) const { throw InputError(path, option, what); }
};

// Creates DIR and its missing ancestors, recording them to be removed on failure.
void create_directories(const std::string& dir, const Failure& fail, Transaction& transaction) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path d = fs::absolute(dir, ec); !d.empty() && !fs::exists(d, ec); d = d.parent_path()) {
    missing.push_back(d);
    if (d == d.parent_path()) break;
  }
  for (auto d = missing.rbegin(); d != missing.rend(); ++d) {
    if (::mkdir(d->c_str(), 0777) != 0) fail("cannot create directory '" + d->string() + "': " + error_text(errno));
    transaction.created_directories.push_back(d->string());
  }
}

// TEXT in a new temporary ".NAME.XXXXXX" beside PATH, with PATH's
// permissions if it exists (else 0666 & ~UMASK); returns its name.
std::string write_temporary(const std::string& path, const std::string& text, mode_t umask, const Failure& fail,
                            Transaction& transaction) {
  const fs::path dir = directory_of(path);
  std::string name = (dir / ("." + fs::path(path).filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail("cannot create a temporary file in '" + dir.string() + "': " + error_text(errno));
  transaction.temporaries.push_back(name);
  struct stat old;
  ::fchmod(fd, ::stat(path.c_str(), &old) == 0 ? (old.st_mode & 07777) : (0666 & ~umask));
  const int error = write_all(fd, text);
  if (::close(fd) != 0 && error == 0) fail("write error: " + error_text(errno));
  if (error != 0) fail("write error: " + error_text(error));
  return name;
}

void write_in_place(const std::string& path, const std::string& text, const Failure& fail) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail("cannot open: " + error_text(errno));
  const int error = write_all(fd, text);
  if (::close(fd) != 0 && error == 0) fail("write error: " + error_text(errno));
  if (error != 0) fail("write error: " + error_text(error));
}

// Renames TEMPORARY over PATH, keeping a second name for the file it
// replaces so that the transaction can put it back.
void replace(const std::string& path, const std::string& temporary, const Failure& fail, Transaction& transaction) {
  std::string backup;
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(path, ec))) {
    backup = temporary + ".old";
    if (::link(path.c_str(), backup.c_str()) != 0 && !fs::copy_file(path, backup, ec))
      fail("cannot keep a copy of the file while replacing it: " + ec.message());
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    if (!backup.empty()) ::unlink(backup.c_str());
    fail("cannot replace it: " + error_text(error));
  }
  auto& temporaries = transaction.temporaries;
  temporaries.erase(std::find(temporaries.begin(), temporaries.end(), temporary));
  transaction.replaced.push_back({path, backup});
}

}  // namespace

void OutputFiles::declare_input(const std::string& what, const std::string& path) {
  for (const Output& output : outputs_)  // an input known only once the workload is read
    if (same_file(output.path, path))
      throw InputError(output.path, output.option, "is " + what + ", an input; choose another output file");
  inputs_.push_back({what, path});
}

void OutputFiles::declare(const std::string& option, const std::string& path, Parent parent) {
  auto fail = [&](const std::string& what) { throw InputError(path, option, what); };
  std::error_code ec, node_ec;
  const fs::file_status target = fs::status(path, ec), node = fs::symlink_status(path, node_ec);
  if (ec && fs::exists(node)) fail("cannot use it: " + ec.message());  // a loop of symbolic links
  if (fs::is_directory(target)) fail("is a directory");
  if (fs::exists(target) && ::access(path.c_str(), W_OK) != 0) fail("cannot write it (" + error_text(errno) + ")");
  struct stat file, out;
  const bool is_stdout = ::stat(path.c_str(), &file) == 0 && ::fstat(STDOUT_FILENO, &out) == 0 &&
                         file.st_dev == out.st_dev && file.st_ino == out.st_ino;
  const Output::Write write = is_stdout                                        ? Output::Write::Stdout
                              : fs::exists(node) && !fs::is_regular_file(node) ? Output::Write::InPlace
                                                                               : Output::Write::Replace;
  if (write == Output::Write::Replace) {
    const std::string problem = directory_problem(directory_of(path), parent == Parent::Create);
    if (!problem.empty()) fail(problem);
  }
  for (const Output& other : outputs_)
    if (same_file(path, other.path)) fail("is also the output of " + other.option);
  for (const Input& input : inputs_)
    if (same_file(path, input.path)) fail("is " + input.what + ", an input; choose another output file");
  outputs_.push_back({option, path, parent, write, false, {}});
}

OutputFiles::Output& OutputFiles::declared(const std::string& path) {
  for (Output& o : outputs_)
    if (o.path == path) return o;
  throw std::logic_error("output " + path + " was not declared");
}

void OutputFiles::set(const std::string& path, std::string text) {
  Output& o = declared(path);
  o.text = std::move(text);
  o.has_text = true;
}

void OutputFiles::set(const std::string& path, const std::function<void(std::ostream&)>& write) {
  Output& o = declared(path);
  try {
    std::ostringstream text;
    text.exceptions(std::ios::badbit);  // the writer's std::bad_alloc, rethrown
    write(text);
    o.text = text.str();
  } catch (const std::bad_alloc&) {
    o.text = std::string();
    throw InputError(o.path, o.option, "out of memory while building it");
  }
  o.has_text = true;
}

void OutputFiles::commit() {
  Transaction transaction;
  const mode_t umask = ::umask(0);
  ::umask(umask);
  // 1. Every replaced file's text into a temporary beside it: most write errors (a full disk) happen here.
  std::vector<std::string> temporary(outputs_.size());
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    const Output& o = outputs_[i];
    if (!o.has_text || o.write != Output::Write::Replace) continue;
    const Failure fail{o.path, o.option};
    if (o.parent == Parent::Create) create_directories(directory_of(o.path), fail, transaction);
    temporary[i] = write_temporary(o.path, o.text, umask, fail, transaction);
  }
  // 2. Devices, FIFOs, symbolic links: in place.
  for (const Output& o : outputs_)
    if (o.has_text && o.write == Output::Write::InPlace) write_in_place(o.path, o.text, {o.path, o.option});
  // 3. Standard output's file, in order with the rest of stdout.
  for (const Output& o : outputs_)
    if (o.has_text && o.write == Output::Write::Stdout) std::cout << o.text;
  // 4. The renames, undone if one fails.
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    const Output& o = outputs_[i];
    if (!temporary[i].empty()) replace(o.path, temporary[i], {o.path, o.option}, transaction);
  }
  transaction.done = true;
}

void check_output_directory(const std::string& option, const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw InputError(dir, option, "exists and is not a directory");
  if (ec) throw InputError(dir, option, "cannot use it: " + ec.message());
  const std::string problem = directory_problem(dir, true);
  if (!problem.empty()) throw InputError(dir, option, problem);
}

}  // namespace pipesim
