"""MindSpore Lite's converter extension and Custom op tutorial, end to end in mindlite:
a converter pass turns every AddN into a `Custom` node of type "Custom_AddN" (attributes
input_num and op_kind), the converter writes the .ms file, and the Lite runtime runs that
node with a provider kernel registered for the type (Lite's prepare/resize/execute).

    python examples/lite_custom_addn.py [output_dir]

MindSpore Lite:  REG_PASS(PassTutorial, opt::PassTutorial)
                 REG_SCHEDULED_PASS(POSITION_BEGIN, {"PassTutorial"})
                 converter_lite --fmk=MINDIR --modelFile=net.mindir --outputFile=net
                 REGISTER_CUSTOM_KERNEL(CPU, Tutorial, kFloat32, Custom_AddN, ...)
mindlite:        register_pass / register_scheduled_passes / lite.converter.convert /
                 register_kernel(custom=True) / lite.Model

It prints `[ok] ...` lines and exits 0 (tests/test_lite_custom.py runs main()).
"""
import os
import sys
import tempfile

import numpy as np

import mindlite as ms
from mindlite import lite as mslite
from mindlite import ops
from mindlite.ir import MAKE_TUPLE, CNode, ValueNode
from mindlite.ir.infer import infer_call
from mindlite.registry import (Kernel, PassBase, PassPosition, register_kernel, register_pass,
                               register_scheduled_passes, unregister_kernel, unregister_pass)
from mindlite.lite.converter import convert
from mindlite.lite.ms_file import read_ms

PROVIDER = "Tutorial"
PASS_NAME = "PassTutorial"


class CustomAddNKernel(Kernel):
    """out = inputs[0] + inputs[1] + ... with MindSpore Lite's kernel life cycle."""
    runs = 0
    resized = []

    def prepare(self):
        self.input_num = int(self.attrs["input_num"].decode())

    def resize(self, inputs, outputs):
        CustomAddNKernel.resized.append([list(a.shape) for a in inputs])

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
                seq = node.inputs[1]
                if not (isinstance(seq, CNode) and seq.inputs[0].value is MAKE_TUPLE):
                    continue
                items = list(seq.inputs[1:])
                custom = ops.Custom(None, type="Custom_AddN",
                                    attrs={"input_num": str(len(items)), "op_kind": "custom op"})
                new = CNode(g, [ValueNode(custom)] + items,
                            infer_call(custom, [i.abstract for i in items]), node.debug,
                            node.name, side_effect=True)
                manager.insert_before(node, new)
                manager.replace(node, new)
                manager.erase(node)
                changed = True
        return changed


@ms.jit
def three_way_sum(a, b, c):
    s = ops.addn([a, b, c])
    return ops.relu(s) * 2


def check(what, ok):
    print(f"[{'ok' if ok else 'FAIL'}] {what}")
    if not ok:
        raise SystemExit(1)


def main(out_dir=None):
    """Convert with the pass, run with the provider kernel; returns what it checked."""
    out_dir = out_dir or tempfile.mkdtemp(prefix="lite_custom_addn_")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((4, 5)).astype(np.float32) for _ in range(3)]
    tensors = [ms.Tensor(a) for a in arrays]
    path = os.path.join(out_dir, "three_way_sum")
    register_pass(PASS_NAME, PassTutorial())
    register_scheduled_passes(PassPosition.POSITION_BEGIN, [PASS_NAME])
    try:
        convert(three_way_sum, *tensors, file_name=path)
    finally:
        register_scheduled_passes(PassPosition.POSITION_BEGIN, [])
        unregister_pass(PASS_NAME)
    with open(path + ".ms", "rb") as f:
        ms_model = read_ms(f.read(), path + ".ms")
    customs = [n for n in ms_model.nodes if n.op_type == "Custom"]
    check("the .ms file holds one Custom node of type Custom_AddN and no AddN",
          len(customs) == 1 and customs[0].attrs["type"] == "Custom_AddN"
          and "AddN" not in [n.op_type for n in ms_model.nodes])
    check("its attributes are input_num=3 and op_kind",
          dict(customs[0].attrs["attr"]) == {"input_num": b"3", "op_kind": b"custom op"})
    register_kernel("Custom_AddN", custom=True, provider=PROVIDER, dtypes=(ms.float32,),
                    kernel=CustomAddNKernel)
    try:
        model = mslite.Model()
        model.build_from_file(path + ".ms", mslite.ModelType.MINDIR_LITE, mslite.Context())
        kernel = [k for k in model._session.main.kernels if k.type == "Custom"][0]
        check("the Lite scheduler picked the provider's kernel",
              ("Custom", PROVIDER) in kernel.selected)
        inputs = model.get_inputs()
        for t, a in zip(inputs, arrays):
            t.set_data_from_numpy(a)
        before = CustomAddNKernel.runs
        out = model.predict(inputs)[0].get_data_to_numpy()
        want = three_way_sum(*tensors).asnumpy()
        check("the Lite result equals mindlite's AddN", np.array_equal(out, want))
        check("the provider's Custom_AddN kernel ran", CustomAddNKernel.runs > before)
        return {"model": model, "ms_model": ms_model, "out": out, "want": want}
    finally:
        unregister_kernel("Custom_AddN", PROVIDER, custom=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
