// Argument checks shared by the convolution entry points (conv_small_bind.cc,
// conv_engine_bind.cc): the stride / dilation / pads sequences and the geometry the three
// arrays and the params describe, checked before any memory is touched.
#pragma once

#include <cstdint>

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

}  // namespace mindlite
