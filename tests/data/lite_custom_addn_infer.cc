// A MindSpore Lite 2.0 converter plugin: the shape inference (KernelInterface) of the Custom op
// type "Custom_AddN" (the output has the first input's shape, dtype and format), registered
// for the provider "Tutorial". Lite's converter needs one to write a Custom node of a type it
// does not know; tests/test_lite_real.py builds it with the headers of the mindspore_lite
// wheel and hands it to the converter (config [registry] plugin_path):
//   g++ -shared -fPIC -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -I<mindspore_lite> \
//       lite_custom_addn_infer.cc -o libcustom_addn_infer.so
// The wheel ships include/api (MSTensor, Status) but not the registry headers, so the two
// declarations below are written as MindSpore Lite 2.0's include/kernel_interface.h and
// include/registry/register_kernel_interface.h declare them (the symbols are the library's).
#include <functional>
#include <memory>
#include <vector>

#include "include/api/status.h"
#include "include/api/types.h"

namespace mindspore {
namespace schema {
struct Primitive;
}  // namespace schema
namespace kernel {
class Kernel;
class KernelInterface {
 public:
  virtual ~KernelInterface() = default;
  virtual Status Infer(std::vector<MSTensor> *inputs, std::vector<MSTensor> *outputs,
                       const schema::Primitive *primitive) {
    return kSuccess;
  }
  virtual Status Infer(std::vector<MSTensor> *inputs, std::vector<MSTensor> *outputs,
                       const schema::Primitive *primitive, const Kernel *kernel) {
    return Infer(inputs, outputs, primitive);
  }
};
}  // namespace kernel
namespace registry {
class RegisterKernelInterface {
 public:
  static Status CustomReg(const std::vector<char> &provider, const std::vector<char> &op_type,
                          std::function<std::shared_ptr<kernel::KernelInterface>()> creator);
};
}  // namespace registry
}  // namespace mindspore

namespace {
class CustomAddNInfer : public mindspore::kernel::KernelInterface {
 public:
  mindspore::Status Infer(std::vector<mindspore::MSTensor> *inputs,
                          std::vector<mindspore::MSTensor> *outputs,
                          const mindspore::schema::Primitive *primitive) override {
    if (inputs->empty() || outputs->size() != 1) {
      return mindspore::kLiteError;
    }
    (*outputs)[0].SetShape((*inputs)[0].Shape());
    (*outputs)[0].SetDataType((*inputs)[0].DataType());
    (*outputs)[0].SetFormat((*inputs)[0].format());
    return mindspore::kSuccess;
  }
};

std::vector<char> Chars(const char *s) { return std::vector<char>(s, s + __builtin_strlen(s)); }

const int kRegistered = [] {
  mindspore::registry::RegisterKernelInterface::CustomReg(
      Chars("Tutorial"), Chars("Custom_AddN"),
      [] { return std::make_shared<CustomAddNInfer>(); });
  return 0;
}();
}  // namespace
