// The small command-line parser shared by tfn-export, tfn-inspect and tfn-run,
// and the one way the tools report errors (the tools are the only place in
// tfn that exits on error).
//
//   tools::ArgParser args("tfn-run", "FILE [options]", "Runs a signature of a bundle.");
//   std::string file, signature = "serving_default";
//   args.Positional("FILE", "the bundle", &file);
//   args.String("--signature", "SIG", "the signature to run", &signature);
//   tools::ExitOnError(args, args.Parse(argc, argv));  // exits 0 after --help
//
// Flags take their value as "--flag VALUE" or "--flag=VALUE"; "-o" style
// aliases are given with the flag ("--output|-o"). A flag given twice keeps
// the last value, except list flags, which collect every value. "--" ends
// the flags. Unknown flags are errors that name the flag. New flags (e.g.
// tfn-export's future --onnx) are one more registration call.
//
// Depends only on core/ so that tfn-run stays a pure runtime app.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace tfn::tools {

class ArgParser {
 public:
  // `usage` follows the tool's name in "usage: TOOL USAGE"; `description`
  // and `examples` (one command per line) are printed by --help.
  ArgParser(std::string tool, std::string usage, std::string description);

  // A flag without a value (--verify).
  void Flag(const std::string& names, const std::string& help, bool* out);
  // A flag with one value; the last one given wins.
  void String(const std::string& names, const std::string& metavar, const std::string& help,
              std::string* out);
  // A repeatable flag: every value is appended.
  void List(const std::string& names, const std::string& metavar, const std::string& help,
            std::vector<std::string>* out);
  // A flag with a non-negative integer value; `given` (optional) is set when present.
  void Int(const std::string& names, const std::string& metavar, const std::string& help,
           int64_t* out, bool* given = nullptr);
  // Positional arguments, in order; optional ones must come last.
  void Positional(const std::string& name, const std::string& help, std::string* out,
                  bool required = true);
  void Examples(std::vector<std::string> lines) { examples_ = std::move(lines); }

  // Parses argv. --help/-h sets help_requested() and stops. Errors name the
  // offending argument and say what to do.
  Status Parse(int argc, char** argv);
  bool help_requested() const { return help_; }
  std::string Help() const;
  const std::string& tool() const { return tool_; }

 private:
  enum class Kind { kFlag, kString, kList, kInt };
  struct Option {
    std::vector<std::string> names;
    Kind kind;
    std::string metavar, help;
    void* out;
    bool* given;
  };
  struct Pos {
    std::string name, help;
    std::string* out;
    bool required;
  };
  void Add(const std::string& names, Kind kind, const std::string& metavar, const std::string& help,
           void* out, bool* given);
  const Option* Find(const std::string& name) const;
  Status Set(const Option& o, const std::string& name, const std::string& value) const;

  std::string tool_, usage_, description_;
  std::vector<std::string> examples_;
  std::vector<Option> options_;
  std::vector<Pos> positionals_;
  bool help_ = false;
};

// Prints "TOOL: error: MESSAGE" as one line to stderr (newlines in the
// message become "; ") and exits with `code`.
[[noreturn]] void Fail(const std::string& tool, const std::string& message, int code = 1);
// After Parse: exits 0 with the help text on --help, 2 with the error on a
// bad command line (and a hint to use --help), and returns otherwise.
void ExitOnError(const ArgParser& parser, const Status& parse_status);
// Splits "a,b[1,2],c" at commas outside brackets (spec lists on command lines).
std::vector<std::string> SplitTopLevel(const std::string& text, char sep);

}  // namespace tfn::tools
