// Elementwise launch: ISA dispatch of the loop tables, op metadata, and the strided /
// broadcasting iteration that splits any numpy layout into runs for the contiguous loops.
//
// Plan: the output shape with size-1 dims dropped and adjacent dims merged wherever every
// operand's strides allow, so a contiguous or simply-broadcast call becomes one run. Each
// thread takes [begin, end) of the flat output index and walks rows of the innermost dim; a row
// whose input strides are not (itemsize | 0) is gathered in blocks into a stack buffer first.
#include "kernels/elementwise.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <strings.h>

#include "runtime/thread_pool.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define ML_HAS_STREAM 1  // else stream_min_bytes() is never reached: plain stores
#endif

namespace mindlite {

const char* const kUnaryNames[kNumUnary] = {
    "Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Sin", "Cos", "Sign", "Floor",
    "Ceil", "Round", "Reciprocal", "ReLU", "ReLU6", "Sigmoid", "Tanh", "GeLU", "SiLU",
    "Softplus", "Erf", "HSwish", "HSigmoid", "Elu", "SeLU", "Mish", "Softsign", "LogSigmoid",
    "Tan", "Atan", "Asin", "ACos", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Log1p", "Expm1",
    "Log2", "Log10", "Exp2", "Erfc", "Erfinv", "Trunc", "Lgamma", "Digamma", "BesselJ0",
    "BesselJ1", "BesselY0", "BesselY1", "BesselI0", "BesselI0e", "BesselI1", "BesselI1e",
    "BesselK0", "BesselK0e", "BesselK1", "BesselK1e"};
const char* const kBinaryNames[kNumBinary] = {
    "Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "FloorDiv", "FloorMod", "Pow", "ReluGrad",
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr",
    "Atan2", "Hypot", "Zeta", "Igamma", "Igammac", "ReLU6Grad"};
const char* const kDTypeNames[kNumDTypes] = {"float32", "float64", "int32", "int64", "bool"};
const int kDTypeSize[kNumDTypes] = {4, 8, 4, 8, 1};

namespace {

const char* g_isa = "base";

// MINDLITE_ISA=avx512|avx2|base caps the instruction set below the CPU's best (for tests);
// unset or empty: the best. Any other value is refused (the import of mindlite._C fails with
// this message) rather than silently running the slowest loops.
const char* isa_request() {
  const char* want = std::getenv("MINDLITE_ISA");
  if (want == nullptr || *want == '\0') return nullptr;
  for (const char* isa : {"avx512", "avx2", "base"}) {
    if (!strcasecmp(want, isa)) return isa;
  }
  throw std::invalid_argument(std::string("MINDLITE_ISA='") + want +
                              "' is not a valid instruction set: expected 'avx512', 'avx2' or "
                              "'base', or unset for the CPU's best");
}

const KernelTables* build_tables() {
  const char* want = isa_request();
  KernelTables* t = new KernelTables();  // value-initialized: unsupported entries are null
  auto allowed = [want](const char* isa) { return want == nullptr || !std::strcmp(want, isa); };
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                __builtin_cpu_supports("fma");
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx512 && allowed("avx512")) {
    fill_tables_avx512(t);
    g_isa = "avx512";
    return t;
  }
  if (avx2 && (allowed("avx2") || (want && !std::strcmp(want, "avx512")))) {
    fill_tables_avx2(t);
    g_isa = "avx2";
    return t;
  }
#endif
  fill_tables_base(t);
  return t;
}

struct Plan {
  int nd;
  int osz;  // output itemsize
  int64_t shape[kMaxDims];
  int64_t sx[kMaxDims], sy[kMaxDims];  // byte strides, 0 along broadcast dims
  const char* x;
  const char* y;
  char* o;
};

int64_t operand_stride(const Operand& a, int nd, int d) {
  int off = d - (nd - a.nd);
  return (off >= 0 && a.shape[off] != 1) ? a.strides[off] : 0;
}

void build_plan(Plan* p, const Operand& x, const Operand* y, int nd, const int64_t* shape) {
  int k = 0;
  for (int d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    int64_t sx = operand_stride(x, nd, d);
    int64_t sy = y ? operand_stride(*y, nd, d) : 0;
    if (k > 0 && p->sx[k - 1] == sx * shape[d] && p->sy[k - 1] == sy * shape[d]) {
      p->shape[k - 1] *= shape[d];
      p->sx[k - 1] = sx;
      p->sy[k - 1] = sy;
    } else {
      p->shape[k] = shape[d];
      p->sx[k] = sx;
      p->sy[k] = sy;
      ++k;
    }
  }
  p->nd = k;
  p->x = x.data;
  p->y = y ? y->data : nullptr;
}

// Calls inner(x, sx, y, sy, out, len) for each innermost-dim run of flat range [begin, end);
// element `pos` is written at o + (pos - obase) * osz (o: p.o itself, or a staging block).
template <class Inner>
void walk(const Plan& p, int64_t begin, int64_t end, Inner& inner, char* o, int64_t obase) {
  if (p.nd == 0) {
    inner(p.x, 0, p.y, 0, o, 1);
    return;
  }
  const int last = p.nd - 1;
  int64_t idx[kMaxDims];
  int64_t rem = begin, ox = 0, oy = 0;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % p.shape[d];
    rem /= p.shape[d];
    ox += idx[d] * p.sx[d];
    oy += idx[d] * p.sy[d];
  }
  for (int64_t pos = begin; pos < end;) {
    int64_t len = p.shape[last] - idx[last];
    if (len > end - pos) len = end - pos;
    inner(p.x + ox, p.sx[last], p.y + oy, p.sy[last], o + (pos - obase) * p.osz, len);
    pos += len;
    idx[last] += len;
    ox += len * p.sx[last];
    oy += len * p.sy[last];
    for (int d = last; d > 0 && idx[d] == p.shape[d]; --d) {
      idx[d] = 0;
      ox += p.sx[d - 1] - p.shape[d] * p.sx[d];
      oy += p.sy[d - 1] - p.shape[d] * p.sy[d];
      ++idx[d - 1];
    }
  }
}

constexpr int64_t kBlock = 512;

void gather(char* buf, const char* src, int64_t stride, int64_t n, int isz) {
  switch (isz) {
    case 1:
      for (int64_t i = 0; i < n; ++i) buf[i] = src[i * stride];
      break;
    case 4:
      for (int64_t i = 0; i < n; ++i) std::memcpy(buf + 4 * i, src + i * stride, 4);
      break;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(buf + 8 * i, src + i * stride, 8);
  }
}

struct UnaryInner {
  UnaryFn fn;
  int isz;
  void operator()(const char* x, int64_t sx, const char*, int64_t, char* o, int64_t n) const {
    if (sx == isz) {
      fn(x, o, n);
      return;
    }
    alignas(64) char buf[kBlock * 8];
    for (int64_t off = 0; off < n; off += kBlock) {
      int64_t m = n - off < kBlock ? n - off : kBlock;
      gather(buf, x + off * sx, sx, m, isz);
      fn(buf, o + off * isz, m);
    }
  }
};

struct BinaryInner {
  const BinaryFn* fn;
  int isz, osz;
  void operator()(const char* x, int64_t sx, const char* y, int64_t sy, char* o,
                  int64_t n) const {
    const bool xc = sx == isz, yc = sy == isz;
    if (xc && yc) return fn[kVV](x, y, o, n);
    if (sx == 0 && yc) return fn[kSV](x, y, o, n);
    if (xc && sy == 0) return fn[kVS](x, y, o, n);
    const bool xs = sx == 0 && sy != 0, ys = sy == 0 && sx != 0;
    alignas(64) char bx[kBlock * 8], by[kBlock * 8];
    for (int64_t off = 0; off < n; off += kBlock) {
      int64_t m = n - off < kBlock ? n - off : kBlock;
      const char* qx = x;
      const char* qy = y;
      if (!xs) {
        if (xc) qx = x + off * sx; else gather(bx, x + off * sx, sx, m, isz), qx = bx;
      }
      if (!ys) {
        if (yc) qy = y + off * sy; else gather(by, y + off * sy, sy, m, isz), qy = by;
      }
      fn[xs ? kSV : ys ? kVS : kVV](qx, qy, o + off * osz, m);
    }
  }
};

// ---- streaming stores (opt-in) ----------------------------------------------------------
// An output larger than the cache can be written with non-temporal stores: a plain store first
// reads the line it fills (read-for-ownership), so Add moves 4 bytes per 3 it needs and ReLU 3
// per 2. Results are computed into an L1-resident staging block by the same loops as always
// (bit-identical), then streamed out with the ISA's full-width stores.
// NOTE: off by default (MINDLITE_STREAM_BYTES=<output bytes> turns it on). Measured in one
// process on the 2-core EPYC VM (THP-backed numpy buffers), 2048x2048 float32, min of 600
// calls, streamed vs plain: 2 threads Add 934 vs 593 us, Mul 855 vs 768, ReLU 354 vs 357;
// 1 thread Add 1367 vs 1433, ReLU 660 vs 789, Sigmoid 1972 vs 1762. It only paid off without
// huge pages (a C++ loop over 4 KiB pages: Add 1.5x faster), so plain stores stay the default.
constexpr int64_t kStageBytes = 2048;

int64_t default_stream_bytes() {
  const char* env = std::getenv("MINDLITE_STREAM_BYTES");
  const int64_t v = env != nullptr ? std::atoll(env) : 0;
  return v > 0 ? v : INT64_MAX;
}

std::atomic<int64_t> g_stream_bytes{-1};  // -1: not read yet

}  // namespace

int64_t stream_min_bytes() {
  int64_t v = g_stream_bytes.load(std::memory_order_relaxed);
  if (v < 0) {
    v = default_stream_bytes();
    g_stream_bytes.store(v, std::memory_order_relaxed);
  }
  return v;
}

void set_stream_min_bytes(int64_t bytes) {
  g_stream_bytes.store(bytes < 1 ? 1 : bytes, std::memory_order_relaxed);
}

namespace {

// Runs compute(b, e, dst) (writes elements [b, e) at dst) for [begin, end) of an output of
// itemsize osz at out: directly when streaming does not apply, else in staging blocks that are
// streamed to out. Blocks start where the plain path's would (every element same code).
template <class Compute>
void run_range(int64_t begin, int64_t end, int osz, char* out, bool stream, Compute& compute) {
#ifdef ML_HAS_STREAM
  char* o = out + begin * osz;
  const uintptr_t mis = reinterpret_cast<uintptr_t>(o) & 63;
  if (stream && mis % osz == 0 && (end - begin) * osz >= kStageBytes) {
    int64_t pos = begin;
    if (mis != 0) {  // head up to the first 64-byte line boundary, stored plainly
      const int64_t h = static_cast<int64_t>(64 - mis) / osz;
      compute(pos, pos + h, o);
      pos += h;
    }
    alignas(64) char stage[kStageBytes];
    const int64_t per = kStageBytes / osz;
    const StreamCopyFn copy = kernel_tables().stream_copy;
    while (pos < end) {
      const int64_t m = end - pos < per ? end - pos : per;
      compute(pos, pos + m, stage);
      copy(out + pos * osz, stage, m * osz);
      pos += m;
    }
    _mm_sfence();  // streamed lines visible before the launch reports this chunk done
    return;
  }
#endif
  (void)stream;
  compute(begin, end, out + begin * osz);
}

int64_t operand_size(const Operand& a) {
  int64_t s = 1;
  for (int d = 0; d < a.nd; ++d) s *= a.shape[d];
  return s;
}

}  // namespace

const KernelTables& kernel_tables() {
  static const KernelTables* t = build_tables();
  return *t;
}

const char* kernel_isa() {
  kernel_tables();
  return g_isa;
}

int unary_cost(int op) {
  switch (op) {
    case kExp: case kLog: case kSigmoid: case kTanh: case kGeLU: case kSiLU: case kSoftplus:
    case kSin: case kCos: case kElu: case kSeLU: case kLogSigmoid:
    case kTan: case kAtan: case kAsin: case kAcos: case kSinh: case kCosh: case kAsinh:
    case kAcosh: case kAtanh: case kLog1p: case kExpm1: case kLog2: case kLog10: case kExp2:
      return 4;
    case kErf: case kMish: case kErfc: case kLgamma:
      return 8;
    case kErfinv: case kDigamma: case kBesselJ0: case kBesselJ1: case kBesselY0:
    case kBesselY1: case kBesselI0: case kBesselI0e: case kBesselI1: case kBesselI1e:
    case kBesselK0: case kBesselK0e: case kBesselK1: case kBesselK1e:
      return 16;
    case kSqrt: case kRsqrt: case kReciprocal:
      return 2;
    default:
      return 1;
  }
}

int binary_cost(int op) {
  switch (op) {
    case kFloorDiv: case kFloorMod: case kPow: case kAtan2: case kHypot:
      return 8;
    case kZeta: case kIgamma: case kIgammac:
      return 64;
    case kDiv:
      return 2;
    default:
      return 1;
  }
}

void run_unary(int op, int dt, const Operand& x, char* out, int nd, const int64_t* out_shape,
               int64_t n) {
  if (n == 0) return;
  const UnaryFn fn = kernel_tables().unary[op][dt];
  const int isz = kDTypeSize[dt];
  const uint32_t key = split_key(kFamilyUnary, op, dt);
  const bool stream = n * isz >= stream_min_bytes();
  if (x.contig) {
    auto compute = [&](int64_t b, int64_t e, char* o) { fn(x.data + b * isz, o, e - b); };
    auto body = [&](int64_t b, int64_t e) { run_range(b, e, isz, out, stream, compute); };
    parallel_launch(key, n, unary_cost(op), body);
    return;
  }
  Plan plan;
  build_plan(&plan, x, nullptr, nd, out_shape);
  plan.o = out;
  plan.osz = isz;
  UnaryInner inner{fn, isz};
  auto compute = [&](int64_t b, int64_t e, char* o) { walk(plan, b, e, inner, o, b); };
  auto body = [&](int64_t b, int64_t e) { run_range(b, e, isz, out, stream, compute); };
  parallel_launch(key, n, unary_cost(op), body);
}

void run_binary(int op, int dt, const Operand& x, const Operand& y, char* out, int nd,
                const int64_t* out_shape, int64_t n) {
  if (n == 0) return;
  const BinaryFn* fn = kernel_tables().binary[op][dt];
  const int isz = kDTypeSize[dt], osz = is_bool_result(op) ? 1 : isz;
  const uint32_t key = split_key(kFamilyBinary, op, dt);
  const int cost = binary_cost(op);
  const bool xs = !x.contig && operand_size(x) == 1, ys = !y.contig && operand_size(y) == 1;
  const bool stream = n * osz >= stream_min_bytes();
  if ((x.contig || xs) && (y.contig || ys)) {
    const BinaryFn f = fn[xs && !ys ? kSV : ys && !xs ? kVS : kVV];
    const int64_t stx = xs ? 0 : isz, sty = ys ? 0 : isz;
    if (!(xs && ys)) {
      auto compute = [&](int64_t b, int64_t e, char* o) {
        f(x.data + b * stx, y.data + b * sty, o, e - b);
      };
      auto body = [&](int64_t b, int64_t e) { run_range(b, e, osz, out, stream, compute); };
      parallel_launch(key, n, cost, body);
      return;
    }
  }
  Plan plan;
  build_plan(&plan, x, &y, nd, out_shape);
  plan.o = out;
  plan.osz = osz;
  BinaryInner inner{fn, isz, osz};
  auto compute = [&](int64_t b, int64_t e, char* o) { walk(plan, b, e, inner, o, b); };
  auto body = [&](int64_t b, int64_t e) { run_range(b, e, osz, out, stream, compute); };
  parallel_launch(key, n, cost, body);
}

}  // namespace mindlite
