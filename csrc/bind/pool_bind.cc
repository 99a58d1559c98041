// Fast-call (METH_FASTCALL) entry points of the max-pooling loops (kernels/pool_loops.h), one
// module function each; what kernels/cpu/pool_cpp.py calls:
//   _C.max_pool(x, out, kh, kw, sh, sw, dh, dw, top, left)
//   _C.max_pool_grad(x, out, grad, dx, kh, kw, sh, sw, dh, dw, top, left)
//   _C.max_pool_2x2(x, out, sh, sw)
//   _C.max_pool_grad_2x2(x, out, grad, dx, sh, sw)
// x, dx (N, C, H, W) and out, grad (N, C, OH, OW) must be aligned, C-contiguous ndarrays of
// one float dtype (float32/float64; the callers pass np.ascontiguousarray of their inputs),
// out (forward) and dx writeable. kh, kw, sh, sw, dh, dw are ints in [1, 2**40], top, left in
// [0, 2**40]. The generic loops bounds-check every position they read, so any such geometry
// is memory-safe (the index arithmetic is checked not to overflow); the 2 x 2 loops read
// unchecked, so every window must lie inside x: (OH - 1) sh + 2 <= H, (OW - 1) sw + 2 <= W.
// Everything is checked before any memory is touched: TypeError / ValueError
// "For 'mindlite._C.max_pool', 'arg' ...". The loops run with the GIL held.
#include "bind/pool_bind.h"

#include "bind/array_args.h"
#include "kernels/pool_loops.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

bool same_shape(const Ctx& cx, const char* arg, PyArrayObject* a, const char* ref_arg,
                PyArrayObject* ref) {
  const npy_intp* s = PyArray_DIMS(a);
  const npy_intp* r = PyArray_DIMS(ref);
  if (s[0] == r[0] && s[1] == r[1] && s[2] == r[2] && s[3] == r[3]) return true;
  PyErr_Format(PyExc_ValueError, "For '%s', '%s' shape must be %s (the shape of '%s'), but got "
               "%s", cx.fn, arg, shape_str(4, r).c_str(), ref_arg, shape_str(4, s).c_str());
  return false;
}

// x (N, C, H, W) and out (N, C, OH, OW): out's N and C are x's.
bool out_matches(const Ctx& cx, PyArrayObject* x, PyArrayObject* out) {
  const npy_intp* s = PyArray_DIMS(x);
  const npy_intp* so = PyArray_DIMS(out);
  if (so[0] == s[0] && so[1] == s[1]) return true;
  PyErr_Format(PyExc_ValueError, "For '%s', 'out' shape %s must have 'x' shape %s's N and C",
               cx.fn, shape_str(4, so).c_str(), shape_str(4, s).c_str());
  return false;
}

// The generic loops' index arithmetic, (OH - 1) sh + (kh - 1) dh (and the width's), must not
// overflow: at most 2**62.
bool reach_ok(const Ctx& cx, const npy_intp* so, const int64_t* g) {
  for (int d = 0; d < 2; ++d) {
    const __int128 reach = static_cast<__int128>(so[2 + d]) * g[2 + d] +
                           static_cast<__int128>(g[d] - 1) * g[4 + d];
    if (reach > (static_cast<__int128>(1) << 62)) {
      PyErr_Format(PyExc_ValueError, "For '%s', the windows reach too far: 'out' shape %s with "
                   "%s stride %lld and dilation %lld", cx.fn, shape_str(4, so).c_str(),
                   d ? "column" : "row", static_cast<long long>(g[2 + d]),
                   static_cast<long long>(g[4 + d]));
      return false;
    }
  }
  return true;
}

// The 2 x 2 loops: every window inside x, (OH - 1) sh + 2 <= H and (OW - 1) sw + 2 <= W.
bool inside_2x2(const Ctx& cx, const npy_intp* s, const npy_intp* so, int64_t sh, int64_t sw) {
  if (so[2] == 0 || so[3] == 0) return true;
  const __int128 rows = static_cast<__int128>(so[2] - 1) * sh + 2;
  const __int128 cols = static_cast<__int128>(so[3] - 1) * sw + 2;
  if (rows <= s[2] && cols <= s[3]) return true;
  PyErr_Format(PyExc_ValueError, "For '%s', every 2 x 2 window must lie inside 'x': 'out' "
               "shape %s with strides (%lld, %lld) needs (OH - 1) * sh + 2 <= H and (OW - 1) * "
               "sw + 2 <= W, but 'x' shape is %s", cx.fn, shape_str(4, so).c_str(),
               static_cast<long long>(sh), static_cast<long long>(sw),
               shape_str(4, s).c_str());
  return false;
}

// (kh, kw, sh, sw, dh, dw, top, left) from args[0..8).
bool geometry(const Ctx& cx, PyObject* const* args, int64_t* g) {
  static const char* const kNames[8] = {"kh", "kw", "sh", "sw", "dh", "dw", "top", "left"};
  for (int i = 0; i < 8; ++i) {
    if (!int_arg(cx, kNames[i], args[i], i < 6 ? 1 : 0, &g[i])) return false;
  }
  return true;
}

PyObject* py_max_pool(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.max_pool"};
  if (!nargs_ok(cx, nargs, 10, "(x, out, kh, kw, sh, sw, dh, dw, top, left)")) return nullptr;
  PyArrayObject* x = float_array(&cx, "x", args[0], 4, false);
  PyArrayObject* out = x ? float_array(&cx, "out", args[1], 4, true) : nullptr;
  int64_t g[8];
  if (!out || !out_matches(cx, x, out) || !geometry(cx, args + 2, g)) return nullptr;
  const npy_intp* s = PyArray_DIMS(x);
  const npy_intp* so = PyArray_DIMS(out);
  if (!reach_ok(cx, so, g)) return nullptr;
  MINDLITE_FLOAT_DISPATCH(cx.dt, max_pool<T>(data<T>(x), data<T>(out), s[0], s[1], s[2], s[3],
                                            so[2], so[3], g[0], g[1], g[2], g[3], g[4], g[5],
                                            g[6], g[7]));
  Py_RETURN_NONE;
}

// (x, out, grad, dx): out and grad of one shape with x's N and C, dx of x's shape.
bool grad_arrays(Ctx* cx, PyObject* const* args, PyArrayObject** a) {
  static const char* const kNames[4] = {"x", "out", "grad", "dx"};
  for (int i = 0; i < 4; ++i) {
    a[i] = float_array(cx, kNames[i], args[i], 4, i == 3);
    if (!a[i]) return false;
  }
  return out_matches(*cx, a[0], a[1]) && same_shape(*cx, "grad", a[2], "out", a[1]) &&
         same_shape(*cx, "dx", a[3], "x", a[0]);
}

PyObject* py_max_pool_grad(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.max_pool_grad"};
  if (!nargs_ok(cx, nargs, 12, "(x, out, grad, dx, kh, kw, sh, sw, dh, dw, top, left)")) {
    return nullptr;
  }
  PyArrayObject* a[4];
  int64_t g[8];
  if (!grad_arrays(&cx, args, a) || !geometry(cx, args + 4, g)) return nullptr;
  const npy_intp* s = PyArray_DIMS(a[0]);
  const npy_intp* so = PyArray_DIMS(a[1]);
  if (!reach_ok(cx, so, g)) return nullptr;
  MINDLITE_FLOAT_DISPATCH(cx.dt, max_pool_grad<T>(data<T>(a[0]), data<T>(a[1]), data<T>(a[2]),
                                                 data<T>(a[3]), s[0], s[1], s[2], s[3], so[2],
                                                 so[3], g[0], g[1], g[2], g[3], g[4], g[5],
                                                 g[6], g[7]));
  Py_RETURN_NONE;
}

PyObject* py_max_pool_2x2(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.max_pool_2x2"};
  if (!nargs_ok(cx, nargs, 4, "(x, out, sh, sw)")) return nullptr;
  PyArrayObject* x = float_array(&cx, "x", args[0], 4, false);
  PyArrayObject* out = x ? float_array(&cx, "out", args[1], 4, true) : nullptr;
  int64_t sh, sw;
  if (!out || !out_matches(cx, x, out) || !int_arg(cx, "sh", args[2], 1, &sh) ||
      !int_arg(cx, "sw", args[3], 1, &sw)) {
    return nullptr;
  }
  const npy_intp* s = PyArray_DIMS(x);
  const npy_intp* so = PyArray_DIMS(out);
  if (!inside_2x2(cx, s, so, sh, sw)) return nullptr;
  MINDLITE_FLOAT_DISPATCH(cx.dt, max_pool_2x2<T>(data<T>(x), data<T>(out), s[0], s[1], s[2],
                                                s[3], so[2], so[3], sh, sw));
  Py_RETURN_NONE;
}

PyObject* py_max_pool_grad_2x2(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.max_pool_grad_2x2"};
  if (!nargs_ok(cx, nargs, 6, "(x, out, grad, dx, sh, sw)")) return nullptr;
  PyArrayObject* a[4];
  int64_t sh, sw;
  if (!grad_arrays(&cx, args, a) || !int_arg(cx, "sh", args[4], 1, &sh) ||
      !int_arg(cx, "sw", args[5], 1, &sw)) {
    return nullptr;
  }
  const npy_intp* s = PyArray_DIMS(a[0]);
  const npy_intp* so = PyArray_DIMS(a[1]);
  if (!inside_2x2(cx, s, so, sh, sw)) return nullptr;
  MINDLITE_FLOAT_DISPATCH(cx.dt, max_pool_grad_2x2<T>(data<T>(a[0]), data<T>(a[1]),
                                                     data<T>(a[2]), data<T>(a[3]), s[0], s[1],
                                                     s[2], s[3], so[2], so[3], sh, sw));
  Py_RETURN_NONE;
}

#undef MINDLITE_FLOAT_DISPATCH

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"max_pool", MINDLITE_FASTCALL(py_max_pool),
     "max_pool(x, out, kh, kw, sh, sw, dh, dw, top, left): out[n, c, y, q] = the maximum of "
     "the window's positions inside x (NaN if any is NaN, -inf if none)."},
    {"max_pool_grad", MINDLITE_FASTCALL(py_max_pool_grad),
     "max_pool_grad(x, out, grad, dx, kh, kw, sh, sw, dh, dw, top, left): dx = 0, then "
     "grad[n, c, y, q] added at the window's first position equal to out[n, c, y, q]."},
    {"max_pool_2x2", MINDLITE_FASTCALL(py_max_pool_2x2),
     "max_pool_2x2(x, out, sh, sw): max_pool with 2 x 2 windows inside x, no padding."},
    {"max_pool_grad_2x2", MINDLITE_FASTCALL(py_max_pool_grad_2x2),
     "max_pool_grad_2x2(x, out, grad, dx, sh, sw): max_pool_grad with 2 x 2 windows inside x, "
     "no padding."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_pool_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
