// FusedConv2DBiasAdd's C++ kernel as the registry binds it (a fast call, so the eager fast
// path, the @jit graph runner and the Lite runtime launch it without a Python frame):
//   _C.conv_bias_act(x, w, bias, out, stride, dilation, pads, group, relu, pool_stride)
//   _C.conv_bias_act(x, w, out, stride, dilation, pads, group, relu, pool_stride)  (no bias)
// The convolution is _C.conv_small_forward itself (conv_small_bind.cc: every geometry check
// and the same loops, so it gives exactly what eager's Conv2D gives), then the epilogue of
// kernels/conv_fused.h on the still-hot output. bias: 1-D, the output's dtype, one value per
// output channel; relu: a bool; pool_stride: () (out is the convolution's output) or (sh, sw):
// the convolution goes to a scratch array and out receives its 2 x 2 'valid' max pooling
// with those strides (kernels/pool_loops.h, MaxPool's own loop). Checked before out is
// written (TypeError / ValueError naming the function and the argument).
#include "bind/conv_fused_bind.h"

#include "bind/array_args.h"
#include "kernels/conv_fused.h"
#include "kernels/pool_loops.h"

namespace mindlite {
namespace {

constexpr const char* kFn = "mindlite._C.conv_bias_act";
PyObject* g_conv = nullptr;  // _C.conv_small_forward (a strong reference, kept for good)

// pool_stride: () -> false, or 2 ints >= 1 -> true with ps filled.
bool pool_arg(const FloatCtx& cx, PyObject* o, bool* pool, int64_t* ps) {
  if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 0) {
    *pool = false;
    return true;
  }
  if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'pool_stride' must be () or a tuple of 2 ints, "
                 "but got %R", kFn, o);
    return false;
  }
  *pool = true;
  return int_arg(cx, "pool_stride", PyTuple_GET_ITEM(o, 0), 1, &ps[0]) &&
         int_arg(cx, "pool_stride", PyTuple_GET_ITEM(o, 1), 1, &ps[1]);
}

// The convolution's output plane from x, w and the geometry args (unchecked values are left
// to conv_small_forward, which checks them all); false with ValueError when none fits.
bool conv_plane(const FloatCtx& cx, PyObject* const* args, Py_ssize_t o, npy_intp* dims) {
  PyArrayObject* x = float_nd(const_cast<FloatCtx*>(&cx), "x", args[0], 4);
  PyArrayObject* w = x ? float_nd(const_cast<FloatCtx*>(&cx), "w", args[1], 4) : nullptr;
  if (!w) return false;
  int64_t v[8];
  for (int i = 0; i < 8; ++i) {
    PyObject* seq = args[o + 1 + (i < 2 ? 0 : i < 4 ? 1 : 2)];
    const int k = i < 2 ? i : i < 4 ? i - 2 : i - 4;
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) <= k ||
        !int_arg(cx, "stride / dilation / pads", PyTuple_GET_ITEM(seq, k), i < 4 ? 1 : 0,
                 &v[i])) {
      if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "For '%s', 'stride', 'dilation' and 'pads' must be "
                     "tuples of 2, 2 and 4 ints", kFn);
      }
      return false;
    }
  }
  const npy_intp* xs = PyArray_DIMS(x);
  const npy_intp* ws = PyArray_DIMS(w);
  // int_arg bounds every value by 2**40, so these cannot overflow
  const int64_t eh = xs[2] + v[4] + v[5] - v[2] * (ws[2] - 1) - 1;
  const int64_t ew = xs[3] + v[6] + v[7] - v[3] * (ws[3] - 1) - 1;
  const int64_t oh = eh < 0 ? 0 : eh / v[0] + 1;
  const int64_t ow = ew < 0 ? 0 : ew / v[1] + 1;
  if (oh < 2 || ow < 2) {
    PyErr_Format(PyExc_ValueError, "For '%s', the convolution's output plane must be at least "
                 "2 x 2 for a 2 x 2 max pooling, but x %s and w %s give (%lld, %lld)", kFn,
                 shape_str(4, xs).c_str(), shape_str(4, ws).c_str(),
                 static_cast<long long>(oh), static_cast<long long>(ow));
    return false;
  }
  dims[0] = xs[0];
  dims[1] = ws[0];
  dims[2] = oh;
  dims[3] = ow;
  return true;
}

PyObject* py_conv_bias_act(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  FloatCtx cx{kFn};
  if (nargs != 9 && nargs != 10) {
    PyErr_Format(PyExc_TypeError, "For '%s', expected 10 arguments (x, w, bias, out, stride, "
                 "dilation, pads, group, relu, pool_stride) or 9 without bias, but got %zd",
                 kFn, nargs);
    return nullptr;
  }
  const bool has_bias = nargs == 10;
  const Py_ssize_t o = has_bias ? 3 : 2;  // index of out
  PyArrayObject* out = float_array(&cx, "out", args[o], 4, true);
  if (!out) return nullptr;
  PyArrayObject* bias0 = nullptr;
  if (has_bias) {
    bias0 = float_nd(&cx, "bias", args[2], 1);
    if (!bias0) return nullptr;
    if (PyArray_DIMS(bias0)[0] != PyArray_DIMS(out)[1]) {
      PyErr_Format(PyExc_ValueError, "For '%s', 'bias' must have shape [%lld] (one value per "
                   "output channel of 'out' %s), but got %s", kFn,
                   static_cast<long long>(PyArray_DIMS(out)[1]),
                   shape_str(4, PyArray_DIMS(out)).c_str(),
                   shape_str(1, PyArray_DIMS(bias0)).c_str());
      return nullptr;
    }
  }
  const CallSite cs{kFn, "FusedConv2DBiasAdd"};
  bool relu = false, pool = false;
  int64_t ps[2] = {1, 1};
  if (!bool_arg(cs, "relu", args[nargs - 2], &relu) ||
      !pool_arg(cx, args[nargs - 1], &pool, ps)) {
    return nullptr;
  }
  PyArrayObject* conv = out;  // where the convolution writes
  if (pool) {
    npy_intp dims[4];
    if (!conv_plane(cx, args, o, dims)) return nullptr;
    const npy_intp want[4] = {dims[0], dims[1], (dims[2] - 2) / ps[0] + 1,
                              (dims[3] - 2) / ps[1] + 1};
    if (!shape_is(cx, "out", out, 4, want)) return nullptr;
    conv = reinterpret_cast<PyArrayObject*>(PyArray_SimpleNew(4, dims, PyArray_TYPE(out)));
    if (!conv) return nullptr;
  }
  PyObject* conv_args[7] = {args[0], args[1], reinterpret_cast<PyObject*>(conv), args[o + 1],
                            args[o + 2], args[o + 3], args[o + 4]};
  PyObject* r = PyObject_Vectorcall(g_conv, conv_args, 7, nullptr);
  PyArrayObject* bias = nullptr;
  if (r && has_bias) bias = dense_in(bias0, conv, nullptr);
  if (!r || (has_bias && !bias)) {
    Py_XDECREF(r);
    if (pool) Py_DECREF(conv);
    return nullptr;
  }
  Py_DECREF(r);
  const npy_intp* s = PyArray_DIMS(conv);
  conv_bias_act(cx.dt, PyArray_BYTES(conv), bias ? PyArray_BYTES(bias) : nullptr, s[0], s[1],
                s[2] * s[3], relu);
  Py_XDECREF(bias);
  if (pool) {
    const npy_intp* d = PyArray_DIMS(out);
    MINDLITE_FLOAT_DISPATCH(cx.dt, max_pool_2x2<T>(data<T>(conv), data<T>(out), s[0], s[1], s[2],
                                                   s[3], d[2], d[3], ps[0], ps[1]));
    Py_DECREF(conv);
  }
  Py_RETURN_NONE;
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"conv_bias_act", MINDLITE_FASTCALL(py_conv_bias_act),
     "conv_bias_act(x, w, [bias,] out, stride, dilation, pads, group, relu, pool_stride): "
     "out = maxpool2x2?(relu?(Conv2D(x, w) + bias)) (FusedConv2DBiasAdd)."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_conv_fused_functions(PyObject* module) {
  g_conv = PyObject_GetAttrString(module, "conv_small_forward");
  return g_conv != nullptr && PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
