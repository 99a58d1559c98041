// The Winograd weight transform U = G g G^T (conv_winograd.h) and its cache: one entry per
// weight buffer and tile size, bounded in bytes (least recently used evicted first) and in
// entries, each holding a copy of the weights it was built from. A lookup compares the buffer
// with that copy (a memcmp, about one read of the weights, which the direct engine reads too),
// so a weight changed in place, or a new array at a freed one's address, is never served a
// stale U. A frozen weight buffer (runtime/frozen_buffer.h: the Lite runtime's model
// constants) cannot change, so its entry keeps no copy and a lookup compares the block's id
// instead (ids are never reused): a 512 x 512 layer's memcmp read 2 x 9.4 MB per call, 0.9 ms
// of its 2.4 ms on one thread with U streamed from memory. Entries are immutable once built
// and shared (shared_ptr): a thread keeps using one that another thread evicts. The map sits
// under one mutex, held only to find, insert and evict; building, comparing and the
// convolution itself run outside it.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include <sys/mman.h>

#include "kernels/conv_gemm.h"
#include "kernels/conv_winograd.h"
#include "runtime/frozen_buffer.h"

namespace mindlite {
namespace {

// A block of `count` T on 2 MiB boundaries, advised to the kernel as transparent huge pages
// (they are in madvise mode on the measured machine). NOTE: a 512 x 512 layer's U (25-38 MB)
// streams from memory at every call; on 4 KiB pages that is ~9,000 TLB misses and as many
// restarts of the hardware prefetchers' streams per call.
template <class T>
WinogradBlock<T> winograd_block(int64_t count) {
  constexpr size_t kHuge = size_t(1) << 21;
  const size_t bytes = static_cast<size_t>(count) * sizeof(T);
  void* p = nullptr;
  if (bytes >= 2 * kHuge) {
    const size_t len = (bytes + kHuge - 1) / kHuge * kHuge;
    if (posix_memalign(&p, kHuge, len) != 0) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);             // advice only: failure changes nothing
#endif
  } else {
    p = std::malloc(bytes ? bytes : 1);
    if (p == nullptr) throw std::bad_alloc();
  }
  return WinogradBlock<T>(static_cast<T*>(p));
}

// U of w; own: in a buffer of its own (`recycled`, a stale entry's of the same size, when
// given), else in this thread's buffer, valid during the call.
template <class T>
std::shared_ptr<WinogradWeights<T>> transform(const T* w, int64_t o, int64_t c, int m,
                                              int threads, bool own,
                                              WinogradBlock<T> recycled = nullptr) {
  auto r = std::make_shared<WinogradWeights<T>>();
  const WinogradLoops<T>& f = winograd_loops<T>();
  r->m = m;
  r->o = o;
  r->c = c;
  r->nr = gemm_tile<T>().nr;
  r->cp = round_up(c, f.lanes);
  r->op = round_up(o, r->nr);
  const WinogradTile dims = winograd_dims(m);
  r->size = (dims.my + 2) * (dims.mx + 2) * r->op * r->cp;
  // every element is written below. NOTE: a fresh block per call (a 512 x 512 F(4x4) U is
  // 37 MiB, mmapped and faulted in page by page) cost more than the transform: a per-call U
  // reuses this thread's buffer, a changed weight its stale entry's
  T* u;
  if (own) {
    r->own = recycled ? std::move(recycled) : winograd_block<T>(r->size);
    u = r->own.get();
  } else {
    u = conv_buffer<T>(kBufWinoW, r->size);
  }
  r->u = u;
  const int64_t panels = r->op / r->nr;
  std::atomic<bool> finite{true};
  auto body = [&](int64_t p0, int64_t p1) {
    if (!f.weights[dims.index](w, o, c, r->cp, r->nr, panels, p0, p1, u)) finite = false;
  };
  winograd_split(panels, threads, body);
  r->finite = finite.load();
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
  std::vector<unsigned char> raw;           // the weights U was built from (not frozen)
  uint64_t frozen = 0;                      // the frozen block's id U was built from, or 0
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
  // Removes and returns k's entry (null if none).
  std::shared_ptr<Entry> take(const Key& k) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i]->key == k) {
        std::shared_ptr<Entry> e = std::move(entries_[i]);
        bytes_ -= e->bytes;
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
        return e;
      }
    }
    return nullptr;
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
                                                           int m, bool use_cache, int threads) {
  if (!use_cache) return transform(w, o, c, m, threads, false);
  const Key key{w, o, c, m, static_cast<int>(sizeof(T))};
  const size_t raw = static_cast<size_t>(o * c * 9) * sizeof(T);
  const uint64_t frozen = frozen_id(w, raw);
  if (auto e = cache().find(key)) {
    if (frozen != 0 ? e->frozen == frozen
                    : e->frozen == 0 && e->raw.size() == raw &&
                          std::memcmp(e->raw.data(), w, raw) == 0) {
      cache().count(true);
      return std::static_pointer_cast<const WinogradWeights<T>>(e->weights);
    }
  }
  cache().count(false);
  // the stale entry (a weight changed in place: every training step): its buffers serve the
  // new one when no thread uses it any more (none can reach it once out of the map)
  WinogradBlock<T> recycled;
  auto e = std::make_shared<Entry>();
  if (std::shared_ptr<Entry> old = cache().take(key)) {
    if (old.use_count() == 1 && old->weights.use_count() == 1) {
      auto* ow = const_cast<WinogradWeights<T>*>(
          static_cast<const WinogradWeights<T>*>(old->weights.get()));
      recycled = std::move(ow->own);
      e->raw = std::move(old->raw);
    }
  }
  std::shared_ptr<const WinogradWeights<T>> u =
      transform(w, o, c, m, threads, true, std::move(recycled));
  e->key = key;
  e->frozen = frozen;
  if (frozen == 0) {
    e->raw.assign(reinterpret_cast<const unsigned char*>(w),
                  reinterpret_cast<const unsigned char*>(w) + raw);
  } else {
    e->raw.clear();
  }
  e->weights = u;
  e->bytes = static_cast<int64_t>(e->raw.size() + u->size * sizeof(T));
  cache().insert(std::move(e));
  return u;
}

template std::shared_ptr<const WinogradWeights<float>> winograd_weights<float>(
    const float*, int64_t, int64_t, int, bool, int);
template std::shared_ptr<const WinogradWeights<double>> winograd_weights<double>(
    const double*, int64_t, int64_t, int, bool, int);

WinogradCacheStats winograd_cache_stats() { return cache().stats(); }

int64_t set_winograd_cache_limit(int64_t bytes) { return cache().set_limit(bytes); }

void winograd_cache_clear() { cache().clear(); }

}  // namespace mindlite
