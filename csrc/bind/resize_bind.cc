// Fast-call entry point of the uint8 bilinear resize (kernels/resize_linear.h), what
// dataset/resample.py calls for vision.Resize:
//   _C.resize_linear_u8(src, out, xs, ys)
// src: uint8 (sh, sw, c) C-contiguous; out: uint8 (h, w, c) C-contiguous and writeable; xs:
// int32 (4, w) C-contiguous (source columns x0, x1 and weights a0, a1); ys: int32 (4, h) (rows
// y0, y1, weights b0, b1). Every index and weight is checked before anything is written
// (TypeError / ValueError "For 'Resize', ..."); the loop runs without the GIL.
#include "bind/resize_bind.h"

#include <vector>

#include "bind/numpy_api.h"
#include "kernels/resize_linear.h"

namespace mindlite {
namespace {

constexpr int32_t kWeightOne = 2048;  // OpenCV's 1 << INTER_RESIZE_COEF_BITS

bool is_array(PyObject* o, int type, int ndim, bool writeable) {
  if (!PyArray_Check(o)) return false;
  auto* a = reinterpret_cast<PyArrayObject*>(o);
  return PyArray_TYPE(a) == type && PyArray_NDIM(a) == ndim && PyArray_IS_C_CONTIGUOUS(a) &&
         (!writeable || PyArray_ISWRITEABLE(a));
}

// xs / ys: 4 rows of n: two indices in [0, limit), two weights in [0, kWeightOne].
bool taps_ok(PyArrayObject* t, int64_t n, int64_t limit) {
  if (PyArray_DIM(t, 0) != 4 || PyArray_DIM(t, 1) != n) return false;
  const int32_t* p = static_cast<const int32_t*>(PyArray_DATA(t));
  for (int64_t i = 0; i < 2 * n; ++i)
    if (p[i] < 0 || p[i] >= limit) return false;
  for (int64_t i = 2 * n; i < 4 * n; ++i)
    if (p[i] < 0 || p[i] > kWeightOne) return false;
  return true;
}

PyObject* resize_linear_u8_py(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 4 || !is_array(args[0], NPY_UINT8, 3, false) || !is_array(args[1], NPY_UINT8, 3, true)
      || !is_array(args[2], NPY_INT32, 2, false) || !is_array(args[3], NPY_INT32, 2, false)) {
    PyErr_SetString(PyExc_TypeError, "For 'Resize', resize_linear_u8 takes (src: uint8 HWC, "
                    "out: writeable uint8 HWC, xs: int32 (4, w), ys: int32 (4, h)), all "
                    "C-contiguous");
    return nullptr;
  }
  auto* src = reinterpret_cast<PyArrayObject*>(args[0]);
  auto* out = reinterpret_cast<PyArrayObject*>(args[1]);
  auto* xs = reinterpret_cast<PyArrayObject*>(args[2]);
  auto* ys = reinterpret_cast<PyArrayObject*>(args[3]);
  const int64_t sh = PyArray_DIM(src, 0), sw = PyArray_DIM(src, 1), c = PyArray_DIM(src, 2);
  const int64_t h = PyArray_DIM(out, 0), w = PyArray_DIM(out, 1);
  if (PyArray_DIM(out, 2) != c || sh < 1 || sw < 1) {
    PyErr_SetString(PyExc_ValueError, "For 'Resize', 'out' must have the channels of a "
                    "non-empty 'src'");
    return nullptr;
  }
  if (!taps_ok(xs, w, sw) || !taps_ok(ys, h, sh)) {
    PyErr_SetString(PyExc_ValueError, "For 'Resize', the taps must be (4, size) int32: indices "
                    "inside the source image, weights in [0, 2048]");
    return nullptr;
  }
  if (PyArray_SIZE(out) == 0) Py_RETURN_NONE;
  std::vector<int32_t> rows(static_cast<size_t>(sh * w * c));
  const uint8_t* ps = static_cast<const uint8_t*>(PyArray_DATA(src));
  uint8_t* po = static_cast<uint8_t*>(PyArray_DATA(out));
  const int32_t* px = static_cast<const int32_t*>(PyArray_DATA(xs));
  const int32_t* py = static_cast<const int32_t*>(PyArray_DATA(ys));
  Py_BEGIN_ALLOW_THREADS
  resize_linear_u8(ps, sh, sw, c, po, h, w, px, py, rows.data());
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

PyMethodDef g_functions[] = {
    {"resize_linear_u8",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(resize_linear_u8_py)),
     METH_FASTCALL, "resize_linear_u8(src, out, xs, ys): out = the uint8 HWC image src resized "
     "bilinearly in OpenCV's fixed point (kernels/resize_linear.h)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool add_resize_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_functions) == 0;
}

}  // namespace mindlite
