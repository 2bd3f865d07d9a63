"""A readable listing of a graph, for `print(cf.graph)`:

    graph collatz(n: int64[]) -> (count)
      n_1: int64[], count: int64[] = while_loop(n, count=0)  # classic.py:18
        graph while_cond(n: int64[], count: int64[]) -> (not_equal)
          not_equal: bool[] = np.not_equal(n, 1)  # classic.py:18
          return (not_equal)
        graph while_body(n: int64[], count: int64[]) -> (n, count_1)
          count_1: int64[] = np.add(count, 1)  # classic.py:23
          return (n, count_1)
      return (count)

Tensors are named after the user's variables where the backend knows them
(loop state, branch outputs), made unique per graph with `_1`, `_2`, ...
Scalar constants are written inline as their value (`count=0`); a sub-graph
lists the outer tensors it captures (`captures n`, or `n_1=n` when renamed).
"""

import os

import numpy as np

from autograph.graph import core
from autograph.graph.tensor import Tensor

# dtypes whose scalars read unambiguously as a plain Python literal
_PLAIN_DTYPES = {np.dtype(t) for t in (np.int64, np.float64, np.bool_, np.complex128)}


def type_string(tensor):
    dims = ", ".join("?" if d is None else str(d) for d in tensor.static_shape)
    return f"{tensor.dtype.name}[{dims}]"


def _name(tensor):
    # a TensorList wrapper and the node's own output are one value, one name
    return tensor.node.outputs[tensor.index].name


def _inline_const(tensor):
    """The literal a scalar constant is written as, or None."""
    node = tensor.node
    if node.op is not core.CONST or np.ndim(node.attrs["value"]) != 0:
        return None
    scalar = np.asarray(node.attrs["value"])[()]
    if scalar.dtype in _PLAIN_DTYPES:
        return repr(scalar.item())
    return repr(scalar)


def _value(value):
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, Tensor):
        inline = _inline_const(value)
        return _name(value) if inline is None else inline
    if isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=6, separator=", ").replace("\n", "")
        return text if len(text) < 40 else f"array<{value.dtype.name}{list(value.shape)}>"
    return repr(value)


def _location(node):
    if not node.location:
        return ""
    filename, lineno = node.location
    return f"  # {os.path.basename(filename)}:{lineno}"


def _header(graph):
    params = ", ".join(f"{_name(t)}: {type_string(t)}" for t in graph.inputs)
    captured = []
    for outer, inner in getattr(graph, "captured", ()):
        outer_text = _value(outer)
        captured.append(_name(inner) if _name(inner) == outer_text
                        else f"{_name(inner)}={outer_text}")
    if captured:
        params += ("; " if params else "") + "captures " + ", ".join(captured)
    return params


def _call(node):
    op = node.op
    if op is core.CONST:
        return f"const {_value(node.attrs['value'])}"
    if op.name == "cond":  # branch captures are listed on the sub-graphs
        return f"cond({', '.join(_value(a) for a in node.args[:node.attrs['explicit_args']])})"
    if op.name == "while_loop":
        n_vars = len(node.outputs)
        params = node.subgraphs[1].inputs
        args = []
        for param, init in zip(params, node.args[:n_vars]):
            text = _value(init)
            # `n` when the initial value has the variable's name, else `count=0`
            # (and keywords from then on, as in a Python call)
            keyword = text != _name(param) or "=" in (args[-1] if args else "")
            args.append(f"{_name(param)}={text}" if keyword else text)
        if node.args[n_vars] is not None:
            args.append(f"maximum_iterations={_value(node.args[n_vars])}")
        return f"while_loop({', '.join(args)})"
    args = [_value(a) for a in node.args]
    if op.name == "getitem":  # `items[index]`, as the compiled code indexes
        return op.emit(node, ["_"], args, None)[0].split(" = ", 1)[1]
    args += [f"{k}={_value(v)}" for k, v in node.attrs.items()
             if k not in ("explicit_args", "template")]
    return f"{op.name}({', '.join(args)})"


def format_graph(graph, depth=0):
    pad = "  " * depth
    outputs = ", ".join(_value(t) for t in graph.outputs)
    lines = [f"{pad}graph {graph.name}({_header(graph)}) -> ({outputs})"]
    for node in graph.nodes:
        if node.op is core.PLACEHOLDER:
            continue
        if node.op is core.CONST and _inline_const(node.outputs[0]) is not None:
            continue
        targets = ", ".join(f"{_name(t)}: {type_string(t)}" for t in node.outputs)
        marker = " [stateful]" if node.stateful else ""
        assign = f"{targets} = " if targets else ""
        lines.append(f"{pad}  {assign}{_call(node)}{marker}{_location(node)}")
        for sub in node.subgraphs:
            lines.append(format_graph(sub, depth + 2))
    lines.append(f"{pad}  return ({outputs})")
    return "\n".join(lines)
