// Fast-call (METH_FASTCALL) entry points of the float16 kernels (kernels/f16_kernels.h), what
// kernels/cpu/f16_cpp.py registers as the C++ provider for float16:
//   _C.f16_to_f32(x, out)            float16 -> float32, both C-contiguous, same size
//   _C.f32_to_f16(x, out)            float32 -> float16 (round to nearest even)
//   _C.f16_unary(op, x, out)         op: a code of _C.UNARY_OPS with a float32 loop
//   _C.f16_binary(op, x, y, out)     op: a code of _C.BINARY_OPS (arithmetic, not compares);
//       x and y C-contiguous, each of out's size or a single element (broadcast)
//   _C.f16_softmax(op, x, out, cols) op: 0 Softmax, 1 LogSoftmax, over rows of `cols`
//       contiguous elements (x's size a multiple of cols, out of x's size)
//   _C.f16_builtin(kind, op, inputs, f32_kernel, fallback)  the kernels f16_cpp.py registers:
//       a builtin running the common layouts in C (the entry points above, or the float32
//       kernel on widened copies) and calling `fallback` (Python) for the rest
// Arrays: ndarrays of the named dtype in native byte order, C-contiguous and aligned; out
// writeable. An input that partly overlaps out is copied first (out may be x itself).
// Every check runs before memory is touched; the GIL is released for launches on the pool.
#include <array>

#include "bind/array_args.h"
#include "kernels/f16_kernels.h"
#include "kernels/reduce.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

const char* const kToF32 = "mindlite._C.f16_to_f32";
const char* const kToF16 = "mindlite._C.f32_to_f16";
const char* const kUnaryFn = "mindlite._C.f16_unary";
const char* const kBinaryFn = "mindlite._C.f16_binary";
const char* const kSoftmaxFn = "mindlite._C.f16_softmax";

// `o` as an aligned, C-contiguous ndarray of `type_num` (native order); writeable if `write`.
PyArrayObject* typed(const char* fn, const char* arg, PyObject* o, int type_num, bool write) {
  if (!PyArray_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a numpy.ndarray, but got %s", fn, arg,
                 Py_TYPE(o)->tp_name);
    return nullptr;
  }
  PyArrayObject* a = reinterpret_cast<PyArrayObject*>(o);
  PyArray_Descr* d = PyArray_DESCR(a);
  if (d->type_num != type_num || !PyArray_ISNBO(d->byteorder)) {
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' dtype must be %s (native byte order), but got "
                 "%R", fn, arg, type_num == NPY_HALF ? "float16" : "float32",
                 reinterpret_cast<PyObject*>(d));
    return nullptr;
  }
  if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a)) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be C-contiguous and aligned", fn, arg);
    return nullptr;
  }
  if (write && !PyArray_ISWRITEABLE(a)) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be writeable", fn, arg);
    return nullptr;
  }
  return a;
}

bool nargs(const char* fn, Py_ssize_t n, Py_ssize_t want, const char* sig) {
  if (n == want) return true;
  PyErr_Format(PyExc_TypeError, "For '%s', expected %zd arguments %s, but got %zd", fn, want,
               sig, n);
  return false;
}

bool size_is(const char* fn, const char* arg, PyArrayObject* a, int64_t n, bool one_ok) {
  const int64_t s = PyArray_SIZE(a);
  if (s == n || (one_ok && s == 1)) return true;
  PyErr_Format(PyExc_ValueError, "For '%s', '%s' must have %lld elements%s, but got %lld", fn,
               arg, static_cast<long long>(n), one_ok ? " (or 1)" : "",
               static_cast<long long>(s));
  return false;
}

// A new reference to `a`, or to a copy of it when it partly overlaps `out`.
PyArrayObject* apart(PyArrayObject* a, PyArrayObject* out) {
  const char* ab = PyArray_BYTES(a);
  const char* ob = PyArray_BYTES(out);
  const bool overlap = ab < ob + PyArray_NBYTES(out) && ob < ab + PyArray_NBYTES(a);
  if (overlap && !(ab == ob && PyArray_NBYTES(a) == PyArray_NBYTES(out))) {
    return reinterpret_cast<PyArrayObject*>(PyArray_NewCopy(a, NPY_CORDER));
  }
  Py_INCREF(a);
  return a;
}

template <class F>
void launch(bool parallel, F&& f) {
  if (!parallel) {
    f();
    return;
  }
  Py_BEGIN_ALLOW_THREADS
  f();
  Py_END_ALLOW_THREADS
}

PyObject* to_f32(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (!nargs(kToF32, n, 2, "(x, out)")) return nullptr;
  PyArrayObject* x = typed(kToF32, "x", args[0], NPY_HALF, false);
  PyArrayObject* out = x ? typed(kToF32, "out", args[1], NPY_FLOAT32, true) : nullptr;
  if (!out || !size_is(kToF32, "x", x, PyArray_SIZE(out), false)) return nullptr;
  const int64_t k = PyArray_SIZE(out);
  const auto* px = reinterpret_cast<const uint16_t*>(PyArray_DATA(x));
  auto* po = reinterpret_cast<float*>(PyArray_DATA(out));
  launch(will_parallelize(k, 1), [&] { run_f16_to_f32(px, po, k); });
  Py_RETURN_NONE;
}

PyObject* to_f16(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (!nargs(kToF16, n, 2, "(x, out)")) return nullptr;
  PyArrayObject* x = typed(kToF16, "x", args[0], NPY_FLOAT32, false);
  PyArrayObject* out = x ? typed(kToF16, "out", args[1], NPY_HALF, true) : nullptr;
  if (!out || !size_is(kToF16, "x", x, PyArray_SIZE(out), false)) return nullptr;
  const int64_t k = PyArray_SIZE(out);
  const auto* px = reinterpret_cast<const float*>(PyArray_DATA(x));
  auto* po = reinterpret_cast<uint16_t*>(PyArray_DATA(out));
  launch(will_parallelize(k, 1), [&] { run_f32_to_f16(px, po, k); });
  Py_RETURN_NONE;
}

PyObject* unary(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (!nargs(kUnaryFn, n, 3, "(op, x, out)")) return nullptr;
  const int op = op_code(CallSite{kUnaryFn, ""}, args[0], kNumUnary);
  if (op < 0) return nullptr;
  if (!unary_supported(op, kF32)) {
    PyErr_Format(PyExc_ValueError, "For '%s', op '%s' has no float32 loop", kUnaryFn,
                 kUnaryNames[op]);
    return nullptr;
  }
  PyArrayObject* x = typed(kUnaryFn, "x", args[1], NPY_HALF, false);
  PyArrayObject* out = x ? typed(kUnaryFn, "out", args[2], NPY_HALF, true) : nullptr;
  if (!out || !size_is(kUnaryFn, "x", x, PyArray_SIZE(out), false)) return nullptr;
  PyArrayObject* xs = apart(x, out);
  if (!xs) return nullptr;
  const int64_t k = PyArray_SIZE(out);
  const auto* px = reinterpret_cast<const uint16_t*>(PyArray_DATA(xs));
  auto* po = reinterpret_cast<uint16_t*>(PyArray_DATA(out));
  launch(will_parallelize(k, unary_cost(op) + 1), [&] { run_f16_unary(op, px, po, k); });
  Py_DECREF(xs);
  Py_RETURN_NONE;
}

PyObject* binary(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (!nargs(kBinaryFn, n, 4, "(op, x, y, out)")) return nullptr;
  const int op = op_code(CallSite{kBinaryFn, ""}, args[0], kNumBinary);
  if (op < 0) return nullptr;
  if (is_bool_result(op) || !binary_supported(op, kF32)) {
    PyErr_Format(PyExc_ValueError, "For '%s', op '%s' has no float16 form (arithmetic ops "
                 "only)", kBinaryFn, kBinaryNames[op]);
    return nullptr;
  }
  PyArrayObject* x = typed(kBinaryFn, "x", args[1], NPY_HALF, false);
  PyArrayObject* y = x ? typed(kBinaryFn, "y", args[2], NPY_HALF, false) : nullptr;
  PyArrayObject* out = y ? typed(kBinaryFn, "out", args[3], NPY_HALF, true) : nullptr;
  if (!out) return nullptr;
  const int64_t k = PyArray_SIZE(out);
  if (!size_is(kBinaryFn, "x", x, k, true) || !size_is(kBinaryFn, "y", y, k, true)) {
    return nullptr;
  }
  if (k == 0) Py_RETURN_NONE;
  const int mode = PyArray_SIZE(x) == k ? (PyArray_SIZE(y) == k ? kVV : kVS) : kSV;
  PyArrayObject* xs = apart(x, out);
  PyArrayObject* ys = xs ? apart(y, out) : nullptr;
  if (!ys) {
    Py_XDECREF(xs);
    return nullptr;
  }
  const auto* px = reinterpret_cast<const uint16_t*>(PyArray_DATA(xs));
  const auto* py = reinterpret_cast<const uint16_t*>(PyArray_DATA(ys));
  auto* po = reinterpret_cast<uint16_t*>(PyArray_DATA(out));
  launch(will_parallelize(k, binary_cost(op) + 1),
         [&] { run_f16_binary(op, mode, px, py, po, k); });
  Py_DECREF(xs);
  Py_DECREF(ys);
  Py_RETURN_NONE;
}

PyObject* softmax(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (!nargs(kSoftmaxFn, n, 4, "(op, x, out, cols)")) return nullptr;
  const int op = op_code(CallSite{kSoftmaxFn, ""}, args[0], kSoftmaxGrad);
  if (op < 0) return nullptr;
  PyArrayObject* x = typed(kSoftmaxFn, "x", args[1], NPY_HALF, false);
  PyArrayObject* out = x ? typed(kSoftmaxFn, "out", args[2], NPY_HALF, true) : nullptr;
  if (!out || !size_is(kSoftmaxFn, "x", x, PyArray_SIZE(out), false)) return nullptr;
  const int64_t k = PyArray_SIZE(out);
  const long long cols = PyLong_Check(args[3]) ? PyLong_AsLongLong(args[3]) : -1;
  if (PyErr_Occurred()) return nullptr;
  if (cols < 1 || k % cols != 0) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'cols' must be an int >= 1 dividing x's size "
                 "%lld, but got %R", kSoftmaxFn, static_cast<long long>(k), args[3]);
    return nullptr;
  }
  PyArrayObject* xs = apart(x, out);
  if (!xs) return nullptr;
  const auto* px = reinterpret_cast<const uint16_t*>(PyArray_DATA(xs));
  auto* po = reinterpret_cast<uint16_t*>(PyArray_DATA(out));
  launch(softmax_parallel(k), [&] { run_f16_softmax(op, px, po, k / cols, cols); });
  Py_DECREF(xs);
  Py_RETURN_NONE;
}

// ---- the registered kernels: builtins whose common case runs without a Python frame ------
enum F16Kind : int { kKUnary = 0, kKBinary, kKSoftmax, kKThrough, kKReduce, kNumKinds };


// An aligned, C-contiguous, native float16 ndarray (writeable when `write`)? No error set.
bool is_direct(PyObject* o, bool write) {
  if (!PyArray_Check(o)) return false;
  PyArrayObject* a = reinterpret_cast<PyArrayObject*>(o);
  PyArray_Descr* d = PyArray_DESCR(a);
  return d->type_num == NPY_HALF && PyArray_ISNBO(d->byteorder) && PyArray_IS_C_CONTIGUOUS(a) &&
         PyArray_ISALIGNED(a) && (!write || PyArray_ISWRITEABLE(a));
}

PyArrayObject* arr(PyObject* o) { return reinterpret_cast<PyArrayObject*>(o); }

// (x, out, axis, keep_dims) of a reduction that run_f16_reduce_slices takes: x non-empty
// with >= 2 dims, axis a sorted tuple of distinct dims >= 1, keep_dims a bool, out the size
// of the kept dims. Anything else (errors included) goes through the float32 kernel.
bool reduce_slices(int op, PyObject* const* args) {
  PyArrayObject* x = arr(args[0]);
  const int nd = PyArray_NDIM(x);
  if (nd < 2 || nd > kMaxDims || PyArray_SIZE(x) == 0 || !PyTuple_Check(args[2]) ||
      !PyBool_Check(args[3])) {
    return false;
  }
  bool reduced[kMaxDims] = {false};
  const Py_ssize_t na = PyTuple_GET_SIZE(args[2]);
  long last = 0;
  for (Py_ssize_t i = 0; i < na; ++i) {
    PyObject* a = PyTuple_GET_ITEM(args[2], i);
    const long v = PyLong_Check(a) ? PyLong_AsLong(a) : -1;
    if (v <= last || v >= nd) {
      PyErr_Clear();
      return false;
    }
    reduced[v] = true;
    last = v;
  }
  int64_t kept = 1;
  for (int d = 0; d < nd; ++d) kept *= reduced[d] ? 1 : PyArray_DIMS(x)[d];
  if (na == 0 || PyArray_SIZE(arr(args[1])) != kept) return false;
  const auto* px = reinterpret_cast<const uint16_t*>(PyArray_DATA(x));
  auto* po = reinterpret_cast<uint16_t*>(PyArray_DATA(arr(args[1])));
  const int64_t* shape = PyArray_DIMS(x);
  const int64_t n = PyArray_SIZE(x);
  launch(will_parallelize(n, 1), [&] { run_f16_reduce_slices(op, px, nd, shape, reduced, po); });
  return true;
}

// inputs args[0, n_in) and out args[n_in] (all direct) through the float32 kernel f32k: each
// input widened into a new float32 array of its shape, f32k(in32..., out32, params...), out32
// rounded into out. NULL with the float32 kernel's error when it fails.
PyObject* through_f32(PyObject* f32k, int n_in, PyObject* const* args, Py_ssize_t n) {
  PyObject* call[8] = {nullptr};  // n <= 8 (f16_kernel checks)
  PyObject* result = nullptr;
  bool ok = true;
  for (int i = 0; ok && i <= n_in; ++i) {
    PyArrayObject* a = arr(args[i]);
    call[i] = PyArray_SimpleNew(PyArray_NDIM(a), PyArray_DIMS(a), NPY_FLOAT32);
    ok = call[i] != nullptr;
    if (ok && i < n_in) {
      const int64_t k = PyArray_SIZE(a);
      const auto* px = reinterpret_cast<const uint16_t*>(PyArray_DATA(a));
      auto* po = reinterpret_cast<float*>(PyArray_DATA(arr(call[i])));
      launch(will_parallelize(k, 1), [&] { run_f16_to_f32(px, po, k); });
    }
  }
  if (ok) {
    for (Py_ssize_t i = n_in + 1; i < n; ++i) call[i] = args[i];
    result = PyObject_Vectorcall(f32k, call, n, nullptr);
  }
  if (result) {
    PyArrayObject* o32 = arr(call[n_in]);
    const int64_t k = PyArray_SIZE(o32);
    const auto* px = reinterpret_cast<const float*>(PyArray_DATA(o32));
    auto* po = reinterpret_cast<uint16_t*>(PyArray_DATA(arr(args[n_in])));
    launch(will_parallelize(k, 1), [&] { run_f32_to_f16(px, po, k); });
  }
  for (int i = 0; i <= n_in && i < 8; ++i) Py_XDECREF(call[i]);
  return result;
}

// self: (kind, op code, inputs, float32 kernel, fallback). The cases below run in C; any
// other call (another layout, a numpy scalar, a wrong argument) goes to the fallback, the
// Python kernel of f16_cpp.py, which handles every layout and raises the errors.
PyObject* f16_kernel(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  const int kind = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(self, 0)));
  const int op = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(self, 1)));
  const int n_in = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(self, 2)));
  PyObject* f32k = PyTuple_GET_ITEM(self, 3);
  bool direct = n > n_in && n <= 8 && is_direct(args[n_in], true);
  for (int i = 0; direct && i < n_in; ++i) direct = is_direct(args[i], false);
  if (direct) {
    PyArrayObject* out = arr(args[n_in]);
    const int64_t k = PyArray_SIZE(out);
    if (kind == kKUnary && n == 2 && PyArray_SIZE(arr(args[0])) == k) {
      PyObject* r = unary(nullptr, std::array<PyObject*, 3>{PyTuple_GET_ITEM(self, 1), args[0],
                                                            args[1]}.data(), 3);
      return r;
    }
    if (kind == kKBinary && n == 3 && k > 0) {
      const int64_t kx = PyArray_SIZE(arr(args[0])), ky = PyArray_SIZE(arr(args[1]));
      if ((kx == k || kx == 1) && (ky == k || ky == 1)) {
        return binary(nullptr, std::array<PyObject*, 4>{PyTuple_GET_ITEM(self, 1), args[0],
                                                        args[1], args[2]}.data(), 4);
      }
      return through_f32(f32k, 2, args, n);
    }
    if (kind == kKSoftmax && n == 3 && PyLong_Check(args[2])) {
      PyArrayObject* x = arr(args[0]);
      const int nd = PyArray_NDIM(x);
      const long axis = PyLong_AsLong(args[2]);
      if (nd > 0 && axis == nd - 1 && PyArray_DIMS(x)[nd - 1] > 0 && PyArray_SIZE(x) == k) {
        PyObject* cols = PyLong_FromLongLong(PyArray_DIMS(x)[nd - 1]);
        if (!cols) return nullptr;
        PyObject* r = softmax(nullptr, std::array<PyObject*, 4>{PyTuple_GET_ITEM(self, 1),
                                                                args[0], args[1], cols}.data(), 4);
        Py_DECREF(cols);
        return r;
      }
      PyErr_Clear();
      return through_f32(f32k, 1, args, n);
    }
    if (kind == kKReduce && n == 4 && reduce_slices(op, args)) Py_RETURN_NONE;
    if (kind == kKThrough || kind == kKReduce) return through_f32(f32k, n_in, args, n);
  }
  return PyObject_Vectorcall(PyTuple_GET_ITEM(self, 4), args, n, nullptr);
}

PyMethodDef g_kernel_def = {
    "f16_kernel", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&f16_kernel)),
    METH_FASTCALL, "a float16 kernel through float32 lanes (mindlite._C.f16_builtin)"};

const char* const kBuiltinFn = "mindlite._C.f16_builtin";

// _C.f16_builtin(kind, op, inputs, f32_kernel, fallback) -> the builtin kernel.
PyObject* make_builtin(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (!nargs(kBuiltinFn, n, 5, "(kind, op, inputs, f32_kernel, fallback)")) return nullptr;
  for (int i = 0; i < 3; ++i) {
    if (!PyLong_Check(args[i])) {
      PyErr_Format(PyExc_TypeError, "For '%s', argument %d must be an int, but got %s",
                   kBuiltinFn, i, Py_TYPE(args[i])->tp_name);
      return nullptr;
    }
  }
  const long kind = PyLong_AsLong(args[0]), inputs = PyLong_AsLong(args[2]);
  if (kind < 0 || kind >= kNumKinds || inputs < 1 || inputs > 2) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'kind' must be in [0, %d) and 'inputs' 1 or 2, "
                 "but got %ld and %ld", kBuiltinFn, static_cast<int>(kNumKinds), kind, inputs);
    return nullptr;
  }
  if (!PyCallable_Check(args[3]) || !PyCallable_Check(args[4])) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'f32_kernel' and 'fallback' must be callable",
                 kBuiltinFn);
    return nullptr;
  }
  PyObject* self = PyTuple_Pack(5, args[0], args[1], args[2], args[3], args[4]);
  if (!self) return nullptr;
  PyObject* fn = PyCFunction_NewEx(&g_kernel_def, self, nullptr);
  Py_DECREF(self);
  return fn;
}

PyMethodDef kF16Methods[] = {
    {"f16_to_f32", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&to_f32)),
     METH_FASTCALL, "(x, out): float16 -> float32 (F16C), both C-contiguous"},
    {"f32_to_f16", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&to_f16)),
     METH_FASTCALL, "(x, out): float32 -> float16, round to nearest even (F16C)"},
    {"f16_unary", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&unary)),
     METH_FASTCALL, "(op, x, out): a unary op on float16 through float32 lanes"},
    {"f16_binary", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&binary)),
     METH_FASTCALL, "(op, x, y, out): a binary op on float16 through float32 lanes"},
    {"f16_softmax", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&softmax)),
     METH_FASTCALL, "(op, x, out, cols): Softmax (0) / LogSoftmax (1) over rows of cols"},
    {"f16_builtin",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&make_builtin)),
     METH_FASTCALL, "(kind, op, inputs, f32_kernel, fallback): a float16 kernel builtin"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_f16_functions(PyObject* module) {
  return PyModule_AddFunctions(module, kF16Methods) == 0;
}

}  // namespace mindlite
