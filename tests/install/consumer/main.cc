// Uses the installed tfn: an eager op and a traced function; exits 0 when
// the results are right.
#include <cstdio>

#include "tfn/tfn.h"

int main() {
  tfn::Tensor x = tfn::constant({1.f, 2.f, 3.f});
  auto f = tfn::function([](tfn::Tensor t) { return tfn::reduce_sum(t * t); });
  float sum = f(x).item<float>();
  std::printf("sum of squares = %g\n", sum);
  return sum == 14.f && f.tracing_count() == 1 ? 0 : 1;
}
