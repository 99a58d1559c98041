"""Kernel registry: `register_kernel(op, device, dtypes, provider, priority)` fills KERNELS.

A kernel is a function of arrays. Two conventions, declared at registration:
  alloc="runtime"  fn(*inputs, *outputs, **params): writes into preallocated outputs
  alloc="kernel"   fn(*inputs, **params) -> array or tuple: allocates (views, dynamic shapes)
`params` are what the primitive's kernel_params() returns (normalised axes...),
bound once per signature. Selection (select_kernel), as MindSpore Lite's
REGISTER_KERNEL: an explicit provider (context or argument) if it has a kernel
for the dtype, else the highest priority kernel that supports the dtype and
whose `when` predicate accepts the input abstracts; the numpy provider is the
reference, the oracle in tests and the last resort.
"""
KERNELS = {}          # op name -> [KernelDef], highest priority first
PROVIDER_PRIORITY = {"numpy": 0, "numba": 10, "cpp": 20}
_LOADED = []


class KernelDef:
    __slots__ = ("op", "device", "dtypes", "provider", "priority", "alloc", "fn", "name", "when")

    def __init__(self, op, device, dtypes, provider, priority, alloc, fn, when):
        self.op = op
        self.device = device
        self.dtypes = None if dtypes is None else frozenset(dtypes)
        self.provider = provider
        self.priority = priority
        self.alloc = alloc
        self.fn = fn
        self.name = getattr(fn, "__name__", f"{op}_{provider}")
        self.when = when

    def supports(self, dtype, input_abstracts=None):
        if self.dtypes is not None and dtype not in self.dtypes:
            return False
        if self.when is not None and input_abstracts is not None:
            return bool(self.when(*input_abstracts))
        return True

    def bind(self, params, info=None):
        """The launch function for one signature: params bound once, not per call."""
        fn = self.fn
        if not params:
            return fn

        def launch(*arrays):
            return fn(*arrays, **params)
        launch.__name__ = self.name
        return launch

    def __repr__(self):
        dts = "all" if self.dtypes is None else sorted(str(d) for d in self.dtypes)
        return (f"KernelDef({self.op}, provider={self.provider}, priority={self.priority}, "
                f"dtypes={dts})")


def register_kernel(op, device="CPU", dtypes=None, provider="numpy", priority=None,
                    alloc="runtime", when=None):
    """Decorator: register `fn` as a kernel of primitive `op` on `device`."""
    if not isinstance(op, str) or not op:
        raise TypeError(f"For 'register_kernel', 'op' must be a non-empty str, but got {op!r}")
    if alloc not in ("runtime", "kernel"):
        raise ValueError(f"For 'register_kernel', 'alloc' must be 'runtime' or 'kernel', but got "
                         f"{alloc!r}")
    if priority is None:
        priority = PROVIDER_PRIORITY.get(provider, 100)

    def deco(fn):
        kernels = KERNELS.setdefault(op, [])
        kernels.append(KernelDef(op, device, dtypes, provider, priority, alloc, fn, when))
        kernels.sort(key=lambda k: -k.priority)
        return fn
    return deco


def load_builtin_kernels():
    """Import the built-in kernel modules (once, at the first kernel selection)."""
    if not _LOADED:
        _LOADED.append(True)
        from . import cpu  # noqa: F401


def kernels_for(op, device="CPU"):
    load_builtin_kernels()
    return [k for k in KERNELS.get(op, ()) if k.device == device]


def select_kernel(op, device, dtype, provider=None, input_abstracts=None):
    """The kernel that runs `op` for inputs of `dtype` (see the module docstring)."""
    candidates = kernels_for(op, device)
    if not candidates:
        raise NotImplementedError(f"No {device} kernel is registered for '{op}'")
    if provider is not None:
        for k in candidates:
            if k.provider == provider and k.supports(dtype, input_abstracts):
                return k
    for k in candidates:
        if k.supports(dtype, input_abstracts):
            return k
    have = sorted({str(d) for k in candidates for d in (k.dtypes or ())})
    raise TypeError(f"For '{op}', no {device} kernel supports dtype {dtype}; kernels exist for "
                    f"{have}")
