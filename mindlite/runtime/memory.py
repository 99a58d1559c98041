"""MemoryPool: reusable output buffers for large tensors, released by reference count.

Small outputs (< POOL_MIN_BYTES) come from numpy's allocator, which is fast and
caches small blocks itself. Large ones come from size-exact buckets of byte
buffers: a buffer is free again when the pool holds its only reference (every
array handed out is a view whose `base` is the buffer, so a live tensor, a view
of it, or an `asnumpy()` result a user kept all keep it busy). Reusing warm
pages avoids the page faults a fresh mmap costs on every large op.
"""
import sys

import numpy as np

POOL_MIN_BYTES = 1 << 18          # 256 KiB
MAX_PER_BUCKET = 8


class MemoryPool:
    def __init__(self):
        self.buckets = {}          # nbytes -> [uint8 buffers]
        self.hits = 0
        self.misses = 0

    def alloc(self, shape, np_dtype, nbytes):
        bucket = self.buckets.get(nbytes)
        if bucket is None:
            bucket = self.buckets[nbytes] = []
        getrefcount = sys.getrefcount
        for buf in bucket:
            # references: the bucket list, the loop variable, getrefcount's argument
            if getrefcount(buf) == 3:
                self.hits += 1
                return buf.view(np_dtype).reshape(shape)
        self.misses += 1
        buf = np.empty(nbytes, dtype=np.uint8)
        if len(bucket) < MAX_PER_BUCKET:
            bucket.append(buf)
        return buf.view(np_dtype).reshape(shape)

    def release_all(self):
        """Drop every cached buffer (those still in use stay alive through their tensors)."""
        self.buckets.clear()

    def cached_bytes(self):
        return sum(n * len(b) for n, b in self.buckets.items())
