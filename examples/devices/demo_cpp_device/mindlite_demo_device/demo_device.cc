// DEMO: a kernel-mode mindlite device plugin in C++ (the C ABI of mindlite_device.h).
//
// Its "device memory" comes from its own allocator: 64-byte aligned blocks kept in a block
// table, so every pointer mindlite hands back (free, copies, kernel arguments) is checked to be
// a live block large enough for the access, and a bad one is an error message, not a crash.
// Kernels: Add, Sub, Mul (same shapes), ReLU, MatMul (2-D, transpose_a/transpose_b), float32
// and float64. Everything else runs on mindlite's CPU device (heterogeneous fallback).
// demo_device_stats() reports live blocks, copies and launches (the tests read it).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "mindlite_device.h"

namespace {

std::mutex g_mu;
std::unordered_map<const void*, size_t> g_blocks;   // live blocks -> size
int64_t g_h2d = 0, g_d2h = 0, g_launches = 0, g_fail_launch = 0;
thread_local std::string g_error;

int fail(const std::string& msg) {
  g_error = msg;
  return 1;
}

bool live(const void* p, size_t nbytes) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_blocks.find(p);
  return it != g_blocks.end() && it->second >= nbytes;
}

int64_t numel(const mindlite_tensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

size_t itemsize(int32_t dtype) { return dtype == MINDLITE_FLOAT64 ? 8 : 4; }

bool same_shape(const mindlite_tensor& a, const mindlite_tensor& b) {
  if (a.ndim != b.ndim || a.dtype != b.dtype) return false;
  for (int i = 0; i < a.ndim; ++i)
    if (a.shape[i] != b.shape[i]) return false;
  return true;
}

bool is_float(int32_t dtype) { return dtype == MINDLITE_FLOAT32 || dtype == MINDLITE_FLOAT64; }

double attr(const mindlite_attr* attrs, int n, const char* name) {
  for (int i = 0; i < n; ++i)
    if (std::strcmp(attrs[i].name, name) == 0) return attrs[i].value;
  return 0.0;
}

const char* kKernels[] = {"Add", "Sub", "Mul", "ReLU", "MatMul"};

template <typename T>
void binary(const char* op, const T* a, const T* b, T* y, int64_t n) {
  if (op[0] == 'A') {
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
  } else if (op[0] == 'S') {
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] - b[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
  }
}

template <typename T>
void relu(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > T(0) ? x[i] : (x[i] == x[i] ? T(0) : x[i]);
}

// y[m, n] = op(a)[m, k] @ op(b)[k, n], accumulated in T.
template <typename T>
void matmul(const T* a, const T* b, T* y, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  for (int64_t i = 0; i < m; ++i) {
    T* row = y + i * n;
    for (int64_t j = 0; j < n; ++j) row[j] = T(0);
    for (int64_t p = 0; p < k; ++p) {
      const T av = ta ? a[p * m + i] : a[i * k + p];
      if (tb) {
        for (int64_t j = 0; j < n; ++j) row[j] += av * b[j * k + p];
      } else {
        const T* brow = b + p * n;
        for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j];
      }
    }
  }
}

// The (m, n, k) of a MatMul, or false when the shapes do not fit.
bool matmul_dims(const mindlite_tensor* in, const mindlite_tensor& out, bool ta, bool tb,
                 int64_t* m, int64_t* n, int64_t* k) {
  if (in[0].ndim != 2 || in[1].ndim != 2 || out.ndim != 2) return false;
  *m = ta ? in[0].shape[1] : in[0].shape[0];
  *k = ta ? in[0].shape[0] : in[0].shape[1];
  const int64_t k2 = tb ? in[1].shape[1] : in[1].shape[0];
  *n = tb ? in[1].shape[0] : in[1].shape[1];
  return *k == k2 && out.shape[0] == *m && out.shape[1] == *n;
}

}  // namespace

extern "C" {

int mindlite_device_abi_version(void) { return MINDLITE_DEVICE_ABI_VERSION; }
const char* mindlite_device_name(void) { return "DEMO"; }

int mindlite_device_init(int device_id) {
  if (device_id != 0) return fail("DEMO has one device (id 0), got id " +
                                  std::to_string(device_id));
  return 0;
}

void* mindlite_device_alloc(size_t nbytes) {
  const size_t size = nbytes ? (nbytes + 63) / 64 * 64 : 64;
  void* p = std::aligned_alloc(64, size);
  if (!p) {
    fail("out of memory allocating " + std::to_string(nbytes) + " bytes");
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_blocks[p] = nbytes;
  return p;
}

int mindlite_device_free(void* ptr) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_blocks.find(ptr);
  if (it == g_blocks.end()) return fail("free of a pointer DEMO did not allocate");
  g_blocks.erase(it);
  std::free(ptr);
  return 0;
}

int mindlite_device_copy_h2d(void* dst, const void* src, size_t nbytes) {
  if (!live(dst, nbytes)) return fail("host-to-device copy into an invalid DEMO block");
  std::memcpy(dst, src, nbytes);
  std::lock_guard<std::mutex> lock(g_mu);
  ++g_h2d;
  return 0;
}

int mindlite_device_copy_d2h(void* dst, const void* src, size_t nbytes) {
  if (!live(src, nbytes)) return fail("device-to-host copy from an invalid DEMO block");
  std::memcpy(dst, src, nbytes);
  std::lock_guard<std::mutex> lock(g_mu);
  ++g_d2h;
  return 0;
}

int mindlite_device_kernel_count(void) { return sizeof(kKernels) / sizeof(kKernels[0]); }

const char* mindlite_device_kernel_name(int index) {
  if (index < 0 || index >= mindlite_device_kernel_count()) return nullptr;
  return kKernels[index];
}

int mindlite_device_supports(const char* op, const mindlite_tensor* in, int nin,
                             const mindlite_tensor* out, int nout, const mindlite_attr* attrs,
                             int nattr) {
  if (nout != 1 || nin < 1 || !is_float(out[0].dtype)) return 0;
  const std::string name(op);
  if (name == "ReLU") return nin == 1 && same_shape(in[0], out[0]);
  if (name == "Add" || name == "Sub" || name == "Mul")
    return nin == 2 && same_shape(in[0], out[0]) && same_shape(in[1], out[0]);
  if (name == "MatMul") {
    int64_t m, n, k;
    return nin == 2 && in[0].dtype == out[0].dtype && in[1].dtype == out[0].dtype &&
           matmul_dims(in, out[0], attr(attrs, nattr, "transpose_a") != 0,
                       attr(attrs, nattr, "transpose_b") != 0, &m, &n, &k);
  }
  return 0;
}

int mindlite_device_launch(const char* op, const mindlite_tensor* in, int nin,
                           mindlite_tensor* out, int nout, const mindlite_attr* attrs,
                           int nattr) {
  if (g_fail_launch) return fail(std::string("injected failure in ") + op);
  if (!mindlite_device_supports(op, in, nin, out, nout, attrs, nattr))
    return fail(std::string("no DEMO kernel for these arguments of ") + op);
  for (int i = 0; i < nin; ++i)
    if (!live(in[i].data, numel(in[i]) * itemsize(in[i].dtype)))
      return fail(std::string(op) + ": input " + std::to_string(i) + " is not a DEMO block");
  if (!live(out[0].data, numel(out[0]) * itemsize(out[0].dtype)))
    return fail(std::string(op) + ": the output is not a DEMO block");
  const std::string name(op);
  const bool f64 = out[0].dtype == MINDLITE_FLOAT64;
  const int64_t n = numel(out[0]);
  if (name == "ReLU") {
    if (f64) relu(static_cast<const double*>(in[0].data), static_cast<double*>(out[0].data), n);
    else relu(static_cast<const float*>(in[0].data), static_cast<float*>(out[0].data), n);
  } else if (name == "MatMul") {
    const bool ta = attr(attrs, nattr, "transpose_a") != 0;
    const bool tb = attr(attrs, nattr, "transpose_b") != 0;
    int64_t m, nn, k;
    matmul_dims(in, out[0], ta, tb, &m, &nn, &k);
    if (f64)
      matmul(static_cast<const double*>(in[0].data), static_cast<const double*>(in[1].data),
             static_cast<double*>(out[0].data), m, nn, k, ta, tb);
    else
      matmul(static_cast<const float*>(in[0].data), static_cast<const float*>(in[1].data),
             static_cast<float*>(out[0].data), m, nn, k, ta, tb);
  } else if (f64) {
    binary(op, static_cast<const double*>(in[0].data), static_cast<const double*>(in[1].data),
           static_cast<double*>(out[0].data), n);
  } else {
    binary(op, static_cast<const float*>(in[0].data), static_cast<const float*>(in[1].data),
           static_cast<float*>(out[0].data), n);
  }
  std::lock_guard<std::mutex> lock(g_mu);
  ++g_launches;
  return 0;
}

const char* mindlite_device_last_error(void) { return g_error.c_str(); }

// Not part of the ABI: counters for tests and demos, and a switch that makes every launch fail.
void demo_device_stats(int64_t* out) {
  std::lock_guard<std::mutex> lock(g_mu);
  out[0] = static_cast<int64_t>(g_blocks.size());
  out[1] = g_h2d;
  out[2] = g_d2h;
  out[3] = g_launches;
}

void demo_device_fail_launches(int on) { g_fail_launch = on; }

}  // extern "C"
