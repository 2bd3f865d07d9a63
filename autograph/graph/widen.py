"""Watched constants broadcast once, at compile time (concrete._Program.compile).

numpy's elementwise ufuncs are ~2-2.5x slower when an operand is broadcast
along rows than when both have the output's shape (`v + b` for v [8,16] and
a bias b [16]: 565 ns against 233 ns; [60,30]: 960 against 376 ns): the loop
runs once per row.  A dense layer's `x @ w + b` pays that on every call, in
eager numpy too.  When `b` is a constant of the graph whose contents the
fast call's guard compares on every call (guards.py: an array read from a
global, a cell or an attribute), the compiled graph may hold `b` already
broadcast to the output's shape:

    v1 = k_add(v1, c2, v1)        # c2: the user's b, shape [16]
    v1 = k_add(v1, c2_wide, v1)   # c2_wide: b broadcast to [8, 16], C order

The widened array is built from the bytes the guard compares with (those
the trace saw), so it equals `b` whenever the graph may run; a changed `b`
fails the guard first (the Function traces again, a ConcreteFunction refuses).
Only ops whose every element is one correctly rounded IEEE operation (or an
exact integer/boolean one) are widened -- add, subtract, multiply, true
divide, maximum, minimum on bool/int/float arrays -- so the bits equal
numpy's broadcast loop's (SIMD or not); transcendental ufuncs (whose
contiguous and strided loops may differ in the last bit) and complex numbers
keep the broadcast.  The graph itself is not changed: the compiler gets a
copy of its node list (listings, save and the interpreter see the graph as
traced)."""

import copy

import numpy as np

from autograph.graph import core
from autograph.graph.tensor import Tensor

_EXACT = (np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.minimum)
WIDEST = 1 << 18  # bytes of one widened constant (a graph keeps it) ...
BUDGET = 1 << 22  # ... and of all of one graph's


def widened(graph, watched):
    """`graph`, or a shallow copy whose top-level elementwise ops read widened
    copies of constants in `watched` ({id(array): (shape, dtype, bytes) the
    guard compares with}) where those are broadcast against the other operand."""
    if not watched:
        return graph
    nodes, made = [], {}
    for node in graph.nodes:
        args = None
        if sum(t.node.attrs["value"].nbytes for t in made.values()) < BUDGET:
            args = _widened_args(node, watched, made, graph, nodes)
        if args is not None:
            node = copy.copy(node)
            node.args = args
        nodes.append(node)
    if not made:
        return graph
    wide = copy.copy(graph)
    wide.nodes = nodes
    return wide


def _widened_args(node, watched, made, graph, nodes):
    if not any(node.op.kernel is kernel for kernel in _EXACT) or node.attrs or len(node.args) != 2 \
            or len(node.outputs) != 1 or node.subgraphs or node.stateful:
        return None
    out = node.outputs[0]
    shape = out.static_shape
    if not all(type(d) is int for d in shape) or \
            out.dtype.itemsize * int(np.prod(shape)) > WIDEST:
        return None
    args, changed = list(node.args), False
    for i, (arg, other) in enumerate(((args[0], args[1]), (args[1], args[0]))):
        if not (isinstance(arg, Tensor) and arg.node.op is core.CONST
                and isinstance(other, Tensor) and other.node.op is not core.CONST
                and tuple(other.static_shape) == tuple(shape)):
            continue
        value = arg.node.attrs["value"]
        saved = watched.get(id(value))
        if type(value) is not np.ndarray or saved is None or value.ndim == 0 \
                or value.shape == tuple(shape) or value.dtype.kind not in "biuf":
            continue
        key = (id(value), tuple(shape))
        if key not in made:
            saved_shape, dtype, data = saved
            traced = np.frombuffer(data, dtype=dtype).reshape(saved_shape)
            array = np.ascontiguousarray(np.broadcast_to(traced, shape))
            const = core.Node(core.CONST, (), {"value": array}, location=node.location)
            const.outputs = (Tensor(graph, const, 0, tuple(shape), array.dtype,
                                    f"{arg.name}_wide"),)
            nodes.append(const)
            made[key] = const.outputs[0]
        args[i], changed = made[key], True
    return tuple(args) if changed else None
