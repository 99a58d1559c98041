// reduce_plan (declared in kernels/reduce.h): canonicalises one reduction -- dims in memory
// order, size-1 dims dropped, negative strides flipped, adjacent dims of one kind merged --
// and decides its thread count. The loops that execute a plan are in reduce.cc.
#include <algorithm>
#include <cstring>

#include "kernels/reduce.h"
#include "runtime/thread_pool.h"

namespace mindlite {
namespace {

struct Dim {
  int64_t n, sx, so;
  bool red;
};

}  // namespace

bool reduce_plan(ReducePlan* p, int op, int dt, const char* x, int nd, const int64_t* shape,
                 const int64_t* strides, const bool* reduced, char* out) {
  const int64_t isz = kDTypeSize[dt];
  int64_t kso[kMaxDims];
  int64_t run = isz, count = 1, total = 1;
  for (int i = nd - 1; i >= 0; --i) {
    total *= shape[i];
    if (reduced[i]) {
      count *= shape[i];
    } else {
      kso[i] = run;
      run *= shape[i];
    }
  }
  Dim d[kMaxDims];
  int k = 0;
  for (int i = 0; i < nd; ++i) {
    if (shape[i] == 1) continue;
    Dim e{shape[i], strides[i], reduced[i] ? 0 : kso[i], reduced[i]};
    if (e.sx < 0) {  // walk it forwards (the out pointer of a kept dim backwards)
      x += (e.n - 1) * e.sx;
      e.sx = -e.sx;
      if (!e.red) {
        out += (e.n - 1) * e.so;
        e.so = -e.so;
      }
    }
    int j = k++;
    for (; j > 0 && d[j - 1].sx < e.sx; --j) d[j] = d[j - 1];  // stable, largest stride first
    d[j] = e;
  }
  int m = 0;
  for (int i = 0; i < k; ++i) {
    if (m > 0) {
      Dim& a = d[m - 1];
      const Dim& b = d[i];
      if (a.red == b.red && a.sx == b.sx * b.n && (a.red || a.so == b.so * b.n)) {
        a.n *= b.n;
        a.sx = b.sx;
        a.so = b.so;
        continue;
      }
    }
    d[m++] = d[i];
  }
  p->op = op;
  p->dt = dt;
  p->x = x;
  p->out = out;
  p->count = count;
  p->nk = p->nr = 0;
  p->n_out = p->n_red = 1;
  p->row = true;
  p->inner = 1;
  p->inner_so = isz;
  if (m > 0) {
    const Dim& last = d[m - 1];
    if (last.sx != isz) return false;
    p->row = last.red;
    p->inner = last.n;
    p->inner_so = last.so;
    for (int i = 0; i < m - 1; ++i) {
      if (d[i].red) {
        p->rn[p->nr] = d[i].n;
        p->rsx[p->nr++] = d[i].sx;
        p->n_red *= d[i].n;
      } else {
        p->kn[p->nk] = d[i].n;
        p->ksx[p->nk] = d[i].sx;
        p->kso[p->nk++] = d[i].so;
        p->n_out *= d[i].n;
      }
    }
  }
  // NOTE: a reduction reads each element once and writes little: measured on the 2-core VM,
  // a second thread pays off from about 8x the elementwise threshold (512K elements).
  // Short float32 rows under one kept dim (reduce_loops.inc's short-row loop: a global
  // average pool's 7 x 7 rows) cost ~4x that per element: searched from the elementwise
  // threshold (MobileNetV2's 1280 x 49 mean, 62720 elements).
  const bool short_rows = dt == kF32 && p->row && p->inner < 128 && p->nk == 1 &&
                          p->n_red == 1 && (op == kRSum || op == kRMean);
  const bool par = will_parallelize(total, short_rows ? 2 : 1) &&
                   (short_rows || total >= 8 * parallel_threshold());
  p->total = total;
  p->searching = false;
  if (par) {
    const SplitDecision d = split_decide(split_key(kFamilyReduce, op, dt), total, 1);
    p->threads = d.threads;
    p->searching = d.searching;
  } else {
    p->threads = 1;
  }
  return true;
}

}  // namespace mindlite
