// Implementation of the activation patterns (activation_patterns.h).
#include "ir/passes/activation_patterns.h"

namespace tfn::ir {

UserLists Users(const Graph& g) {
  UserLists users(g.num_nodes());
  for (int i = 0; i < g.num_nodes(); ++i) {
    for (ValueRef v : g.node(i).inputs) users[v.node].push_back(i);
  }
  for (ValueRef v : g.results()) users[v.node].push_back(-1);
  return users;
}

bool ScalarConstant(const Graph& g, ValueRef v, double* out) {
  const ConstTensor* c = g.ConstantValue(v);
  if (!c || c->num_elements() != 1 ||
      (c->dtype != DType::kFloat32 && c->dtype != DType::kFloat64)) {
    return false;
  }
  *out = c->ElementAsDouble(0);
  return true;
}

namespace {

// The graph, the use lists and the claimed nodes of one match.
class Matcher {
 public:
  Matcher(const Graph& g, ValueRef x, const UserLists& users, const std::vector<bool>& claimed)
      : g_(g), x_(x), users_(users), claimed_(claimed) {}

  bool Match(ActivationMatch* m) {
    const std::vector<int>& xu = users_[x_.node];
    if (xu.size() == 1) return xu[0] >= 0 && HardSigmoid(xu[0], m);
    if (xu.size() != 2 || xu[0] < 0 || xu[1] < 0 || xu[0] == xu[1]) return false;
    for (int side = 0; side < 2; ++side) {
      if (Gelu(xu[side], xu[1 - side], m) || HardSwish(xu[side], xu[1 - side], m) ||
          Silu(xu[side], xu[1 - side], m)) {
        return true;
      }
    }
    return false;
  }

 private:
  // The single, unclaimed user of node n, or -1.
  int Single(int n) const {
    const std::vector<int>& u = users_[n];
    return u.size() == 1 && u[0] >= 0 && !claimed_[u[0]] ? u[0] : -1;
  }
  // Node n is an unclaimed `op` with `arity` inputs and x's output type.
  bool Is(int n, OpId op, int arity) const {
    if (n < 0 || claimed_[n]) return false;
    const Node& node = g_.node(n);
    return node.op == op && static_cast<int>(node.inputs.size()) == arity &&
           node.outputs.size() == 1 && node.outputs[0] == g_.type(x_);
  }
  // The input of binary node n that is not v (v must be one of them).
  ValueRef Other(int n, ValueRef v) const {
    const Node& node = g_.node(n);
    return node.inputs[0] == v ? node.inputs[1] : node.inputs[0];
  }
  bool Uses(int n, ValueRef v) const {
    const Node& node = g_.node(n);
    return node.inputs[0] == v || node.inputs[1] == v;
  }
  bool IsScalar(ValueRef v, double want, double tol) const {
    double k = 0;
    return ScalarConstant(g_, v, &k) && k >= want - tol && k <= want + tol;
  }
  // Binary node n multiplies v by itself (x * x is not an activation).
  bool Squares(int n) const { return g_.node(n).inputs[0] == g_.node(n).inputs[1]; }

  // maximum(minimum(x * alpha + beta, 1), 0) starting at mul node `mul`;
  // the node computing it, or -1.
  int HardSigmoidFrom(int mul, double* alpha, double* beta, std::vector<int>* nodes) const {
    if (!Is(mul, OpId::kMul, 2) || Squares(mul) || !Uses(mul, x_) ||
        !ScalarConstant(g_, Other(mul, x_), alpha)) {
      return -1;
    }
    const int add = Single(mul);
    if (!Is(add, OpId::kAdd, 2) || !ScalarConstant(g_, Other(add, ValueRef{mul, 0}), beta)) {
      return -1;
    }
    const int first = Single(add);
    const bool min_first = Is(first, OpId::kMinimum, 2);
    if (!min_first && !Is(first, OpId::kMaximum, 2)) return -1;
    if (!IsScalar(Other(first, ValueRef{add, 0}), min_first ? 1.0 : 0.0, 0)) return -1;
    const int second = Single(first);
    if (!Is(second, min_first ? OpId::kMaximum : OpId::kMinimum, 2) ||
        !IsScalar(Other(second, ValueRef{first, 0}), min_first ? 0.0 : 1.0, 0)) {
      return -1;
    }
    *nodes = {mul, add, first};
    return second;
  }

  bool HardSigmoid(int mul, ActivationMatch* m) const {
    const int r = HardSigmoidFrom(mul, &m->alpha, &m->beta, &m->inner);
    if (r < 0) return false;
    m->act = "hard_sigmoid";
    m->result = r;
    return true;
  }

  // x * hard_sigmoid(x): `mul` starts the hard sigmoid, `prod` multiplies.
  bool HardSwish(int mul, int prod, ActivationMatch* m) const {
    if (!Is(prod, OpId::kMul, 2) || Squares(prod)) return false;
    const int hs = HardSigmoidFrom(mul, &m->alpha, &m->beta, &m->inner);
    if (hs < 0 || Single(hs) != prod || Other(prod, x_) != ValueRef{hs, 0}) return false;
    m->inner.push_back(hs);
    m->act = "hard_swish";
    m->result = prod;
    return true;
  }

  // x * sigmoid(x).
  bool Silu(int sig, int prod, ActivationMatch* m) const {
    if (!Is(sig, OpId::kSigmoid, 1) || !Is(prod, OpId::kMul, 2) || Squares(prod) ||
        Single(sig) != prod || Other(prod, x_) != ValueRef{sig, 0}) {
      return false;
    }
    m->act = "silu";
    m->inner = {sig};
    m->result = prod;
    return true;
  }

  // GELU with erf; `d` scales x by 1/sqrt2, `m` multiplies x.
  bool Gelu(int d, int mn, ActivationMatch* m) const {
    const Node& dn = g_.node(d);
    const bool scaled =
        (Is(d, OpId::kDiv, 2) && dn.inputs[0] == x_ && IsScalar(dn.inputs[1], 1.41421356, 1e-5)) ||
        (Is(d, OpId::kMul, 2) && IsScalar(Other(d, x_), 0.70710678, 1e-6));
    if (!scaled) return false;
    const int e = Single(d);
    if (!Is(e, OpId::kErf, 1)) return false;
    const int a = Single(e);
    if (!Is(a, OpId::kAdd, 2) || !IsScalar(Other(a, ValueRef{e, 0}), 1.0, 0)) return false;
    if (!Is(mn, OpId::kMul, 2)) return false;
    const ValueRef mo = Other(mn, x_), av{a, 0};
    const int m2 = Single(mn);
    int result = -1;
    std::vector<int> nodes = {d, e, a, mn};
    if (mo == av && Is(m2, OpId::kMul, 2) && IsScalar(Other(m2, ValueRef{mn, 0}), 0.5, 0)) {
      result = m2;  // (x * (1 + erf)) * 0.5
    } else if (IsScalar(mo, 0.5, 0) && Is(m2, OpId::kMul, 2) && Single(a) == m2) {
      result = m2;  // (x * 0.5) * (1 + erf)
    } else if (mo.node == Single(a) && Is(mo.node, OpId::kMul, 2) && Single(mo.node) == mn &&
               IsScalar(Other(mo.node, av), 0.5, 0)) {
      result = mn;  // x * ((1 + erf) * 0.5)
      nodes = {d, e, a, mo.node};
    }
    if (result < 0) return false;
    m->act = "gelu";
    m->inner = nodes;
    m->result = result;
    return true;
  }

  const Graph& g_;
  const ValueRef x_;
  const UserLists& users_;
  const std::vector<bool>& claimed_;
};

}  // namespace

bool MatchActivation(const Graph& g, ValueRef x, const UserLists& users,
                     const std::vector<bool>& claimed, ActivationMatch* m) {
  return Matcher(g, x, users, claimed).Match(m);
}

}  // namespace tfn::ir
