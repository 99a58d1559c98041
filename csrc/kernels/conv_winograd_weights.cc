// The Winograd weight transform U = G g G^T (conv_winograd.h) and its cache: one entry per
// weight buffer and tile size, bounded in bytes (least recently used evicted first) and in
// entries, each holding a copy of the weights it was built from. A lookup compares the buffer
// with that copy (a memcmp, about one read of the weights, which the direct engine reads too),
// so a weight changed in place, or a new array at a freed one's address, is never served a
// stale U. Entries are immutable once built and shared (shared_ptr): a thread keeps using one
// that another thread evicts. The map sits under one mutex, held only to find, insert and
// evict; building, comparing and the convolution itself run outside it.
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "kernels/conv_gemm.h"
#include "kernels/conv_winograd.h"

namespace mindlite {
namespace {

// G (A x 3) of F(2x2, 3x3) and F(4x4, 3x3), in double: U is rounded once, from exact sums.
constexpr double kG2[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
constexpr double kG4[6][3] = {{1. / 4, 0, 0},
                              {-1. / 6, -1. / 6, -1. / 6},
                              {-1. / 6, 1. / 6, -1. / 6},
                              {1. / 24, 1. / 12, 1. / 6},
                              {1. / 24, -1. / 12, 1. / 6},
                              {0, 0, 1}};

template <class T>
std::shared_ptr<WinogradWeights<T>> transform(const T* w, int64_t o, int64_t c, int m) {
  auto r = std::make_shared<WinogradWeights<T>>();
  const int a = m + 2;
  const double(*gm)[3] = m == 2 ? kG2 : kG4;
  r->m = m;
  r->o = o;
  r->c = c;
  r->nr = gemm_tile<T>().nr;
  r->cp = round_up(c, winograd_loops<T>().lanes);
  r->op = round_up(o, r->nr);
  const int64_t panels = r->op / r->nr, cp = r->cp, nr = r->nr;
  r->u.assign(static_cast<size_t>(a * a * r->op * cp), T(0));
  T* u = r->u.data();
  // a panel of nr output channels at a time, the lanes along them: U[k][panel][ci] is a
  // contiguous run of nr values
  std::vector<double> g(9 * nr), t(6 * 3 * nr);
  for (int64_t pan = 0; pan < panels; ++pan) {
    const int64_t o0 = pan * nr, cols = std::min(nr, o - o0);
    for (int64_t ci = 0; ci < c; ++ci) {
      std::fill(g.begin(), g.end(), 0.0);
      for (int64_t col = 0; col < cols; ++col) {
        const T* src = w + ((o0 + col) * c + ci) * 9;
        for (int q = 0; q < 9; ++q) g[q * nr + col] = src[q];
      }
      for (int i = 0; i < a; ++i) {           // G g
        for (int j = 0; j < 3; ++j) {
          double* d = &t[(i * 3 + j) * nr];
          const double* g0 = &g[j * nr];
          const double* g1 = &g[(3 + j) * nr];
          const double* g2 = &g[(6 + j) * nr];
          for (int64_t l = 0; l < nr; ++l) d[l] = gm[i][0] * g0[l] + gm[i][1] * g1[l] + gm[i][2] * g2[l];
        }
      }
      for (int i = 0; i < a; ++i) {           // (G g) G^T
        const double* t0 = &t[(i * 3) * nr];
        const double* t1 = &t[(i * 3 + 1) * nr];
        const double* t2 = &t[(i * 3 + 2) * nr];
        for (int j = 0; j < a; ++j) {
          T* d = u + (((i * a + j) * panels + pan) * cp + ci) * nr;
          for (int64_t l = 0; l < nr; ++l) {
            d[l] = static_cast<T>(t0[l] * gm[j][0] + t1[l] * gm[j][1] + t2[l] * gm[j][2]);
          }
        }
      }
    }
  }
  r->finite = true;
  for (const T v : r->u) r->finite = r->finite && v - v == T(0);
  return r;
}

struct Key {
  const void* ptr;
  int64_t o, c;
  int m, size;
  bool operator==(const Key& k) const {
    return ptr == k.ptr && o == k.o && c == k.c && m == k.m && size == k.size;
  }
};

struct Entry {
  Key key;
  std::vector<unsigned char> raw;           // the weights U was built from
  std::shared_ptr<const void> weights;      // a WinogradWeights<T>
  int64_t bytes;
  uint64_t used;
};

constexpr size_t kMaxEntries = 64;

class Cache {
 public:
  std::shared_ptr<const Entry> find(const Key& k) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& e : entries_) {
      if (e->key == k) {
        e->used = ++clock_;                     // (only touched under mu_)
        return e;
      }
    }
    return nullptr;
  }
  void count(bool hit) {
    std::lock_guard<std::mutex> lock(mu_);
    (hit ? hits_ : misses_) += 1;
  }
  void insert(std::shared_ptr<Entry> e) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i]->key == e->key) {
        bytes_ -= entries_[i]->bytes;
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    if (e->bytes > limit_) return;
    e->used = ++clock_;
    bytes_ += e->bytes;
    entries_.push_back(std::move(e));
    evict();
  }
  int64_t set_limit(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t was = limit_;
    limit_ = bytes;
    evict();
    return was;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
    bytes_ = hits_ = misses_ = 0;
  }
  WinogradCacheStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {static_cast<int64_t>(entries_.size()), bytes_, limit_, hits_, misses_};
  }

 private:
  void evict() {                            // least recently used first (mu_ held)
    while (!entries_.empty() && (bytes_ > limit_ || entries_.size() > kMaxEntries)) {
      size_t old = 0;
      for (size_t i = 1; i < entries_.size(); ++i) {
        if (entries_[i]->used < entries_[old]->used) old = i;
      }
      bytes_ -= entries_[old]->bytes;
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(old));
    }
  }

  std::mutex mu_;
  std::vector<std::shared_ptr<Entry>> entries_;
  int64_t bytes_ = 0, hits_ = 0, misses_ = 0;
  // NOTE: 256 MiB holds every 3 x 3 layer ResNet18 / 34 runs as Winograd at 224 (ResNet18:
  // ~50 MiB of U and copies); MINDLITE_WINOGRAD_CACHE_MB sets it at import
  int64_t limit_ = [] {
    const char* v = std::getenv("MINDLITE_WINOGRAD_CACHE_MB");
    return (v ? std::atoll(v) : 256) << 20;
  }();
  uint64_t clock_ = 0;
};

Cache& cache() {
  static Cache* c = new Cache();            // never destroyed: pool threads may outlive exit
  return *c;
}

}  // namespace

template <class T>
std::shared_ptr<const WinogradWeights<T>> winograd_weights(const T* w, int64_t o, int64_t c,
                                                           int m, bool use_cache) {
  if (!use_cache) return transform(w, o, c, m);
  const Key key{w, o, c, m, static_cast<int>(sizeof(T))};
  const size_t raw = static_cast<size_t>(o * c * 9) * sizeof(T);
  if (auto e = cache().find(key)) {
    if (e->raw.size() == raw && std::memcmp(e->raw.data(), w, raw) == 0) {
      cache().count(true);
      return std::static_pointer_cast<const WinogradWeights<T>>(e->weights);
    }
  }
  cache().count(false);
  std::shared_ptr<const WinogradWeights<T>> u = transform(w, o, c, m);
  auto e = std::make_shared<Entry>();
  e->key = key;
  e->raw.assign(reinterpret_cast<const unsigned char*>(w),
                reinterpret_cast<const unsigned char*>(w) + raw);
  e->weights = u;
  e->bytes = static_cast<int64_t>(raw + u->u.size() * sizeof(T));
  cache().insert(std::move(e));
  return u;
}

template std::shared_ptr<const WinogradWeights<float>> winograd_weights<float>(
    const float*, int64_t, int64_t, int, bool);
template std::shared_ptr<const WinogradWeights<double>> winograd_weights<double>(
    const double*, int64_t, int64_t, int, bool);

WinogradCacheStats winograd_cache_stats() { return cache().stats(); }

int64_t set_winograd_cache_limit(int64_t bytes) { return cache().set_limit(bytes); }

void winograd_cache_clear() { cache().clear(); }

}  // namespace mindlite
