// Fast-call entry points of the BiasAdd / BiasAddGrad loops (kernels/bias_loops.h); what
// kernels/cpu/nn_cpp.py calls:
//   _C.bias_add(x, bias, out, data_format)   out = x + bias along the channel axis: the last
//                                            for "NHWC", else 1 ("NCHW", "NCDHW")
//   _C.bias_add_grad(dout, db, axis)         db = dout summed over `axis`, a tuple of every
//                                            axis but the channel axis, in order
// (the BiasAdd / BiasAddGrad kernels' signatures: registered as they are, no Python frame).
// x / dout: float32 or float64, at least 2-D, any layout (a dense copy is made when needed).
// bias / db: 1-D of the channel count, same dtype; out: x's shape, writeable, C-contiguous
// and aligned (it may be x itself). Every check runs before any memory is touched:
// TypeError / ValueError "For 'mindlite._C.bias_add', 'arg' ...". The loops run with the GIL held.
#include "bind/bias_bind.h"

#include <cstring>

#include "bind/array_args.h"
#include "kernels/bias_loops.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

PyArrayObject* at_least_2d(Ctx* cx, const char* arg, PyObject* o) {
  PyArrayObject* a = float_typed(cx, arg, o);
  if (a && PyArray_NDIM(a) < 2) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be at least 2-D, but got shape %s",
                 cx->fn, arg, shape_str(PyArray_NDIM(a), PyArray_DIMS(a)).c_str());
    return nullptr;
  }
  return a;
}

// (A, C, S) of a C-contiguous array of shape `s` (nd dims) with its channel axis at ch.
void acs(const npy_intp* s, int nd, int ch, int64_t* v) {
  int64_t a = 1, r = 1;
  for (int d = 0; d < ch; ++d) a *= s[d];
  for (int d = ch + 1; d < nd; ++d) r *= s[d];
  v[0] = a;
  v[1] = s[ch];
  v[2] = r;
}

// A 1-D array of `c` elements of the context's dtype, C-contiguous and aligned (writeable when
// `write`); nullptr with an error.
PyArrayObject* channel_vector(Ctx* cx, const char* arg, PyObject* o, int64_t c, bool write) {
  PyArrayObject* v = float_typed(cx, arg, o);
  if (!v) return nullptr;
  if (PyArray_NDIM(v) != 1 || PyArray_DIM(v, 0) != c) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' shape must be (%lld,) (the channel count), "
                 "but got %s", cx->fn, arg, static_cast<long long>(c),
                 shape_str(PyArray_NDIM(v), PyArray_DIMS(v)).c_str());
    return nullptr;
  }
  if (write && !check_out(CallSite{cx->fn, "BiasAddGrad"}, v)) return nullptr;
  return v;
}

// A new reference: `a`'s values aligned, C-contiguous and not partially overlapping `out`
// (`same_ok`: `a` may be `out` element for element); a copy when `a` is not all that.
PyArrayObject* dense(PyArrayObject* a, PyArrayObject* out, bool same_ok) {
  PyArrayObject* r = readable(a, out, same_ok);
  if (!r || PyArray_IS_C_CONTIGUOUS(r)) return r;
  PyArrayObject* c = reinterpret_cast<PyArrayObject*>(PyArray_NewCopy(r, NPY_CORDER));
  Py_DECREF(r);
  return c;
}

// The one axis of [0, nd) that `axis` (a tuple of ints: every other axis, ascending) leaves
// out; -1 with ValueError / TypeError.
int channel_of(const Ctx& cx, PyObject* axis, int nd) {
  const Py_ssize_t n = PyTuple_Check(axis) ? PyTuple_GET_SIZE(axis) : -1;
  int ch = -1;
  bool ok = n == nd - 1;
  for (Py_ssize_t i = 0, want = 0; ok && i < n; ++i, ++want) {
    PyObject* o = PyTuple_GET_ITEM(axis, i);
    const long a = PyLong_Check(o) ? PyLong_AsLong(o) : -2;
    if (a == want + 1 && ch < 0) {   // the gap: the channel axis
      ch = static_cast<int>(want);
      ++want;
    }
    ok = a == want;
  }
  if (ok && ch < 0) ch = nd - 1;
  if (!ok || PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "For '%s', 'axis' must be a tuple of every axis of 'dout' "
                 "(%d-D) but one, ascending, but got %R", cx.fn, nd, axis);
    return -1;
  }
  return ch;
}

PyObject* py_bias_add(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.bias_add"};
  if (!nargs_ok(cx, nargs, 4, "(x, bias, out, data_format)")) return nullptr;
  PyArrayObject* x = at_least_2d(&cx, "x", args[0]);
  const char* fmt = x && PyUnicode_Check(args[3]) ? PyUnicode_AsUTF8(args[3]) : nullptr;
  if (!x) return nullptr;
  if (!fmt || (std::strcmp(fmt, "NHWC") && std::strcmp(fmt, "NCHW") &&
               std::strcmp(fmt, "NCDHW"))) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "For '%s', 'data_format' must be 'NCHW', 'NHWC' or "
                 "'NCDHW', but got %R", cx.fn, args[3]);
    return nullptr;
  }
  const int nd = PyArray_NDIM(x);
  int64_t v[3];
  acs(PyArray_DIMS(x), nd, std::strcmp(fmt, "NHWC") ? 1 : nd - 1, v);
  PyArrayObject* bias = channel_vector(&cx, "bias", args[1], v[1], false);
  PyArrayObject* out = bias ? float_typed(&cx, "out", args[2]) : nullptr;
  if (!out) return nullptr;
  if (!PyArray_SAMESHAPE(x, out)) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'out' shape must be %s (the shape of 'x'), but "
                 "got %s", cx.fn, shape_str(nd, PyArray_DIMS(x)).c_str(),
                 shape_str(PyArray_NDIM(out), PyArray_DIMS(out)).c_str());
    return nullptr;
  }
  if (!check_out(CallSite{cx.fn, "BiasAdd"}, out)) return nullptr;
  PyArrayObject* xd = dense(x, out, true);
  PyArrayObject* br = xd ? dense(bias, out, false) : nullptr;
  if (!br) {
    Py_XDECREF(xd);
    return nullptr;
  }
  if (cx.dt == kF32) {
    bias_add_f32(data<float>(xd), data<float>(br), data<float>(out), v[0], v[1], v[2]);
  } else {
    bias_add_f64(data<double>(xd), data<double>(br), data<double>(out), v[0], v[1], v[2]);
  }
  Py_DECREF(xd);
  Py_DECREF(br);
  Py_RETURN_NONE;
}

PyObject* py_bias_add_grad(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.bias_add_grad"};
  if (!nargs_ok(cx, nargs, 3, "(dout, db, axis)")) return nullptr;
  PyArrayObject* d = at_least_2d(&cx, "dout", args[0]);
  if (!d) return nullptr;
  const int nd = PyArray_NDIM(d);
  const int ch = channel_of(cx, args[2], nd);
  if (ch < 0) return nullptr;
  int64_t v[3];
  acs(PyArray_DIMS(d), nd, ch, v);
  PyArrayObject* db = channel_vector(&cx, "db", args[1], v[1], true);
  if (!db) return nullptr;
  PyArrayObject* dd = dense(d, db, false);
  if (!dd) return nullptr;
  if (cx.dt == kF32) {
    bias_add_grad_f32(data<float>(dd), data<float>(db), v[0], v[1], v[2]);
  } else {
    bias_add_grad_f64(data<double>(dd), data<double>(db), v[0], v[1], v[2]);
  }
  Py_DECREF(dd);
  Py_RETURN_NONE;
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef kMethods[] = {
    {"bias_add", MINDLITE_FASTCALL(py_bias_add),
     "bias_add(x, bias, out, data_format): out = x + bias along the channel axis (the last "
     "for 'NHWC', else 1)."},
    {"bias_add_grad", MINDLITE_FASTCALL(py_bias_add_grad),
     "bias_add_grad(dout, db, axis): db = dout summed over axis, every axis but the channel "
     "axis (accumulated in float64)."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_bias_functions(PyObject* module) {
  return PyModule_AddFunctions(module, kMethods) == 0;
}

}  // namespace mindlite
