// _C.fused_elemwise(steps, inputs, kinds, out): FusedElemwise's kernel (kernels/fused_elemwise.h).
// _C.matmul_bias_act(a, b, bias, out, transpose_a, transpose_b, relu): FusedMatMulBiasAdd's
//   small-matrix kernel (the MatMul loop of _C.matmul, then fused_elemwise.h's bias_act).
//   steps   int64 array (nsteps, 5): kind, op, dtype, slot a, slot b per step
//   inputs  tuple of float32/float64 ndarrays
//   kinds   int64 array (ninputs, 2): input kind (contiguous / scalar / periodic), period
//   out     C-contiguous, aligned, writeable, of the last step's dtype
// Every argument is checked before any memory is read (TypeError / ValueError naming the
// argument); an input that overlaps out other than element for element is copied first.
// The GIL is released while a large launch runs on the thread pool.
#include "bind/fused_bind.h"

#include <new>
#include <vector>

#include "bind/array_args.h"
#include "kernels/fused_elemwise.h"
#include "kernels/matmul.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

const char* const kFn = "mindlite._C.fused_elemwise";

PyArrayObject* int_table(PyObject* o, const char* arg, npy_intp cols, npy_intp max_rows) {
  PyArrayObject* a = as_array(CallSite{kFn, "FusedElemwise"}, arg, o);
  if (!a) return nullptr;
  if (PyArray_TYPE(a) != NPY_INT64 || PyArray_NDIM(a) != 2 || PyArray_DIMS(a)[1] != cols ||
      !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) || PyArray_DIMS(a)[0] > max_rows) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be a C-contiguous int64 array of shape "
                 "(k, %d) with k <= %d", kFn, arg, static_cast<int>(cols),
                 static_cast<int>(max_rows));
    return nullptr;
  }
  return a;
}

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
                   "%lld, %lld) is not a valid float step over earlier slots of its dtype", kFn,
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

bool check_input(PyArrayObject* x, int i, int64_t kind, int64_t period, int64_t n) {
  bool ok;
  if (kind == kInContig) {
    ok = PyArray_IS_C_CONTIGUOUS(x) && PyArray_SIZE(x) == n;
  } else if (kind == kInScalar) {
    ok = PyArray_SIZE(x) >= 1;
  } else if (kind == kInPeriodic) {
    ok = PyArray_IS_C_CONTIGUOUS(x) && period >= 1 && PyArray_SIZE(x) == period &&
         n % period == 0;
  } else {
    ok = false;
  }
  if (!ok) {
    PyErr_Format(PyExc_ValueError, "For '%s', input %d (size %lld) does not fit its kind %lld "
                 "(period %lld) for an output of %lld elements", kFn, i,
                 static_cast<long long>(PyArray_SIZE(x)), static_cast<long long>(kind),
                 static_cast<long long>(period), static_cast<long long>(n));
  }
  return ok;
}

PyObject* py_fused(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) {
    PyErr_Format(PyExc_TypeError, "For '%s', expected 4 arguments (steps, inputs, kinds, out), "
                 "but got %zd", kFn, nargs);
    return nullptr;
  }
  const CallSite cs{kFn, "FusedElemwise"};
  PyArrayObject* steps = int_table(args[0], "steps", 5, kFusedMaxSteps);
  if (!steps) return nullptr;
  PyArrayObject* kinds = int_table(args[2], "kinds", 2, kFusedMaxInputs);
  if (!kinds) return nullptr;
  if (!PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) != PyArray_DIMS(kinds)[0]) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'inputs' must be a tuple with one array per row "
                 "of 'kinds'", kFn);
    return nullptr;
  }
  PyArrayObject* out = as_array(cs, "out", args[3]);
  if (!out || !check_out(cs, out)) return nullptr;
  const int nsteps = static_cast<int>(PyArray_DIMS(steps)[0]);
  const int nin = static_cast<int>(PyArray_DIMS(kinds)[0]);
  if (nsteps < 1) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'steps' must hold at least one step", kFn);
    return nullptr;
  }
  const int64_t n = PyArray_SIZE(out);
  const int64_t* kd = reinterpret_cast<const int64_t*>(PyArray_DATA(kinds));
  std::vector<int> slot_dt(nin);
  for (int i = 0; i < nin; ++i) {
    PyArrayObject* x = as_array(cs, "inputs", PyTuple_GET_ITEM(args[1], i));
    if (!x) return nullptr;
    slot_dt[i] = array_dtype(x);
    if (slot_dt[i] != kF32 && slot_dt[i] != kF64) {
      PyErr_Format(PyExc_TypeError, "For '%s', input %d must be float32 or float64", kFn, i);
      return nullptr;
    }
    if (!check_input(x, i, kd[2 * i], kd[2 * i + 1], n)) return nullptr;
  }
  std::vector<int> dts;
  const int64_t* sd = reinterpret_cast<const int64_t*>(PyArray_DATA(steps));
  if (!check_steps(sd, nsteps, slot_dt, &dts)) return nullptr;
  if (array_dtype(out) != dts.back()) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'out' must have the last step's dtype %s", kFn,
                 kDTypeNames[dts.back()]);
    return nullptr;
  }
  std::vector<FusedStep> prog(nsteps);
  for (int j = 0; j < nsteps; ++j) {
    const int64_t* r = sd + 5 * j;
    prog[j] = FusedStep{static_cast<int>(r[0]), static_cast<int>(r[1]), static_cast<int>(r[2]),
                        static_cast<int>(r[3]), static_cast<int>(r[4])};
  }
  std::vector<PyArrayObject*> held;
  std::vector<FusedInput> ins(nin);
  for (int i = 0; i < nin; ++i) {
    PyArrayObject* x = reinterpret_cast<PyArrayObject*>(PyTuple_GET_ITEM(args[1], i));
    PyArrayObject* r = readable(x, out, kd[2 * i] == kInContig);
    if (!r) {
      for (PyArrayObject* h : held) Py_DECREF(h);
      return nullptr;
    }
    held.push_back(r);
    ins[i] = FusedInput{PyArray_BYTES(r), static_cast<int>(kd[2 * i]), slot_dt[i], kd[2 * i + 1]};
  }
  char* o = PyArray_BYTES(out);
  if (will_parallelize(n, fused_cost(prog.data(), nsteps))) {
    Py_BEGIN_ALLOW_THREADS
    run_fused(prog.data(), nsteps, ins.data(), nin, o, n);
    Py_END_ALLOW_THREADS
  } else {
    run_fused(prog.data(), nsteps, ins.data(), nin, o, n);
  }
  for (PyArrayObject* h : held) Py_DECREF(h);
  Py_RETURN_NONE;
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
    {"matmul_bias_act",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_matmul_bias_act)),
     METH_FASTCALL,
     "matmul_bias_act(a, b, bias, out, transpose_a, transpose_b, relu): FusedMatMulBiasAdd "
     "for small matrices (the small-matrix MatMul loop, then the bias / ReLU epilogue)."},
    {"fused_elemwise", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_fused)),
     METH_FASTCALL,
     "fused_elemwise(steps, inputs, kinds, out): FusedElemwise's block evaluator."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_fused_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
