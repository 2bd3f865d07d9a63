"""A readable listing of a graph, for `print(cf.graph)`:

    graph f(x: float64[3, 4]) -> (tanh)
      add: float64[3, 4] = np.add(x, 1.0)              # model.py:12
      tanh: float64[3, 4] = np.tanh(add)               # model.py:13
      return (tanh)
"""

import os

import numpy as np

from autograph.graph import core
from autograph.graph.tensor import Tensor


def type_string(tensor):
    dims = ", ".join("?" if d is None else str(d) for d in tensor.shape)
    return f"{tensor.dtype.name}[{dims}]"


def _value(value):
    if isinstance(value, Tensor):
        return value.name
    if isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=6, separator=", ").replace("\n", "")
        return text if len(text) < 40 else f"array<{value.dtype.name}{list(value.shape)}>"
    return repr(value)


def _location(node):
    if not node.location:
        return ""
    filename, lineno = node.location
    return f"  # {os.path.basename(filename)}:{lineno}"


def format_graph(graph, depth=0):
    pad = "  " * depth
    inputs = ", ".join(f"{t.name}: {type_string(t)}" for t in graph.inputs)
    captured = getattr(graph, "captured", ())
    if captured:
        inputs += "; captures " + ", ".join(f"{inner.name}={outer.name}"
                                            for outer, inner in captured)
    outputs = ", ".join(_value(t) for t in graph.outputs)
    lines = [f"{pad}graph {graph.name}({inputs}) -> ({outputs})"]
    for node in graph.nodes:
        if node.op is core.PLACEHOLDER:
            continue
        targets = ", ".join(f"{t.name}: {type_string(t)}" for t in node.outputs)
        if node.op is core.CONST:
            call = f"const {_value(node.attrs['value'])}"
        else:
            args = [_value(a) for a in node.args]
            args += [f"{k}={_value(v)}" for k, v in node.attrs.items()
                     if k not in ("explicit_args", "template")]
            call = f"{node.op.name}({', '.join(args)})"
        marker = " [stateful]" if node.stateful else ""
        lines.append(f"{pad}  {targets or '()'} = {call}{marker}{_location(node)}")
        for sub in node.subgraphs:
            lines.append(format_graph(sub, depth + 2))
    lines.append(f"{pad}  return ({outputs})")
    return "\n".join(lines)
