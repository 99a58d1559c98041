"""MemoryPool: reusable output buffers for large tensors, released by reference count.

Small outputs (< POOL_MIN_BYTES) come from numpy's allocator, which is fast and
caches small blocks itself. Large ones come from size-exact buckets of buffers:
a buffer is free again when the pool holds its only reference. A request of the
shape and dtype the buffer was made with gets the buffer itself, another one a
view of it (whose `base` chain holds the buffer), so a live tensor, a view of
it, or an `asnumpy()` result a user kept all keep it busy.
NOTE: handing the buffer itself out saves the view and reshape (~0.4 us of a
~1 us pooled allocation; a 256 x 256 float32 Add is ~8 us). Reusing warm
pages avoids the page faults a fresh mmap costs on every large op. Buffers of
4 MiB and more start on a 2 MiB boundary of a mapping of their own marked for
transparent huge pages, which then back the whole buffer (_new_buffer); their
memory belongs to a larger array, which views of them reference, so the free
test checks it too.

Bounds: at most MAX_PER_BUCKET buffers per size and POOL_MAX_BYTES held in all;
a new size that would pass the byte cap first evicts free buffers of the sizes
used least recently, and is left uncached (plain numpy memory) if that is not
enough. Buffers still in use are never evicted while counted: eviction only
drops the pool's reference, so a live tensor keeps its memory either way.

Threads: a hit takes no lock (a buffer another thread is checking or handing
out is referenced from that thread's frame, so it never reads as free); a miss
and release_all change the buckets under the pool's lock (a miss already pays
for a fresh allocation of 256 KiB or more).
"""
import mmap
import sys
import threading

import numpy as np

POOL_MIN_BYTES = 1 << 18          # 256 KiB
MAX_PER_BUCKET = 8
POOL_MAX_BYTES = 1 << 29          # 512 MiB held by the pool at most (live and free)
HUGE_PAGE = 1 << 21               # buffers from ALIGNED_MIN_BYTES start on a 2 MiB boundary
ALIGNED_MIN_BYTES = 1 << 22


def _free_refcount():
    """sys.getrefcount(buf) inside `for buf in bucket:` when the bucket list is buf's only
    holder: measured once, so the free test does not depend on the interpreter's counting
    of loop variables and call arguments."""
    bucket = [np.empty(1, dtype=np.uint8)]
    for buf in bucket:
        return sys.getrefcount(buf)


def _free_base_refcount():
    """sys.getrefcount(buf.base) inside `for buf in bucket:` when an aligned buffer's memory
    owner is referenced by that buffer alone (see _new_buffer)."""
    bucket = [np.empty(16, dtype=np.uint8)[0:8].view(np.uint8)]
    for buf in bucket:
        return sys.getrefcount(buf.base)


FREE_REFCOUNT = _free_refcount()
FREE_BASE_REFCOUNT = _free_base_refcount()


def _new_buffer(shape, np_dtype, nbytes):
    """A fresh C-contiguous buffer. From ALIGNED_MIN_BYTES on it starts on a 2 MiB boundary
    of a mapping of its own that asks for transparent huge pages (_huge_memory): a view into
    a larger uint8 array (whose unused head and tail are never touched, so they take no
    memory). NOTE: numpy's own 4 MiB arrays start anywhere, and then only the 2 MiB pages
    wholly inside them are huge: a 1024 x 1024 float32 ReLU into an aligned output took
    46-50 us against 64-66 into a plain one (fewer TLB misses; the machine's transparent huge
    pages are in madvise mode). Such a buffer's memory belongs to the uint8 array, so views
    of it keep that array (buf.base) referenced: the free test checks both."""
    if nbytes < ALIGNED_MIN_BYTES or np_dtype.hasobject:
        return np.empty(shape, dtype=np_dtype)
    raw = _huge_memory(nbytes + HUGE_PAGE)
    start = -raw.__array_interface__["data"][0] % HUGE_PAGE
    return raw[start:start + nbytes].view(np_dtype).reshape(shape)


_MAP_PRIVATE_ANON = (getattr(mmap, "MAP_PRIVATE", 0) | getattr(mmap, "MAP_ANONYMOUS", 0)
                     if hasattr(mmap, "MADV_HUGEPAGE") else None)


def _huge_memory(nbytes):
    """nbytes of zeroed uint8 memory in a private anonymous mapping of its own, marked for
    transparent huge pages (madvise); numpy's allocator where the OS has no such advice.
    NOTE: not malloc's memory: mindlite's malloc policy (csrc/runtime/malloc_policy.cc)
    serves blocks under 32 MiB from the brk heap (as glibc itself does once the process has
    freed a large block), where the huge pages numpy asks for covered only 3 of 8 2 MiB pages
    of a 16 MiB buffer (read from /proc/self/pagemap); a 2-rank 16 MB AllReduce into such a
    buffer took 6.0-6.5 ms against 4.6-4.8 into a wholly huge one. The mapping is unmapped
    when the last view of the array goes (mmap -> memoryview -> array)."""
    if _MAP_PRIVATE_ANON is None:
        return np.empty(nbytes, dtype=np.uint8)
    mapping = mmap.mmap(-1, nbytes, flags=_MAP_PRIVATE_ANON)
    try:
        mapping.madvise(mmap.MADV_HUGEPAGE)
    except OSError:                 # a kernel built without transparent huge pages
        pass
    return np.frombuffer(mapping, dtype=np.uint8)


class MemoryPool:
    def __init__(self, max_bytes=POOL_MAX_BYTES, max_per_bucket=MAX_PER_BUCKET):
        self.buckets = {}          # nbytes -> [buffers (C-contiguous arrays of nbytes)]
        self.last_use = {}         # nbytes -> value of self.clock at its last alloc
        self.clock = 0
        self.max_bytes = max_bytes
        self.max_per_bucket = max_per_bucket
        self.held_bytes = 0        # bytes of every buffer in the buckets
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()     # held while a miss or release_all edits the buckets

    def alloc(self, shape, np_dtype, nbytes):
        """A C-contiguous array of `shape` / `np_dtype` (nbytes long) that no live array uses."""
        self.clock += 1
        self.last_use[nbytes] = self.clock
        bucket = self.buckets.get(nbytes)
        if bucket is None:
            bucket = self.buckets.setdefault(nbytes, [])
        getrefcount = sys.getrefcount
        free, free_base = FREE_REFCOUNT, FREE_BASE_REFCOUNT
        for buf in bucket:
            if getrefcount(buf) == free and (buf.base is None or
                                             getrefcount(buf.base) == free_base):
                self.hits += 1
                if buf.shape == shape and buf.dtype == np_dtype:
                    return buf
                return buf.reshape(-1).view(np.uint8).view(np_dtype).reshape(shape)
        self.misses += 1
        buf = _new_buffer(shape, np.dtype(np_dtype), nbytes)
        with self._lock:
            # another thread's miss may have dropped this size's empty bucket meanwhile
            bucket = self.buckets.setdefault(nbytes, bucket)
            self.last_use[nbytes] = self.clock
            if len(bucket) < self.max_per_bucket and self._make_room(nbytes):
                bucket.append(buf)
                self.held_bytes += nbytes
            elif not bucket:             # uncached size: keep no empty bucket for it
                del self.buckets[nbytes]
                del self.last_use[nbytes]
        return buf

    def _make_room(self, nbytes):
        """Evicts free buffers of other sizes, least recently used first, until nbytes more
        fit under max_bytes; False when they cannot. Called with the lock held."""
        if self.held_bytes + nbytes <= self.max_bytes:
            return True
        if nbytes > self.max_bytes:
            return False
        free = FREE_REFCOUNT
        # a bucket another thread has just created may not have its last use yet
        last_use = self.last_use.get
        for size in sorted(self.buckets, key=lambda n: last_use(n, 0)):
            if size == nbytes:
                continue
            bucket = self.buckets[size]
            keep = []
            for buf in bucket:
                if sys.getrefcount(buf) == free and (buf.base is None or sys.getrefcount(
                        buf.base) == FREE_BASE_REFCOUNT) and self.held_bytes + nbytes > \
                        self.max_bytes:
                    self.held_bytes -= size
                else:
                    keep.append(buf)
            bucket[:] = keep
            if not keep:
                del self.buckets[size]
                self.last_use.pop(size, None)
            if self.held_bytes + nbytes <= self.max_bytes:
                return True
        return False

    def release_all(self):
        """Drop every cached buffer (those still in use stay alive through their tensors)."""
        with self._lock:
            self.buckets.clear()
            self.last_use.clear()
            self.held_bytes = 0

    def cached_bytes(self):
        """Bytes the pool holds (buffers in use and free)."""
        return sum(n * len(b) for n, b in list(self.buckets.items()))

    def free_bytes(self):
        """Bytes of held buffers that no live array uses."""
        free = FREE_REFCOUNT
        return sum(n for n, b in list(self.buckets.items()) for buf in b
                   if sys.getrefcount(buf) == free and (
                       buf.base is None or sys.getrefcount(buf.base) == FREE_BASE_REFCOUNT))
