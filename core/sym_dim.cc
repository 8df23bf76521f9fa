// Canonical polynomial form and interning of symbolic dims.
//
// A dim is held as constant + sum(coeff * monomial), a monomial being a
// sorted list of atoms. Arithmetic converts to that form, combines, and
// interns the result under a canonical key, so equal polynomials share one
// node and compare equal by pointer.
#include "core/sym_dim.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace tfn {

using sym::Atom;
using sym::AtomKind;
using sym::Node;
using sym::Term;

struct SymDimAccess {
  static SymDim Make(const Node* n) {
    SymDim d;
    d.node_ = n;
    return d;
  }
  static const Node* Get(const SymDim& d) { return d.node_; }
};

namespace {

// Wrapping arithmetic: coefficients of real shapes never get near 2^63, and
// wrapping keeps hostile inputs from being undefined behaviour.
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

struct Store {
  std::mutex mu;
  std::unordered_map<std::string, std::unique_ptr<Node>> nodes;
  std::unordered_map<std::string, std::unique_ptr<Atom>> atoms;
  int next_atom_id = 0;
};
Store& GetStore() {
  static Store* store = new Store;  // never destroyed: dims may be used during exit
  return *store;
}

std::string DimKey(const SymDim& d) {
  return d.is_static() ? "#" + std::to_string(d.value()) : "{" + d.node()->key + "}";
}

const Atom* InternAtom(AtomKind kind, const std::string& name, const SymDim& a, const SymDim& b) {
  std::string key = std::to_string(static_cast<int>(kind)) + ":" +
                    (kind == AtomKind::kSymbol ? name : DimKey(a) + "," + DimKey(b));
  Store& s = GetStore();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.atoms.find(key);
  if (it != s.atoms.end()) return it->second.get();
  auto atom = std::make_unique<Atom>(Atom{kind, name, a, b, s.next_atom_id++});
  const Atom* p = atom.get();
  s.atoms.emplace(std::move(key), std::move(atom));
  return p;
}

struct FactorsLess {
  bool operator()(const std::vector<const Atom*>& x, const std::vector<const Atom*>& y) const {
    return std::lexicographical_compare(
        x.begin(), x.end(), y.begin(), y.end(),
        [](const Atom* a, const Atom* b) { return a->id < b->id; });
  }
};

struct Poly {
  int64_t constant = 0;
  std::map<std::vector<const Atom*>, int64_t, FactorsLess> terms;
};

Poly ToPoly(const SymDim& d) {
  Poly p;
  if (d.is_static()) {
    p.constant = d.value();
    return p;
  }
  p.constant = d.node()->constant;
  for (const Term& t : d.node()->terms) p.terms[t.factors] = t.coeff;
  return p;
}

SymDim FromPoly(const Poly& p) {
  std::vector<Term> terms;
  for (const auto& [factors, coeff] : p.terms) {
    if (coeff != 0) terms.push_back(Term{coeff, factors});
  }
  if (terms.empty()) return SymDim(p.constant);
  std::string key;
  for (const Term& t : terms) {
    key += std::to_string(t.coeff);
    for (const Atom* a : t.factors) key += "*" + std::to_string(a->id);
    key += ";";
  }
  key += std::to_string(p.constant);
  Store& s = GetStore();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.nodes.find(key);
  if (it == s.nodes.end()) {
    auto node = std::make_unique<Node>(Node{p.constant, std::move(terms), key});
    it = s.nodes.emplace(key, std::move(node)).first;
  }
  return SymDimAccess::Make(it->second.get());
}

SymDim FromAtom(const Atom* a) {
  Poly p;
  p.terms[{a}] = 1;
  return FromPoly(p);
}

Poly Scale(const Poly& p, int64_t c) {
  Poly r;
  r.constant = WrapMul(p.constant, c);
  for (const auto& [f, k] : p.terms) r.terms[f] = WrapMul(k, c);
  return r;
}

// Returns true when every coefficient and the constant are divisible by c.
bool AllDivisible(const Poly& p, int64_t c, bool include_constant) {
  if (include_constant && p.constant % c != 0) return false;
  for (const auto& [f, k] : p.terms) {
    if (k % c != 0) return false;
  }
  return true;
}

// Removes one occurrence of each atom of `divisor` from `factors`; false when
// some atom is missing.
bool DivideFactors(const std::vector<const Atom*>& factors, const std::vector<const Atom*>& divisor,
                   std::vector<const Atom*>* out) {
  std::vector<const Atom*> rest = factors;
  for (const Atom* a : divisor) {
    auto it = std::find(rest.begin(), rest.end(), a);
    if (it == rest.end()) return false;
    rest.erase(it);
  }
  *out = std::move(rest);
  return true;
}

// Orders two operands of a commutative atom canonically, by printed text so
// that the order (and printing) is the same in every process.
void OrderPair(SymDim* a, SymDim* b) {
  if (b->ToString() < a->ToString()) std::swap(*a, *b);
}

}  // namespace

SymDim SymDim::Symbol(std::string_view name) {
  return FromAtom(InternAtom(AtomKind::kSymbol, std::string(name), SymDim(), SymDim()));
}

bool SymDim::is_symbol() const {
  return node_ && node_->constant == 0 && node_->terms.size() == 1 &&
         node_->terms[0].coeff == 1 && node_->terms[0].factors.size() == 1 &&
         node_->terms[0].factors[0]->kind == AtomKind::kSymbol;
}

std::string SymDim::symbol_name() const {
  return is_symbol() ? node_->terms[0].factors[0]->name : std::string();
}

SymDim operator+(const SymDim& a, const SymDim& b) {
  if (a.is_static() && b.is_static()) return SymDim(WrapAdd(a.value(), b.value()));
  Poly p = ToPoly(a);
  Poly q = ToPoly(b);
  p.constant = WrapAdd(p.constant, q.constant);
  for (const auto& [f, k] : q.terms) p.terms[f] = WrapAdd(p.terms[f], k);
  return FromPoly(p);
}

SymDim operator-(const SymDim& a, const SymDim& b) {
  if (a.is_static() && b.is_static()) return SymDim(WrapAdd(a.value(), -b.value()));
  return a + FromPoly(Scale(ToPoly(b), -1));
}

SymDim operator*(const SymDim& a, const SymDim& b) {
  if (a.is_static() && b.is_static()) return SymDim(WrapMul(a.value(), b.value()));
  Poly p = ToPoly(a);
  Poly q = ToPoly(b);
  Poly r;
  r.constant = WrapMul(p.constant, q.constant);
  auto add_term = [&](std::vector<const Atom*> f, int64_t k) {
    std::sort(f.begin(), f.end(), [](const Atom* x, const Atom* y) { return x->id < y->id; });
    r.terms[f] = WrapAdd(r.terms[f], k);
  };
  for (const auto& [f, k] : p.terms) add_term(f, WrapMul(k, q.constant));
  for (const auto& [f, k] : q.terms) add_term(f, WrapMul(k, p.constant));
  for (const auto& [f1, k1] : p.terms) {
    for (const auto& [f2, k2] : q.terms) {
      std::vector<const Atom*> f = f1;
      f.insert(f.end(), f2.begin(), f2.end());
      add_term(std::move(f), WrapMul(k1, k2));
    }
  }
  return FromPoly(r);
}

SymDim FloorDiv(const SymDim& a, const SymDim& b) {
  if (a.is_static() && b.is_static()) return SymDim(FloorDiv(a.value(), b.value()));
  if (b.is_static() && b.value() == 1) return a;
  Poly p = ToPoly(a);
  if (b.is_static() && b.value() > 0) {
    // (c*k + r) / c = k + floor(r / c) for any integer k.
    int64_t c = b.value();
    if (AllDivisible(p, c, /*include_constant=*/false)) {
      Poly r;
      r.constant = FloorDiv(p.constant, c);
      for (const auto& [f, k] : p.terms) r.terms[f] = k / c;
      return FromPoly(r);
    }
  }
  if (!b.is_static()) {
    // Exact division by a single monomial: (k*?s*?t) / (c*?s) = (k/c)*?t.
    Poly q = ToPoly(b);
    if (q.constant == 0 && q.terms.size() == 1 && p.constant == 0) {
      const auto& [divisor, c] = *q.terms.begin();
      Poly r;
      bool exact = c > 0;
      for (const auto& [f, k] : p.terms) {
        std::vector<const Atom*> rest;
        if (!exact || k % c != 0 || !DivideFactors(f, divisor, &rest)) {
          exact = false;
          break;
        }
        if (rest.empty()) {
          r.constant = WrapAdd(r.constant, k / c);
        } else {
          r.terms[rest] = WrapAdd(r.terms[rest], k / c);
        }
      }
      if (exact) return FromPoly(r);
    }
  }
  if (a == b) return SymDim(1);
  return FromAtom(InternAtom(AtomKind::kFloorDiv, "", a, b));
}

SymDim CeilDiv(const SymDim& a, const SymDim& b) {
  if (a.is_static() && b.is_static()) return SymDim(CeilDiv(a.value(), b.value()));  // no overflow
  return FloorDiv(a + b - SymDim(1), b);
}

SymDim Mod(const SymDim& a, const SymDim& b) {
  if (a.is_static() && b.is_static()) return SymDim(Mod(a.value(), b.value()));
  SymDim q = FloorDiv(a, b);
  bool opaque = q.node() && q.node()->terms.size() == 1 && q.node()->constant == 0 &&
                q.node()->terms[0].factors.size() == 1 &&
                q.node()->terms[0].factors[0]->kind == AtomKind::kFloorDiv;
  if (!opaque) return a - b * q;
  return FromAtom(InternAtom(AtomKind::kMod, "", a, b));
}

bool KnownNonNegative(const SymDim& d) {
  if (d.is_static()) return d.value() >= 0;
  if (d.node()->constant < 0) return false;
  for (const Term& t : d.node()->terms) {
    if (t.coeff < 0) return false;
  }
  return true;  // every atom is a dim or a function of dims, so >= 0
}

SymDim Max(const SymDim& a, const SymDim& b) {
  if (a == b) return a;
  if (KnownNonNegative(a - b)) return a;
  if (KnownNonNegative(b - a)) return b;
  SymDim x = a, y = b;
  OrderPair(&x, &y);
  return FromAtom(InternAtom(AtomKind::kMax, "", x, y));
}

SymDim Min(const SymDim& a, const SymDim& b) {
  if (a == b) return a;
  if (KnownNonNegative(b - a)) return a;
  if (KnownNonNegative(a - b)) return b;
  SymDim x = a, y = b;
  OrderPair(&x, &y);
  return FromAtom(InternAtom(AtomKind::kMin, "", x, y));
}

SymDim UpperMax(const SymDim& a, const SymDim& b) {
  if (a.is_static() && b.is_static()) return SymDim(a.value() > b.value() ? a.value() : b.value());
  Poly p = ToPoly(a), q = ToPoly(b);
  bool non_negative = p.constant >= 0 && q.constant >= 0;
  for (const auto& [f, k] : p.terms) non_negative &= k >= 0;
  for (const auto& [f, k] : q.terms) non_negative &= k >= 0;
  if (!non_negative) return Max(a, b);
  p.constant = p.constant > q.constant ? p.constant : q.constant;
  for (const auto& [f, k] : q.terms) {
    int64_t& c = p.terms[f];
    if (k > c) c = k;
  }
  return FromPoly(p);
}

SymDim BroadcastDim(const SymDim& a, const SymDim& b) {
  if (a.is_static() && a.value() == 1) return b;
  if (b.is_static() && b.value() == 1) return a;
  if (a == b) return a;
  // A static dim other than 1 decides: the other must be 1 or equal to it.
  if (a.is_static()) return a;
  if (b.is_static()) return b;
  // bcast is idempotent: bcast(bcast(p, q), p) is bcast(p, q). Without this,
  // a value broadcast against its own operands at every step of an unrolled
  // loop grows an expression twice as long per step.
  auto operands = [](const SymDim& d) -> const Atom* {
    const Node* n = SymDimAccess::Get(d);
    if (!n || n->constant != 0 || n->terms.size() != 1 || n->terms[0].coeff != 1 ||
        n->terms[0].factors.size() != 1 || n->terms[0].factors[0]->kind != AtomKind::kBroadcast)
      return nullptr;
    return n->terms[0].factors[0];
  };
  if (const Atom* p = operands(a); p && (p->a == b || p->b == b)) return a;
  if (const Atom* q = operands(b); q && (q->a == a || q->b == a)) return b;
  SymDim x = a, y = b;
  OrderPair(&x, &y);
  return FromAtom(InternAtom(AtomKind::kBroadcast, "", x, y));
}

bool KnownNotEqual(const SymDim& a, const SymDim& b) {
  SymDim d = a - b;
  return d.is_static() && d.value() != 0;
}

namespace {

std::string AtomToString(const Atom* a) {
  switch (a->kind) {
    case AtomKind::kSymbol: return "?" + a->name;
    case AtomKind::kFloorDiv: return "floordiv(" + a->a.ToString() + "," + a->b.ToString() + ")";
    case AtomKind::kMod: return "mod(" + a->a.ToString() + "," + a->b.ToString() + ")";
    case AtomKind::kMax: return "max(" + a->a.ToString() + "," + a->b.ToString() + ")";
    case AtomKind::kMin: return "min(" + a->a.ToString() + "," + a->b.ToString() + ")";
    case AtomKind::kBroadcast: return "bcast(" + a->a.ToString() + "," + a->b.ToString() + ")";
  }
  return "?";
}

}  // namespace

std::string SymDim::ToString() const {
  if (is_static()) return std::to_string(value_);
  // Sort by printed text, not by interning order, so that output is the same
  // in every process (golden tests, bundles).
  std::vector<std::pair<std::string, int64_t>> terms;
  for (const Term& t : node_->terms) {
    std::vector<std::string> factors;
    for (const Atom* a : t.factors) factors.push_back(AtomToString(a));
    std::sort(factors.begin(), factors.end());
    std::string s;
    for (const std::string& f : factors) s += (s.empty() ? "" : "*") + f;
    terms.emplace_back(s, t.coeff);
  }
  std::sort(terms.begin(), terms.end());
  std::string out;
  for (const auto& [factors, coeff] : terms) {
    if (coeff < 0) {
      out += "-";
    } else if (!out.empty()) {
      out += "+";
    }
    int64_t mag = coeff < 0 ? -coeff : coeff;
    if (mag != 1) out += std::to_string(mag) + "*";
    out += factors;
  }
  if (node_->constant > 0) out += "+" + std::to_string(node_->constant);
  if (node_->constant < 0) out += std::to_string(node_->constant);
  return out;
}

bool Evaluate(const SymDim& d, const std::function<bool(const std::string&, int64_t*)>& lookup,
              int64_t* out) {
  if (d.is_static()) {
    *out = d.value();
    return true;
  }
  int64_t total = d.node()->constant;
  for (const Term& t : d.node()->terms) {
    int64_t prod = t.coeff;
    for (const Atom* a : t.factors) {
      int64_t v = 0, x = 0, y = 0;
      if (a->kind == AtomKind::kSymbol) {
        if (!lookup(a->name, &v)) return false;
      } else {
        if (!Evaluate(a->a, lookup, &x) || !Evaluate(a->b, lookup, &y)) return false;
        switch (a->kind) {
          case AtomKind::kFloorDiv: v = FloorDiv(x, y); break;
          case AtomKind::kMod: v = Mod(x, y); break;
          case AtomKind::kMax: v = Max(x, y); break;
          case AtomKind::kMin: v = Min(x, y); break;
          case AtomKind::kBroadcast: v = BroadcastDim(x, y); break;
          case AtomKind::kSymbol: break;
        }
      }
      prod = WrapMul(prod, v);
    }
    total = WrapAdd(total, prod);
  }
  *out = total;
  return true;
}

namespace {
void CollectSymbols(const SymDim& d, std::vector<std::string>* out) {
  if (d.is_static()) return;
  for (const Term& t : d.node()->terms) {
    for (const Atom* a : t.factors) {
      if (a->kind == AtomKind::kSymbol) {
        out->push_back(a->name);
      } else {
        CollectSymbols(a->a, out);
        CollectSymbols(a->b, out);
      }
    }
  }
}
}  // namespace

std::vector<std::string> SymbolsOf(const SymDim& d) {
  std::vector<std::string> names;
  CollectSymbols(d, &names);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

SymDim Substitute(const SymDim& d,
                  const std::function<bool(const std::string&, SymDim*)>& replacement) {
  if (d.is_static()) return d;
  SymDim total(d.node()->constant);
  for (const Term& t : d.node()->terms) {
    SymDim prod(t.coeff);
    for (const Atom* a : t.factors) {
      SymDim v;
      if (a->kind == AtomKind::kSymbol) {
        if (!replacement(a->name, &v)) v = FromAtom(a);
      } else {
        SymDim x = Substitute(a->a, replacement), y = Substitute(a->b, replacement);
        switch (a->kind) {
          case AtomKind::kFloorDiv: v = FloorDiv(x, y); break;
          case AtomKind::kMod: v = Mod(x, y); break;
          case AtomKind::kMax: v = Max(x, y); break;
          case AtomKind::kMin: v = Min(x, y); break;
          case AtomKind::kBroadcast: v = BroadcastDim(x, y); break;
          case AtomKind::kSymbol: break;
        }
      }
      prod = prod * v;
    }
    total = total + prod;
  }
  return total;
}

// ---- parsing ----
namespace {

class DimParser {
 public:
  explicit DimParser(std::string_view s) : s_(s) {}
  bool Parse(SymDim* out, std::string* error) {
    if (!Expr(out) || pos_ != s_.size()) {
      *error = "cannot parse dim '" + std::string(s_) + "' near position " + std::to_string(pos_);
      return false;
    }
    return true;
  }

 private:
  bool Expr(SymDim* out) {
    if (!TermP(out)) return false;
    while (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
      char op = s_[pos_++];
      SymDim t;
      if (!TermP(&t)) return false;
      *out = op == '+' ? *out + t : *out - t;
    }
    return true;
  }
  bool TermP(SymDim* out) {
    if (!Factor(out)) return false;
    while (pos_ < s_.size() && s_[pos_] == '*') {
      ++pos_;
      SymDim f;
      if (!Factor(&f)) return false;
      *out = *out * f;
    }
    return true;
  }
  bool Factor(SymDim* out) {
    // Nesting is bounded: the text may come from a hostile bundle
    // (dim_exprs, reshape's dims), and each level is a stack frame.
    if (pos_ >= s_.size() || depth_ >= kMaxNesting) return false;
    struct Level {
      int& depth;
      explicit Level(int& d) : depth(++d) {}
      ~Level() { --depth; }
    } level(depth_);
    char c = s_[pos_];
    if (c == '-') {
      ++pos_;
      SymDim f;
      if (!Factor(&f)) return false;
      *out = SymDim(0) - f;
      return true;
    }
    if (c >= '0' && c <= '9') {
      int64_t v = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v)) {
          return false;
        }
        ++pos_;
      }
      *out = SymDim(v);
      return true;
    }
    if (c == '?') {
      ++pos_;
      std::string name = Name();
      if (name.empty()) return false;
      *out = SymDim::Symbol(name);
      return true;
    }
    if (c == '(') {
      ++pos_;
      if (!Expr(out) || !Eat(')')) return false;
      return true;
    }
    std::string fn = Name();
    SymDim a, b;
    if (fn.empty() || !Eat('(') || !Expr(&a) || !Eat(',') || !Expr(&b) || !Eat(')')) return false;
    if (fn == "floordiv") *out = FloorDiv(a, b);
    else if (fn == "mod") *out = Mod(a, b);
    else if (fn == "max") *out = Max(a, b);
    else if (fn == "min") *out = Min(a, b);
    else if (fn == "bcast") *out = BroadcastDim(a, b);
    else return false;
    return true;
  }
  std::string Name() {
    size_t start = pos_;
    while (pos_ < s_.size() && (isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' ||
                                s_[pos_] == '.')) {
      ++pos_;
    }
    return std::string(s_.substr(start, pos_ - start));
  }
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static constexpr int kMaxNesting = 256;
  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

bool ParseSymDim(std::string_view text, SymDim* out, std::string* error) {
  return DimParser(text).Parse(out, error);
}

std::string SymShapeToString(const SymShape& shape) {
  std::string s = "[";
  for (int i = 0; i < shape.rank(); ++i) {
    if (i) s += ",";
    s += shape[i].ToString();
  }
  return s + "]";
}

Shape ToStaticShape(const SymShape& shape) {
  Shape s;
  for (const SymDim& d : shape) s.push_back(d.StaticOrDynamic());
  return s;
}

}  // namespace tfn
