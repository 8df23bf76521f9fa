// Parsing the text form of graphs (text.h): a small recursive-descent parser
// that rebuilds the graph through the checked builder, so a parsed graph
// satisfies the same invariants as a traced one.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "ir/text.h"

namespace tfn::ir {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  absl::StatusOr<Graph> ParseTop() {
    Graph root;
    absl::Status st = ParseGraphInto(&root);
    if (!st.ok()) return st;
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected text after the graph");
    return root;
  }

 private:
  absl::Status Error(const std::string& what) const {
    int line = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) line += s_[i] == '\n';
    return absl::InvalidArgumentError("line " + std::to_string(line) + ": " + what);
  }

  void SkipSpace() {
    while (pos_ < s_.size()) {
      if (std::isspace(static_cast<unsigned char>(s_[pos_]))) {
        ++pos_;
      } else if (s_.substr(pos_, 2) == "//") {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool EatWord(std::string_view w) {
    SkipSpace();
    if (s_.substr(pos_, w.size()) != w) return false;
    size_t end = pos_ + w.size();
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) {
      return false;
    }
    pos_ = end;
    return true;
  }
  std::string Ident() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '_' || s_[pos_] == '.')) {
      ++pos_;
    }
    return std::string(s_.substr(start, pos_ - start));
  }
  // A number token: digits, sign, '.', exponent, or nan/inf.
  std::string NumberToken() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '-' || s_[pos_] == '+' || s_[pos_] == '.')) {
      ++pos_;
    }
    return std::string(s_.substr(start, pos_ - start));
  }
  bool ParseInt(int64_t* v) {
    std::string t = NumberToken();
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || errno) return false;
    *v = x;
    return true;
  }
  bool ParseDouble(double* v) {
    std::string t = NumberToken();
    if (t == "nan" || t == "-nan") {
      *v = std::nan("");
      return true;
    }
    char* end = nullptr;
    *v = std::strtod(t.c_str(), &end);
    return !t.empty() && *end == '\0';
  }

  absl::Status ParseType(TensorType* t) {
    std::string name = Ident();
    t->dtype = ParseDType(name);
    if (t->dtype == DType::kInvalid) return Error("unknown dtype '" + name + "'");
    if (!Eat('[')) return Error("expected '[' after the dtype");
    t->shape = SymShape();
    if (Eat(']')) return absl::OkStatus();
    while (true) {
      SkipSpace();
      size_t start = pos_;
      int depth = 0;
      while (pos_ < s_.size() && !(depth == 0 && (s_[pos_] == ',' || s_[pos_] == ']'))) {
        depth += s_[pos_] == '(';
        depth -= s_[pos_] == ')';
        ++pos_;
      }
      SymDim d;
      std::string err;
      std::string text(s_.substr(start, pos_ - start));
      while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
      if (!ParseSymDim(text, &d, &err)) return Error(err);
      if (t->shape.rank() >= kMaxRank) return Error("rank above the maximum");
      t->shape.push_back(d);
      if (Eat(']')) return absl::OkStatus();
      if (!Eat(',')) return Error("expected ',' or ']' in a shape");
    }
  }

  absl::Status ParseTensor(ConstTensor* out) {
    std::string name = Ident();
    DType dtype = ParseDType(name);
    if (dtype == DType::kInvalid) return Error("unknown dtype '" + name + "'");
    if (!Eat('[')) return Error("expected the tensor's shape");
    Shape shape;
    if (!Eat(']')) {
      while (true) {
        int64_t d;
        if (!ParseInt(&d) || d < 0) return Error("bad tensor dim");
        if (shape.rank() >= kMaxRank) return Error("rank above the maximum");
        shape.push_back(d);
        if (Eat(']')) break;
        if (!Eat(',')) return Error("expected ',' or ']' in a tensor shape");
      }
    }
    int64_t n;
    if (!CheckedNumElements(shape, &n) || n > (int64_t{1} << 24)) return Error("tensor too large");
    if (!Eat('[')) return Error("expected the tensor's values in [...]");
    void* data = nullptr;
    *out = ConstTensor::Allocate(dtype, shape, &data);
    for (int64_t i = 0; i < n; ++i) {
      if (i && !Eat(',')) return Error("expected ',' between tensor values");
      double v;
      if (!ParseDouble(&v)) return Error("bad tensor value");
      VisitDType(dtype, [&](auto tag) {
        using T = decltype(tag);
        static_cast<T*>(data)[i] = static_cast<T>(v);
        return 0;
      });
    }
    if (!Eat(']')) return Error("expected ']' after " + std::to_string(n) + " tensor values");
    return absl::OkStatus();
  }

  absl::Status ParseAttr(const OpDef& def, Attrs* attrs) {
    std::string name = Ident();
    if (!Eat('=')) return Error("expected '=' after attribute '" + name + "'");
    const AttrDef* a = def.FindAttr(name);
    if (!a) return Error(std::string(def.name) + " has no attribute '" + name + "'");
    switch (a->type) {
      case AttrType::kInt: {
        int64_t v;
        if (!ParseInt(&v)) return Error("expected an int for '" + name + "'");
        attrs->Set(name, AttrValue::Int(v));
        return absl::OkStatus();
      }
      case AttrType::kFloat: {
        double v;
        if (!ParseDouble(&v)) return Error("expected a number for '" + name + "'");
        attrs->Set(name, AttrValue::Float(v));
        return absl::OkStatus();
      }
      case AttrType::kString: {
        if (!Eat('"')) return Error("expected a quoted string for '" + name + "'");
        std::string v;
        while (pos_ < s_.size() && s_[pos_] != '"') {
          if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) {
            ++pos_;
            v += s_[pos_] == 'n' ? '\n' : s_[pos_];
          } else {
            v += s_[pos_];
          }
          ++pos_;
        }
        if (pos_ >= s_.size()) return Error("unterminated string");
        ++pos_;
        attrs->Set(name, AttrValue::String(v));
        return absl::OkStatus();
      }
      case AttrType::kDType: {
        DType t = ParseDType(Ident());
        if (t == DType::kInvalid) return Error("expected a dtype for '" + name + "'");
        attrs->Set(name, AttrValue::Type(t));
        return absl::OkStatus();
      }
      case AttrType::kInts:
      case AttrType::kFloats: {
        if (!Eat('[')) return Error("expected '[' for '" + name + "'");
        std::vector<int64_t> ints;
        std::vector<double> floats;
        if (!Eat(']')) {
          while (true) {
            if (a->type == AttrType::kInts) {
              int64_t v;
              if (!ParseInt(&v)) return Error("expected ints in '" + name + "'");
              ints.push_back(v);
            } else {
              double v;
              if (!ParseDouble(&v)) return Error("expected numbers in '" + name + "'");
              floats.push_back(v);
            }
            if (Eat(']')) break;
            if (!Eat(',')) return Error("expected ',' or ']' in '" + name + "'");
          }
        }
        attrs->Set(name, a->type == AttrType::kInts ? AttrValue::Ints(ints)
                                                    : AttrValue::Floats(floats));
        return absl::OkStatus();
      }
      case AttrType::kTensor: {
        ConstTensor t;
        absl::Status st = ParseTensor(&t);
        if (!st.ok()) return st;
        attrs->Set(name, AttrValue::Tensor(std::move(t)));
        return absl::OkStatus();
      }
    }
    return Error("unsupported attribute type");
  }

  absl::Status ParseOperand(const std::map<std::string, std::vector<ValueRef>>& values,
                            ValueRef* out) {
    if (!Eat('%')) return Error("expected an operand '%name'");
    std::string id = Ident();
    auto it = values.find(id);
    if (it == values.end()) return Error("unknown value %" + id);
    int64_t port = 0;
    if (Eat('#') && !ParseInt(&port)) return Error("bad port after %" + id);
    if (port < 0 || port >= static_cast<int64_t>(it->second.size())) {
      return Error("%" + id + " has no output #" + std::to_string(port));
    }
    *out = it->second[port];
    return absl::OkStatus();
  }

  absl::Status ParseGraphInto(Graph* g) {
    if (!EatWord("graph")) return Error("expected 'graph'");
    if (!Eat('{')) return Error("expected '{' after 'graph'");
    std::map<std::string, std::vector<ValueRef>> values;
    while (true) {
      if (EatWord("return")) {
        std::vector<ValueRef> results;
        std::vector<std::string> names;
        while (!Peek('}')) {
          if (!results.empty() && !Eat(',')) return Error("expected ',' between results");
          ValueRef v;
          absl::Status st = ParseOperand(values, &v);
          if (!st.ok()) return st;
          results.push_back(v);
          names.push_back(Eat('@') ? Ident() : "");
        }
        Eat('}');
        g->SetResults(results, names);
        return absl::OkStatus();
      }
      if (!Eat('%')) return Error("expected '%name = op ...' or 'return'");
      std::string id = Ident();
      if (id.empty() || values.count(id)) return Error("missing or repeated value name %" + id);
      if (!Eat('=')) return Error("expected '=' after %" + id);
      std::string op_name = Ident();
      const OpDef* def = FindOpDef(op_name);
      if (!def) return Error("unknown op '" + op_name + "'");
      std::vector<ValueRef> inputs;
      while (Peek('%')) {
        ValueRef v;
        absl::Status st = ParseOperand(values, &v);
        if (!st.ok()) return st;
        inputs.push_back(v);
        if (!Eat(',')) break;
      }
      Attrs attrs;
      if (Eat('{')) {
        while (!Eat('}')) {
          if (attrs.size() && !Eat(',')) return Error("expected ',' between attributes");
          absl::Status st = ParseAttr(*def, &attrs);
          if (!st.ok()) return st;
        }
      }
      if (!Eat(':')) return Error("expected ':' and the output types of %" + id);
      std::vector<TensorType> types;
      if (def->sig->type_rule != TypeRule::kNoOutputs) {
        do {
          TensorType t;
          absl::Status st = ParseType(&t);
          if (!st.ok()) return st;
          types.push_back(t);
        } while (Eat(','));
      }
      std::string name = Eat('@') ? Ident() : "";
      int fusion_group = -1;
      if (EatWord("fusion")) {
        std::string group = NumberToken();
        char* end = nullptr;
        long v = std::strtol(group.c_str(), &end, 10);
        if (group.empty() || *end != '\0' || v < 0 || v > (1 << 30)) {
          return Error("expected a group number after 'fusion', found '" + group + "'");
        }
        fusion_group = static_cast<int>(v);
      }
      std::vector<Graph> subgraphs;
      if (def->has(kControlFlow)) {
        if (!Eat('{')) return Error(op_name + " needs its subgraphs in { graph {...} ... }");
        while (!Eat('}')) {
          Graph sub = g->NewSubgraph();
          absl::Status st = ParseGraphInto(&sub);
          if (!st.ok()) return st;
          subgraphs.push_back(std::move(sub));
        }
      }
      std::vector<ValueRef> outs;
      if (def->id == OpId::kParameter) {
        if (types.size() != 1) return Error("a parameter has one type");
        outs.push_back(g->AddParameter(types[0], name));
      } else {
        absl::StatusOr<std::vector<ValueRef>> r =
            g->AddNode(def->id, inputs, attrs, std::move(subgraphs));
        if (!r.ok()) return Error("%" + id + ": " + std::string(r.status().message()));
        outs = *r;
        if (outs.size() != types.size()) {
          return Error("%" + id + " has " + std::to_string(outs.size()) + " outputs, " +
                       std::to_string(types.size()) + " types are written");
        }
        for (size_t k = 0; k < outs.size(); ++k) {
          const TensorType& inferred = g->type(outs[k]);
          bool fresh = false;  // data-dependent dims get new names; accept any symbol there
          for (int d = 0; d < inferred.shape.rank() && d < types[k].shape.rank(); ++d) {
            fresh |= inferred.shape[d].is_symbol() && types[k].shape[d].is_symbol() &&
                     inferred.shape[d].symbol_name()[0] == 'd';
          }
          if (inferred != types[k] && !fresh) {
            return Error("%" + id + ": the written type " + types[k].ToString() +
                         " differs from the inferred " + inferred.ToString());
          }
        }
      }
      if (fusion_group >= 0) {
        if (outs.empty()) return Error("%" + id + " has no outputs to fuse");
        g->mutable_nodes()[outs[0].node].fusion_group = fusion_group;
      }
      values[id] = outs;
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Graph> ParseGraph(std::string_view text) { return Parser(text).ParseTop(); }

}  // namespace tfn::ir
