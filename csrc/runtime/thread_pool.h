// Persistent thread pool and MindSpore-style parallel launch with a measured split.
//
// ThreadPool: workers are created once, lazily (at the first launch that needs them), spin
// briefly after each job and then sleep on a condition variable. A launch splits the range into
// fixed chunks (one per thread) that the caller and the woken workers claim from an atomic
// counter, so a worker the OS has not scheduled yet costs nothing but its share. A launch
// from inside a pool task, or while another thread owns the pool, runs serially on the calling
// thread (same chunks, same results), so nesting can never deadlock.
//
// parallel_launch(key, n, cost, body): the ParallelLaunchAutoSearch policy. Work below
// parallel_threshold() (n * cost) runs on the calling thread without searching. Above it, a
// forced thread count (set_num_threads) wins; work of kPriorWork or more (where a launch's
// wake-up is under 1% of the work) takes max_threads() without searching. Otherwise, per
// (key, floor(log2(n))), the first launches try every thread count 1..max_threads()
// round-robin, kSearchReps timings each (steady_clock, min per count), and pick the most
// threads not clearly slower than the fastest; a search that settles below max_threads() is
// repeated (kSearchRounds in all) and the most threads any round chose is kept, so one burst of
// noise on a shared machine cannot pin a split to one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace mindlite {

using PoolTask = void (*)(void* ctx, int tid, int nthreads);

// Runs task(ctx, chunk, nchunks) for every chunk in [0, nchunks) on up to nthreads threads (the
// caller and nthreads - 1 workers); returns when all are done.
// NOTE: parallel_for uses one chunk per thread. Four per thread (claimed dynamically) was
// measured no better on the 2-core VM: 2048x2048 Add/Mul/ReLU p10 1-7% slower, mins mixed.
void pool_run(int nthreads, int nchunks, PoolTask task, void* ctx);

// [begin, end) of chunk `tid` of `nchunks` over n elements (chunk starts aligned to 64
// elements so threads never write the same cache line of a float or bool output).
inline void chunk_range(int64_t n, int tid, int nchunks, int64_t* begin, int64_t* end) {
  int64_t chunk = (n + nchunks - 1) / nchunks;
  chunk = (chunk + 63) & ~int64_t(63);
  int64_t b = chunk * tid;
  int64_t e = b + chunk;
  *begin = b < n ? b : n;
  *end = e < n ? e : n;
}

template <class F>
void parallel_for(int64_t n, int nthreads, F& body) {
  if (nthreads <= 1) {
    body(int64_t(0), n);
    return;
  }
  struct Ctx {
    F* body;
    int64_t n;
  } ctx{&body, n};
  pool_run(nthreads, nthreads, [](void* p, int tid, int nt) {
    Ctx* c = static_cast<Ctx*>(p);
    int64_t b, e;
    chunk_range(c->n, tid, nt, &b, &e);
    if (b < e) (*c->body)(b, e);
  }, &ctx);
}

// ---- split selection -------------------------------------------------------------------
enum SplitFamily : uint32_t {
  kFamilyUnary = 0,
  kFamilyBinary = 1,
  kFamilyReduce = 2,   // kernels/reduce.h ReduceOp
  kFamilySoftmax = 3,  // kernels/reduce.h SoftmaxOp
};

inline uint32_t split_key(uint32_t family, uint32_t op, uint32_t dtype) {
  return (family << 16) | (op << 4) | dtype;
}

struct SplitEntry {
  uint32_t family, op, dtype, bucket;
  int threads;
};

int max_threads();                     // hardware threads (at least 1)
void set_num_threads(int k);           // 0 = auto search, k > 0 forces k threads
int get_num_threads();
void set_parallel_threshold(int64_t work);
int64_t parallel_threshold();
bool will_parallelize(int64_t n, int cost);
std::vector<SplitEntry> split_table();  // decided entries only
void reset_split_table();

// Decision for one launch: how many threads, and whether this launch is a timed search trial.
struct SplitDecision {
  int threads;
  bool searching;
};
SplitDecision split_decide(uint32_t key, int64_t n, int cost);
void split_record(uint32_t key, int64_t n, int threads, double seconds);

// Threads for a launch over n elements at `cost` per element, and whether it is a timed trial
// of the split search (one thread, no trial, below the parallel threshold).
inline SplitDecision decide_split(uint32_t key, int64_t n, int cost) {
  if (!will_parallelize(n, cost)) return SplitDecision{1, false};
  return split_decide(key, n, cost);
}

// Runs f(); when d is a trial of the split search, records how long f took under d.threads.
template <class F>
void run_timed(uint32_t key, int64_t n, const SplitDecision& d, F&& f) {
  if (!d.searching) {
    f();
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  f();
  const std::chrono::duration<double> s = std::chrono::steady_clock::now() - t0;
  split_record(key, n, d.threads, s.count());
}

template <class F>
void parallel_launch(uint32_t key, int64_t n, int cost, F& body) {
  if (!will_parallelize(n, cost)) {
    body(int64_t(0), n);
    return;
  }
  const SplitDecision d = split_decide(key, n, cost);
  run_timed(key, n, d, [&] { parallel_for(n, d.threads, body); });
}

void install_fork_handlers();

}  // namespace mindlite
