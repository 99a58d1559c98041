// FusedElemwise and FusedMatMulBiasAdd kernels as the registry binds them (fast calls):
//   _C.fused_elemwise_call(*inputs, out, program, step_dtypes)
//     program / step_dtypes: FusedElemwise's kernel params (ops/operations/fused_ops.py), parsed
//     once per (program object, input count) into a step table (a bounded cache held by
//     identity: the registry binds the same tuples for every call of a signature). Inputs reach
//     kernels/fused_elemwise.h as contiguous, scalar or periodic (the output's trailing dims);
//     any other broadcast is copied dense first; an input overlapping out other than element
//     for element is copied first.
//   _C.matmul_bias_act(a, b, bias, out, transpose_a, transpose_b, relu): FusedMatMulBiasAdd's
//     small-matrix kernel (the MatMul loop of _C.matmul, then fused_elemwise.h's bias_act).
// Every argument is checked before any memory is read (TypeError / ValueError naming it). The
// GIL is released while a large launch runs on the thread pool.
#include "bind/fused_bind.h"

#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "bind/array_args.h"
#include "kernels/fused_elemwise.h"
#include "kernels/matmul.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

const char* const kCallFn = "mindlite._C.fused_elemwise_call";

bool check_steps(const int64_t* s, int nsteps, const std::vector<int>& slot_dt,
                 std::vector<int>* out_dt) {
  const KernelTables& t = kernel_tables();
  const int nin = static_cast<int>(slot_dt.size());
  std::vector<int> dts(slot_dt);
  for (int j = 0; j < nsteps; ++j) {
    const int64_t kind = s[5 * j], op = s[5 * j + 1], dt = s[5 * j + 2];
    const int64_t a = s[5 * j + 3], b = s[5 * j + 4];
    const int64_t avail = nin + j;
    bool ok = (dt == kF32 || dt == kF64) && a >= 0 && a < avail;
    if (ok && kind == kStepUnary) {
      ok = op >= 0 && op < kNumUnary && t.unary[op][dt] && dts[a] == dt;
    } else if (ok && kind == kStepBinary) {
      ok = op >= 0 && op < kNumBinary && !is_bool_result(static_cast<int>(op)) &&
           t.binary[op][dt][kVV] && b >= 0 && b < avail && dts[a] == dt && dts[b] == dt;
    } else if (ok && kind == kStepCast) {
      ok = dts[a] == kF32 || dts[a] == kF64;
    } else {
      ok = false;
    }
    if (!ok) {
      PyErr_Format(PyExc_ValueError, "For '%s', step %d (kind %lld, op %lld, dtype %lld, slots "
                   "%lld, %lld) is not a valid float step over earlier slots of its dtype", kCallFn,
                   j, static_cast<long long>(kind), static_cast<long long>(op),
                   static_cast<long long>(dt), static_cast<long long>(a),
                   static_cast<long long>(b));
      return false;
    }
    dts.push_back(static_cast<int>(dt));
  }
  *out_dt = dts;
  return true;
}

// ---- fused_elemwise_call: the kernel the registry binds (program parsed once, cached) ----

struct Program {
  PyObject* program;     // strong references: the cache key stays valid
  PyObject* dtypes;
  int nin;
  std::vector<int64_t> table;   // (nsteps, 5) as check_steps reads it; constants are slots
  std::vector<double> consts;   // one 8-byte cell per constant, in its step's dtype
  std::vector<int> const_dt;
};

constexpr size_t kProgramCacheCap = 256;
std::vector<Program>* g_programs = new std::vector<Program>();   // searched by identity

int op_of(const char* name, bool* unary, bool* cast) {
  *cast = !std::strcmp(name, "Cast");
  if (*cast) return 0;
  if (!std::strcmp(name, "RealDiv")) name = "Div";
  for (int i = 0; i < kNumUnary; ++i) {
    if (!std::strcmp(name, kUnaryNames[i])) { *unary = true; return i; }
  }
  for (int i = 0; i < kNumBinary; ++i) {
    if (!std::strcmp(name, kBinaryNames[i])) { *unary = false; return i; }
  }
  return -1;
}

bool bad_program(const char* why) {
  PyErr_Format(PyExc_ValueError, "For '%s', the program %s", kCallFn, why);
  return false;
}

// Slots: inputs 0..nin-1, then the constants, then the steps.
bool parse_program(PyObject* prog, PyObject* dts, int nin, Program* out) {
  if (!PyTuple_Check(prog) || !PyTuple_Check(dts) || PyTuple_GET_SIZE(prog) < 1 ||
      PyTuple_GET_SIZE(prog) > kFusedMaxSteps || PyTuple_GET_SIZE(dts) != PyTuple_GET_SIZE(prog))
    return bad_program("must be a tuple of 1..64 steps with one dtype name each");
  const int nsteps = static_cast<int>(PyTuple_GET_SIZE(prog));
  std::vector<std::pair<int, int64_t>> refs;   // (0 input / 1 const / 2 step, index)
  std::vector<int> step_dt(nsteps);
  for (int j = 0; j < nsteps; ++j) {
    PyObject* step = PyTuple_GET_ITEM(prog, j);
    const char* dn = PyUnicode_Check(PyTuple_GET_ITEM(dts, j))
                         ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(dts, j)) : nullptr;
    if (!dn || (std::strcmp(dn, "float32") && std::strcmp(dn, "float64"))) {
      PyErr_Clear();
      return bad_program("step dtypes must be 'float32' or 'float64'");
    }
    step_dt[j] = std::strcmp(dn, "float32") ? kF64 : kF32;
    if (!PyTuple_Check(step) || PyTuple_GET_SIZE(step) != 3 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(step, 0)) || !PyTuple_Check(PyTuple_GET_ITEM(step, 1)))
      return bad_program("steps must be (name, refs, dtype)");
    bool unary = false, cast = false;
    const int op = op_of(PyUnicode_AsUTF8(PyTuple_GET_ITEM(step, 0)), &unary, &cast);
    PyObject* rs = PyTuple_GET_ITEM(step, 1);
    const Py_ssize_t nr = PyTuple_GET_SIZE(rs);
    if (op < 0 || nr != ((unary || cast) ? 1 : 2)) return bad_program("names an unknown op");
    int64_t slot[2] = {0, 0};
    for (Py_ssize_t r = 0; r < nr; ++r) {
      PyObject* ref = PyTuple_GET_ITEM(rs, r);
      if (PyLong_Check(ref)) {
        slot[r] = PyLong_AsLongLong(ref);
        if (slot[r] < 0 || slot[r] >= nin) return bad_program("refers to a missing input");
        refs.push_back({0, slot[r]});
      } else if (PyTuple_Check(ref) && PyTuple_GET_SIZE(ref) == 2 &&
                 PyUnicode_Check(PyTuple_GET_ITEM(ref, 0))) {
        const char* tag = PyUnicode_AsUTF8(PyTuple_GET_ITEM(ref, 0));
        PyObject* v = PyTuple_GET_ITEM(ref, 1);
        if (!std::strcmp(tag, "t") && PyLong_Check(v)) {
          slot[r] = PyLong_AsLongLong(v);
          if (slot[r] < 0 || slot[r] >= j) return bad_program("refers to a later step");
          refs.push_back({2, slot[r]});
        } else if (!std::strcmp(tag, "c") && (PyLong_Check(v) || PyFloat_Check(v))) {
          const double c = PyFloat_AsDouble(v);
          if (c == -1.0 && PyErr_Occurred()) return false;
          out->consts.push_back(0.0);
          if (step_dt[j] == kF32) {
            const float f = static_cast<float>(c);
            std::memcpy(&out->consts.back(), &f, sizeof f);
          } else {
            out->consts.back() = c;
          }
          out->const_dt.push_back(step_dt[j]);
          refs.push_back({1, static_cast<int64_t>(out->consts.size() - 1)});
        } else {
          return bad_program("has a ref that is not an input, ('t', step) or ('c', number)");
        }
      } else {
        return bad_program("has a ref that is not an input, ('t', step) or ('c', number)");
      }
    }
    const int kind = cast ? kStepCast : unary ? kStepUnary : kStepBinary;
    out->table.insert(out->table.end(), {kind, op, step_dt[j], -1, -1});
  }
  const int64_t nc = static_cast<int64_t>(out->consts.size());
  size_t k = 0;
  for (int j = 0; j < nsteps; ++j) {
    const int64_t nr = out->table[5 * j] == kStepBinary ? 2 : 1;
    for (int64_t r = 0; r < nr; ++r, ++k) {
      const auto& ref = refs[k];
      out->table[5 * j + 3 + r] = ref.first == 0 ? ref.second
                                  : ref.first == 1 ? nin + ref.second : nin + nc + ref.second;
    }
    if (nr == 1) out->table[5 * j + 4] = 0;
  }
  out->nin = nin;
  return true;
}

const Program* find_program(PyObject* prog, PyObject* dts, int nin) {
  for (const Program& p : *g_programs) {
    if (p.program == prog && p.dtypes == dts && p.nin == nin) return &p;
  }
  Program p{prog, dts, nin, {}, {}, {}};
  if (!parse_program(prog, dts, nin, &p)) return nullptr;
  if (g_programs->size() >= kProgramCacheCap) {
    for (Program& old : *g_programs) {
      Py_DECREF(old.program);
      Py_DECREF(old.dtypes);
    }
    g_programs->clear();
  }
  Py_INCREF(prog);
  Py_INCREF(dts);
  g_programs->push_back(std::move(p));
  return &g_programs->back();
}

// An input's kind for an output of nd dims `shape` (n elements); -1: needs a dense copy.
int input_kind(PyArrayObject* x, int nd, const npy_intp* shape, int64_t n, int64_t* period) {
  *period = 0;
  if (PyArray_SIZE(x) == 1) {
    *period = 1;
    return kInScalar;
  }
  if (!PyArray_IS_C_CONTIGUOUS(x)) return -1;
  int xd = PyArray_NDIM(x);
  const npy_intp* xs = PyArray_DIMS(x);
  int lead = 0;
  while (lead < xd && xs[lead] == 1) ++lead;
  const int trail = xd - lead;
  if (trail > nd) return -1;
  for (int d = 0; d < trail; ++d) {
    if (xs[lead + d] != shape[nd - trail + d]) return -1;
  }
  if (PyArray_SIZE(x) == n) return kInContig;
  *period = PyArray_SIZE(x);
  return kInPeriodic;
}

PyObject* py_fused_call(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 4 || nargs - 3 > kFusedMaxInputs) {
    PyErr_Format(PyExc_TypeError, "For '%s', expected (*inputs, out, program, step_dtypes) with "
                 "1..%d inputs, but got %zd arguments", kCallFn, kFusedMaxInputs, nargs);
    return nullptr;
  }
  const int nin = static_cast<int>(nargs - 3);
  const CallSite cs{kCallFn, "FusedElemwise"};
  PyArrayObject* out = as_array(cs, "out", args[nin]);
  if (!out || !check_out(cs, out)) return nullptr;
  const Program* prog = find_program(args[nin + 1], args[nin + 2], nin);
  if (!prog) return nullptr;
  // copies: the cache entry may move (another call's insert) once anything below runs Python
  const std::vector<int64_t> table(prog->table);
  const std::vector<int> const_dt(prog->const_dt);
  std::vector<double> consts(prog->consts);
  prog = nullptr;
  const int nsteps = static_cast<int>(table.size() / 5);
  const int nc = static_cast<int>(consts.size());
  std::vector<int> slot_dt(nin + nc);
  std::vector<PyArrayObject*> held;
  std::vector<FusedInput> ins(nin + nc);
  const int nd = PyArray_NDIM(out);
  const npy_intp* shape = PyArray_DIMS(out);
  const int64_t n = PyArray_SIZE(out);
  auto fail = [&held]() -> PyObject* {
    for (PyArrayObject* h : held) Py_DECREF(h);
    return nullptr;
  };
  for (int i = 0; i < nin; ++i) {
    PyArrayObject* x = as_array(cs, "inputs", args[i]);
    if (!x) return fail();
    slot_dt[i] = array_dtype(x);
    if (slot_dt[i] != kF32 && slot_dt[i] != kF64) {
      PyErr_Format(PyExc_TypeError, "For '%s', input %d must be float32 or float64", kCallFn, i);
      return fail();
    }
    int64_t period;
    int kind = input_kind(x, nd, shape, n, &period);
    PyArrayObject* r;
    if (kind < 0) {              // another broadcast: a dense copy of out's shape
      r = reinterpret_cast<PyArrayObject*>(
          PyArray_SimpleNew(nd, const_cast<npy_intp*>(shape), PyArray_TYPE(x)));
      if (r && PyArray_CopyInto(r, x) < 0) {
        Py_DECREF(r);
        r = nullptr;
      }
      kind = kInContig;
    } else {
      r = readable(x, out, kind == kInContig);
    }
    if (!r) return fail();
    held.push_back(r);
    ins[i] = FusedInput{PyArray_BYTES(r), kind, slot_dt[i], period};
  }
  for (int c = 0; c < nc; ++c) {
    slot_dt[nin + c] = const_dt[c];
    ins[nin + c] = FusedInput{reinterpret_cast<const char*>(&consts[c]), kInScalar,
                              const_dt[c], 1};
  }
  std::vector<int> dts;
  if (!check_steps(table.data(), nsteps, slot_dt, &dts)) return fail();
  if (array_dtype(out) != dts.back()) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'out' must have the last step's dtype %s", kCallFn,
                 kDTypeNames[dts.back()]);
    return fail();
  }
  std::vector<FusedStep> steps(nsteps);
  for (int j = 0; j < nsteps; ++j) {
    const int64_t* r = table.data() + 5 * j;
    steps[j] = FusedStep{static_cast<int>(r[0]), static_cast<int>(r[1]), static_cast<int>(r[2]),
                         static_cast<int>(r[3]), static_cast<int>(r[4])};
  }
  char* o = PyArray_BYTES(out);
  if (will_parallelize(n, fused_cost(steps.data(), nsteps))) {
    Py_BEGIN_ALLOW_THREADS
    run_fused(steps.data(), nsteps, ins.data(), nin + nc, o, n);
    Py_END_ALLOW_THREADS
  } else {
    run_fused(steps.data(), nsteps, ins.data(), nin + nc, o, n);
  }
  for (PyArrayObject* h : held) Py_DECREF(h);
  Py_RETURN_NONE;
}

PyObject* py_program_cache_size(PyObject*, PyObject*) {
  return PyLong_FromSize_t(g_programs->size());
}

const char* const kMmFn = "mindlite._C.matmul_bias_act";

// (a, b, bias, out, transpose_a, transpose_b, relu): out = relu?(op(a) @ op(b) + bias) by the
// small-matrix MatMul loop and bias_act; 2-D float32/float64 of one dtype, bias (N,).
PyObject* py_matmul_bias_act(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 7) {
    PyErr_Format(PyExc_TypeError, "For '%s', expected 7 arguments (a, b, bias, out, "
                 "transpose_a, transpose_b, relu), but got %zd", kMmFn, nargs);
    return nullptr;
  }
  const CallSite cs{kMmFn, "FusedMatMulBiasAdd"};
  const char* names[4] = {"a", "b", "bias", "out"};
  PyArrayObject* arr[4];
  for (int i = 0; i < 4; ++i) {
    arr[i] = as_array(cs, names[i], args[i]);
    if (!arr[i]) return nullptr;
  }
  bool flag[3];
  const char* flag_names[3] = {"transpose_a", "transpose_b", "relu"};
  for (int i = 0; i < 3; ++i) {
    if (!bool_arg(cs, flag_names[i], args[4 + i], &flag[i])) return nullptr;
  }
  const int dt = array_dtype(arr[0]);
  for (int i = 0; i < 4; ++i) {
    if ((dt != kF32 && dt != kF64) || array_dtype(arr[i]) != dt ||
        PyArray_NDIM(arr[i]) != (i == 2 ? 1 : 2)) {
      PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a %s float32/float64 array of the "
                   "dtype of 'a'", kMmFn, names[i], i == 2 ? "1-D" : "2-D");
      return nullptr;
    }
  }
  if (!check_out(cs, arr[3])) return nullptr;
  const npy_intp *sa = PyArray_DIMS(arr[0]), *sb = PyArray_DIMS(arr[1]);
  const npy_intp* so = PyArray_DIMS(arr[3]);
  const int64_t m = flag[0] ? sa[1] : sa[0], k = flag[0] ? sa[0] : sa[1];
  const int64_t kb = flag[1] ? sb[1] : sb[0], n = flag[1] ? sb[0] : sb[1];
  if (k != kb || so[0] != m || so[1] != n || PyArray_DIMS(arr[2])[0] != n) {
    PyErr_Format(PyExc_ValueError, "For '%s', shapes do not fit: a %s, b %s (transposes %d, %d), "
                 "bias %s, out %s", kMmFn, shape_str(2, sa).c_str(), shape_str(2, sb).c_str(),
                 static_cast<int>(flag[0]), static_cast<int>(flag[1]),
                 shape_str(1, PyArray_DIMS(arr[2])).c_str(), shape_str(2, so).c_str());
    return nullptr;
  }
  PyArrayObject* in[3] = {nullptr, nullptr, nullptr};
  bool ok = true;
  for (int i = 0; i < 3 && ok; ++i) {
    in[i] = i == 2 ? dense_in(arr[i], arr[3], nullptr) : readable(arr[i], arr[3], false);
    ok = in[i] != nullptr;
  }
  bool oom = false;
  if (ok) {
    try {
      run_matmul(dt, operand_of(in[0], 0), operand_of(in[1], 0), flag[0], flag[1],
                 PyArray_BYTES(arr[3]), m, n, k);
      bias_act(dt, PyArray_BYTES(arr[3]), PyArray_BYTES(in[2]), m, n, flag[2]);
    } catch (const std::bad_alloc&) {  // packing buffers
      oom = true;
    }
  }
  for (PyArrayObject* r : in) Py_XDECREF(r);
  if (!ok) return nullptr;
  if (oom) return PyErr_NoMemory();
  Py_RETURN_NONE;
}

PyMethodDef g_methods[] = {
    {"fused_elemwise_call",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_fused_call)),
     METH_FASTCALL,
     "fused_elemwise_call(*inputs, out, program, step_dtypes): FusedElemwise's kernel as the "
     "registry binds it; the program is parsed once per (program object, input count)."},
    {"fused_program_cache_size", py_program_cache_size, METH_NOARGS,
     "How many parsed FusedElemwise programs fused_elemwise_call holds (at most 256)."},
    {"matmul_bias_act",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_matmul_bias_act)),
     METH_FASTCALL,
     "matmul_bias_act(a, b, bias, out, transpose_a, transpose_b, relu): FusedMatMulBiasAdd "
     "for small matrices (the small-matrix MatMul loop, then the bias / ReLU epilogue)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_fused_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
