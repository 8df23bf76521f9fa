// Printing graphs in the text form described in text.h.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ir/text.h"

namespace tfn::ir {

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

namespace {

// Shortest text that parses back to exactly the float `v`.
std::string FormatFloat32(float v) {
  if (std::isnan(v) || std::isinf(v)) return FormatDouble(v);
  char buf[40];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  return buf;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string TensorText(const ConstTensor& t, const PrintOptions& options) {
  std::string s = std::string(DTypeName(t.dtype)) + ShapeToString(t.shape) + " ";
  int64_t n = t.num_elements();
  if (n > options.max_constant_elements) return s + "<" + std::to_string(n) + " elements>";
  s += "[";
  for (int64_t i = 0; i < n; ++i) {
    if (i) s += ",";
    if (t.dtype == DType::kFloat32) {
      s += FormatFloat32(t.as<float>()[i]);
    } else {
      s += IsFloating(t.dtype) ? FormatDouble(t.ElementAsDouble(i)) : std::to_string(t.ElementAsInt(i));
    }
  }
  return s + "]";
}

std::string AttrText(const AttrValue& v, const PrintOptions& options) {
  switch (v.type()) {
    case AttrType::kInt: return std::to_string(v.i());
    case AttrType::kFloat: return FormatDouble(v.f());
    case AttrType::kString: return Quote(v.s());
    case AttrType::kDType: return DTypeName(v.dtype());
    case AttrType::kTensor: return TensorText(v.tensor(), options);
    case AttrType::kInts: {
      std::string s = "[";
      for (size_t i = 0; i < v.ints().size(); ++i) s += (i ? "," : "") + std::to_string(v.ints()[i]);
      return s + "]";
    }
    case AttrType::kFloats: {
      std::string s = "[";
      for (size_t i = 0; i < v.floats().size(); ++i) s += (i ? "," : "") + FormatDouble(v.floats()[i]);
      return s + "]";
    }
  }
  return "?";
}

bool IsDefault(const AttrDef& def, const AttrValue& v) {
  if (def.required) return false;
  switch (v.type()) {
    case AttrType::kInt: return v.i() == def.int_default;
    case AttrType::kFloat: return v.f() == def.float_default;
    case AttrType::kString: return v.s() == def.string_default;
    case AttrType::kDType: return static_cast<int64_t>(v.dtype()) == def.int_default;
    case AttrType::kInts: return v.ints().empty();
    case AttrType::kFloats: return v.floats().empty();
    case AttrType::kTensor: return false;
  }
  return false;
}

std::string ValueText(ValueRef v) {
  std::string s = "%" + std::to_string(v.node);
  if (v.port) s += "#" + std::to_string(v.port);
  return s;
}

void PrintInto(const Graph& g, const PrintOptions& options, const std::string& indent,
               std::string* out) {
  *out += indent + "graph {\n";
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(i);
    std::string line = indent + "  %" + std::to_string(i) + " = " + n.def().name;
    for (size_t k = 0; k < n.inputs.size(); ++k) line += (k ? ", " : " ") + ValueText(n.inputs[k]);
    std::string attrs;
    for (const auto& [name, value] : n.attrs) {
      const AttrDef* def = n.def().FindAttr(name);
      if (def && IsDefault(*def, value)) continue;
      attrs += (attrs.empty() ? "" : ", ") + name + "=" + AttrText(value, options);
    }
    if (!attrs.empty()) line += " {" + attrs + "}";
    line += " :";
    for (size_t k = 0; k < n.outputs.size(); ++k) line += (k ? ", " : " ") + n.outputs[k].ToString();
    if (n.op == OpId::kParameter) {
      int index = static_cast<int>(n.attrs.GetInt("index"));
      if (index >= 0 && index < static_cast<int>(g.param_names().size()) &&
          !g.param_names()[index].empty()) {
        line += " @" + g.param_names()[index];
      }
    }
    if (n.fusion_group >= 0) line += " fusion " + std::to_string(n.fusion_group);
    if (!n.subgraphs.empty()) {
      line += " {\n";
      for (const Graph& sub : n.subgraphs) PrintInto(sub, options, indent + "    ", &line);
      line += indent + "  }";
    }
    *out += line + "\n";
  }
  std::string ret = indent + "  return";
  for (size_t k = 0; k < g.results().size(); ++k) {
    ret += (k ? ", " : " ") + ValueText(g.results()[k]);
    if (!g.result_names()[k].empty()) ret += " @" + g.result_names()[k];
  }
  *out += ret + "\n" + indent + "}\n";
}

}  // namespace

std::string PrintGraph(const Graph& graph, const PrintOptions& options) {
  std::string out;
  PrintInto(graph, options, "", &out);
  return out;
}

std::string Graph::ToString() const { return PrintGraph(*this); }

}  // namespace tfn::ir
