// FusedElemwise: a program of elementwise steps (unary / binary ops of the kernel tables,
// float casts) evaluated block by block over the output, each step's block kept in a small
// per-thread buffer, so the whole expression is one pass over memory with the same vector
// loops (and so the same per-element results) as the unfused ops.
#pragma once

#include <cstdint>

namespace mindlite {

enum FusedStepKind : int { kStepUnary = 0, kStepBinary = 1, kStepCast = 2 };

// A step: kind, op code (UnaryOp / BinaryOp; unused for casts), its output dtype (kF32 /
// kF64: also its input dtype, except for casts) and its argument slots (b unused when unary).
// Slots 0..ninputs-1 are the inputs, ninputs + j is the value of step j.
struct FusedStep {
  int kind, op, dt, a, b;
};

enum FusedInputKind : int { kInContig = 0, kInScalar = 1, kInPeriodic = 2 };

// An input: contiguous with the output's n elements; one element read for all; or periodic:
// element i of the output reads data[i % period] (the input is the output's trailing dims).
struct FusedInput {
  const char* data;
  int kind, dt;
  int64_t period;
};

constexpr int kFusedMaxSteps = 64;
constexpr int kFusedMaxInputs = 64;
constexpr int64_t kFusedBlock = 512;

// Runs the program into out (n elements of the last step's dtype), split across the thread
// pool for large n. Arguments already validated (fused_bind.cc).
void run_fused(const FusedStep* steps, int nsteps, const FusedInput* inputs, int ninputs,
               char* out, int64_t n);

int fused_cost(const FusedStep* steps, int nsteps);

// FusedMatMulBiasAdd's epilogue, in place on the (m, n) C-contiguous product: out += bias
// (one value per column), then max(out, 0) when relu (NaN stays NaN, -0 becomes +0, as ReLU).
void bias_act(int dt, char* out, const char* bias, int64_t m, int64_t n, bool relu);

}  // namespace mindlite
