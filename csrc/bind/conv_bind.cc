// Fast-call (METH_FASTCALL) entry points of the convolution loops (kernels/conv_loops.h), one
// module function each; what kernels/cpu/conv_cpp.py calls:
//   _C.conv_pad(x, xp, top, left)            _C.conv_pad_t(x, xt, top, left, wp)
//   _C.conv_im2col(xp, cols, tab)            _C.conv_im2col_t(xt, cols, tab)
//   _C.conv_col2im(cols, dxp, tab)           _C.conv_col2im_t(cols, dxt, tab)
//   _C.conv_crop_t(dxt, dx, top, left, wp)
//   _C.conv_to_batch_inner(d, dt)            _C.conv_from_batch_inner(dt, d)
// Every array must be an aligned, C-contiguous ndarray of one float dtype (float32/float64;
// the callers pass np.ascontiguousarray of their inputs), the written one writeable; tab is a
// C-contiguous intp (K, P) table. Shapes, offsets and EVERY table entry are checked before any
// memory is touched: TypeError / ValueError "For 'mindlite._C.conv_x', 'arg' ...".
// The loops run with the GIL held (they take microseconds on the shapes conv sees).
#include "bind/conv_bind.h"

#include "bind/array_args.h"
#include "kernels/conv_loops.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

bool shape_is(const Ctx& cx, const char* arg, PyArrayObject* a, const npy_intp* want) {
  const int nd = PyArray_NDIM(a);
  for (int i = 0; i < nd; ++i) {
    if (PyArray_DIMS(a)[i] != want[i]) {
      PyErr_Format(PyExc_ValueError, "For '%s', '%s' shape must be %s, but got %s", cx.fn, arg,
                   shape_str(nd, want).c_str(), shape_str(nd, PyArray_DIMS(a)).c_str());
      return false;
    }
  }
  return true;
}

// A non-negative int (any object with __index__).
const int64_t* table_arg(const Ctx& cx, PyObject* o, int64_t plane, int64_t* k, int64_t* p) {
  if (!PyArray_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'tab' must be a numpy.ndarray, but got %s", cx.fn,
                 Py_TYPE(o)->tp_name);
    return nullptr;
  }
  PyArrayObject* t = reinterpret_cast<PyArrayObject*>(o);
  PyArray_Descr* d = PyArray_DESCR(t);
  if (!PyArray_ISNBO(d->byteorder) || !PyTypeNum_ISINTEGER(d->type_num) ||
      !PyTypeNum_ISSIGNED(d->type_num) || PyArray_ITEMSIZE(t) != 8) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'tab' dtype must be intp (int64), but got %R",
                 cx.fn, reinterpret_cast<PyObject*>(d));
    return nullptr;
  }
  if (PyArray_NDIM(t) != 2 || !PyArray_IS_C_CONTIGUOUS(t) || !PyArray_ISALIGNED(t)) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'tab' must be a 2-D C-contiguous aligned array, "
                 "but got shape %s", cx.fn,
                 shape_str(PyArray_NDIM(t), PyArray_DIMS(t)).c_str());
    return nullptr;
  }
  const int64_t* tab = reinterpret_cast<const int64_t*>(PyArray_DATA(t));
  *k = PyArray_DIMS(t)[0];
  *p = PyArray_DIMS(t)[1];
  const int64_t size = *k * *p;
  uint64_t bad = 0;  // entries outside [0, plane): one branch-free pass
  for (int64_t i = 0; i < size; ++i) {
    bad |= static_cast<uint64_t>(tab[i]) >= static_cast<uint64_t>(plane);
  }
  if (bad) {
    for (int64_t i = 0; i < size; ++i) {
      if (tab[i] < 0 || tab[i] >= plane) {
        PyErr_Format(PyExc_ValueError, "For '%s', every 'tab' entry must be in [0, %lld) (the "
                     "plane size), but tab[%lld, %lld] is %lld", cx.fn,
                     static_cast<long long>(plane), static_cast<long long>(i / *p),
                     static_cast<long long>(i % *p), static_cast<long long>(tab[i]));
        break;
      }
    }
    return nullptr;
  }
  return tab;
}

// ---- sample-major ----
PyObject* py_pad(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.conv_pad"};
  if (!nargs_ok(cx, nargs, 4, "(x, xp, top, left)")) return nullptr;
  PyArrayObject* x = float_array(&cx, "x", args[0], 4, false);
  PyArrayObject* xp = x ? float_array(&cx, "xp", args[1], 4, true) : nullptr;
  int64_t top, left;
  if (!xp || !int_arg(cx, "top", args[2], 0, &top) || !int_arg(cx, "left", args[3], 0, &left)) {
    return nullptr;
  }
  const npy_intp* s = PyArray_DIMS(x);
  const npy_intp* sp = PyArray_DIMS(xp);
  if (sp[0] != s[0] || sp[1] != s[1] || sp[2] < top + s[2] || sp[3] < left + s[3]) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'xp' shape %s must have 'x' shape %s's N and C "
                 "and hold it at (top, left) = (%lld, %lld)", cx.fn, shape_str(4, sp).c_str(),
                 shape_str(4, s).c_str(), static_cast<long long>(top),
                 static_cast<long long>(left));
    return nullptr;
  }
  MINDLITE_FLOAT_DISPATCH(cx.dt, conv_pad<T>(data<T>(x), data<T>(xp), s[0], s[1], s[2], s[3],
                                            sp[2], sp[3], top, left));
  Py_RETURN_NONE;
}

// im2col (xp, cols, tab) and col2im (cols, dxp, tab): `plane_arg` is xp / dxp (N, C, HW).
PyObject* im2col_impl(const char* fn, PyObject* const* args, Py_ssize_t nargs, bool adjoint) {
  Ctx cx{fn};
  if (!nargs_ok(cx, nargs, 3, adjoint ? "(cols, dxp, tab)" : "(xp, cols, tab)")) return nullptr;
  const char* pname = adjoint ? "dxp" : "xp";
  PyArrayObject* cols = float_array(&cx, "cols", args[adjoint ? 0 : 1], 2, !adjoint);
  PyArrayObject* pl = cols ? float_array(&cx, pname, args[adjoint ? 1 : 0], 3, adjoint) : nullptr;
  if (!pl) return nullptr;
  const npy_intp* sp = PyArray_DIMS(pl);
  int64_t k, p;
  const int64_t* tab = table_arg(cx, args[2], sp[2], &k, &p);
  if (!tab) return nullptr;
  const npy_intp want[2] = {static_cast<npy_intp>(sp[1] * k), static_cast<npy_intp>(sp[0] * p)};
  if (!shape_is(cx, "cols", cols, want)) return nullptr;
  if (adjoint) {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_col2im<T>(data<T>(cols), data<T>(pl), tab, sp[0], sp[1],
                                                 sp[2], k, p));
  } else {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_im2col<T>(data<T>(pl), data<T>(cols), tab, sp[0], sp[1],
                                                 sp[2], k, p));
  }
  Py_RETURN_NONE;
}

PyObject* py_im2col(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return im2col_impl("mindlite._C.conv_im2col", args, nargs, false);
}

PyObject* py_col2im(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return im2col_impl("mindlite._C.conv_col2im", args, nargs, true);
}

// ---- batch innermost ----
// pad_t (x, xt, top, left, wp) and crop_t (dxt, dx, top, left, wp): the image (N, C, H, W)
// and the plane array (C, S, N); rows of Wp >= left + W, (top + H) Wp <= S.
PyObject* pad_crop_impl(const char* fn, PyObject* const* args, Py_ssize_t nargs, bool crop) {
  Ctx cx{fn};
  if (!nargs_ok(cx, nargs, 5, crop ? "(dxt, dx, top, left, wp)" : "(x, xt, top, left, wp)")) {
    return nullptr;
  }
  const char* iname = crop ? "dx" : "x";
  const char* tname = crop ? "dxt" : "xt";
  PyArrayObject* img = float_array(&cx, iname, args[crop ? 1 : 0], 4, crop);
  PyArrayObject* pt = img ? float_array(&cx, tname, args[crop ? 0 : 1], 3, !crop) : nullptr;
  int64_t top, left, wp;
  if (!pt || !int_arg(cx, "top", args[2], 0, &top) || !int_arg(cx, "left", args[3], 0, &left) ||
      !int_arg(cx, "wp", args[4], 0, &wp)) {
    return nullptr;
  }
  const npy_intp* s = PyArray_DIMS(img);
  const npy_intp* st = PyArray_DIMS(pt);
  if (st[0] != s[1] || st[2] != s[0] || wp < left + s[3] || (top + s[2]) * wp > st[1]) {
    PyErr_Format(PyExc_ValueError, "For '%s', '%s' shape %s must be (C, S, N) of '%s' shape %s "
                 "with rows of 'wp' >= left + W and (top + H) * wp <= S (top %lld, left %lld, "
                 "wp %lld)", cx.fn, tname, shape_str(3, st).c_str(), iname,
                 shape_str(4, s).c_str(), static_cast<long long>(top),
                 static_cast<long long>(left), static_cast<long long>(wp));
    return nullptr;
  }
  if (crop) {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_crop_t<T>(data<T>(pt), data<T>(img), s[0], s[1], s[2],
                                                 s[3], st[1], top, left, wp));
  } else {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_pad_t<T>(data<T>(img), data<T>(pt), s[0], s[1], s[2],
                                                s[3], st[1], top, left, wp));
  }
  Py_RETURN_NONE;
}

PyObject* py_pad_t(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return pad_crop_impl("mindlite._C.conv_pad_t", args, nargs, false);
}

PyObject* py_crop_t(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return pad_crop_impl("mindlite._C.conv_crop_t", args, nargs, true);
}

// im2col_t (xt, cols, tab) and col2im_t (cols, dxt, tab): the plane array (C, S, N).
PyObject* im2col_t_impl(const char* fn, PyObject* const* args, Py_ssize_t nargs, bool adjoint) {
  Ctx cx{fn};
  if (!nargs_ok(cx, nargs, 3, adjoint ? "(cols, dxt, tab)" : "(xt, cols, tab)")) return nullptr;
  PyArrayObject* cols = float_array(&cx, "cols", args[adjoint ? 0 : 1], 2, !adjoint);
  PyArrayObject* pt =
      cols ? float_array(&cx, adjoint ? "dxt" : "xt", args[adjoint ? 1 : 0], 3, adjoint)
           : nullptr;
  if (!pt) return nullptr;
  const npy_intp* st = PyArray_DIMS(pt);
  int64_t k, p;
  const int64_t* tab = table_arg(cx, args[2], st[1], &k, &p);
  if (!tab) return nullptr;
  const npy_intp want[2] = {static_cast<npy_intp>(st[0] * k), static_cast<npy_intp>(p * st[2])};
  if (!shape_is(cx, "cols", cols, want)) return nullptr;
  if (adjoint) {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_col2im_t<T>(data<T>(cols), data<T>(pt), tab, st[0], st[1],
                                                   st[2], k, p));
  } else {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_im2col_t<T>(data<T>(pt), data<T>(cols), tab, st[0], st[1],
                                                   st[2], k, p));
  }
  Py_RETURN_NONE;
}

PyObject* py_im2col_t(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return im2col_t_impl("mindlite._C.conv_im2col_t", args, nargs, false);
}

PyObject* py_col2im_t(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return im2col_t_impl("mindlite._C.conv_col2im_t", args, nargs, true);
}

// to_batch_inner (d, dt) and from_batch_inner (dt, d): d (N, O, P), dt (O, P N).
PyObject* batch_inner_impl(const char* fn, PyObject* const* args, Py_ssize_t nargs, bool from) {
  Ctx cx{fn};
  if (!nargs_ok(cx, nargs, 2, from ? "(dt, d)" : "(d, dt)")) return nullptr;
  PyArrayObject* d = float_array(&cx, "d", args[from ? 1 : 0], 3, from);
  PyArrayObject* dt = d ? float_array(&cx, "dt", args[from ? 0 : 1], 2, !from) : nullptr;
  if (!dt) return nullptr;
  const npy_intp* s = PyArray_DIMS(d);
  const npy_intp want[2] = {s[1], s[2] * s[0]};
  if (!shape_is(cx, "dt", dt, want)) return nullptr;
  if (from) {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_from_batch_inner<T>(data<T>(dt), data<T>(d), s[0], s[1],
                                                           s[2]));
  } else {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_to_batch_inner<T>(data<T>(d), data<T>(dt), s[0], s[1],
                                                         s[2]));
  }
  Py_RETURN_NONE;
}

PyObject* py_to_batch_inner(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return batch_inner_impl("mindlite._C.conv_to_batch_inner", args, nargs, false);
}

PyObject* py_from_batch_inner(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return batch_inner_impl("mindlite._C.conv_from_batch_inner", args, nargs, true);
}

#undef MINDLITE_FLOAT_DISPATCH

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"conv_pad", MINDLITE_FASTCALL(py_pad),
     "conv_pad(x, xp, top, left): xp = 0, then xp[:, :, top:top + H, left:left + W] = x."},
    {"conv_im2col", MINDLITE_FASTCALL(py_im2col),
     "conv_im2col(xp, cols, tab): cols[c K + k, n P + p] = xp[n, c, tab[k, p]], xp (N, C, HW)."},
    {"conv_col2im", MINDLITE_FASTCALL(py_col2im),
     "conv_col2im(cols, dxp, tab): dxp = 0, then dxp[n, c, tab[k, p]] += cols[c K + k, n P + p] "
     "(kernel-offset order per element)."},
    {"conv_pad_t", MINDLITE_FASTCALL(py_pad_t),
     "conv_pad_t(x, xt, top, left, wp): xt (C, S, N) = x (N, C, H, W) zero-padded in rows of "
     "wp, batch innermost."},
    {"conv_im2col_t", MINDLITE_FASTCALL(py_im2col_t),
     "conv_im2col_t(xt, cols, tab): cols[c K + k, p N + n] = xt[c, tab[k, p], n]."},
    {"conv_col2im_t", MINDLITE_FASTCALL(py_col2im_t),
     "conv_col2im_t(cols, dxt, tab): dxt = 0, then dxt[c, tab[k, p], n] += cols[c K + k, p N + "
     "n] (kernel-offset order per element)."},
    {"conv_crop_t", MINDLITE_FASTCALL(py_crop_t),
     "conv_crop_t(dxt, dx, top, left, wp): dx (N, C, H, W) = the unpadded part of dxt (C, S, N)."},
    {"conv_to_batch_inner", MINDLITE_FASTCALL(py_to_batch_inner),
     "conv_to_batch_inner(d, dt): dt (O, P N) = d (N, O, P) with column p N + n."},
    {"conv_from_batch_inner", MINDLITE_FASTCALL(py_from_batch_inner),
     "conv_from_batch_inner(dt, d): d (N, O, P) = dt (O, P N) with column p N + n."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_conv_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
