// Elementwise kernels: op codes, dtypes, per-ISA contiguous loop tables, and the strided /
// broadcasting launch (elementwise.cc) that feeds those loops from any numpy layout.
//
// A contiguous loop handles n elements of one layout:
//   UnaryFn(x, out, n)             x and out contiguous (out may be x itself)
//   BinaryFn(x, y, out, n)         three variants per op: both vectors, x scalar, y scalar
// Every element goes through the same code whatever its position, so results do not depend
// on how the work is split across threads or blocks.
#pragma once

#include <cstdint>

namespace mindlite {

enum DType : int { kF32 = 0, kF64, kI32, kI64, kBool, kNumDTypes };

enum UnaryOp : int {
  kAbs = 0, kNeg, kExp, kLog, kSqrt, kRsqrt, kSquare, kSin, kCos, kSign, kFloor, kCeil, kRound,
  kReciprocal, kReLU, kReLU6, kSigmoid, kTanh, kGeLU, kSiLU, kSoftplus, kErf,
  kHSwish, kHSigmoid, kElu, kSeLU, kMish, kSoftsign, kLogSigmoid,
  kTan, kAtan, kAsin, kAcos, kSinh, kCosh, kAsinh, kAcosh, kAtanh, kLog1p, kExpm1, kLog2, kLog10,
  kExp2, kErfc, kErfinv, kTrunc, kLgamma, kDigamma, kBesselJ0, kBesselJ1, kBesselY0, kBesselY1,
  kBesselI0, kBesselI0e, kBesselI1, kBesselI1e, kBesselK0, kBesselK0e, kBesselK1, kBesselK1e, kNumUnary
};

enum BinaryOp : int {
  kAdd = 0, kSub, kMul, kDiv, kMaximum, kMinimum, kFloorDiv, kFloorMod, kPow, kReluGrad, kEqual,
  kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual, kLogicalAnd, kLogicalOr, kAtan2, kHypot,
  kZeta, kIgamma, kIgammac, kReLU6Grad, kNumBinary
};

enum BinaryMode : int { kVV = 0, kSV, kVS, kNumModes };  // SV: x is one scalar; VS: y is

using UnaryFn = void (*)(const char* x, char* out, int64_t n);
using BinaryFn = void (*)(const char* x, const char* y, char* out, int64_t n);
// C[M,N] = A[M,K] @ B[K,N]: A and C packed row-major, B rows ldb apart and readable up to
// kMatmulPad-aligned column counts (zero padding beyond n).
using MatmulFn = void (*)(const char* a, const char* b, char* c, int64_t m, int64_t n,
                          int64_t k, int64_t ldb);
constexpr int64_t kMatmulPad = 8;
// C (m x n) = A (m x k) @ Bt^T with Bt (n x k): both row-major (the dot-product form).
using MatmulBtFn = void (*)(const char* a, const char* bt, char* c, int64_t m, int64_t n,
                            int64_t k);

// Copies `bytes` from a 64-byte aligned block to 64-byte aligned dst with streaming
// (non-temporal) stores of the ISA's full vector width; the caller fences (sfence).
using StreamCopyFn = void (*)(char* dst, const char* src, int64_t bytes);

struct KernelTables {
  UnaryFn unary[kNumUnary][kNumDTypes];
  BinaryFn binary[kNumBinary][kNumDTypes][kNumModes];
  MatmulFn matmul[2];  // kF32, kF64
  MatmulBtFn matmul_bt[2];
  StreamCopyFn stream_copy;
};

// One fill function per instruction set (isa_*.cc); kernel_tables() picks the best the CPU runs.
void fill_tables_base(KernelTables* t);
void fill_tables_avx2(KernelTables* t);
void fill_tables_avx512(KernelTables* t);
const KernelTables& kernel_tables();
const char* kernel_isa();  // "avx512", "avx2" or "base"

extern const char* const kUnaryNames[kNumUnary];
extern const char* const kBinaryNames[kNumBinary];
extern const char* const kDTypeNames[kNumDTypes];
extern const int kDTypeSize[kNumDTypes];

inline bool is_bool_result(int op) { return op >= kEqual && op <= kLogicalOr; }
inline bool unary_supported(int op, int dt) { return kernel_tables().unary[op][dt] != nullptr; }
inline bool binary_supported(int op, int dt) {
  return kernel_tables().binary[op][dt][kVV] != nullptr;
}
int unary_cost(int op);   // relative work per element, for the parallel threshold
int binary_cost(int op);

// Output bytes from which launches write with streaming (non-temporal) stores:
// MINDLITE_STREAM_BYTES, else never (measured slower here, see elementwise.cc).
int64_t stream_min_bytes();
void set_stream_min_bytes(int64_t bytes);

constexpr int kMaxDims = 64;

// An input as numpy describes it: byte strides may be negative or zero; shape is right-aligned
// against the output shape (broadcasting). `contig` means C-contiguous with out's element count.
struct Operand {
  const char* data;
  int nd;
  const int64_t* shape;
  const int64_t* strides;
  bool contig;
};

// out: C-contiguous, shape out_shape[0..nd), n elements; inputs already validated.
void run_unary(int op, int dt, const Operand& x, char* out, int nd, const int64_t* out_shape,
               int64_t n);
void run_binary(int op, int dt, const Operand& x, const Operand& y, char* out, int nd,
                const int64_t* out_shape, int64_t n);

}  // namespace mindlite
