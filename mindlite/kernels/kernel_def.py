"""KernelDef: one registered kernel (function or MindSpore Lite class kernel), how it is bound
for one op signature (params once, class instance cached), and `guard`, which reports a user
kernel's exception as a KernelError naming the op and the provider. Registry: registry.py.

Threads: a class kernel instance is shared by every thread that runs its (primitive, dtypes),
and its resize state is what execute reads, so a call holds the instance's lock from the
resize check to the end of execute (another signature's resize never lands in between)."""
import threading


class KernelError(RuntimeError):
    """A registered kernel failed (raised, or returned something other than inference said)."""


class IndexValueError(ValueError, RuntimeError):
    """An index value out of range, found by a kernel (inference cannot see values): a
    ValueError as mindlite's bad-input errors, and a RuntimeError as MindSpore's kernels
    raise for it, so code catching either works."""


class Kernel:
    """Base of class kernels (MindSpore Lite's kernel::Kernel): override what you need."""

    def __init__(self, op, attrs):
        self.op = op              # the op name ("Add", or "Custom:<type>")
        self.attrs = attrs        # the primitive's attributes (a Custom's: name -> bytes)
        self.params = {}          # kernel params of the signature last resized to

    def prepare(self):
        """Called once, before the first resize."""

    def resize(self, inputs, outputs):
        """Called before the first execute of each new signature (shape/dtype abstracts)."""

    def execute(self, *arrays):
        raise NotImplementedError(f"Kernel {type(self).__name__} of '{self.op}' has no execute")


_BUILTIN = type(len)


class KernelDef:
    __slots__ = ("op", "device", "dtypes", "provider", "priority", "alloc", "fn", "name", "when",
                 "builtin", "kind", "instances")

    def __init__(self, op, device, dtypes, provider, priority, alloc, fn, when, builtin=True):
        self.op = op
        self.device = device
        self.dtypes = None if dtypes is None else frozenset(dtypes)
        self.provider = provider
        self.priority = priority
        self.alloc = alloc
        self.fn = fn
        self.name = getattr(fn, "__name__", f"{op}_{provider}")
        self.when = when
        self.builtin = builtin
        self.kind = "class" if isinstance(fn, type) else "function"
        self.instances = {}       # class kernels: (prim key, input dtypes) -> [instance, sig, lock]

    def supports(self, dtype, input_abstracts=None):
        if self.dtypes is not None and dtype not in self.dtypes:
            return False
        if self.when is not None and input_abstracts is not None:
            return bool(self.when(*input_abstracts))
        return True

    def error(self, exc, label=None, name=None):
        """The KernelError reporting that this kernel failed with `exc`."""
        if isinstance(exc, KernelError):
            return exc
        return KernelError(f"For '{label or self.op}', the {self.device} kernel "
                           f"'{name or self.name}' of provider '{self.provider}' failed: "
                           f"{type(exc).__name__}: {exc}")

    def bind(self, params, info=None):
        """The launch function for one signature: params bound once, not per call."""
        if self.kind == "class":
            return self._bind_class(params, info)
        fn = self.fn
        if self.builtin:
            if not params:
                return fn

            if isinstance(fn, _BUILTIN):
                # NOTE: C kernels take their params positionally, in kernel_params() order:
                # a keyword call into C costs ~0.3 µs more at 4x4 sizes.
                values = tuple(params.values())

                def launch(*arrays):
                    return fn(*arrays, *values)
                launch.c_kernel, launch.c_params = fn, values   # a _C.FastRunner calls these
            else:
                def launch(*arrays):
                    return fn(*arrays, **params)
            launch.__name__ = self.name
            return launch
        return guard(fn, self, params, _arity(self, info), _label(info, self.op))

    # ---- class kernels: MindSpore Lite's Prepare / ReSize / Execute --------------------
    def _bind_class(self, params, info):
        label = _label(info, self.op)
        key = None
        ins, outs = [], []
        if info is not None:
            prim = info.prim
            key = (type(prim), prim.name, prim.attrs_key, tuple(info.types))
            ins = [a for kind, a in zip(info.kinds, info.input_abstracts) if kind != "const"]
            out = info.output_abstract
            outs = list(out) if isinstance(out, tuple) else [out]
        cell = self.instances.get(key)
        if cell is None:        # [instance, signature it is resized to, its lock]
            cell = self.instances[key] = [self._create(info, label), None, threading.RLock()]
        inst, lock = cell[0], cell[2]
        sig = (info.key if info is not None else None, object())

        def resize():
            try:
                inst.params = params
                if hasattr(inst, "resize"):
                    inst.resize(ins, outs)
            except Exception as e:
                raise self.error(e, label) from e
            cell[1] = sig
        execute = inst.execute
        if _arity(self, info) == 3:
            def run(a, b, c):
                with lock:
                    if cell[1] is not sig:
                        resize()
                    try:
                        return execute(a, b, c)
                    except Exception as e:
                        raise self.error(e, label) from e
        else:
            def run(*arrays):
                with lock:
                    if cell[1] is not sig:
                        resize()
                    try:
                        return execute(*arrays)
                    except Exception as e:
                        raise self.error(e, label) from e
        run.__name__ = self.name
        return run

    def _create(self, info, label):
        cls = self.fn
        attrs = dict(getattr(info.prim, "kernel_attrs", None) or info.prim.attrs) \
            if info is not None else {}
        try:
            if issubclass(cls, Kernel):
                inst = cls(label, attrs)
            else:
                inst = cls()
                inst.op, inst.attrs, inst.params = label, attrs, {}
            if hasattr(inst, "prepare"):
                inst.prepare()
        except Exception as e:
            raise self.error(e, label) from e
        return inst

    def __repr__(self):
        dts = "all" if self.dtypes is None else sorted(str(d) for d in self.dtypes)
        return (f"KernelDef({self.op}, provider={self.provider}, priority={self.priority}, "
                f"dtypes={dts}, {self.kind} {self.name})")


def _label(info, op):
    prim = getattr(info, "prim", None)
    return getattr(prim, "label", op) if prim is not None else op


def _arity(kdef, info):
    """How many arrays a launch gets (inputs, then outputs for alloc="runtime"), or None."""
    if info is None:
        return None
    n = sum(1 for kind in info.kinds if kind != "const")
    if kdef.alloc == "runtime" and not getattr(info.prim, "dynamic_shape", False):
        out = info.output_abstract
        n += len(out) if isinstance(out, tuple) else 1
    return n


def guard(fn, kdef, params, nargs, label, name=None):
    """fn wrapped so that any exception becomes a KernelError naming op and provider.

    NOTE: specialised by arity: a *args frame costs ~40 ns more on the 4x4 fast path."""
    def err(e):
        return kdef.error(e, label, name)
    if params:
        def launch(*arrays):
            try:
                return fn(*arrays, **params)
            except Exception as e:
                raise err(e) from e
    elif nargs == 2:
        def launch(a, b):
            try:
                return fn(a, b)
            except Exception as e:
                raise err(e) from e
    elif nargs == 3:
        def launch(a, b, c):
            try:
                return fn(a, b, c)
            except Exception as e:
                raise err(e) from e
    else:
        def launch(*arrays):
            try:
                return fn(*arrays)
            except Exception as e:
                raise err(e) from e
    launch.__name__ = name or kdef.name
    if not params:
        # a _C.FastRunner calls fn itself and hands an exception to c_error (no frame here)
        def c_error(e):
            raise err(e) from e
        launch.c_kernel, launch.c_error = fn, c_error
    return launch
