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
#include "kernels/conv_small.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

// `o`: a sequence of `count` ints, each >= lo.
bool ints_arg(const Ctx& cx, const char* arg, PyObject* o, int count, int64_t lo, int64_t* v) {
  PyObject* seq = PySequence_Check(o) ? PySequence_Fast(o, "") : nullptr;
  if (!seq || PySequence_Fast_GET_SIZE(seq) != count) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "For '%s', '%s' must be a sequence of %d ints, but got %R",
                 cx.fn, arg, count, o);
    Py_XDECREF(seq);
    return false;
  }
  bool ok = true;
  for (int i = 0; ok && i < count; ++i) {
    ok = int_arg(cx, arg, PySequence_Fast_GET_ITEM(seq, i), lo, &v[i]);
  }
  Py_DECREF(seq);
  return ok;
}

enum Kind { kForward, kInput, kFilter };

struct Names {
  const char* fn;
  const char* in0;
  const char* in1;
  const char* out;
};

constexpr Names kNames[3] = {
    {"mindlite._C.conv_small_forward", "x", "w", "out"},
    {"mindlite._C.conv_small_backprop_input", "dout", "w", "dx"},
    {"mindlite._C.conv_small_backprop_filter", "dout", "x", "dw"},
};

bool dims_error(const Ctx& cx, const Names& nm, PyArrayObject* a, PyArrayObject* b,
                PyArrayObject* out, int64_t group) {
  PyErr_Format(PyExc_ValueError, "For '%s', the shapes '%s' %s, '%s' %s and '%s' %s (group "
               "%lld) do not describe one convolution", cx.fn, nm.in0,
               shape_str(4, PyArray_DIMS(a)).c_str(), nm.in1,
               shape_str(4, PyArray_DIMS(b)).c_str(), nm.out,
               shape_str(4, PyArray_DIMS(out)).c_str(), static_cast<long long>(group));
  return false;
}

// Fills g from the three arrays (roles by kind) and the params; false with an error set.
bool geometry(const Ctx& cx, Kind kind, PyArrayObject* a, PyArrayObject* b, PyArrayObject* out,
              const int64_t* st, const int64_t* dl, const int64_t* pads, int64_t group,
              ConvGeom* g) {
  const Names& nm = kNames[kind];
  const npy_intp* sa = PyArray_DIMS(a);
  const npy_intp* sb = PyArray_DIMS(b);
  const npy_intp* so = PyArray_DIMS(out);
  const npy_intp* xs = kind == kForward ? sa : kind == kInput ? so : sb;   // x / dx
  const npy_intp* ws = kind == kForward || kind == kInput ? sb : so;       // weight
  const npy_intp* ys = kind == kForward ? so : sa;                         // out / dout
  *g = ConvGeom{xs[0], xs[1], xs[2], xs[3], ws[0], ws[2], ws[3], ys[2], ys[3],
                st[0], st[1], dl[0], dl[1], pads[0], pads[2], group};
  if (ys[0] != xs[0] || ys[1] != ws[0] || g->c % group != 0 || g->o % group != 0 ||
      ws[1] * group != g->c) {
    return dims_error(cx, nm, a, b, out, group);
  }
  // dilation (k - 1) stays within int_arg's 2**40, so the sums below cannot overflow
  constexpr int64_t kMaxExtent = int64_t(1) << 40;
  if ((g->kh > 1 && g->dh > kMaxExtent / (g->kh - 1)) ||
      (g->kw > 1 && g->dw > kMaxExtent / (g->kw - 1))) {
    PyErr_Format(PyExc_ValueError, "For '%s', the dilated kernel extent 'dilation' * (kernel - "
                 "1) must be at most 2**40, but got dilation (%lld, %lld) with kernel (%lld, "
                 "%lld)", cx.fn, static_cast<long long>(g->dh), static_cast<long long>(g->dw),
                 static_cast<long long>(g->kh), static_cast<long long>(g->kw));
    return false;
  }
  // the zero-bordered planes the kernels build hold at most max(C, O) N (H + pads + extent)
  // (W + pads + extent) elements: refuse what no buffer can hold before any size overflows
  const double plane = static_cast<double>(std::max(g->c, g->o)) * static_cast<double>(g->n) *
                       (static_cast<double>(g->h) + pads[0] + pads[1] + g->dh * (g->kh - 1) + 1) *
                       (static_cast<double>(g->w) + pads[2] + pads[3] + g->dw * (g->kw - 1) + 1);
  if (plane > 0x1p44) {
    char size[32];
    std::snprintf(size, sizeof size, "%.3g", plane);
    PyErr_Format(PyExc_MemoryError, "For '%s', the padded planes of this geometry (about %s "
                 "elements) are too large", cx.fn, size);
    return false;
  }
  // the output plane a convolution of this geometry gives (taps past the bottom / right
  // padding are out of range and read zero, so a smaller plane is also safe; a larger one is
  // an error)
  const int64_t eh = g->h + pads[0] + pads[1] - g->dh * (g->kh - 1) - 1;
  const int64_t ew = g->w + pads[2] + pads[3] - g->dw * (g->kw - 1) - 1;
  if (eh < 0 || ew < 0 || g->oh != eh / g->sh + 1 || g->ow != ew / g->sw + 1) {
    PyErr_Format(PyExc_ValueError, "For '%s', the output plane of '%s' %s must be (%lld, %lld) "
                 "for input plane (%lld, %lld), kernel (%lld, %lld), stride (%lld, %lld), "
                 "dilation (%lld, %lld) and pads (%lld, %lld, %lld, %lld)", cx.fn,
                 kind == kForward ? nm.out : nm.in0, shape_str(4, ys).c_str(),
                 static_cast<long long>(eh < 0 ? 0 : eh / g->sh + 1),
                 static_cast<long long>(ew < 0 ? 0 : ew / g->sw + 1),
                 static_cast<long long>(g->h), static_cast<long long>(g->w),
                 static_cast<long long>(g->kh), static_cast<long long>(g->kw),
                 static_cast<long long>(g->sh), static_cast<long long>(g->sw),
                 static_cast<long long>(g->dh), static_cast<long long>(g->dw),
                 static_cast<long long>(pads[0]), static_cast<long long>(pads[1]),
                 static_cast<long long>(pads[2]), static_cast<long long>(pads[3]));
    return false;
  }
  return true;
}

PyObject* call(Kind kind, PyObject* const* args, Py_ssize_t nargs) {
  const Names& nm = kNames[kind];
  Ctx cx{nm.fn};
  const char* sig = kind == kForward  ? "(x, w, out, stride, dilation, pads, group)"
                    : kind == kInput ? "(dout, w, dx, stride, dilation, pads, group)"
                                     : "(dout, x, dw, stride, dilation, pads, group)";
  if (!nargs_ok(cx, nargs, 7, sig)) return nullptr;
  PyArrayObject* a0 = float_nd(&cx, nm.in0, args[0], 4);
  PyArrayObject* b0 = a0 ? float_nd(&cx, nm.in1, args[1], 4) : nullptr;
  PyArrayObject* out = b0 ? float_array(&cx, nm.out, args[2], 4, true) : nullptr;
  int64_t st[2], dl[2], pads[4], group;
  if (!out || !ints_arg(cx, "stride", args[3], 2, 1, st) ||
      !ints_arg(cx, "dilation", args[4], 2, 1, dl) || !ints_arg(cx, "pads", args[5], 4, 0, pads) ||
      !int_arg(cx, "group", args[6], 1, &group)) {
    return nullptr;
  }
  ConvGeom g;
  if (!geometry(cx, kind, a0, b0, out, st, dl, pads, group, &g)) return nullptr;
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
