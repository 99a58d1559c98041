// The convolution entry points' shared argument checks (conv_args.h).
#include "bind/conv_args.h"

#include <algorithm>
#include <cstdio>

namespace mindlite {

bool conv_ints_arg(const FloatCtx& cx, const char* arg, PyObject* o, int count, int64_t lo, int64_t* v) {
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

namespace {

bool dims_error(const FloatCtx& cx, const ConvNames& nm, PyArrayObject* a, PyArrayObject* b,
                PyArrayObject* out, int64_t group) {
  PyErr_Format(PyExc_ValueError, "For '%s', the shapes '%s' %s, '%s' %s and '%s' %s (group "
               "%lld) do not describe one convolution", cx.fn, nm.in0,
               shape_str(4, PyArray_DIMS(a)).c_str(), nm.in1,
               shape_str(4, PyArray_DIMS(b)).c_str(), nm.out,
               shape_str(4, PyArray_DIMS(out)).c_str(), static_cast<long long>(group));
  return false;
}

}  // namespace

bool conv_geometry(const FloatCtx& cx, const ConvNames& nm, ConvKind kind, PyArrayObject* a,
                   PyArrayObject* b, PyArrayObject* out, const int64_t* st, const int64_t* dl,
                   const int64_t* pads, int64_t group, ConvGeom* g) {
  const npy_intp* sa = PyArray_DIMS(a);
  const npy_intp* sb = PyArray_DIMS(b);
  const npy_intp* so = PyArray_DIMS(out);
  const npy_intp* xs = kind == kConvForward ? sa : kind == kConvInput ? so : sb;   // x / dx
  const npy_intp* ws = kind == kConvForward || kind == kConvInput ? sb : so;       // weight
  const npy_intp* ys = kind == kConvForward ? so : sa;                         // out / dout
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
                 kind == kConvForward ? nm.out : nm.in0, shape_str(4, ys).c_str(),
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

}  // namespace mindlite
