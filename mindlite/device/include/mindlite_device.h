/* mindlite_device.h: the C ABI of a mindlite device plugin (kernel mode).
 *
 * A plugin is a shared library exporting the functions below with C linkage. mindlite loads
 * every library named by MINDLITE_PLUGIN_PATH (files or folders, separated like PATH) with
 * ctypes (mindlite/device/c_plugin.py) and registers a device under mindlite_device_name().
 * Memory handles are the plugin's own: mindlite never reads or writes them except through
 * mindlite_device_copy_h2d / _d2h. Ops the plugin has no kernel for run on the CPU device,
 * with copies inserted at the boundaries. Every function returning int returns 0 on success;
 * on failure the plugin keeps a message for mindlite_device_last_error().
 */
#ifndef MINDLITE_DEVICE_H_
#define MINDLITE_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MINDLITE_DEVICE_ABI_VERSION 1

/* Element types (mindlite dtype -> code). */
enum mindlite_dtype {
  MINDLITE_BOOL = 0,
  MINDLITE_INT8 = 1,
  MINDLITE_UINT8 = 2,
  MINDLITE_INT16 = 3,
  MINDLITE_INT32 = 4,
  MINDLITE_INT64 = 5,
  MINDLITE_FLOAT16 = 6,
  MINDLITE_FLOAT32 = 7,
  MINDLITE_FLOAT64 = 8
};

/* One kernel argument: device memory from mindlite_device_alloc, dense row-major. */
typedef struct mindlite_tensor {
  void* data;
  int32_t dtype;          /* enum mindlite_dtype */
  int32_t ndim;
  const int64_t* shape;   /* ndim entries */
} mindlite_tensor;

/* One kernel parameter (the primitive's kernel params: bools and ints as doubles). */
typedef struct mindlite_attr {
  const char* name;
  double value;
} mindlite_attr;

/* ---- required ---------------------------------------------------------------------------- */
int mindlite_device_abi_version(void);            /* MINDLITE_DEVICE_ABI_VERSION */
const char* mindlite_device_name(void);           /* the device_target name, e.g. "DEMO" */
int mindlite_device_init(int device_id);
void* mindlite_device_alloc(size_t nbytes);       /* NULL: out of memory */
int mindlite_device_free(void* ptr);
int mindlite_device_copy_h2d(void* dst, const void* src, size_t nbytes);
int mindlite_device_copy_d2h(void* dst, const void* src, size_t nbytes);
int mindlite_device_kernel_count(void);
const char* mindlite_device_kernel_name(int index);  /* op names, e.g. "Add", "MatMul" */
/* 1 when the kernel of `op` takes these inputs/outputs/attrs (shapes and dtypes), else 0. */
int mindlite_device_supports(const char* op, const mindlite_tensor* inputs, int n_inputs,
                             const mindlite_tensor* outputs, int n_outputs,
                             const mindlite_attr* attrs, int n_attrs);
int mindlite_device_launch(const char* op, const mindlite_tensor* inputs, int n_inputs,
                           mindlite_tensor* outputs, int n_outputs, const mindlite_attr* attrs,
                           int n_attrs);
const char* mindlite_device_last_error(void);

/* ---- optional ---------------------------------------------------------------------------- */
int mindlite_device_sync(void);                   /* wait for queued work (absent: synchronous) */

#ifdef __cplusplus
}
#endif

#endif  /* MINDLITE_DEVICE_H_ */
