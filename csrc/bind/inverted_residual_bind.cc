// Fast-call entry point of the fused inverted-residual block (kernels/conv_inverted_residual.h),
// the kernel of FusedInvertedResidual (mindlite/kernels/cpu/inverted_residual_cpp.py):
//   _C.inverted_residual_forward(x, w1, b1, w2, b2, w3, b3, residual, out, stride, dilation,
//                                pads, acts) -> bool
//       out = act3(w3 @ act2(dwconv(act1(w1 @ x + b1), w2) + b2) + b3 + residual); w1
//       (E, C, 1, 1), w2 (E, 1, kh, kw) with the depthwise stride / dilation / pads (top,
//       bottom, left, right), w3 (O, E, 1, 1); biases (E,) / (E,) / (O,) or None, residual
//       out's shape or None, acts three ConvAct codes. w1 None (and b1 None): no expansion
//       (E == C: depthwise -> project, MobileNetV2's block 0). False (out untouched) when the
//       geometry is one whose unfused kernels the fused one does not mirror (the caller then
//       runs them).
// Shapes are checked before any memory is touched; inputs of any layout are copied
// C-contiguous; the loops run without the GIL on the thread pool.
#include <algorithm>

#include "bind/inverted_residual_bind.h"

#include "bind/array_args.h"
#include "bind/conv_args.h"
#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_inverted_residual.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

bool dims_are(const Ctx& cx, const char* arg, PyArrayObject* a, int64_t d0, int64_t d1,
              int64_t d2, int64_t d3) {
  const npy_intp want[4] = {d0, d1, d2, d3};
  return shape_is(cx, arg, a, 4, want);
}

// An optional (bias / residual) operand: None, or a float array of shape want[0, nd).
bool optional(Ctx* cx, const char* arg, PyObject* o, int nd, const npy_intp* want,
              PyArrayObject* out, PyArrayObject** dense) {
  *dense = nullptr;
  if (o == Py_None) return true;
  PyArrayObject* a = float_nd(cx, arg, o, nd);
  if (!a || !shape_is(*cx, arg, a, nd, want)) return false;
  *dense = dense_in(a, out, nullptr);
  return *dense != nullptr;
}

struct Arrays {
  PyArrayObject *x, *w1, *b1, *w2, *b2, *w3, *b3, *res, *out;
};

template <class T>
T* opt(PyArrayObject* a) {
  return a ? data<T>(a) : nullptr;
}

template <class T>
bool launch(const Arrays& a, const int64_t* acts, const ConvGeom& g, int64_t cin, int64_t cout,
            int threads) {
  if (!inverted_residual_supported<T>(g)) return false;
  const IrStage<T> s1{opt<T>(a.w1), opt<T>(a.b1), static_cast<int>(acts[0])};
  const IrStage<T> s2{data<T>(a.w2), opt<T>(a.b2), static_cast<int>(acts[1])};
  const IrStage<T> s3{data<T>(a.w3), opt<T>(a.b3), static_cast<int>(acts[2])};
  inverted_residual_forward<T>(data<T>(a.x), s1, s2, s3, opt<T>(a.res), data<T>(a.out), g, cin,
                               cout, threads);
  return true;
}

PyObject* py_forward(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.inverted_residual_forward"};
  if (!nargs_ok(cx, nargs, 13, "(x, w1, b1, w2, b2, w3, b3, residual, out, stride, dilation, "
                "pads, acts)")) {
    return nullptr;
  }
  PyArrayObject* x0 = float_nd(&cx, "x", args[0], 4);
  const bool expand = args[1] != Py_None;
  PyArrayObject* w10 = x0 && expand ? float_nd(&cx, "w1", args[1], 4) : nullptr;
  PyArrayObject* w20 = x0 && (w10 || !expand) ? float_nd(&cx, "w2", args[3], 4) : nullptr;
  PyArrayObject* w30 = w20 ? float_nd(&cx, "w3", args[5], 4) : nullptr;
  PyArrayObject* out = w30 ? float_array(&cx, "out", args[8], 4, true) : nullptr;
  int64_t st[2], dl[2], pads[4], acts[3];
  if (!out || !conv_ints_arg(cx, "stride", args[9], 2, 1, st) ||
      !conv_ints_arg(cx, "dilation", args[10], 2, 1, dl) ||
      !conv_ints_arg(cx, "pads", args[11], 4, 0, pads) ||
      !conv_ints_arg(cx, "acts", args[12], 3, 0, acts)) {
    return nullptr;
  }
  for (int64_t a : acts) {
    if (a >= kConvNumActs) {
      PyErr_Format(PyExc_ValueError, "For '%s', 'acts' must be in [0, %d), but got %lld", cx.fn,
                   static_cast<int>(kConvNumActs), static_cast<long long>(a));
      return nullptr;
    }
  }
  const npy_intp* xs = PyArray_DIMS(x0);
  const int64_t e = expand ? PyArray_DIMS(w10)[0] : xs[1], cout = PyArray_DIMS(w30)[0];
  const int64_t kh = PyArray_DIMS(w20)[2], kw = PyArray_DIMS(w20)[3];
  if ((expand && !dims_are(cx, "w1", w10, e, xs[1], 1, 1)) ||
      !dims_are(cx, "w2", w20, e, 1, kh, kw) || !dims_are(cx, "w3", w30, cout, e, 1, 1)) {
    return nullptr;
  }
  if (!expand && args[2] != Py_None) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'b1' must be None when 'w1' is None (no "
                 "expansion)", cx.fn);
    return nullptr;
  }
  constexpr int64_t kMaxExtent = int64_t(1) << 40;
  if ((kh > 1 && dl[0] > kMaxExtent / (kh - 1)) || (kw > 1 && dl[1] > kMaxExtent / (kw - 1))) {
    PyErr_Format(PyExc_ValueError, "For '%s', the dilated kernel extent must be at most 2**40",
                 cx.fn);
    return nullptr;
  }
  const int64_t eh = xs[2] + pads[0] + pads[1] - dl[0] * (kh - 1) - 1;
  const int64_t ew = xs[3] + pads[2] + pads[3] - dl[1] * (kw - 1) - 1;
  if (eh < 0 || ew < 0) {
    PyErr_Format(PyExc_ValueError, "For '%s', the depthwise kernel (%lld, %lld) does not fit "
                 "the padded input plane", cx.fn, static_cast<long long>(kh),
                 static_cast<long long>(kw));
    return nullptr;
  }
  const ConvGeom g{xs[0], e, xs[2], xs[3], e, kh, kw, eh / st[0] + 1, ew / st[1] + 1, st[0],
                   st[1], dl[0], dl[1], pads[0], pads[2], e};
  const double plane = static_cast<double>(std::max<int64_t>(e, 1)) *
                       static_cast<double>(xs[0]) * (eh + 2.0 * dl[0] * kh + 2) *
                       (ew + 2.0 * dl[1] * kw + 2);
  if (plane > 0x1p44) {
    PyErr_Format(PyExc_MemoryError, "For '%s', the planes of this geometry are too large",
                 cx.fn);
    return nullptr;
  }
  if (!dims_are(cx, "out", out, g.n, cout, g.oh, g.ow)) return nullptr;
  const npy_intp be[1] = {static_cast<npy_intp>(e)}, bo[1] = {static_cast<npy_intp>(cout)};
  PyArrayObject *b1 = nullptr, *b2 = nullptr, *b3 = nullptr, *res = nullptr;
  bool ok = optional(&cx, "b1", args[2], 1, be, out, &b1) &&
            optional(&cx, "b2", args[4], 1, be, out, &b2) &&
            optional(&cx, "b3", args[6], 1, bo, out, &b3) &&
            optional(&cx, "residual", args[7], 4, PyArray_DIMS(out), out, &res);
  PyArrayObject *x = nullptr, *w1 = nullptr, *w2 = nullptr, *w3 = nullptr;
  if (ok) {
    x = dense_in(x0, out, nullptr);
    w1 = x && expand ? dense_in(w10, out, nullptr) : nullptr;
    w2 = x && (w1 || !expand) ? dense_in(w20, out, nullptr) : nullptr;
    w3 = w2 ? dense_in(w30, out, nullptr) : nullptr;
    ok = w3 != nullptr;
  }
  bool supported = false;
  if (ok) {
    const double macs = static_cast<double>(g.n) * (g.h * g.w * e * (expand ? xs[1] : 0) +
                        g.oh * g.ow * e * (kh * kw + cout));
    const int threads = conv_threads(macs);
    ok = run_nogil(cx, [&] {
      MINDLITE_FLOAT_DISPATCH(cx.dt, supported = launch<T>(Arrays{x, w1, b1, w2, b2, w3, b3, res,
                                                                  out}, acts, g, xs[1], cout,
                                                           threads));
    });
  }
  for (PyArrayObject* a : {x, w1, w2, w3, b1, b2, b3, res}) Py_XDECREF(a);
  if (!ok) return nullptr;
  return PyBool_FromLong(supported);
}

PyMethodDef g_methods[] = {
    {"inverted_residual_forward",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(py_forward)),
     METH_FASTCALL,
     "inverted_residual_forward(x, w1, b1, w2, b2, w3, b3, residual, out, stride, dilation, "
     "pads, acts) -> bool: MobileNetV2's expand 1x1 -> depthwise -> project 1x1 block fused "
     "over bands of rows; False (out untouched) for a geometry it does not take."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_inverted_residual_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
