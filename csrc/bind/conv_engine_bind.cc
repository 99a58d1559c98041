// Fast-call entry points of the convolution engine (kernels/conv_engine.h), registered
// directly as kernels by mindlite/kernels/cpu/conv_engine_cpp.py (no Python frame between
// the eager fast path, the graph runner or the Lite runtime and the loops):
//   _C.conv_forward(x, w, out, stride, dilation, pads, group)
//   _C.conv_backprop_input(dout, w, dx, stride, dilation, pads, group)
//   _C.conv_backprop_filter(dout, x, dw, stride, dilation, pads, group)
//   _C.conv_depthwise_forward / _input / _filter: the same arguments, for depthwise
//       convolutions (group == input channels; kernels/conv_depthwise.h)
//   _C.conv_forward_fused(x, w, bias, residual, out, stride, dilation, pads, group, act)
//       out = act(Conv2D(x, w) + bias + residual); bias (O,) or None, residual out's shape or
//       None, act 0 none / 1 ReLU / 2 ReLU6 / 3 HSwish / 4 SiLU / 5 Clip(0, 6)
//       (kernels/conv_engine.h); a
//       depthwise geometry (group == input channels > 1) runs the depthwise loops.
// Shapes are checked as the small-convolution entry points check them (bind/conv_args.h)
// before any memory is touched; inputs of any layout are copied C-contiguous; the loops run
// without the GIL on the thread pool (conv_threads picks how many threads).
#include "bind/conv_engine_bind.h"


#include "bind/array_args.h"
#include "bind/conv_args.h"
#include "kernels/conv_depthwise.h"
#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_winograd.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

constexpr ConvNames kNames[2][3] = {
    {{"mindlite._C.conv_forward", "x", "w", "out"},
     {"mindlite._C.conv_backprop_input", "dout", "w", "dx"},
     {"mindlite._C.conv_backprop_filter", "dout", "x", "dw"}},
    {{"mindlite._C.conv_depthwise_forward", "x", "w", "out"},
     {"mindlite._C.conv_depthwise_input", "dout", "w", "dx"},
     {"mindlite._C.conv_depthwise_filter", "dout", "x", "dw"}},
};
constexpr ConvNames kFusedNames = {"mindlite._C.conv_forward_fused", "x", "w", "out"};

// Reads stride, dilation, pads, group from args[0..4) and checks the geometry.
bool params(Ctx& cx, const ConvNames& nm, ConvKind kind, PyArrayObject* a, PyArrayObject* b,
            PyArrayObject* out, PyObject* const* args, ConvGeom* g) {
  int64_t st[2], dl[2], pads[4], group;
  return conv_ints_arg(cx, "stride", args[0], 2, 1, st) &&
         conv_ints_arg(cx, "dilation", args[1], 2, 1, dl) &&
         conv_ints_arg(cx, "pads", args[2], 4, 0, pads) &&
         int_arg(cx, "group", args[3], 1, &group) &&
         conv_geometry(cx, nm, kind, a, b, out, st, dl, pads, group, g);
}

PyObject* call(ConvKind kind, bool depthwise, PyObject* const* args, Py_ssize_t nargs) {
  const ConvNames& nm = kNames[depthwise][kind];
  Ctx cx{nm.fn};
  const char* sig = kind == kConvForward  ? "(x, w, out, stride, dilation, pads, group)"
                    : kind == kConvInput ? "(dout, w, dx, stride, dilation, pads, group)"
                                         : "(dout, x, dw, stride, dilation, pads, group)";
  if (!nargs_ok(cx, nargs, 7, sig)) return nullptr;
  PyArrayObject* a0 = float_nd(&cx, nm.in0, args[0], 4);
  PyArrayObject* b0 = a0 ? float_nd(&cx, nm.in1, args[1], 4) : nullptr;
  PyArrayObject* out = b0 ? float_array(&cx, nm.out, args[2], 4, true) : nullptr;
  ConvGeom g;
  if (!out || !params(cx, nm, kind, a0, b0, out, args + 3, &g)) return nullptr;
  if (depthwise && g.group != g.c) {
    PyErr_Format(PyExc_ValueError, "For '%s', a depthwise convolution needs 'group' equal to "
                 "the input channels %lld, but got %lld", cx.fn, static_cast<long long>(g.c),
                 static_cast<long long>(g.group));
    return nullptr;
  }
  PyArrayObject* a = dense_in(a0, out, nullptr);
  PyArrayObject* b = a ? dense_in(b0, out, nullptr) : nullptr;
  if (!b) {
    Py_XDECREF(a);
    return nullptr;
  }
  const int threads = conv_threads(conv_macs(g));
  const bool ok = run_nogil(cx, [&] {
    if (depthwise) {
      if (kind == kConvForward) {
        MINDLITE_FLOAT_DISPATCH(cx.dt, depthwise_forward<T>(data<T>(a), data<T>(b), nullptr,
                                                           data<T>(out), g, 0, threads));
      } else if (kind == kConvInput) {
        MINDLITE_FLOAT_DISPATCH(cx.dt, depthwise_input<T>(data<T>(a), data<T>(b), data<T>(out),
                                                         g, threads));
      } else {
        MINDLITE_FLOAT_DISPATCH(cx.dt, depthwise_filter<T>(data<T>(a), data<T>(b),
                                                          data<T>(out), g, threads));
      }
    } else if (kind == kConvForward) {
      MINDLITE_FLOAT_DISPATCH(cx.dt, conv_gemm_forward<T>(data<T>(a), data<T>(b), nullptr,
                                                         data<T>(out), g, ConvEpilogue<T>{},
                                                         threads));
    } else if (kind == kConvInput) {
      MINDLITE_FLOAT_DISPATCH(cx.dt, conv_gemm_backprop_input<T>(data<T>(a), data<T>(b),
                                                                data<T>(out), g, threads));
    } else {
      MINDLITE_FLOAT_DISPATCH(cx.dt, conv_gemm_backprop_filter<T>(data<T>(a), data<T>(b),
                                                                 data<T>(out), g, threads));
    }
  });
  Py_DECREF(a);
  Py_DECREF(b);
  if (!ok) return nullptr;
  Py_RETURN_NONE;
}

PyObject* py_forward(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kConvForward, false, args, nargs);
}

PyObject* py_input(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kConvInput, false, args, nargs);
}

PyObject* py_filter(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kConvFilter, false, args, nargs);
}

PyObject* py_dw_forward(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kConvForward, true, args, nargs);
}

PyObject* py_dw_input(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kConvInput, true, args, nargs);
}

PyObject* py_dw_filter(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kConvFilter, true, args, nargs);
}

// An optional operand of the fused call: None, or a float array of `nd` dims and shape want.
bool optional_arg(Ctx* cx, const char* arg, PyObject* o, int nd, const npy_intp* want,
                  PyArrayObject* out, PyArrayObject** dense) {
  *dense = nullptr;
  if (o == Py_None) return true;
  PyArrayObject* a = float_nd(cx, arg, o, nd);
  if (!a || !shape_is(*cx, arg, a, nd, want)) return false;
  *dense = dense_in(a, out, nullptr);
  return *dense != nullptr;
}

PyObject* py_fused(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{kFusedNames.fn};
  if (!nargs_ok(cx, nargs, 10, "(x, w, bias, residual, out, stride, dilation, pads, group, "
                "act)")) {
    return nullptr;
  }
  PyArrayObject* x0 = float_nd(&cx, "x", args[0], 4);
  PyArrayObject* w0 = x0 ? float_nd(&cx, "w", args[1], 4) : nullptr;
  PyArrayObject* out = w0 ? float_array(&cx, "out", args[4], 4, true) : nullptr;
  ConvGeom g;
  int64_t act;
  if (!out || !params(cx, kFusedNames, kConvForward, x0, w0, out, args + 5, &g) ||
      !int_arg(cx, "act", args[9], 0, &act)) {
    return nullptr;
  }
  if (act >= kConvNumActs) {
    PyErr_Format(PyExc_ValueError, "For '%s', 'act' must be in [0, %d), but got %lld", cx.fn,
                 static_cast<int>(kConvNumActs), static_cast<long long>(act));
    return nullptr;
  }
  const npy_intp bias_shape[1] = {static_cast<npy_intp>(g.o)};
  PyArrayObject *bias = nullptr, *res = nullptr;
  if (!optional_arg(&cx, "bias", args[2], 1, bias_shape, out, &bias) ||
      !optional_arg(&cx, "residual", args[3], 4, PyArray_DIMS(out), out, &res)) {
    Py_XDECREF(bias);
    return nullptr;
  }
  PyArrayObject* x = dense_in(x0, out, nullptr);
  PyArrayObject* w = x ? dense_in(w0, out, nullptr) : nullptr;
  bool ok = w != nullptr;
  if (ok) {
    const int threads = conv_threads(conv_macs(g));
    ok = run_nogil(cx, [&] {
      MINDLITE_FLOAT_DISPATCH(cx.dt, {
        ConvEpilogue<T> ep;
        ep.bias = bias ? data<T>(bias) : nullptr;
        ep.residual = res ? data<T>(res) : nullptr;
        ep.act = static_cast<int>(act);
        if (g.group > 1 && g.group == g.c) {          // depthwise: its own loops
          depthwise_forward<T>(data<T>(x), data<T>(w), ep.bias, data<T>(out), g,
                               ep.residual ? 0 : ep.act, threads);
          if (ep.residual) {                          // then + residual, act, in place
            T* o = data<T>(out);
            const int64_t total = g.n * g.o * g.oh * g.ow;
            for (int64_t i = 0; i < total; ++i) o[i] = conv_act(o[i] + ep.residual[i], ep.act);
          }
        } else {
          conv_gemm_forward<T>(data<T>(x), data<T>(w), nullptr, data<T>(out), g, ep, threads);
        }
      });
    });
  }
  Py_XDECREF(x);
  Py_XDECREF(w);
  Py_XDECREF(bias);
  Py_XDECREF(res);
  if (!ok) return nullptr;
  Py_RETURN_NONE;
}

// _C.conv_winograd([mode]) -> the Winograd mode (0 off, 1 the measured rule, 2 / 4 / 24
// F(2x2) / F(4x4) / F(2x4) wherever it applies) before the call; with a mode, sets it.
PyObject* py_winograd(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  long mode = -1;
  if (nargs == 1 && PyLong_Check(args[0]) && !PyBool_Check(args[0])) {
    mode = PyLong_AsLong(args[0]);
  }
  if (nargs > 1 || (nargs == 1 && mode != kWinogradOff && mode != kWinogradAuto &&
                    mode != kWinogradF2 && mode != kWinogradF4 && mode != kWinogradF2x4)) {
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError, "For 'mindlite._C.conv_winograd', the mode must be 0, 1, "
                    "2, 4 or 24 (an int), or absent");
    return nullptr;
  }
  const int was = nargs ? set_winograd_mode(static_cast<int>(mode)) : winograd_mode();
  return PyLong_FromLong(was);
}

// _C.conv_winograd_cache([limit_bytes]) -> (entries, bytes, limit, hits, misses) before the
// call; with a limit (>= 0), bounds the transformed-weight cache (0: off); None clears it.
PyObject* py_winograd_cache(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  long long limit = -1;
  if (nargs == 1 && PyLong_Check(args[0]) && !PyBool_Check(args[0])) {
    limit = PyLong_AsLongLong(args[0]);
  }
  const bool clear = nargs == 1 && args[0] == Py_None;
  if (nargs > 1 || (nargs == 1 && !clear && limit < 0)) {
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError, "For 'mindlite._C.conv_winograd_cache', expected no "
                    "argument, None, or a byte limit >= 0");
    return nullptr;
  }
  const WinogradCacheStats s = winograd_cache_stats();
  if (clear) winograd_cache_clear();
  if (limit >= 0) set_winograd_cache_limit(limit);
  return Py_BuildValue("(LLLLL)", static_cast<long long>(s.entries),
                       static_cast<long long>(s.bytes), static_cast<long long>(s.limit),
                       static_cast<long long>(s.hits), static_cast<long long>(s.misses));
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"conv_forward", MINDLITE_FASTCALL(py_forward),
     "conv_forward(x, w, out, stride, dilation, pads, group): out = Conv2D(x, w)."},
    {"conv_backprop_input", MINDLITE_FASTCALL(py_input),
     "conv_backprop_input(dout, w, dx, stride, dilation, pads, group): dx = the input "
     "gradient of Conv2D."},
    {"conv_backprop_filter", MINDLITE_FASTCALL(py_filter),
     "conv_backprop_filter(dout, x, dw, stride, dilation, pads, group): dw = the filter "
     "gradient of Conv2D."},
    {"conv_depthwise_forward", MINDLITE_FASTCALL(py_dw_forward),
     "conv_depthwise_forward(x, w, out, stride, dilation, pads, group): out = Conv2D(x, w), "
     "group == input channels."},
    {"conv_depthwise_input", MINDLITE_FASTCALL(py_dw_input),
     "conv_depthwise_input(dout, w, dx, stride, dilation, pads, group): the input gradient "
     "of a depthwise Conv2D."},
    {"conv_depthwise_filter", MINDLITE_FASTCALL(py_dw_filter),
     "conv_depthwise_filter(dout, x, dw, stride, dilation, pads, group): the filter gradient "
     "of a depthwise Conv2D."},
    {"conv_forward_fused", MINDLITE_FASTCALL(py_fused),
     "conv_forward_fused(x, w, bias, residual, out, stride, dilation, pads, group, act): "
     "out = act(Conv2D(x, w) + bias + residual); bias / residual may be None; act 0 none, "
     "1 ReLU, 2 ReLU6, 3 HSwish, 4 SiLU, 5 Maximum(., 0) then Minimum(., 6)."},
    {"conv_winograd", MINDLITE_FASTCALL(py_winograd),
     "conv_winograd([mode]) -> int: how 3 x 3 stride-1 convolutions use Winograd (0 never, "
     "1 the measured rule (default), 2 / 4 / 24 F(2x2) / F(4x4) / F(2x4) wherever it applies; "
     "MINDLITE_WINOGRAD at import); with a mode, sets it."},
    {"conv_winograd_cache", MINDLITE_FASTCALL(py_winograd_cache),
     "conv_winograd_cache([limit]) -> (entries, bytes, limit, hits, misses) of the Winograd "
     "weight cache; an int sets its byte bound (0: off), None clears it."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_conv_engine_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
