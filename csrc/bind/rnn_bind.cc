// pybind11 entry points of the fused recurrent layers (kernels/rnn.h); what
// mindlite/kernels/cpu/rnn_cpp.py calls:
//   _C.rnn_attach_blas(path) -> bool   look up cblas_sgemm / cblas_dgemm (OpenBLAS's 64-bit
//                                      integer builds' suffixed names first) in the already
//                                      loaded library at path; False: the time loops use the
//                                      packed MatMul loop instead
//   _C.rnn_blas_attached() -> bool      _C.rnn_detach_blas(): back to the packed loop
//   _C.rnn_single_thread_below(mnk)     GEMMs below mnk multiply-adds on one BLAS thread, the
//                                       larger on OpenBLAS's count (default 2**23)
//   _C.rnn_overlap_above(mnk)           layers of >= mnk GEMM multiply-adds run their
//                                       projection / dW GEMMs on a second thread (2**22)
//   _C.rnn_forward(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, mask) -> (y, h_n, c_n, reserve)
//   _C.rnn_backward(mode, x, w_ih, w_hh, mask, reserve, dy, dh_n, dc_n, need_dx=True)
//       -> (dx, dh0, dc0, dw_ih, dw_hh, db_ih, db_hh); dx is None (not computed) when not
//       need_dx
// mode: 0 LSTM, 1 GRU, 2 RNN tanh, 3 RNN relu. Every array must have x's dtype (float32 or
// float64) and its exact shape (checked here: TypeError / ValueError naming the argument);
// non-contiguous ones are copied. The loops run without the GIL.
#include "bind/rnn_bind.h"

#include <dlfcn.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "kernels/blas_gemm.h"
#include "kernels/rnn.h"

namespace py = pybind11;

namespace mindlite {
namespace {

bool attach_blas(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) return false;
  struct Names {
    const char *s, *d;
    int ilp64;  // 1: 64-bit integers, 0: 32-bit, -1: ask openblas_get_config
  };
  static const Names kNames[] = {{"scipy_cblas_sgemm64_", "scipy_cblas_dgemm64_", 1},
                                 {"cblas_sgemm64_", "cblas_dgemm64_", 1},
                                 {"cblas_sgemm", "cblas_dgemm", -1}};
  for (const Names& n : kNames) {
    void* s = dlsym(h, n.s);
    void* d = dlsym(h, n.d);
    if (!s || !d) continue;
    bool ilp64 = n.ilp64 == 1;
    if (n.ilp64 < 0) {
      using ConfigFn = const char* (*)();
      auto cfg = reinterpret_cast<ConfigFn>(dlsym(h, "openblas_get_config"));
      if (!cfg) break;  // not an OpenBLAS: integer width unknown, do not guess
      const char* text = cfg();
      ilp64 = text && std::string(text).find("USE64BITINT") != std::string::npos;
    }
    rnn_set_blas(s, d, ilp64, dlsym(h, "openblas_set_num_threads_local"));
    for (const char* q : {"scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                          "openblas_get_num_threads"}) {
      if (void* fn = dlsym(h, q)) {  // the library's thread count caps blas_gemm's split
        blas_gemm_set_thread_query(fn);
        break;
      }
    }
    return true;  // the handle stays open, as the library stays loaded
  }
  dlclose(h);
  return false;
}

const char* const kModeNames[kNumRnnModes] = {"LSTM", "GRU", "RNN_TANH", "RNN_RELU"};

struct Checker {
  const char* fn;
  py::dtype dt;

  template <class T>
  py::array_t<T, py::array::c_style> arg(const char* name, const py::array& a,
                                         std::vector<int64_t> shape) const {
    if (!a.dtype().is(dt)) {
      throw py::type_error(std::string("For '") + fn + "', '" + name +
                           "' must have the dtype of 'x' (" + std::string(py::str(dt)) +
                           "), but got " + std::string(py::str(a.dtype())));
    }
    bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
    for (size_t k = 0; ok && k < shape.size(); ++k) ok = a.shape(k) == shape[k];
    if (!ok) {
      std::string want = "(", got = "(";
      for (size_t k = 0; k < shape.size(); ++k) want += std::to_string(shape[k]) + ", ";
      for (py::ssize_t k = 0; k < a.ndim(); ++k) got += std::to_string(a.shape(k)) + ", ";
      throw py::value_error(std::string("For '") + fn + "', '" + name + "' must have shape " +
                            want + "), but got " + got + ")");
    }
    return py::array_t<T, py::array::c_style>::ensure(a);
  }
};

int check_mode(const char* fn, int mode) {
  if (mode < 0 || mode >= kNumRnnModes) {
    throw py::value_error(std::string("For '") + fn + "', 'mode' must be in [0, 3], but got " +
                          std::to_string(mode));
  }
  return mode;
}

template <class T>
py::tuple forward(int mode, const py::array& x, const py::array& h0, const py::array& c0,
                  const py::array& w_ih, const py::array& w_hh, const py::array& b_ih,
                  const py::array& b_hh, const py::array& mask) {
  const Checker ck{"mindlite._C.rnn_forward", x.dtype()};
  const RnnDims d{x.shape(0), x.shape(1), x.shape(2), h0.ndim() == 2 ? h0.shape(1) : 0};
  const int64_t gh = rnn_gates_per_mode(mode) * d.h, wid = rnn_reserve_width(mode) * d.h;
  auto xa = ck.arg<T>("x", x, {d.t, d.n, d.i});
  auto h0a = ck.arg<T>("h0", h0, {d.n, d.h});
  auto c0a = ck.arg<T>("c0", c0, {d.n, d.h});
  auto wia = ck.arg<T>("w_ih", w_ih, {gh, d.i});
  auto wha = ck.arg<T>("w_hh", w_hh, {gh, d.h});
  auto bia = ck.arg<T>("b_ih", b_ih, {gh});
  auto bha = ck.arg<T>("b_hh", b_hh, {gh});
  auto ma = ck.arg<T>("mask", mask, {d.t, d.n});
  py::array_t<T> y({d.t, d.n, d.h}), hn({d.n, d.h}), cn({d.n, d.h}), res({d.t, d.n, wid});
  {
    py::gil_scoped_release nogil;
    rnn_forward<T>(mode, d, xa.data(), h0a.data(), c0a.data(), wia.data(), wha.data(),
                   bia.data(), bha.data(), ma.data(), y.mutable_data(), hn.mutable_data(),
                   cn.mutable_data(), res.mutable_data());
  }
  return py::make_tuple(y, hn, cn, res);
}

template <class T>
py::tuple backward(int mode, const py::array& x, const py::array& w_ih, const py::array& w_hh,
                   const py::array& mask, const py::array& reserve, const py::array& dy,
                   const py::array& dh_n, const py::array& dc_n, bool need_dx) {
  const Checker ck{"mindlite._C.rnn_backward", x.dtype()};
  const int g = rnn_gates_per_mode(mode);
  const int64_t hid = w_hh.ndim() == 2 ? w_hh.shape(1) : 0;
  const RnnDims d{x.shape(0), x.shape(1), x.shape(2), hid};
  const int64_t gh = g * hid, wid = rnn_reserve_width(mode) * hid;
  auto xa = ck.arg<T>("x", x, {d.t, d.n, d.i});
  auto wia = ck.arg<T>("w_ih", w_ih, {gh, d.i});
  auto wha = ck.arg<T>("w_hh", w_hh, {gh, d.h});
  auto ma = ck.arg<T>("mask", mask, {d.t, d.n});
  auto ra = ck.arg<T>("reserve", reserve, {d.t, d.n, wid});
  auto dya = ck.arg<T>("dy", dy, {d.t, d.n, d.h});
  auto dha = ck.arg<T>("dh_n", dh_n, {d.n, d.h});
  auto dca = ck.arg<T>("dc_n", dc_n, {d.n, d.h});
  py::array_t<T> dh0({d.n, d.h}), dc0({d.n, d.h}), dwi({gh, d.i}), dwh({gh, d.h}), dbi(gh),
      dbh(gh);
  py::object dx = py::none();
  T* dxp = nullptr;
  if (need_dx) {
    py::array_t<T> a({d.t, d.n, d.i});
    dxp = a.mutable_data();
    dx = std::move(a);
  }
  {
    py::gil_scoped_release nogil;
    rnn_backward<T>(mode, d, xa.data(), wia.data(), wha.data(), ma.data(), ra.data(),
                    dya.data(), dha.data(), dca.data(), dxp, dh0.mutable_data(),
                    dc0.mutable_data(), dwi.mutable_data(), dwh.mutable_data(),
                    dbi.mutable_data(), dbh.mutable_data());
  }
  return py::make_tuple(dx, dh0, dc0, dwi, dwh, dbi, dbh);
}

// x's dtype picks the instantiation; x must be 3-D (the other shapes follow from it).
template <class F32, class F64>
py::tuple dispatch(const char* fn, int mode, const py::array& x, F32 f32, F64 f64) {
  check_mode(fn, mode);
  if (x.ndim() != 3) {
    throw py::value_error(std::string("For '") + fn + "', 'x' must be 3-D (T, N, I), but got " +
                          std::to_string(x.ndim()) + "-D");
  }
  if (x.dtype().is(py::dtype::of<float>())) return f32();
  if (x.dtype().is(py::dtype::of<double>())) return f64();
  throw py::type_error(std::string("For '") + fn + "', 'x' must be float32 or float64, but got " +
                       std::string(py::str(x.dtype())) + " (mode " + kModeNames[mode] + ")");
}

}  // namespace

bool add_rnn_functions(PyObject* module) {
  try {
    py::module_ m = py::reinterpret_borrow<py::module_>(module);
    m.def("rnn_attach_blas", &attach_blas, py::arg("path"),
          "Use the cblas GEMMs of the loaded (Open)BLAS at path in the recurrent loops.");
    m.def("rnn_blas_attached", &rnn_blas_attached);
    m.def("rnn_single_thread_below", [](int64_t mnk) {
      if (mnk < 0) throw py::value_error("For 'rnn_single_thread_below', 'mnk' must be >= 0");
      rnn_set_single_thread_below(mnk);
    }, py::arg("mnk"), "GEMMs below mnk multiply-adds run on one BLAS thread (default 2**23).");
    m.def("rnn_overlap_above", [](int64_t mnk) {
      if (mnk < 0) throw py::value_error("For 'rnn_overlap_above', 'mnk' must be >= 0");
      rnn_set_overlap_above(mnk);
    }, py::arg("mnk"), "Layers of at least mnk GEMM multiply-adds overlap on two threads.");
    m.def("rnn_detach_blas", [] { rnn_set_blas(nullptr, nullptr, false, nullptr); },
          "Run the recurrent loops' GEMMs on the packed MatMul loop (no BLAS).");
    m.def("rnn_forward", [](int mode, py::array x, py::array h0, py::array c0, py::array w_ih,
                            py::array w_hh, py::array b_ih, py::array b_hh, py::array mask) {
      return dispatch("mindlite._C.rnn_forward", mode, x,
                      [&] { return forward<float>(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh,
                                                  mask); },
                      [&] { return forward<double>(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh,
                                                   mask); });
    }, "One recurrent layer over every step: (y, h_n, c_n, reserve).");
    m.def("rnn_backward", [](int mode, py::array x, py::array w_ih, py::array w_hh,
                             py::array mask, py::array reserve, py::array dy, py::array dh_n,
                             py::array dc_n, bool need_dx) {
      return dispatch("mindlite._C.rnn_backward", mode, x,
                      [&] { return backward<float>(mode, x, w_ih, w_hh, mask, reserve, dy,
                                                   dh_n, dc_n, need_dx); },
                      [&] { return backward<double>(mode, x, w_ih, w_hh, mask, reserve, dy,
                                                    dh_n, dc_n, need_dx); });
    }, py::arg("mode"), py::arg("x"), py::arg("w_ih"), py::arg("w_hh"), py::arg("mask"),
       py::arg("reserve"), py::arg("dy"), py::arg("dh_n"), py::arg("dc_n"),
       py::arg("need_dx") = true,
       "Back-propagation through time of rnn_forward: (dx, dh0, dc0, dw_ih, dw_hh, db_ih, "
       "db_hh); dx is None, its GEMM skipped, when not need_dx.");
  } catch (py::error_already_set& e) {
    e.restore();
    return false;
  }
  return true;
}

}  // namespace mindlite
