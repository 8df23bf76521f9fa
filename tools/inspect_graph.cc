// Implementation of tfn-inspect's graph views: histogram, constant bytes, dot.
#include "tools/inspect_graph.h"

#include <cstdio>

namespace tfn::tools {
namespace {

std::string DotEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";  // a line break inside a label
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string OutputTypes(const ir::Node& node) {
  std::string s;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    s += (i ? ", " : "") + node.outputs[i].ToString();
  }
  return s;
}

// Writes one graph's nodes and edges; `id` prefixes its node names so that
// subgraphs' nodes are unique in the file.
void EmitGraph(const ir::Graph& g, const std::string& id, const std::string& indent, bool top,
               std::string* out) {
  auto node_name = [&](int i) { return id + "n" + std::to_string(i); };
  const std::vector<int>& params = g.params();
  for (int i = 0; i < g.num_nodes(); ++i) {
    const ir::Node& n = g.node(i);
    std::string label = n.def().name, shape;
    if (n.op == OpId::kParameter) {
      std::string pname;
      for (size_t p = 0; p < params.size(); ++p) {
        if (params[p] == i && p < g.param_names().size()) pname = g.param_names()[p];
      }
      label = pname.empty() ? "parameter" : pname;
      shape = ", shape=ellipse";
    } else if (n.def().has(kStateful) && !n.attrs.GetString("name").empty()) {
      label += " " + n.attrs.GetString("name");  // var_read mlp/dense1/kernel
    }
    std::string types = OutputTypes(n);
    if (!types.empty()) label += "\n" + types;
    *out += indent + node_name(i) + " [label=\"" + DotEscape(label) + "\"" + shape + "];\n";
    for (const ir::ValueRef& in : n.inputs) {
      *out += indent + node_name(in.node) + " -> " + node_name(i);
      if (in.port != 0) *out += " [label=\"#" + std::to_string(in.port) + "\"]";
      *out += ";\n";
    }
    for (size_t s = 0; s < n.subgraphs.size(); ++s) {
      const ir::Graph& sub = n.subgraphs[s];
      std::string sub_id = id + "n" + std::to_string(i) + "_" + std::to_string(s) + "_";
      const char* role =
          n.op == OpId::kCond ? (s == 0 ? "then" : "else") : (s == 0 ? "cond" : "body");
      *out += indent + "subgraph cluster_" + sub_id + " {\n";
      *out += indent + "  label=\"" +
              DotEscape(std::string(n.def().name) + " %" + std::to_string(i) + ": " + role) +
              "\";\n  " + indent + "style=rounded;\n";
      EmitGraph(sub, sub_id, indent + "  ", /*top=*/false, out);
      *out += indent + "}\n";
      for (int p : sub.params()) {
        *out += indent + node_name(i) + " -> " + sub_id + "n" + std::to_string(p) +
                " [style=dashed];\n";
      }
      *out += indent + sub_id + "return -> " + node_name(i) + " [style=dashed];\n";
    }
  }
  // Results: named ellipses at the top level, one "return" box in subgraphs.
  if (!top) *out += indent + id + "return [label=\"return\"];\n";
  for (size_t r = 0; r < g.results().size(); ++r) {
    ir::ValueRef v = g.results()[r];
    if (top) {
      std::string rname = r < g.result_names().size() ? g.result_names()[r] : "";
      if (rname.empty()) rname = "output " + std::to_string(r);
      *out += indent + id + "out" + std::to_string(r) + " [label=\"" +
              DotEscape(rname + "\n" + g.type(v).ToString()) + "\", shape=ellipse];\n";
      *out += indent + node_name(v.node) + " -> " + id + "out" + std::to_string(r) +
              (v.port ? " [label=\"#" + std::to_string(v.port) + "\"]" : "") + ";\n";
    } else {
      *out += indent + node_name(v.node) + " -> " + id + "return" +
              (v.port ? " [label=\"#" + std::to_string(v.port) + "\"]" : "") + ";\n";
    }
  }
}

}  // namespace

std::string StaticTypeString(const ir::TensorType& type) {
  std::string s = std::string(DTypeName(type.dtype)) + "[";
  for (int i = 0; i < type.shape.rank(); ++i) {
    const SymDim& d = type.shape[i];
    s += (i ? "," : "") + (d.is_static() ? std::to_string(d.value()) : std::string("?"));
  }
  return s + "]";
}

void CountOps(const ir::Graph& graph, std::map<std::string, int64_t>* counts) {
  for (const ir::Node& n : graph.nodes()) {
    ++(*counts)[n.def().name];
    for (const ir::Graph& sub : n.subgraphs) CountOps(sub, counts);
  }
}

int64_t ConstantBytes(const ir::Graph& graph, std::set<const void*>* seen) {
  int64_t bytes = 0;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const ConstTensor* c = graph.ConstantValue(ir::ValueRef{i, 0});
    if (c && c->data && seen->insert(c->data).second) bytes += c->byte_size();
    for (const ir::Graph& sub : graph.node(i).subgraphs) bytes += ConstantBytes(sub, seen);
  }
  return bytes;
}

std::string GraphToDot(const ir::Graph& graph, const std::string& name) {
  std::string out = "digraph \"" + DotEscape(name) + "\" {\n";
  out += "  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  EmitGraph(graph, "", "  ", /*top=*/true, &out);
  return out + "}\n";
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace tfn::tools
