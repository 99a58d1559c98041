// Fast-call (METH_FASTCALL) entry points of the loss kernels (kernels/loss_kernels.h), one
// module function each, registered as-is by kernels/cpu/loss_cpp.py (params positionally):
//   _C.softmax_cross_entropy_with_logits_cpp(logits, labels, loss, backprop)
//   _C.sparse_softmax_cross_entropy_with_logits_cpp(logits, labels, out, is_grad)
//   _C.nll_loss_cpp(logits, labels, weight, loss, total_weight, reduction, ignore_index)
//   _C.nll_loss_grad_cpp(logits, loss_grad, labels, weight, total_weight, out, reduction,
//                        ignore_index)
// logits (N, C) float32/float64 of any layout (copied to C order when needed, and when it
// overlaps an output); dense labels, weight, loss_grad, total_weight of its dtype; class
// labels int32/int64 (N,); outputs C-contiguous, aligned, writeable, of the shapes inference
// gives. Every argument is checked before any output is written: TypeError / ValueError
// "For 'mindlite._C.<fn>', ...". Labels outside [0, C) (other than ignore_index) raise the
// numpy kernel's ValueError "For '<op>', every value of 'labels' must be in [0, C) ...".
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bind/array_args.h"
#include "bind/train_bind.h"
#include "kernels/loss_kernels.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

// Class labels (N,) int32/int64 of any layout as int64 values; checks each is in [0, C) or,
// with use_ignore, equals ignore. false with TypeError / ValueError.
bool class_labels(const FloatCtx& cx, const char* op, PyObject* o, npy_intp N, int64_t C,
                  bool use_ignore, int64_t ignore, std::vector<int64_t>* out) {
  if (!PyArray_Check(o)) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'labels' must be a numpy.ndarray, but got %s",
                 cx.fn, Py_TYPE(o)->tp_name);
    return false;
  }
  PyArrayObject* a = reinterpret_cast<PyArrayObject*>(o);
  const int dt = array_dtype(a);
  if (dt != kI32 && dt != kI64) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'labels' dtype must be int32 or int64 (native "
                 "byte order), but got %R", cx.fn,
                 reinterpret_cast<PyObject*>(PyArray_DESCR(a)));
    return false;
  }
  if (!shape_is(cx, "labels", a, 1, &N)) return false;
  out->resize(N);
  const char* p = PyArray_BYTES(a);
  const npy_intp s = PyArray_STRIDES(a)[0];
  std::string bad;
  int nbad = 0;
  for (npy_intp n = 0; n < N; ++n) {
    int64_t v;
    if (dt == kI32) {
      int32_t w;
      std::memcpy(&w, p + n * s, 4);
      v = w;
    } else {
      std::memcpy(&v, p + n * s, 8);
    }
    (*out)[n] = v;
    if ((v < 0 || v >= C) && !(use_ignore && v == ignore) && nbad < 5) {
      bad += (nbad++ ? ", " : "") + std::to_string(static_cast<long long>(v));
    }
  }
  if (!nbad) return true;
  const std::string ign = use_ignore ? " or equal 'ignore_index' " +
                                           std::to_string(static_cast<long long>(ignore)) : "";
  PyErr_Format(PyExc_ValueError, "For '%s', every value of 'labels' must be in [0, %lld)%s, but "
               "got [%s]", op, static_cast<long long>(C), ign.c_str(), bad.c_str());
  return false;
}

bool out_arg(FloatCtx* cx, const char* arg, PyObject* o, int nd, const npy_intp* shape,
             PyArrayObject** a) {
  *a = float_nd(cx, arg, o, nd);
  if (!*a || !shape_is(*cx, arg, *a, nd, shape)) return false;
  const char* why = !PyArray_ISWRITEABLE(*a) ? "writeable (it is read-only)"
                    : !PyArray_IS_C_CONTIGUOUS(*a) ? "C-contiguous"
                    : !PyArray_ISALIGNED(*a) ? "aligned" : nullptr;
  if (!why) return true;
  PyErr_Format(PyExc_ValueError, "For '%s', '%s' must be %s", cx->fn, arg, why);
  return false;
}

template <class T>
void fill(PyArrayObject* a, T v) {
  T* p = data<T>(a);
  for (npy_intp i = 0, n = PyArray_SIZE(a); i < n; ++i) p[i] = v;
}

PyObject* py_sce(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  FloatCtx cx{"mindlite._C.softmax_cross_entropy_with_logits_cpp"};
  if (!nargs_ok(cx, nargs, 4, "(logits, labels, loss, backprop)")) return nullptr;
  PyArrayObject *x = float_nd(&cx, "logits", args[0], 2), *y = nullptr, *loss, *bp;
  if (!x || !(y = float_nd(&cx, "labels", args[1], 2)) ||
      !shape_is(cx, "labels", y, 2, PyArray_DIMS(x)) ||
      !out_arg(&cx, "loss", args[2], 1, PyArray_DIMS(x), &loss) ||
      !out_arg(&cx, "backprop", args[3], 2, PyArray_DIMS(x), &bp)) {
    return nullptr;
  }
  const npy_intp N = PyArray_DIMS(x)[0], C = PyArray_DIMS(x)[1];
  if (C == 0) {
    MINDLITE_FLOAT_DISPATCH(cx.dt, fill<T>(loss, T(0)));
    Py_RETURN_NONE;
  }
  if (N == 0) Py_RETURN_NONE;
  PyArrayObject* xr = dense_in(x, loss, bp);
  PyArrayObject* yr = xr ? dense_in(y, loss, bp) : nullptr;
  if (yr) {
    run_released(will_parallelize(N * C, 6), [&] {
      run_softmax_ce(kSce, cx.dt, PyArray_BYTES(xr), PyArray_BYTES(yr), PyArray_BYTES(loss),
                     PyArray_BYTES(bp), N, C, nullptr, nullptr);
    });
  }
  Py_XDECREF(xr);
  Py_XDECREF(yr);
  if (!yr) return nullptr;
  Py_RETURN_NONE;
}

PyObject* py_sparse_sce(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  FloatCtx cx{"mindlite._C.sparse_softmax_cross_entropy_with_logits_cpp"};
  if (!nargs_ok(cx, nargs, 4, "(logits, labels, out, is_grad)")) return nullptr;
  PyArrayObject* x = float_nd(&cx, "logits", args[0], 2);
  if (!x) return nullptr;
  if (!PyBool_Check(args[3])) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'is_grad' must be a bool, but got %s", cx.fn,
                 Py_TYPE(args[3])->tp_name);
    return nullptr;
  }
  const bool grad = args[3] == Py_True;
  const npy_intp N = PyArray_DIMS(x)[0], C = PyArray_DIMS(x)[1];
  PyArrayObject* out;
  std::vector<int64_t> labels;
  if (!out_arg(&cx, "out", args[2], grad ? 2 : 0, PyArray_DIMS(x), &out) ||
      !class_labels(cx, kLossNames[kSparseSce], args[1], N, C, false, 0, &labels)) {
    return nullptr;
  }
  if (N == 0) {
    MINDLITE_FLOAT_DISPATCH(cx.dt, fill<T>(out, grad ? T(0) : T(NAN)));
    Py_RETURN_NONE;
  }
  PyArrayObject* xr = dense_in(x, out, nullptr);
  if (!xr) return nullptr;
  std::vector<double> rows(grad ? 0 : N);
  double total = 0;
  run_released(will_parallelize(N * C, 6), [&] {
    run_softmax_ce(grad ? kSparseSceGrad : kSparseSce, cx.dt, PyArray_BYTES(xr), labels.data(),
                   nullptr, PyArray_BYTES(out), N, C, rows.data(), &total);
  });
  Py_DECREF(xr);
  if (!grad) MINDLITE_FLOAT_DISPATCH(cx.dt, *data<T>(out) = static_cast<T>(-total / N));
  Py_RETURN_NONE;
}

// reduction "none" / "sum" / "mean" -> 0 / 1 / 2, and ignore_index as an int64.
bool nll_params(const FloatCtx& cx, PyObject* red, PyObject* ign, int* mode, int64_t* ignore) {
  const char* r = PyUnicode_Check(red) ? PyUnicode_AsUTF8(red) : nullptr;
  if (r == nullptr ||
      (std::strcmp(r, "none") && std::strcmp(r, "sum") && std::strcmp(r, "mean"))) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "For '%s', 'reduction' must be 'none', 'sum' or 'mean', but "
                 "got %R", cx.fn, red);
    return false;
  }
  *mode = r[0] == 'n' ? 0 : r[0] == 's' ? 1 : 2;
  int overflow = 0;
  const long long v = PyLong_Check(ign) && !PyBool_Check(ign)
                          ? PyLong_AsLongLongAndOverflow(ign, &overflow) : 0;
  if (!PyLong_Check(ign) || PyBool_Check(ign) || overflow) {
    PyErr_Format(PyExc_TypeError, "For '%s', 'ignore_index' must be an int64, but got %R", cx.fn,
                 ign);
    return false;
  }
  *ignore = v;
  return true;
}

PyObject* py_nll(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  FloatCtx cx{"mindlite._C.nll_loss_cpp"};
  if (!nargs_ok(cx, nargs, 7, "(logits, labels, weight, loss, total_weight, reduction, "
                "ignore_index)")) {
    return nullptr;
  }
  int mode;
  int64_t ignore;
  PyArrayObject *x = float_nd(&cx, "logits", args[0], 2), *w = nullptr, *loss, *tw;
  if (!x || !nll_params(cx, args[5], args[6], &mode, &ignore)) return nullptr;
  const npy_intp N = PyArray_DIMS(x)[0], C = PyArray_DIMS(x)[1];
  std::vector<int64_t> labels;
  if (!(w = float_nd(&cx, "weight", args[2], 1)) || !shape_is(cx, "weight", w, 1, &C) ||
      !out_arg(&cx, "loss", args[3], mode ? 0 : 1, &N, &loss) ||
      !out_arg(&cx, "total_weight", args[4], 0, nullptr, &tw) ||
      !class_labels(cx, "NLLLoss", args[1], N, C, true, ignore, &labels)) {
    return nullptr;
  }
  PyArrayObject* xr = dense_in(x, loss, tw);
  PyArrayObject* wr = xr ? dense_in(w, loss, tw) : nullptr;
  if (!wr) {
    Py_XDECREF(xr);
    return nullptr;
  }
  std::vector<char> per(mode ? N * PyArray_ITEMSIZE(x) : 0);
  double total = 0, total_w = 0;
  nll_loss(cx.dt, PyArray_BYTES(xr), labels.data(), PyArray_BYTES(wr),
           mode ? per.data() : PyArray_BYTES(loss), N, C, ignore, mode, &total, &total_w);
  Py_DECREF(xr);
  Py_DECREF(wr);
  MINDLITE_FLOAT_DISPATCH(cx.dt, {
    *data<T>(tw) = static_cast<T>(total_w);
    if (mode) *data<T>(loss) = static_cast<T>(total);
  });
  Py_RETURN_NONE;
}

PyObject* py_nll_grad(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  FloatCtx cx{"mindlite._C.nll_loss_grad_cpp"};
  if (!nargs_ok(cx, nargs, 8, "(logits, loss_grad, labels, weight, total_weight, out, "
                "reduction, ignore_index)")) {
    return nullptr;
  }
  int mode;
  int64_t ignore;
  PyArrayObject *x = float_nd(&cx, "logits", args[0], 2), *g = nullptr, *w = nullptr;
  PyArrayObject *tw = nullptr, *out;
  if (!x || !nll_params(cx, args[6], args[7], &mode, &ignore)) return nullptr;
  const npy_intp N = PyArray_DIMS(x)[0], C = PyArray_DIMS(x)[1];
  std::vector<int64_t> labels;
  if (!(g = float_nd(&cx, "loss_grad", args[1], mode ? 0 : 1)) ||
      !shape_is(cx, "loss_grad", g, mode ? 0 : 1, &N) ||
      !(w = float_nd(&cx, "weight", args[3], 1)) || !shape_is(cx, "weight", w, 1, &C) ||
      !(tw = float_nd(&cx, "total_weight", args[4], 0)) ||
      !out_arg(&cx, "out", args[5], 2, PyArray_DIMS(x), &out) ||
      !class_labels(cx, "NLLLossGrad", args[2], N, C, true, ignore, &labels)) {
    return nullptr;
  }
  if (PyArray_SIZE(out) == 0) Py_RETURN_NONE;
  PyArrayObject* gr = dense_in(g, out, nullptr);
  PyArrayObject* wr = gr ? dense_in(w, out, nullptr) : nullptr;
  PyArrayObject* twr = wr ? dense_in(tw, out, nullptr) : nullptr;
  if (twr) {
    nll_loss_grad(cx.dt, PyArray_BYTES(gr), labels.data(), PyArray_BYTES(wr),
                  PyArray_BYTES(twr), PyArray_BYTES(out), N, C, ignore, mode);
  }
  Py_XDECREF(gr);
  Py_XDECREF(wr);
  Py_XDECREF(twr);
  if (!twr) return nullptr;
  Py_RETURN_NONE;
}

#define MINDLITE_FASTCALL(f) \
  reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL

PyMethodDef g_methods[] = {
    {"softmax_cross_entropy_with_logits_cpp", MINDLITE_FASTCALL(py_sce),
     "(logits, labels, loss, backprop): loss = -sum(labels * log_softmax(logits), 1), "
     "backprop = softmax(logits) - labels."},
    {"sparse_softmax_cross_entropy_with_logits_cpp", MINDLITE_FASTCALL(py_sparse_sce),
     "(logits, labels, out, is_grad): the mean cross entropy against class labels, or its "
     "gradient (softmax(logits) - one_hot(labels)) / N."},
    {"nll_loss_cpp", MINDLITE_FASTCALL(py_nll),
     "(logits, labels, weight, loss, total_weight, reduction, ignore_index): NLLLoss."},
    {"nll_loss_grad_cpp", MINDLITE_FASTCALL(py_nll_grad),
     "(logits, loss_grad, labels, weight, total_weight, out, reduction, ignore_index): "
     "NLLLossGrad."},
    {nullptr, nullptr, 0, nullptr}};

#undef MINDLITE_FASTCALL

}  // namespace

bool add_loss_functions(PyObject* module) {
  return PyModule_AddFunctions(module, g_methods) == 0;
}

}  // namespace mindlite
