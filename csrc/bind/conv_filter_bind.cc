// Fast-call entry points of the filter gradient's C++ parts that
// mindlite/kernels/cpu/conv_cpp.py calls around its im2col GEMM:
//   _C.conv_winograd_filter(dout, x, dw, stride, dilation, pads, group) -> bool
//       the 3 x 3 stride-1 filter gradient as Winograd F(2x2, 3x3)
//       (kernels/conv_winograd_filter.h); False, dw untouched, where it does not apply
//   _C.conv_expand_taps(src, dw, live)
//       the live taps' GEMM result written into dw with zeros at the dead taps
//   _C.conv_channels_last(d, dt)
//       dout (N, O, P) as (N, P, O): the B operand of the long-K filter gradient GEMM
// Arrays are checked (dtype, shapes, the live indices) before any memory is touched; both run
// without the GIL on the thread pool.
#include "bind/conv_filter_bind.h"


#include "bind/array_args.h"
#include "bind/conv_args.h"
#include "kernels/conv_engine.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_loops.h"
#include "kernels/conv_winograd_filter.h"

namespace mindlite {
namespace {

using Ctx = FloatCtx;

// 'live': a 1-D C-contiguous intp array of increasing indices in [0, taps).
bool live_arg(const Ctx& cx, PyObject* o, int64_t taps, const int64_t** live, int64_t* l) {
  PyArrayObject* a = PyArray_Check(o) ? reinterpret_cast<PyArrayObject*>(o) : nullptr;
  if (!a || PyArray_TYPE(a) != NPY_INTP || PyArray_NDIM(a) != 1 ||
      !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a)) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'live' must be a 1-D C-contiguous intp array, "
                 "but got %R", cx.fn, o);
    return false;
  }
  *live = reinterpret_cast<const int64_t*>(PyArray_DATA(a));
  *l = PyArray_DIM(a, 0);
  for (int64_t j = 0; j < *l; ++j) {
    if ((*live)[j] < 0 || (*live)[j] >= taps || (j > 0 && (*live)[j] <= (*live)[j - 1])) {
      PyErr_Format(PyExc_ValueError, "For '%s', 'live' must be increasing indices in [0, %lld) "
                   "(the kernel taps), but got %R", cx.fn, static_cast<long long>(taps), o);
      return false;
    }
  }
  return true;
}

// conv_expand_taps(src, dw, live): dw (O, C, kh, kw) = src (O, C L) at the taps live (L
// increasing intp indices in [0, kh kw)), 0 at the others; rows of O split over the pool, without
// the GIL (ResNet18's 512-channel 3 x 3 filter gradients on 1 x 1 planes write 9.4 MB).
PyObject* py_expand_taps(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.conv_expand_taps"};
  if (!nargs_ok(cx, nargs, 3, "(src, dw, live)")) return nullptr;
  PyArrayObject* src = float_array(&cx, "src", args[0], 2, false);
  PyArrayObject* dw = src ? float_array(&cx, "dw", args[1], 4, true) : nullptr;
  if (!dw) return nullptr;
  const npy_intp* sd = PyArray_DIMS(dw);
  const int64_t taps = sd[2] * sd[3];
  const int64_t* live = nullptr;
  int64_t l = 0;
  if (!live_arg(cx, args[2], taps, &live, &l)) return nullptr;
  const npy_intp want[2] = {sd[0], static_cast<npy_intp>(sd[1] * l)};
  if (!shape_is(cx, "src", src, 2, want)) return nullptr;
  const int64_t o = sd[0], c = sd[1];
  const int threads = conv_threads(double(o) * c * taps);
  Py_BEGIN_ALLOW_THREADS
  auto body = [&](int64_t o0, int64_t o1) {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_expand_taps<T>(data<T>(src), data<T>(dw), live, o0, o1,
                                                      c, l, taps));
  };
  if (threads > 1 && o >= 2 * threads) {
    conv_split_rows(o, threads, body);
  } else {
    body(0, o);
  }
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

// conv_channels_last(d, dt): dt (N, P, O) = d (N, O, P) transposed per sample, samples split
// over the pool, without the GIL.
PyObject* py_channels_last(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Ctx cx{"mindlite._C.conv_channels_last"};
  if (!nargs_ok(cx, nargs, 2, "(d, dt)")) return nullptr;
  PyArrayObject* d = float_array(&cx, "d", args[0], 3, false);
  PyArrayObject* dt = d ? float_array(&cx, "dt", args[1], 3, true) : nullptr;
  if (!dt) return nullptr;
  const npy_intp* s = PyArray_DIMS(d);
  const npy_intp want[3] = {s[0], s[2], s[1]};
  if (!shape_is(cx, "dt", dt, 3, want)) return nullptr;
  const int64_t n = s[0], o = s[1], p = s[2];
  const int threads = conv_threads(double(n) * o * p);
  Py_BEGIN_ALLOW_THREADS
  auto body = [&](int64_t n0, int64_t n1) {
    MINDLITE_FLOAT_DISPATCH(cx.dt, conv_to_channels_last<T>(data<T>(d), data<T>(dt), n0, n1, o,
                                                           p));
  };
  if (threads > 1 && n >= 2 * threads) {
    conv_split_rows(n, threads, body);
  } else {
    body(0, n);
  }
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

// conv_winograd_filter(dout, x, dw, stride, dilation, pads, group) -> bool: dw = the filter
// gradient as Winograd F(2x2, 3x3) (kernels/conv_winograd_filter.h) where the geometry
// applies and dout and x are finite; False (dw untouched) elsewhere. Without the GIL.
PyObject* py_winograd_filter(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  static constexpr ConvNames kNm = {"mindlite._C.conv_winograd_filter", "dout", "x", "dw"};
  Ctx cx{kNm.fn};
  if (!nargs_ok(cx, nargs, 7, "(dout, x, dw, stride, dilation, pads, group)")) return nullptr;
  PyArrayObject* d = float_array(&cx, "dout", args[0], 4, false);
  PyArrayObject* x = d ? float_array(&cx, "x", args[1], 4, false) : nullptr;
  PyArrayObject* dw = x ? float_array(&cx, "dw", args[2], 4, true) : nullptr;
  int64_t st[2], dl[2], pads[4], group;
  ConvGeom g;
  if (!dw || !conv_ints_arg(cx, "stride", args[3], 2, 1, st) ||
      !conv_ints_arg(cx, "dilation", args[4], 2, 1, dl) ||
      !conv_ints_arg(cx, "pads", args[5], 4, 0, pads) ||
      !int_arg(cx, "group", args[6], 1, &group) ||
      !conv_geometry(cx, kNm, kConvFilter, d, x, dw, st, dl, pads, group, &g)) {
    return nullptr;
  }
  if (!winograd_filter_applies(g)) Py_RETURN_FALSE;
  const int threads = conv_threads(conv_macs(g));
  bool done = false;
  if (!run_nogil(cx, [&] {
        MINDLITE_FLOAT_DISPATCH(cx.dt, done = conv_winograd_filter<T>(data<T>(d), data<T>(x),
                                                                     data<T>(dw), g, threads));
      })) {
    return nullptr;
  }
  return PyBool_FromLong(done);
}


#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"conv_expand_taps", MINDLITE_FASTCALL(py_expand_taps),
     "conv_expand_taps(src, dw, live): dw (O, C, kh, kw) = src (O, C L) at the live taps "
     "(a 1-D intp array, increasing), 0 elsewhere."},
    {"conv_channels_last", MINDLITE_FASTCALL(py_channels_last),
     "conv_channels_last(d, dt): dt (N, P, O) = d (N, O, P) transposed per sample."},
    {"conv_winograd_filter", MINDLITE_FASTCALL(py_winograd_filter),
     "conv_winograd_filter(dout, x, dw, stride, dilation, pads, group) -> bool: dw = the "
     "filter gradient as Winograd F(2x2, 3x3) where it applies (3 x 3, stride 1, dilation 1, "
     "one group, finite inputs); False, dw untouched, elsewhere."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_conv_filter_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
