// mindlite._C: the pybind11 module. Hot kernel entry points are raw METH_FASTCALL functions
// added by bind/elementwise_bind.cc, matmul_bind.cc and reduce_bind.cc (a pybind11 m.def call
// costs ~0.8 us, a fast call ~0.2 us); bind/fast_path.cc adds the C bases of Tensor and
// Primitive and the FastRunner; the thread-pool controls below are ordinary m.def functions.
#include <pybind11/pybind11.h>

#define MINDLITE_IMPORT_ARRAY_HERE
#include "bind/numpy_api.h"

#include <thread>

#include "bind/batch_norm_bind.h"
#include "bind/bias_bind.h"
#include "bind/blas_bind.h"
#include "bind/conv_bind.h"
#include "bind/conv_engine_bind.h"
#include "bind/conv_filter_bind.h"
#include "bind/conv_fused_bind.h"
#include "bind/conv_small_bind.h"
#include "bind/copy_bind.h"
#include "bind/cum_bind.h"
#include "bind/elementwise_bind.h"
#include "bind/fast_path.h"
#include "bind/frozen_bind.h"
#include "bind/fused_bind.h"
#include "bind/graph_runner.h"
#include "bind/guard_bind.h"
#include "bind/index_bind.h"
#include "bind/inverted_residual_bind.h"
#include "bind/norm_bind.h"
#include "bind/pad_bind.h"
#include "bind/pool_bind.h"
#include "bind/reduce_bind.h"
#include "bind/resize_bind.h"
#include "bind/rnn_bind.h"
#include "bind/train_bind.h"
#include "kernels/elementwise.h"
#include "kernels/reduce.h"
#include "runtime/malloc_policy.h"
#include "runtime/thread_pool.h"

namespace py = pybind11;
namespace ml = mindlite;

namespace mindlite {
bool add_f16_functions(PyObject* module);  // bind/f16_bind.cc
}  // namespace mindlite

namespace {

void bind_runtime(py::module_& m) {
  m.def("hardware_concurrency", []() { return std::thread::hardware_concurrency(); },
        "Number of hardware threads the thread pool can use.");
  m.def("max_threads", &ml::max_threads, "Thread counts the split search tries: 1..max_threads().");
  m.def("set_num_threads", [](int k) {
    if (k < 0) throw py::value_error("For 'set_num_threads', 'k' must be >= 0 (0 = auto)");
    ml::set_num_threads(k);
  }, py::arg("k"), "Force every parallel launch to k threads; 0 restores the measured split.");
  m.def("get_num_threads", &ml::get_num_threads, "The forced thread count (0 = auto).");
  m.def("set_parallel_threshold", [](long long work) {
    if (work < 1) throw py::value_error("For 'set_parallel_threshold', 'work' must be >= 1");
    ml::set_parallel_threshold(work);
  }, py::arg("work"),
        "Elements x op cost below which a launch stays on the calling thread (default 65536).");
  m.def("parallel_threshold", &ml::parallel_threshold);
  m.def("split_table", []() {
    py::dict d;
    static const char* const kFamilies[] = {"unary", "binary", "reduce", "softmax"};
    static const char* const* const kNames[] = {ml::kUnaryNames, ml::kBinaryNames,
                                                ml::kReduceNames, ml::kSoftmaxNames};
    for (const ml::SplitEntry& e : ml::split_table()) {
      if (e.family > ml::kFamilySoftmax) continue;
      d[py::make_tuple(kFamilies[e.family], kNames[e.family][e.op], ml::kDTypeNames[e.dtype],
                       e.bucket)] = e.threads;
    }
    return d;
  }, "{(family, op, dtype, floor(log2(n))): chosen thread count} for every decided split.");
  m.def("reset_split_table", &ml::reset_split_table, "Forget every measured split.");
  m.def("set_stream_threshold", [](long long bytes) {
    if (bytes < 1) throw py::value_error("For 'set_stream_threshold', 'bytes' must be >= 1");
    ml::set_stream_min_bytes(bytes);
  }, py::arg("bytes"), "Outputs of at least `bytes` are written with non-temporal stores "
        "(default: off; MINDLITE_STREAM_BYTES sets it at start).");
  m.def("stream_threshold", &ml::stream_min_bytes);
  m.def("malloc_tuned", &ml::malloc_tuned,
        "Whether mindlite set glibc malloc's mmap / trim thresholds at import "
        "(runtime/malloc_policy.cc; MINDLITE_MALLOC_TUNE=0 keeps glibc's defaults).");
  m.def("kernel_isa", &ml::kernel_isa,
        "Instruction set of the loaded kernel loops: 'avx512', 'avx2' or 'base' "
        "(MINDLITE_ISA=avx2|base forces a lower one; another value fails the import).");
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "mindlite C++ kernels and runtime";
  if (_import_array() < 0) throw py::error_already_set();
  ml::install_fork_handlers();
  ml::tune_malloc();
  ml::kernel_tables();
  if (!ml::add_elementwise_functions(m.ptr()) || !ml::add_matmul_functions(m.ptr()) ||
      !ml::add_reduce_functions(m.ptr()) || !ml::add_fast_path(m.ptr()) ||
      !ml::add_conv_functions(m.ptr()) ||
      !ml::add_conv_small_functions(m.ptr()) || !ml::add_conv_fused_functions(m.ptr()) ||
      !ml::add_conv_engine_functions(m.ptr()) || !ml::add_conv_filter_functions(m.ptr()) ||
      !ml::add_inverted_residual_functions(m.ptr()) || !ml::add_batch_norm_functions(m.ptr()) ||
      !ml::add_pool_functions(m.ptr()) || !ml::add_pool_argmax_functions(m.ptr()) ||
      !ml::add_loss_functions(m.ptr()) || !ml::add_optim_functions(m.ptr()) ||
      !ml::add_arg_functions(m.ptr()) || !ml::add_index_functions(m.ptr()) ||
      !ml::add_graph_runner(m.ptr()) || !ml::add_guard_functions(m.ptr()) ||
      !ml::add_fused_functions(m.ptr()) ||
      !ml::add_blas_functions(m.ptr()) || !ml::add_bias_functions(m.ptr()) ||
      !ml::add_f16_functions(m.ptr()) || !ml::add_rnn_functions(m.ptr()) ||
      !ml::add_norm_functions(m.ptr()) || !ml::add_pad_functions(m.ptr()) ||
      !ml::add_copy_functions(m.ptr()) || !ml::add_cum_functions(m.ptr()) ||
      !ml::add_resize_functions(m.ptr()) || !ml::add_frozen_functions(m.ptr())) {
    throw py::error_already_set();
  }
  bind_runtime(m);
}
