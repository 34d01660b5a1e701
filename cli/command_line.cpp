#include "cli/command_line.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace pipesim {
namespace {

// CLI11's layout, but the usage line first (as in "usage: pipesim run ..."),
// and positionals without a type name or a REQUIRED mark.
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() {
    label("Usage", "usage");
    label("OPTIONS", "options");
    label("SUBCOMMAND", "COMMAND");
    column_width(34);
  }
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    return make_usage(app, name) + make_description(app) + make_positionals(app) + make_groups(app, mode) +
           make_subcommands(app, mode) + "\n" + make_footer(app);
  }
  std::string make_option_opts(const CLI::Option* option) const override {
    return option->get_positional() ? "" : CLI::Formatter::make_option_opts(option);
  }
};

const std::string kVersion = std::string("pipesim ") + PIPESIM_VERSION;

}  // namespace

std::string one_line(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += ' ';
    } else if (u < 0x20 || u == 0x7f) {  // a control byte from an input file: shown, never obeyed
      static const char hex[] = "0123456789abcdef";
      out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

std::string command_names(const CLI::App& root) {
  std::string names;
  const std::vector<const CLI::App*> commands = root.get_subcommands([](const CLI::App*) { return true; });
  for (std::size_t i = 0; i < commands.size(); ++i)
    names += (i == 0 ? "" : i + 1 == commands.size() ? " or " : ", ") + commands[i]->get_name();
  return names;
}

std::string positional_names(const CLI::App& command) {
  std::string names;
  for (const CLI::Option* option : command.get_options([](const CLI::Option* o) { return o->get_positional(); }))
    names += (names.empty() ? "" : " ") + option->get_name();
  return names;
}

}  // namespace

void configure_root(CLI::App& root) {
  root.formatter(std::make_shared<HelpFormatter>());
  root.set_version_flag("--version", kVersion, "print the version and exit");
  root.set_help_flag("-h,--help", "print this help and exit");
  root.require_subcommand(1);
  root.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  root.footer(
      "Run 'pipesim COMMAND --help' for a command's arguments and options.\n"
      "Exit status: 0 valid, 1 invalid run (memory exceeded, deadlock, violations), 2 bad input or usage.");
}

CLI::App* add_command(CLI::App& root, const std::string& name, const std::string& description,
                      const std::string& footer) {
  CLI::App* command = root.add_subcommand(name, description);
  command->set_help_flag("-h,--help", "print this help and exit");
  command->set_version_flag("--version", kVersion, "print the version and exit");
  command->footer(footer);
  command->group("Commands");
  return command;
}

void check_no_empty_values(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options([](const CLI::Option* o) { return o->nonpositional(); }))
    if (option->get_type_size() != 0)
      for (const std::string& value : option->results())
        if (value.empty()) throw UsageError(option->get_name() + " needs a value");
}

std::string usage_error_line(const std::string& command, const std::string& what) {
  return "pipesim: error: " + one_line(what) + "; see 'pipesim " + (command.empty() ? "" : command + " ") + "--help'";
}

std::string unknown_command_line(const CLI::App& root, int argc, const char* const* argv) {
  if (!root.get_subcommands([](const CLI::App* c) { return c->parsed(); }).empty()) return "";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    return usage_error_line("", "unknown command '" + word + "' (expected " + command_names(root) + ")");
  }
  return "";
}

std::string usage_error_line(const CLI::App& root, const CLI::ParseError& error) {
  const std::vector<const CLI::App*> chosen = root.get_subcommands([](const CLI::App* c) { return c->parsed(); });
  if (chosen.empty()) {
    const std::vector<std::string> extra = root.remaining();
    const std::string expected = " (expected " + command_names(root) + ")";
    if (extra.empty()) return usage_error_line("", "no command given" + expected);
    if (extra[0].size() > 1 && extra[0][0] == '-') return usage_error_line("", "unknown option " + extra[0]);
    return usage_error_line("", "unknown command '" + extra[0] + "'" + expected);
  }
  // The deepest chosen command ("sweep merge"), so that the line points to its own --help.
  const CLI::App* top = chosen.front();
  const CLI::App* deepest = top;
  std::string name = top->get_name();
  for (auto subs = deepest->get_subcommands([](const CLI::App* c) { return c->parsed(); }); !subs.empty();
       subs = deepest->get_subcommands([](const CLI::App* c) { return c->parsed(); })) {
    deepest = subs.front();
    name += " " + deepest->get_name();
  }
  const CLI::App& command = *deepest;
  // An unknown option is the likely cause of whatever else went wrong.
  for (const CLI::App* app : {&root, top, deepest})
    for (const std::string& arg : app->remaining())
      if (arg.size() > 1 && arg[0] == '-')
        return usage_error_line(app == &root ? "" : app == top ? top->get_name() : name, "unknown option " + arg);
  std::vector<std::string> extra = command.remaining();
  if (deepest != top)
    for (const std::string& arg : top->remaining()) extra.push_back(arg);
  for (const std::string& arg : root.remaining()) extra.push_back(arg);  // after "--"
  if (!extra.empty())
    return usage_error_line(
        name, "unexpected argument '" + extra[0] + "' (" + name + " takes " + positional_names(command) + ")");
  std::string what = error.what();
  // "--json: 1 required FILE missing" -> "--json needs a value"
  const std::size_t colon = what.find(':');
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) && colon != std::string::npos && what.size() >= 8 &&
      what.compare(what.size() - 8, 8, " missing") == 0)
    what = what.substr(0, colon) + " needs a value";
  return usage_error_line(name, what);
}

std::string this_binary() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the pipesim binary: /proc/self/exe: " + ec.message());
  return self.string();
}

}  // namespace pipesim
