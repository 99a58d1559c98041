// Thread pool workers, the launch protocol, and the split table (see thread_pool.h).
#include "runtime/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ML_CPU_RELAX() _mm_pause()
#else
#define ML_CPU_RELAX() std::this_thread::yield()
#endif

namespace mindlite {
namespace {

constexpr int kMaxPoolThreads = 256;  // chunk indices fit the claim word's 16 bits
constexpr double kSpinSeconds = 100e-6;   // a worker spins this long before sleeping
constexpr int kSearchReps = 5;            // timings per candidate (min of them: robust to noise)
constexpr int kSearchRounds = 3;          // searches at most, while one settles below max
constexpr double kClearlySlower = 1.10;   // more threads lose only when 10% slower than fewer
// NOTE: 2-core EPYC VM: a launch's wake-up and join cost ~1-10 us (more when the machine is
// busy); 1M elements x cost take 300 us or more on one thread (Add: ~320 us), so from there a
// second thread can lose ~1-3% at worst and gains up to 2x. Below it the search decides.
constexpr int64_t kPriorWork = int64_t(1) << 20;

thread_local bool tls_in_pool = false;

// NOTE: chunks are claimed, not assigned: the caller and the woken workers take chunk indices
// from one atomic word (job generation | chunk count | next chunk), so a worker the OS has not
// scheduled yet never holds the caller up (the caller runs the chunks itself), and a worker
// that wakes after its job ended sees a stale generation and touches nothing. Chunk bounds
// depend only on (n, nthreads), so results do not depend on who ran which chunk.
class ThreadPool {
 public:
  void run(int nthreads, int nchunks, PoolTask task, void* ctx);

 private:
  struct alignas(64) Worker {
    std::atomic<uint64_t> gen{0};
    std::atomic<bool> sleeping{false};
    std::mutex m;
    std::condition_variable cv;
  };
  void ensure_workers(int n);
  void worker_loop(Worker* w);
  void run_chunks(uint32_t gen);

 public:
  std::mutex launch_mutex;

 private:
  std::vector<std::unique_ptr<Worker>> workers_;  // grown under launch_mutex only
  PoolTask task_ = nullptr;
  void* ctx_ = nullptr;
  uint32_t gen_ = 0;
  alignas(64) std::atomic<uint64_t> claim_{0};  // gen << 32 | nchunks << 16 | next chunk
  alignas(64) std::atomic<int> done_{0};
};

void ThreadPool::ensure_workers(int n) {
  while (static_cast<int>(workers_.size()) < n) {
    std::unique_ptr<Worker> w(new Worker());
    Worker* p = w.get();
    std::thread([this, p] { worker_loop(p); }).detach();  // may throw: w is then freed
    workers_.push_back(std::move(w));
  }
}

// Claims and runs chunks of job `gen` until none are left (or the job is over).
void ThreadPool::run_chunks(uint32_t gen) {
  uint64_t s = claim_.load(std::memory_order_acquire);
  for (;;) {
    if (static_cast<uint32_t>(s >> 32) != gen) return;
    const int nchunks = static_cast<int>((s >> 16) & 0xffff), next = static_cast<int>(s & 0xffff);
    if (next >= nchunks) return;
    if (claim_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel)) {
      task_(ctx_, next, nchunks);
      done_.fetch_add(1, std::memory_order_acq_rel);
      s = claim_.load(std::memory_order_acquire);
    }
  }
}

void ThreadPool::worker_loop(Worker* w) {
  tls_in_pool = true;
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = w->gen.load(std::memory_order_acquire);
    if (g == seen) {
      auto start = std::chrono::steady_clock::now();
      for (int spins = 1; (g = w->gen.load(std::memory_order_acquire)) == seen; ++spins) {
        ML_CPU_RELAX();
        if ((spins & 255) == 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
                kSpinSeconds) {
          w->sleeping.store(true);
          std::unique_lock<std::mutex> lk(w->m);
          while ((g = w->gen.load()) == seen) w->cv.wait(lk);
          w->sleeping.store(false, std::memory_order_relaxed);
          break;
        }
      }
    }
    seen = g;
    run_chunks(static_cast<uint32_t>(g));
  }
}

void ThreadPool::run(int nthreads, int nchunks, PoolTask task, void* ctx) {
  std::unique_lock<std::mutex> lk(launch_mutex, std::try_to_lock);
  if (nthreads <= 1 || tls_in_pool || !lk.owns_lock()) {
    for (int t = 0; t < nchunks; ++t) task(ctx, t, nchunks);
    return;
  }
  try {
    ensure_workers(nthreads - 1);
  } catch (const std::exception&) {  // no more threads (resource limits): run serially
    for (int t = 0; t < nchunks; ++t) task(ctx, t, nchunks);
    return;
  }
  task_ = task;
  ctx_ = ctx;
  done_.store(0, std::memory_order_relaxed);
  const uint32_t gen = ++gen_;
  claim_.store((uint64_t(gen) << 32) | (uint64_t(nchunks) << 16), std::memory_order_release);
  for (int i = 0; i < nthreads - 1; ++i) {
    Worker* w = workers_[i].get();
    w->gen.store(gen);  // seq_cst: pairs with the worker's sleeping flag (no lost wake-up)
    if (w->sleeping.load()) {
      { std::lock_guard<std::mutex> g(w->m); }
      w->cv.notify_one();
    }
  }
  tls_in_pool = true;
  run_chunks(gen);
  tls_in_pool = false;
  for (int spins = 1; done_.load(std::memory_order_acquire) != nchunks; ++spins) {
    if (spins < 4096) ML_CPU_RELAX(); else std::this_thread::yield();
  }
}

// ---- globals (leaked on purpose: detached workers may outlive static destruction) ---------
std::mutex* g_init_mu = new std::mutex();
ThreadPool* g_pool = nullptr;

ThreadPool* pool() {
  std::lock_guard<std::mutex> g(*g_init_mu);
  if (g_pool == nullptr) g_pool = new ThreadPool();
  return g_pool;
}

struct SearchState {
  int best = 0;                 // chosen thread count; 0 while searching
  int trials = 0;               // launches timed so far in this round
  int rounds = 0;               // rounds finished
  int most = 0;                 // most threads any finished round chose
  std::vector<double> per_elem;  // min seconds per element, per candidate (index t - 1)
};

std::mutex* g_split_mu = new std::mutex();
auto* g_split = new std::unordered_map<uint64_t, SearchState>();
std::atomic<int> g_forced{0};
// NOTE: measured (2-core AMD EPYC VM, AVX-512): a second thread starts paying off around 16K
// float32 elements for Exp / Sigmoid (cost 4) and 64K for Add (cost 1); below that the launch
// and wake-up (~1-2 us) eat the gain. Above the threshold the split search decides.
std::atomic<int64_t> g_threshold{65536};  // elements x cost

int bucket_of(int64_t n) {
  int b = 0;
  while (n > 1) {
    n >>= 1;
    ++b;
  }
  return b;
}

uint64_t full_key(uint32_t key, int64_t n) { return (uint64_t(key) << 8) | bucket_of(n); }

void fork_prepare() {
  g_init_mu->lock();
  g_split_mu->lock();
  if (g_pool != nullptr) g_pool->launch_mutex.lock();
}

void fork_parent() {
  if (g_pool != nullptr) g_pool->launch_mutex.unlock();
  g_split_mu->unlock();
  g_init_mu->unlock();
}

void fork_child() {
  // The child has no workers: forget the parent's pool (leaked) and start a fresh one lazily.
  g_pool = nullptr;
  g_split_mu->unlock();
  g_init_mu->unlock();
}

}  // namespace

void pool_run(int nthreads, int nchunks, PoolTask task, void* ctx) {
  if (nthreads <= 1 || tls_in_pool) {
    for (int t = 0; t < nchunks; ++t) task(ctx, t, nchunks);
    return;
  }
  pool()->run(nthreads, nchunks, task, ctx);
}

// The CPUs this process may run on: its affinity mask (taskset, a container's cpuset), else
// every hardware thread. NOTE: hardware_concurrency() counts the machine's CPUs whatever the
// mask, so a process pinned to 2 of 16 CPUs ran launches on 16 threads.
static unsigned usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    return static_cast<unsigned>(CPU_COUNT(&set));
  }
#endif
  return std::thread::hardware_concurrency();
}

int max_threads() {
  static const int n = static_cast<int>(std::max(1u, std::min(usable_cpus(), 64u)));
  return n;
}

void set_num_threads(int k) { g_forced.store(std::max(0, std::min(k, kMaxPoolThreads))); }
int get_num_threads() { return g_forced.load(); }
void set_parallel_threshold(int64_t work) { g_threshold.store(std::max<int64_t>(1, work)); }
int64_t parallel_threshold() { return g_threshold.load(std::memory_order_relaxed); }

bool will_parallelize(int64_t n, int cost) {
  return n >= 2 && n * cost >= g_threshold.load(std::memory_order_relaxed);
}

SplitDecision split_decide(uint32_t key, int64_t n, int cost) {
  int forced = g_forced.load(std::memory_order_relaxed);
  if (forced > 0) return {forced, false};
  int cands = max_threads();
  if (cands == 1) return {1, false};
  std::lock_guard<std::mutex> g(*g_split_mu);
  SearchState& st = (*g_split)[full_key(key, n)];
  if (st.best > 0) return {st.best, false};
  if (n * cost >= kPriorWork) {  // the prior, recorded so that split_table() shows it
    st.best = cands;
    return {cands, false};
  }
  if (st.per_elem.empty()) st.per_elem.assign(cands, 1e300);
  return {st.trials % cands + 1, true};  // round-robin over 1..cands
}

void split_record(uint32_t key, int64_t n, int threads, double seconds) {
  std::lock_guard<std::mutex> g(*g_split_mu);
  SearchState& st = (*g_split)[full_key(key, n)];
  int cands = static_cast<int>(st.per_elem.size());
  if (st.best > 0 || threads < 1 || threads > cands) return;
  double& slot = st.per_elem[threads - 1];
  slot = std::min(slot, seconds / static_cast<double>(n));
  if (++st.trials < cands * kSearchReps) return;
  // Walking up from 1 thread, each count not kClearlySlower than the one chosen so far replaces
  // it: timings on a shared machine are noisy, and noise hits a multi-thread launch (it waits
  // for its slowest chunk) more than a serial one, so fewer threads must win clearly.
  int choice = 1;
  for (int t = 2; t <= cands; ++t) {
    if (st.per_elem[t - 1] <= st.per_elem[choice - 1] * kClearlySlower) choice = t;
  }
  st.most = std::max(st.most, choice);
  if (++st.rounds < kSearchRounds && st.most < cands) {  // measure again from scratch
    st.trials = 0;
    st.per_elem.assign(cands, 1e300);
    return;
  }
  st.best = st.most;
}

std::vector<SplitEntry> split_table() {
  std::lock_guard<std::mutex> g(*g_split_mu);
  std::vector<SplitEntry> out;
  for (const auto& kv : *g_split) {
    if (kv.second.best == 0) continue;
    uint32_t key = static_cast<uint32_t>(kv.first >> 8);
    out.push_back({key >> 16, (key >> 4) & 0xfff, key & 0xf,
                   static_cast<uint32_t>(kv.first & 0xff), kv.second.best});
  }
  return out;
}

void reset_split_table() {
  std::lock_guard<std::mutex> g(*g_split_mu);
  g_split->clear();
}

void install_fork_handlers() {
  static bool done = false;
  if (!done) {
    done = true;
    pthread_atfork(fork_prepare, fork_parent, fork_child);
  }
}

}  // namespace mindlite
