// Argument checks shared by the convolution entry points (conv_small_bind.cc,
// conv_engine_bind.cc, conv_filter_bind.cc, inverted_residual_bind.cc): the stride / dilation /
// pads sequences and the geometry the three arrays and the params describe, checked before any
// memory is touched; and run_nogil, how they all run a kernel.
#pragma once

#include <cstdint>
#include <exception>

#include "bind/array_args.h"
#include "kernels/conv_small.h"

namespace mindlite {

enum ConvKind { kConvForward, kConvInput, kConvFilter };

// The names an error message uses: the function and the roles of its three arrays.
struct ConvNames {
  const char* fn;
  const char* in0;
  const char* in1;
  const char* out;
};

// `o`: a sequence of `count` ints, each >= lo; false with TypeError / ValueError.
bool conv_ints_arg(const FloatCtx& cx, const char* arg, PyObject* o, int count, int64_t lo,
                   int64_t* v);

// Fills g from the three arrays (roles by kind: forward x, w, out; input dout, w, dx; filter
// dout, x, dw) and the params; false with an error set.
bool conv_geometry(const FloatCtx& cx, const ConvNames& nm, ConvKind kind, PyArrayObject* a,
                   PyArrayObject* b, PyArrayObject* out, const int64_t* st, const int64_t* dl,
                   const int64_t* pads, int64_t group, ConvGeom* g);

// Runs f() without the GIL; false with MemoryError when a work buffer could not be allocated
// (f threw).
template <class F>
bool run_nogil(const FloatCtx& cx, F&& f) {
  bool no_memory = false;
  Py_BEGIN_ALLOW_THREADS
  try {
    f();
  } catch (const std::exception&) {
    no_memory = true;
  }
  Py_END_ALLOW_THREADS
  if (no_memory) {
    PyErr_Format(PyExc_MemoryError, "For '%s', the work buffers of this geometry could not be "
                 "allocated", cx.fn);
  }
  return !no_memory;
}

}  // namespace mindlite
