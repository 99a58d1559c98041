// Frozen buffers: blocks of memory whose contents never change while they live. Python sees one
// as a read-only ndarray whose base is not an array (bind/frozen_bind.cc), so numpy refuses to
// make it writeable; nothing else in mindlite writes to it. A kernel that caches something
// derived from a buffer's contents (the Winograd weight transform, conv_winograd_weights.cc)
// may then trust a frozen block by its id instead of comparing the contents at every call: a
// weight array the Lite runtime holds as a model constant costs no extra read per call.
// Ids are never reused, so a block freed and another frozen at the same address (different
// contents) has a different id.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mindlite {

// A fresh 64-byte-aligned block of `bytes` bytes (at least 1) for the caller to fill before
// freezing it; nullptr when it cannot be allocated.
void* frozen_alloc(size_t bytes);
// Registers [p, p + bytes) (from frozen_alloc, now filled) as frozen; returns its id (> 0).
uint64_t frozen_register(void* p, size_t bytes);
// Unregisters and frees a block from frozen_alloc (registered or not).
void frozen_free(void* p);
// The id of the live frozen block that starts at p and holds at least `bytes` bytes; 0 when p
// is not the start of one. Safe from any thread.
uint64_t frozen_id(const void* p, size_t bytes);
// How many frozen blocks are live (tests).
int64_t frozen_count();

}  // namespace mindlite
