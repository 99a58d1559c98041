// mindlite._C: the pybind11 module. Kernels in csrc/kernels register their fast-call
// entry points here (see register_*_functions in each family's header).
#include <pybind11/pybind11.h>
#include <thread>

namespace py = pybind11;

PYBIND11_MODULE(_C, m) {
  m.doc() = "mindlite C++ kernels and runtime";
  m.def("hardware_concurrency", []() { return std::thread::hardware_concurrency(); },
        "Number of hardware threads the thread pool can use.");
}
