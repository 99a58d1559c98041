// FusedConv2DBiasAdd's C++ kernel as the registry binds it (a fast call, so the eager fast
// path, the @jit graph runner and the Lite runtime launch it without a Python frame):
//   _C.conv_bias_act(x, w, bias, out, stride, dilation, pads, group, relu)
//   _C.conv_bias_act(x, w, out, stride, dilation, pads, group, relu)      (no bias)
// The convolution is _C.conv_small_forward itself (conv_small_bind.cc: every geometry check
// and the same loops, so out holds exactly what eager's Conv2D gives), then the epilogue of
// kernels/conv_fused.h on the still-hot output. bias: 1-D, the output's dtype, one value per
// output channel; relu: a bool. Checked before anything is written (TypeError / ValueError
// naming the function and the argument).
#include "bind/conv_fused_bind.h"

#include "bind/array_args.h"
#include "kernels/conv_fused.h"

namespace mindlite {
namespace {

constexpr const char* kFn = "mindlite._C.conv_bias_act";
PyObject* g_conv = nullptr;  // _C.conv_small_forward (a strong reference, kept for good)

PyObject* py_conv_bias_act(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  FloatCtx cx{kFn};
  if (nargs != 8 && nargs != 9) {
    PyErr_Format(PyExc_TypeError, "For '%s', expected 9 arguments (x, w, bias, out, stride, "
                 "dilation, pads, group, relu) or 8 without bias, but got %zd", kFn, nargs);
    return nullptr;
  }
  const bool has_bias = nargs == 9;
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
  bool relu = false;
  if (!bool_arg(cs, "relu", args[nargs - 1], &relu)) return nullptr;
  PyObject* conv_args[7] = {args[0], args[1], args[o], args[o + 1], args[o + 2], args[o + 3],
                            args[o + 4]};
  PyObject* r = PyObject_Vectorcall(g_conv, conv_args, 7, nullptr);
  if (!r) return nullptr;
  Py_DECREF(r);
  PyArrayObject* bias = nullptr;
  if (has_bias) {
    bias = dense_in(bias0, out, nullptr);
    if (!bias) return nullptr;
  }
  const npy_intp* s = PyArray_DIMS(out);
  conv_bias_act(cx.dt, PyArray_BYTES(out), bias ? PyArray_BYTES(bias) : nullptr, s[0], s[1],
                s[2] * s[3], relu);
  Py_XDECREF(bias);
  Py_RETURN_NONE;
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"conv_bias_act", MINDLITE_FASTCALL(py_conv_bias_act),
     "conv_bias_act(x, w, [bias,] out, stride, dilation, pads, group, relu): out = "
     "relu?(Conv2D(x, w) + bias) (FusedConv2DBiasAdd)."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_conv_fused_functions(PyObject* module) {
  g_conv = PyObject_GetAttrString(module, "conv_small_forward");
  return g_conv != nullptr && PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
