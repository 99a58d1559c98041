"""A user graph pass, as MindSpore Lite's converter extension tutorial: every AddN node
becomes a `Custom` node of type "Custom_AddN" (attributes input_num and op_kind), run by a
provider kernel registered for that type.

    python examples/custom_pass_addn.py

MindSpore Lite:  REG_PASS(PassTutorial, opt::PassTutorial)
                 REG_SCHEDULED_PASS(POSITION_BEGIN, {"PassTutorial"})
                 REGISTER_CUSTOM_KERNEL(CPU, Tutorial, kFloat32, Custom_AddN, ...)
mindlite:        register_pass / register_scheduled_passes / register_kernel(custom=True)

The script compiles a @jit function, checks that its graph holds the Custom node and no
AddN, that the result equals AddN's, and that the provider kernel is the one that ran;
it prints `[ok] ...` lines and exits 0.
"""
import numpy as np

import mindlite as ms
from mindlite import ops
from mindlite.ir import MAKE_TUPLE, CNode, ValueNode, dump_ir
from mindlite.ir.infer import infer_call
from mindlite.jit.passes import (PassBase, PassPosition, register_pass,
                                 register_scheduled_passes, unregister_pass)
from mindlite.kernels.registry import Kernel, register_kernel, unregister_kernel

PROVIDER = "Tutorial"
PASS_NAME = "PassTutorial"


class CustomAddNKernel(Kernel):
    """out = inputs[0] + inputs[1] + ... (the provider's kernel for Custom_AddN)."""
    runs = 0

    def prepare(self):
        self.input_num = int(self.attrs["input_num"].decode())

    def execute(self, *arrays):
        *inputs, out = arrays
        if len(inputs) != self.input_num:
            raise ValueError(f"Custom_AddN was built for {self.input_num} inputs, but got "
                             f"{len(inputs)}")
        np.copyto(out, inputs[0])
        for x in inputs[1:]:
            np.add(out, x, out=out)
        CustomAddNKernel.runs += 1


class PassTutorial(PassBase):
    """AddN((x0, x1, ...)) -> Custom_AddN(x0, x1, ...) with attrs input_num, op_kind."""

    def run(self, graph, manager):
        changed = False
        for g in manager.graphs():
            for node in list(g.order):
                callee = node.inputs[0]
                if not (isinstance(callee, ValueNode) and getattr(callee.value, "name", None)
                        == "AddN"):
                    continue
                items = _tensor_inputs(node.inputs[1])
                custom = ops.Custom(None, type="Custom_AddN",
                                    attrs={"input_num": str(len(items)), "op_kind": "custom op"})
                abstract = infer_call(custom, [i.abstract for i in items])
                new = CNode(g, [ValueNode(custom)] + items, abstract, node.debug, node.name,
                            side_effect=True)
                manager.insert_before(node, new)
                manager.replace(node, new)
                manager.erase(node)
                changed = True
        return changed


def _tensor_inputs(seq):
    """The tensors AddN adds: a MakeTuple's inputs, or a constant tuple's items."""
    if isinstance(seq, CNode) and isinstance(seq.inputs[0], ValueNode) and \
            seq.inputs[0].value is MAKE_TUPLE:
        return list(seq.inputs[1:])
    return [ValueNode(t, t._abs) for t in seq.value]


@ms.jit
def three_way_sum(a, b, c):
    s = ops.addn([a, b, c])
    return ops.relu(s) * 2


def check(what, ok):
    print(f"[{'ok' if ok else 'FAIL'}] {what}")
    if not ok:
        raise SystemExit(1)


def main():
    """Register, compile, check; returns what it checked (the tests read it). The pass and
    the kernel are unregistered again at the end."""
    register_kernel("Custom_AddN", custom=True, provider=PROVIDER, dtypes=(ms.float32,),
                    kernel=CustomAddNKernel)
    register_pass(PASS_NAME, PassTutorial())
    register_scheduled_passes(PassPosition.POSITION_BEGIN, [PASS_NAME])
    try:
        rng = np.random.default_rng(0)
        a, b, c = (ms.Tensor(rng.standard_normal((4, 5)).astype(np.float32)) for _ in range(3))
        graph = three_way_sum.graph(a, b, c)
        text = dump_ir(graph)
        prims = [n.inputs[0].value for n in graph.order]
        customs = [p for p in prims if getattr(p, "custom_type", None) == "Custom_AddN"]
        check("the graph calls Custom_AddN and no AddN",
              len(customs) == 1 and "AddN" not in [getattr(p, "name", "") for p in prims]
              and "PrimFunc_Custom(%para1_a, %para2_b, %para3_c)" in text)
        attrs = customs[0].custom_attrs
        check("its attributes are input_num=3 and op_kind",
              attrs == {"input_num": b"3", "op_kind": b"custom op"})
        before = CustomAddNKernel.runs
        out = three_way_sum(a, b, c)
        want = ops.relu(ops.addn([a, b, c])) * 2
        check("the result equals AddN's", np.array_equal(out.asnumpy(), want.asnumpy()))
        check("the provider's Custom_AddN kernel ran", CustomAddNKernel.runs == before + 1)
        return {"graph": graph, "text": text, "out": out, "want": want}
    finally:
        register_scheduled_passes(PassPosition.POSITION_BEGIN, [])
        unregister_pass(PASS_NAME)
        unregister_kernel("Custom_AddN", PROVIDER, custom=True)


if __name__ == "__main__":
    print(dump_ir(main()["graph"]))
