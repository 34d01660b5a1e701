// Output files appear all together or not at all, and never over an input.
// Every output is declared before anything runs (which checks that it can
// be written), given its text once computed, and written by commit():
// a new or regular file through a temporary in its directory renamed over
// it; the file that standard output goes to (/dev/stdout, or its path)
// through std::cout, in order with the rest of stdout; anything else that
// exists (a device, a FIFO, a symbolic link) in place, since renaming over
// it would replace the node.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace pipesim {

class OutputFiles {
 public:
  enum class Parent { MustExist, Create };

  // Records an input file, which no output may be. WHAT names it in the
  // message ("the workload"). Declare inputs before outputs where possible;
  // an input declared later (the schedule file a workload names) is checked
  // against the outputs declared so far. Throws InputError "OUTPUT: OPTION: WHAT".
  void declare_input(const std::string& what, const std::string& path);

  // Checks that PATH can be written as OPTION's output and records it. Its
  // directory must exist and be writable (Parent::Create: it is created by
  // commit(), and its nearest existing ancestor must be a writable
  // directory); PATH must not be a directory, an unwritable file, an input
  // or another output. Throws InputError "PATH: OPTION: WHAT".
  void declare(const std::string& option, const std::string& path, Parent parent = Parent::MustExist);

  // The text of a declared output (an output never given a text is not written).
  void set(const std::string& path, std::string text);
  // The same, written by WRITE into a stream in memory. A stream in memory
  // that cannot grow fails silently, keeping what it held, so its state is
  // checked: running out of memory is an error naming the path and the
  // option, never a truncated file.
  void set(const std::string& path, const std::function<void(std::ostream&)>& write);

  // Writes every output that has a text, or none: a write error (a full
  // disk, EIO, /dev/full) or a failed rename leaves no temporary, no
  // created directory, and the files that were already replaced as they
  // were. Throws InputError naming the path and the option.
  void commit();

 private:
  struct Output {
    std::string option, path;
    Parent parent;
    enum class Write { Replace, InPlace, Stdout } write;
    bool has_text = false;
    std::string text;
  };
  struct Input {
    std::string what, path;
  };
  Output& declared(const std::string& path);
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
};

// Checks that DIR can hold outputs of OPTION (e.g. study's -o DIR): it is a
// directory, or it does not exist and its nearest existing ancestor is a
// writable directory. Throws InputError "DIR: OPTION: WHAT".
void check_output_directory(const std::string& option, const std::string& dir);

}  // namespace pipesim
