// Fast-call entry points of the small-convolution kernels (kernels/conv_small.h), registered
// directly as the cpp-small provider's Conv2D / Conv2DBackpropInput / Conv2DTranspose /
// Conv2DBackpropFilter kernels (mindlite/kernels/cpu/conv_small_cpp.py), so the eager fast
// path, the @jit graph runner and the Lite runtime call them without a Python frame. Each
// takes the arrays then the kernel params positionally (kernel_params() order):
//   _C.conv_small_forward(x, w, out, stride, dilation, pads, group)
//   _C.conv_small_backprop_input(dout, w, dx, stride, dilation, pads, group)
//   _C.conv_small_backprop_filter(dout, x, dw, stride, dilation, pads, group)
// stride / dilation: 2 ints >= 1; pads: 4 ints >= 0 (top, bottom, left, right); group >= 1
// dividing both channel counts. Inputs may have any layout (copied C-contiguous when they are
// not); the output must be a C-contiguous, aligned, writeable array of the inputs' float
// dtype. Every shape is checked before memory is touched (TypeError / ValueError naming
// the function and the argument); the loops run with the GIL held (microseconds).
#include "bind/conv_small_bind.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "bind/array_args.h"
#include "bind/conv_args.h"
#include "kernels/conv_small.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

enum Kind { kForward = kConvForward, kInput = kConvInput, kFilter = kConvFilter };

constexpr ConvNames kNames[3] = {
    {"mindlite._C.conv_small_forward", "x", "w", "out"},
    {"mindlite._C.conv_small_backprop_input", "dout", "w", "dx"},
    {"mindlite._C.conv_small_backprop_filter", "dout", "x", "dw"},
};

PyObject* call(Kind kind, PyObject* const* args, Py_ssize_t nargs) {
  const ConvNames& nm = kNames[kind];
  Ctx cx{nm.fn};
  const char* sig = kind == kForward  ? "(x, w, out, stride, dilation, pads, group)"
                    : kind == kInput ? "(dout, w, dx, stride, dilation, pads, group)"
                                     : "(dout, x, dw, stride, dilation, pads, group)";
  if (!nargs_ok(cx, nargs, 7, sig)) return nullptr;
  PyArrayObject* a0 = float_nd(&cx, nm.in0, args[0], 4);
  PyArrayObject* b0 = a0 ? float_nd(&cx, nm.in1, args[1], 4) : nullptr;
  PyArrayObject* out = b0 ? float_array(&cx, nm.out, args[2], 4, true) : nullptr;
  int64_t st[2], dl[2], pads[4], group;
  if (!out || !conv_ints_arg(cx, "stride", args[3], 2, 1, st) ||
      !conv_ints_arg(cx, "dilation", args[4], 2, 1, dl) ||
      !conv_ints_arg(cx, "pads", args[5], 4, 0, pads) ||
      !int_arg(cx, "group", args[6], 1, &group)) {
    return nullptr;
  }
  ConvGeom g;
  if (!conv_geometry(cx, nm, static_cast<ConvKind>(kind), a0, b0, out, st, dl, pads, group, &g)) {
    return nullptr;
  }
  PyArrayObject* a = dense_in(a0, out, nullptr);
  PyArrayObject* b = a ? dense_in(b0, out, nullptr) : nullptr;
  if (!b) {
    Py_XDECREF(a);
    return nullptr;
  }
  // the work buffers are sized by the geometry (padding and stride can make a padded plane
  // far larger than the arrays): a failed allocation is a MemoryError, never a crash
  bool no_memory = false;
  try {
    if (kind == kForward) {
      MINDLITE_FLOAT_DISPATCH(cx.dt, conv_small_forward<T>(data<T>(a), data<T>(b), data<T>(out),
                                                          g));
    } else if (kind == kInput) {
      MINDLITE_FLOAT_DISPATCH(cx.dt, conv_small_backprop_input<T>(data<T>(a), data<T>(b),
                                                                 data<T>(out), g));
    } else {
      MINDLITE_FLOAT_DISPATCH(cx.dt, conv_small_backprop_filter<T>(data<T>(a), data<T>(b),
                                                                  data<T>(out), g));
    }
  } catch (const std::exception&) {  // std::bad_alloc / std::length_error from a buffer
    no_memory = true;
  }
  Py_DECREF(a);
  Py_DECREF(b);
  if (no_memory) {
    PyErr_Format(PyExc_MemoryError, "For '%s', the work buffers of this geometry could not be "
                 "allocated", cx.fn);
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* py_forward(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kForward, args, nargs);
}

PyObject* py_input(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kInput, args, nargs);
}

PyObject* py_filter(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return call(kFilter, args, nargs);
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"conv_small_forward", MINDLITE_FASTCALL(py_forward),
     "conv_small_forward(x, w, out, stride, dilation, pads, group): out = Conv2D(x, w)."},
    {"conv_small_backprop_input", MINDLITE_FASTCALL(py_input),
     "conv_small_backprop_input(dout, w, dx, stride, dilation, pads, group): dx = the input "
     "gradient of Conv2D."},
    {"conv_small_backprop_filter", MINDLITE_FASTCALL(py_filter),
     "conv_small_backprop_filter(dout, x, dw, stride, dilation, pads, group): dw = the filter "
     "gradient of Conv2D."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_conv_small_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
