// Symbolic dimensions: the IR's dims, static or an expression over named symbols.
//
// A SymDim is either a static value or an interned polynomial over "atoms"
// (named symbols such as ?s0, and opaque nodes such as floordiv(?s0,3) or
// max(?a,?b)). The polynomial is kept in a canonical form, so two dims that
// are equal as polynomials are the same object: `==` is exact for sums and
// products (reshape [?b,256] -> [-1,4,64] gives ?b, concat gives ?a+?b), and
// conservative otherwise (structurally different opaque nodes compare
// unequal; see KnownEqual/KnownNotEqual for three-valued reasoning).
//
// Interned nodes live for the whole process (their number is bounded by the
// distinct expressions ever built). All functions here are thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.h"

namespace tfn {

namespace sym {
struct Node;
}

class SymDim {
 public:
  constexpr SymDim() = default;
  constexpr SymDim(int64_t value) : value_(value) {}  // NOLINT: static dims convert implicitly
  constexpr SymDim(int value) : value_(value) {}      // NOLINT
  // The named symbol `name` (the same name gives the same dim).
  static SymDim Symbol(std::string_view name);

  bool is_static() const { return node_ == nullptr; }
  // The static value; only meaningful when is_static().
  int64_t value() const { return value_; }
  // The static value, or kDynamic: the public API's view of a dim.
  int64_t StaticOrDynamic() const { return is_static() ? value_ : kDynamic; }
  // True when this dim is exactly one symbol (not an expression).
  bool is_symbol() const;
  // The symbol's name when is_symbol(), else "".
  std::string symbol_name() const;
  const sym::Node* node() const { return node_; }

  // "3", "?s0", "?s0*4+1", "floordiv(?s0,2)". Deterministic across processes.
  std::string ToString() const;

  friend bool operator==(const SymDim& a, const SymDim& b) {
    return a.node_ == b.node_ && (a.node_ != nullptr || a.value_ == b.value_);
  }
  friend bool operator!=(const SymDim& a, const SymDim& b) { return !(a == b); }

 private:
  friend struct SymDimAccess;
  int64_t value_ = 0;
  const sym::Node* node_ = nullptr;
};

using SymShape = ShapeT<SymDim>;

SymDim operator+(const SymDim& a, const SymDim& b);
SymDim operator-(const SymDim& a, const SymDim& b);
SymDim operator*(const SymDim& a, const SymDim& b);
// Floor division and modulo of dims (b > 0 for meaningful results).
SymDim FloorDiv(const SymDim& a, const SymDim& b);
SymDim CeilDiv(const SymDim& a, const SymDim& b);
SymDim Mod(const SymDim& a, const SymDim& b);
SymDim Max(const SymDim& a, const SymDim& b);
SymDim Min(const SymDim& a, const SymDim& b);
// A polynomial at least max(a, b) for every value of the symbols (dims are
// >= 0): the larger coefficient of each term, when neither has a negative
// one; Max(a, b) otherwise. Sizes that the memory planner keeps as bounds
// stay sums of products this way, where nested max() nodes grew with every
// buffer placed.
SymDim UpperMax(const SymDim& a, const SymDim& b);
// The NumPy broadcast of two dims: b when a is 1, else a.
SymDim BroadcastDim(const SymDim& a, const SymDim& b);

// Three-valued comparisons: KnownEqual is true only when equality is proven,
// KnownNotEqual only when inequality is proven.
inline bool KnownEqual(const SymDim& a, const SymDim& b) { return a == b; }
bool KnownNotEqual(const SymDim& a, const SymDim& b);
// True when d >= 0 is proven, using that every symbol is a dim (>= 0).
bool KnownNonNegative(const SymDim& d);
inline bool IsKnown(const SymDim& d) { return d.is_static(); }
inline int64_t KnownValue(const SymDim& d) { return d.value(); }

// Evaluates a dim given the values of its symbols. `lookup(name, &v)` returns
// false for an unbound symbol, which makes Evaluate return false.
bool Evaluate(const SymDim& d, const std::function<bool(const std::string&, int64_t*)>& lookup,
              int64_t* out);
// The names of the symbols a dim depends on, sorted, without duplicates.
std::vector<std::string> SymbolsOf(const SymDim& d);
// Replaces symbols by other dims (used when inlining a graph into another).
SymDim Substitute(const SymDim& d,
                  const std::function<bool(const std::string&, SymDim*)>& replacement);

// Parses the text form printed by ToString ("3", "?s0*4+1", "max(?a,?b)").
bool ParseSymDim(std::string_view text, SymDim* out, std::string* error);

std::string SymShapeToString(const SymShape& shape);  // "[?s0,3]"
// Public view: static dims kept, the others kDynamic.
Shape ToStaticShape(const SymShape& shape);

// Structure of interned expressions, for code generators (aot/) that lower
// dims to arithmetic. A dim is constant + sum(coeff * product(atoms)).
namespace sym {
enum class AtomKind : uint8_t { kSymbol, kFloorDiv, kMod, kMax, kMin, kBroadcast };
struct Atom {
  AtomKind kind;
  std::string name;  // kSymbol only
  SymDim a, b;       // operands of the other kinds
  int id;            // interning order; canonical ordering inside a process
};
struct Term {
  int64_t coeff;
  std::vector<const Atom*> factors;  // sorted by id; repeated for powers
};
struct Node {
  int64_t constant;
  std::vector<Term> terms;  // at least one; sorted canonically
  std::string key;          // canonical key inside this process
};
}  // namespace sym

// ---- int64 versions, so that shape rules written as templates serve both ----
inline int64_t FloorDiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t CeilDiv(int64_t a, int64_t b) { return b == 0 ? 0 : -FloorDiv(-a, b); }
inline int64_t Mod(int64_t a, int64_t b) { return b == 0 ? 0 : a - b * FloorDiv(a, b); }
inline int64_t Max(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t Min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t UpperMax(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t BroadcastDim(int64_t a, int64_t b) { return a == 1 ? b : a; }
inline bool KnownEqual(int64_t a, int64_t b) { return a == b; }
inline bool KnownNotEqual(int64_t a, int64_t b) { return a != b; }
inline bool KnownNonNegative(int64_t d) { return d >= 0; }
inline bool IsKnown(int64_t) { return true; }
inline int64_t KnownValue(int64_t d) { return d; }
inline std::string DimToString(int64_t d) { return std::to_string(d); }
inline std::string DimToString(const SymDim& d) { return d.ToString(); }

}  // namespace tfn
