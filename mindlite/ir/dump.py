"""The `.ir` text of a FuncGraph in MindSpore's layout (what save_graphs writes).

    # IR entry: @f_1
    # Total subgraphs: 1

    # Total params: 2
    # Params:
    %para1_x: <Tensor[Float32], (1)> : [1]
    ...
    Node counting information:
    ...
    subgraph attr:
    subgraph instance: f_1 : 0x...
    # In file t.py:2~5/@jit/
    subgraph @f_1() {
      %0(a) = PrimFunc_Sub(%para1_x, I64(1))
          : (<Tensor[Float32], (1)>, <Int64, NoShape>) -> (<Tensor[Float32], (1)>)
          # In file t.py:4, 8~13/    a = x - 1/
      ...
      Return(%1)
          : (<Tensor[Float32], (1)>)
    }
    # Order:
    #   1: @f_1:a{[0]: ValueNode<Primitive> PrimFunc_Sub, [1]: param_x, [2]: ValueNode<Int64Imm> 1}
    #   3: @f_1:Return{[0]: ValueNode<Primitive> Return, [1]: b}

The entry graph's parameters are listed under `# Params:`; nested graphs list theirs in
the `subgraph @name(...)` header. Source comments show the call chain, user code first.
"""
from ..common.abstract import AbstractScalar, AbstractTensor
from ..common.dtype import Type
from ..common.tensor import Tensor
from .anf import CNode, FuncAbstract, FuncGraph, IRPrim, ParameterNode, ValueNode
from .manager import reachable_graphs


def type_str(abstract):
    """<Tensor[Float32], (2, 3)>, <Int64, NoShape>, <Tuple[..], TupleShape(..)>, <Func, NoShape>."""
    return f"<{_type_name(abstract)}, {_shape_name(abstract)}>"


def _type_name(a):
    if isinstance(a, AbstractTensor):
        return f"Tensor[{a.dtype}]"
    if isinstance(a, FuncAbstract):
        return "Func"
    if isinstance(a, tuple):
        return "Tuple[" + ", ".join(_type_name(x) for x in a) + "]"
    return _scalar_type(a.value if isinstance(a, AbstractScalar) else a)


def _shape_name(a):
    if isinstance(a, AbstractTensor):
        return _shape(a.shape)
    if isinstance(a, tuple):
        return "TupleShape(" + ", ".join(_shape_name(x) for x in a) + ")"
    return "NoShape"


def _shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _scalar_type(value):
    t = type(value)
    if t is bool:
        return "Bool"
    if t is int:
        return "Int64"
    if t is float:
        return "Float32"
    if t is str:
        return "String"
    if value is None:
        return "None"
    if isinstance(value, Type):
        return "TypeType"
    if isinstance(value, slice):
        return "Slice"
    if value is Ellipsis:
        return "Ellipsis"
    return "External"


def value_str(value):
    """I64(1), F32(0.5), Bool(1), "s", None, Float32, Tensor(shape=[2], dtype=Float32, ...)."""
    t = type(value)
    if t is bool:
        return f"Bool({int(value)})"
    if t is int:
        return f"I64({value})"
    if t is float:
        return f"F32({value})"
    if t is str:
        return f'"{value}"'
    if value is None:
        return "None"
    if isinstance(value, Tensor):
        return f"Tensor(shape={list(value.shape)}, dtype={value.dtype}, value=...)"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(value_str(v) for v in value) + ")"
    if isinstance(value, FuncGraph):
        return f"@{value.name}"
    if isinstance(value, IRPrim):
        return value.name
    if hasattr(value, "attrs_key") and hasattr(value, "name"):
        return f"PrimFunc_{value.name}"
    return str(value)


class _Namer:
    def __init__(self):
        self.params = {}

    def param(self, p):
        if p.id not in self.params:
            self.params[p.id] = f"%para{len(self.params) + 1}_{p.name}"
        return self.params[p.id]


def _cnode_label(node):
    """The variable a node was bound to in the source, else CNode_<id> (MindSpore 2.10)."""
    return node.name if node.name else f"CNode_{node.id}"


def _ref(node, local, namer):
    if isinstance(node, ValueNode):
        return value_str(node.value)
    if isinstance(node, ParameterNode):
        return namer.param(node)
    if node.id in local:
        return f"%{local[node.id]}"
    return f"%{_cnode_label(node)}"      # a free variable: the parent graph's node


def _loc_lines(debug, indent):
    return [f"{indent}# In file {loc.file}:{loc.span}/{loc.text}/" for loc in debug]


def dump_ir(root):
    """The whole `.ir` text for `root` and every graph reachable from it."""
    graphs = reachable_graphs(root)
    namer = _Namer()
    for g in graphs:
        for p in g.parameters:
            namer.param(p)
    lines = [f"# IR entry: @{root.name}", f"# Total subgraphs: {len(graphs)}", "",
             f"# Total params: {len(root.parameters)}", "# Params:"]
    lines += [f"{namer.param(p)}: {type_str(p.abstract)} : {_dims(p.abstract)}"
              for p in root.parameters]
    cnodes = sum(len(g.order) + 1 for g in graphs)          # + one Return per graph
    values = sum(isinstance(i, ValueNode) for g in graphs for n in g.order for i in n.inputs)
    params = sum(len(g.parameters) for g in graphs)
    lines += ["", "Node counting information:",
              f"Total number of nodes: {cnodes + values + params}",
              f"Total number of cnodes: {cnodes}", ""]
    for g in graphs:
        lines += _dump_graph(g, g is root, namer) + ["", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _dump_graph(g, is_root, namer):
    lines = ["subgraph attr:", f"subgraph instance: {g.name} : {hex(id(g))}"]
    if not is_root:
        types = ", ".join(type_str(p.abstract) for p in g.parameters)
        lines.append(f"# Parameters: {len(g.parameters)}, ({types})")
    if g.location is not None:
        lines += _loc_lines((g.location,), "")
    params = "" if is_root else ", ".join(namer.param(p) for p in g.parameters)
    lines.append(f"subgraph @{g.name}({params}) {{")
    local = {}
    for i, node in enumerate(g.order):
        local[node.id] = i
        callee = node.inputs[0]
        head = _ref(callee, local, namer) if not isinstance(callee, ValueNode) \
            else value_str(callee.value)
        args = ", ".join(_ref(a, local, namer) for a in node.inputs[1:])
        lines.append(f"  %{i}({_cnode_label(node)}) = {head}({args})")
        ins = ", ".join(type_str(a.abstract) for a in node.inputs[1:])
        lines.append(f"      : ({ins}) -> ({type_str(node.abstract)})")
        lines += _loc_lines(node.debug, "      ")
    lines.append(f"  Return({_ref(g.output, local, namer)})")
    lines.append(f"      : ({type_str(g.output.abstract)})")
    ret = g.return_loc or (g.output.debug[:1] if isinstance(g.output, CNode) else ())
    lines += _loc_lines(ret if isinstance(ret, tuple) else (ret,), "      ")
    lines.append("}")
    lines.append("# Order:")
    for i, node in enumerate(g.order):
        ins = ", ".join(f"[{k}]: {_order_ref(a)}" for k, a in enumerate(node.inputs))
        lines.append(f"#   {i + 1}: @{g.name}:{_cnode_label(node)}{{{ins}}}")
    ret = f"[0]: ValueNode<Primitive> Return, [1]: {_order_ref(g.output)}"
    lines.append(f"#   {len(g.order) + 1}: @{g.name}:Return{{{ret}}}")
    return lines


def _dims(abstract):
    shape = getattr(abstract, "shape", ())
    return "[" + ", ".join(str(d) for d in shape) + "]"


_IMM = {int: "Int64Imm", float: "FP32Imm", bool: "BoolImm", str: "StringImm",
        type(None): "None", tuple: "ValueTuple", Tensor: "Tensor"}


def _order_ref(node):
    """How MindSpore's `# Order:` list names an input: param_x, a CNode's label, or
    ValueNode<kind> value."""
    if isinstance(node, ParameterNode):
        return f"param_{node.name}"
    if isinstance(node, CNode):
        return _cnode_label(node)
    v = node.value
    if isinstance(v, FuncGraph):
        return f"ValueNode<FuncGraph> {v.name}"
    if hasattr(v, "attrs_key"):
        return f"ValueNode<Primitive> {value_str(v)}"
    if isinstance(v, IRPrim):
        return f"ValueNode<Primitive> {v.name}"
    kind = _IMM.get(type(v), type(v).__name__)
    plain = str(int(v)) if type(v) is bool else str(v) if type(v) in (int, float) else \
        value_str(v)
    return f"ValueNode<{kind}> {plain}"
