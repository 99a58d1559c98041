"""Every cache mindlite keeps, its cap and how it evicts: the one place they are documented.

A long notebook session or a data loader with varying shapes must keep flat memory, so
every cache keyed by something a program can vary without end (shapes, dtypes, index
values, attribute values) is bounded. The caps are module constants here, read at use time
(a test or a user may lower them). Where a cache sits on the hot path (the C runner lookup)
its eviction costs the hit path nothing; the other caches are only read on a first call of a
signature, where an OrderedDict LRU costs ~0.1 us against a ~100 us first call.

    cache                        where                            cap              eviction
    runners                      ir/primitive.py RunnerCache     RUNNER_CAP       2 generations
      (signature -> runner, read by C in csrc/bind/fast_path.cc; C holds no other cache)
    runner caches per attrs      ir/primitive.py RUNNER_CACHES   RUNNER_CACHES_CAP oldest half
    primitive prototypes         ir/primitive.py _PROTOTYPES     PROTOTYPE_CAP    oldest half
    output inference             pynative/forward.py infer_cache  INFER_CAP        LRU
    kernel graphs                backend/cpu_session.py graphs    GRAPH_CAP        LRU
    interned abstracts           abstract.py _INTERN, _NP_INTERN  ABSTRACT_CAP     cleared
      (a weak table behind them keeps one live abstract per (dtype, shape))
    basic-index plans            ops/function/index_func.py       GETITEM_PLAN_CAP oldest half
    primitives by attributes     ops/operations/_base.py cached_prim, the functional API's
      (shared instances: BroadcastTo's shape, conv2d's geometry, the bprops' siblings)
                                 tables and the bprop tables      PRIM_TABLE_CAP   oldest half
    kernel plans (numba)         kernels/cpu/{softmax,reduce}_numba.py  4096       cleared
    pool / conv index tables     kernels/cpu/pool_numpy.py, conv_cpp.py  256       lru_cache
    memory pool                  runtime/memory.py                by bytes         LRU sizes
    parsed function sources      jit/parse/parser.py _SOURCES     JIT_SOURCE_CAP   oldest half
    parsed files (lambdas)       jit/parse/parser.py _FILE_TREES  JIT_FILE_TREE_CAP oldest half
      (a notebook re-running a cell makes new code objects and new cell "files" each time)

Not bounded here: class-kernel instances (kernels/kernel_def.py, one per primitive attrs and
input dtypes of a registered class kernel) and the numba/AOT compilation caches of Custom ops
(one per user function), which grow with what a program defines, not with shapes or values.
"Oldest half": a full table keeps its newest cap // 2 entries.

Runners: a runner cache holds the current generation (what C looks up) and the previous one.
When RUNNER_CAP runners were installed in the current generation (all caches together), it
becomes the previous one and the one before is dropped; a call that C does not find in the
current generation but the Python path finds in the previous one moves it back (one Python
call per generation for a hot signature). So at most 2 * RUNNER_CAP runners are held, a
runner used at least once per generation is never rebuilt, and the C hit path does exactly
the dictionary lookup it did before.

Interned abstracts: a runner key holds its abstracts (strong references, compared by
identity), so an abstract is never freed while a key could match it, and a freed one's
address cannot make a stale key match a different abstract. The bounded table only keeps
recently made abstracts alive; a weak table returns the one live abstract of a (dtype,
shape), so "one object per (dtype, shape)" holds for every abstract anyone still holds.

Index values are never part of a key: `x[i]` passes i to the BasicIndex primitive as a
runtime input (as MindSpore passes it to SelectExtView as a value), so iterating over a
tensor uses one runner whatever its length.
"""
from collections import OrderedDict

RUNNER_CAP = 2048             # runners installed per generation (2 generations held)
RUNNER_CACHES_CAP = 1024      # distinct (primitive class, name, attrs) runner caches
PROTOTYPE_CAP = 1024          # primitive constructions remembered by argument
INFER_CAP = 4096              # inferred output abstracts
GRAPH_CAP = 2048              # single-op kernel graphs
ABSTRACT_CAP = 4096           # strongly held interned abstracts (per table)
GETITEM_PLAN_CAP = 1024       # basic-index plans (index structure with ints masked)
PRIM_TABLE_CAP = 1024         # shared primitives per table, keyed by their attributes
JIT_SOURCE_CAP = 1024         # parsed def/lambda asts, by code object
JIT_FILE_TREE_CAP = 32        # whole-file asts (a lambda's def is found in them)


class LRUCache(OrderedDict):
    """A dict bounded to `cap` entries: a hit moves the entry to the end, an insertion past the
    cap drops the least recently used. For caches read off the hot path only."""

    def __init__(self, cap_name):
        super().__init__()
        self.cap_name = cap_name              # the constant of this module that bounds it

    def get(self, key, default=None):
        try:
            value = self[key]
            self.move_to_end(key)
        except KeyError:                  # absent, or evicted by another thread meanwhile
            return default
        return value

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        cap = globals()[self.cap_name]
        try:
            self.move_to_end(key)
            while len(self) > cap:
                self.popitem(last=False)
        except KeyError:                  # another thread evicted it (or emptied the cache)
            pass


def drop_oldest_half(table, cap):
    """Bound a plain (insertion-ordered) dict about to exceed `cap`: keep its newest cap // 2
    entries (fewer if the cap was lowered meanwhile)."""
    for key in list(table)[:max(0, len(table) - cap // 2)]:
        table.pop(key, None)


def remember(table, key, value):
    """table[key] = value for a table of shared primitives keyed by attributes (each bounded
    by PRIM_TABLE_CAP; an evicted primitive is stateless and simply built again)."""
    if len(table) >= PRIM_TABLE_CAP:
        drop_oldest_half(table, PRIM_TABLE_CAP)
    table[key] = value
    return value
