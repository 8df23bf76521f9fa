// Implementation of the tools' argument parser and error exit.
#include "tools/args.h"

#include <cstdio>
#include <cstdlib>

namespace tfn::tools {
namespace {

std::vector<std::string> SplitNames(const std::string& names) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t bar = names.find('|', pos);
    out.push_back(names.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos));
    if (bar == std::string::npos) return out;
    pos = bar + 1;
  }
}

}  // namespace

ArgParser::ArgParser(std::string tool, std::string usage, std::string description)
    : tool_(std::move(tool)), usage_(std::move(usage)), description_(std::move(description)) {}

void ArgParser::Add(const std::string& names, Kind kind, const std::string& metavar,
                    const std::string& help, void* out, bool* given) {
  options_.push_back(Option{SplitNames(names), kind, metavar, help, out, given});
}
void ArgParser::Flag(const std::string& names, const std::string& help, bool* out) {
  Add(names, Kind::kFlag, "", help, out, nullptr);
}
void ArgParser::String(const std::string& names, const std::string& metavar,
                       const std::string& help, std::string* out) {
  Add(names, Kind::kString, metavar, help, out, nullptr);
}
void ArgParser::List(const std::string& names, const std::string& metavar, const std::string& help,
                     std::vector<std::string>* out) {
  Add(names, Kind::kList, metavar, help, out, nullptr);
}
void ArgParser::Int(const std::string& names, const std::string& metavar, const std::string& help,
                    int64_t* out, bool* given) {
  Add(names, Kind::kInt, metavar, help, out, given);
}
void ArgParser::Positional(const std::string& name, const std::string& help, std::string* out,
                           bool required) {
  positionals_.push_back(Pos{name, help, out, required});
}

const ArgParser::Option* ArgParser::Find(const std::string& name) const {
  for (const Option& o : options_) {
    for (const std::string& n : o.names) {
      if (n == name) return &o;
    }
  }
  return nullptr;
}

Status ArgParser::Set(const Option& o, const std::string& name, const std::string& value) const {
  switch (o.kind) {
    case Kind::kFlag:
      *static_cast<bool*>(o.out) = true;
      break;
    case Kind::kString:
      *static_cast<std::string*>(o.out) = value;
      break;
    case Kind::kList:
      static_cast<std::vector<std::string>*>(o.out)->push_back(value);
      break;
    case Kind::kInt: {
      char* end = nullptr;
      long long v = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end || v < 0) {
        return InvalidArgument(name + " takes a non-negative integer, got '" + value + "'");
      }
      *static_cast<int64_t*>(o.out) = v;
      if (o.given) *o.given = true;
      break;
    }
  }
  return Status::Ok();
}

Status ArgParser::Parse(int argc, char** argv) {
  size_t next_positional = 0;
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!flags_done && (arg == "--help" || arg == "-h")) {
      help_ = true;
      return Status::Ok();
    }
    if (!flags_done && arg == "--") {
      flags_done = true;
      continue;
    }
    if (!flags_done && arg.size() > 1 && arg[0] == '-') {
      size_t eq = arg.find('=');
      std::string name = arg.substr(0, eq);
      const Option* o = Find(name);
      if (!o) return InvalidArgument("unknown flag '" + name + "'");
      if (o->kind == Kind::kFlag) {
        if (eq != std::string::npos) return InvalidArgument(name + " takes no value");
        TFN_RETURN_IF_ERROR(Set(*o, name, ""));
        continue;
      }
      std::string value;
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return InvalidArgument(name + " needs a value (" + name + " " + o->metavar + ")");
      }
      TFN_RETURN_IF_ERROR(Set(*o, name, value));
      continue;
    }
    if (next_positional >= positionals_.size()) {
      return InvalidArgument("unexpected argument '" + arg + "'");
    }
    *positionals_[next_positional++].out = arg;
  }
  for (size_t p = next_positional; p < positionals_.size(); ++p) {
    if (positionals_[p].required) return InvalidArgument("missing " + positionals_[p].name);
  }
  return Status::Ok();
}

std::string ArgParser::Help() const {
  std::string out = "usage: " + tool_ + " " + usage_ + "\n\n" + description_ + "\n";
  if (!positionals_.empty()) out += "\narguments:\n";
  auto row = [&](std::string left, const std::string& help) {
    left = "  " + left;
    if (left.size() < 30) {
      left.resize(30, ' ');
    } else {
      left += "\n" + std::string(30, ' ');
    }
    // Wrap the help at 100 columns under its own column.
    std::string line;
    for (size_t pos = 0; pos < help.size();) {
      size_t end = help.find(' ', pos);
      std::string word = help.substr(pos, end == std::string::npos ? end : end - pos);
      if (!line.empty() && 30 + line.size() + 1 + word.size() > 100) {
        out += left + line + "\n";
        left = std::string(30, ' ');
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
      pos = end == std::string::npos ? help.size() : end + 1;
    }
    out += left + line + "\n";
  };
  for (const Pos& p : positionals_) row(p.name, p.help);
  out += "\noptions:\n";
  for (const Option& o : options_) {
    std::string left;
    for (size_t k = o.names.size(); k-- > 0;) left += o.names[k] + (k ? ", " : "");
    if (o.kind != Kind::kFlag) left += " " + o.metavar;
    row(left, o.help + (o.kind == Kind::kList ? " (repeatable)" : ""));
  }
  row("-h, --help", "show this help and exit");
  if (!examples_.empty()) {
    out += "\nexamples:\n";
    for (const std::string& e : examples_) out += "  " + e + "\n";
  }
  return out;
}

void Fail(const std::string& tool, const std::string& message, int code) {
  std::string line;
  for (char c : message) {
    if (c == '\n') {
      if (!line.empty() && line.back() != ' ') line += "; ";
    } else {
      line += c;
    }
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", tool.c_str(), line.c_str());
  std::exit(code);
}

void ExitOnError(const ArgParser& parser, const Status& parse_status) {
  if (parser.help_requested()) {
    std::fputs(parser.Help().c_str(), stdout);
    std::exit(0);
  }
  if (!parse_status.ok()) {
    Fail(parser.tool(), parse_status.message() + " (see " + parser.tool() + " --help)", 2);
  }
}

std::vector<std::string> SplitTopLevel(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '(') ++depth;
    if ((c == ']' || c == ')') && depth > 0) --depth;
    if (c == sep && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

}  // namespace tfn::tools
