// extern "C" scalar entry points of kernels/opt/vec_math.h, for code that
// calls the approximations by symbol (generated AOT code links them as LLVM
// bitcode and inlines them). Same accuracy as the header; no state.
#include "kernels/opt/vec_math.h"

extern "C" {

float tfn_vm_expf(float x) { return tfn::vm::Exp(x); }
float tfn_vm_logf(float x) { return tfn::vm::Log(x); }
float tfn_vm_tanhf(float x) { return tfn::vm::Tanh(x); }
float tfn_vm_sigmoidf(float x) { return tfn::vm::Sigmoid(x); }
float tfn_vm_erff(float x) { return tfn::vm::Erf(x); }
float tfn_vm_gelu_erff(float x) { return tfn::vm::GeluErf(x); }
float tfn_vm_gelu_tanhf(float x) { return tfn::vm::GeluTanh(x); }
float tfn_vm_sinf(float x) { return tfn::vm::Sin(x); }  // |x| <= tfn::vm::kTrigMaxArg
float tfn_vm_cosf(float x) { return tfn::vm::Cos(x); }  // |x| <= tfn::vm::kTrigMaxArg
float tfn_vm_floorf(float x) { return tfn::vm::Floor(x); }
float tfn_vm_ceilf(float x) { return tfn::vm::Ceil(x); }
float tfn_vm_roundf(float x) { return tfn::vm::Round(x); }

double tfn_vm_exp(double x) { return tfn::vm::Exp(x); }
double tfn_vm_log(double x) { return tfn::vm::Log(x); }
double tfn_vm_tanh(double x) { return tfn::vm::Tanh(x); }
double tfn_vm_sigmoid(double x) { return tfn::vm::Sigmoid(x); }
double tfn_vm_gelu_tanh(double x) { return tfn::vm::GeluTanh(x); }
double tfn_vm_floor(double x) { return tfn::vm::Floor(x); }
double tfn_vm_ceil(double x) { return tfn::vm::Ceil(x); }
double tfn_vm_round(double x) { return tfn::vm::Round(x); }

}  // extern "C"
