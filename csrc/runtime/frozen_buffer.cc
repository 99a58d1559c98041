// The registry of frozen buffers (frozen_buffer.h): a map from a block's start to its size and
// id under one mutex, held only to look up, add or remove an entry.
#include "runtime/frozen_buffer.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include <sys/mman.h>

namespace mindlite {
namespace {

struct Block {
  size_t bytes;
  uint64_t id;
};

struct Registry {
  std::mutex mu;
  std::unordered_map<const void*, Block> blocks;
  uint64_t next = 1;
};

Registry& registry() {
  static Registry* r = new Registry();     // never destroyed: arrays may outlive exit
  return *r;
}

}  // namespace

void* frozen_alloc(size_t bytes) {
  // from 4 MiB (a model's large weights, streamed from memory at every call): 2 MiB
  // boundaries, advised as transparent huge pages (fewer TLB misses and prefetch restarts)
  constexpr size_t kHuge = size_t(1) << 21;
  if (bytes >= 2 * kHuge) {
    const size_t len = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = nullptr;
    if (posix_memalign(&p, kHuge, len) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);             // advice only: failure changes nothing
#endif
    return p;
  }
  const size_t size = ((bytes == 0 ? 1 : bytes) + 63) / 64 * 64;
  return std::aligned_alloc(64, size);
}

uint64_t frozen_register(void* p, size_t bytes) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const uint64_t id = r.next++;
  r.blocks[p] = Block{bytes, id};
  return id;
}

void frozen_free(void* p) {
  if (p == nullptr) return;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.blocks.erase(p);
  }
  std::free(p);
}

uint64_t frozen_id(const void* p, size_t bytes) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const auto it = r.blocks.find(p);
  return it != r.blocks.end() && it->second.bytes >= bytes ? it->second.id : 0;
}

int64_t frozen_count() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return static_cast<int64_t>(r.blocks.size());
}

}  // namespace mindlite
