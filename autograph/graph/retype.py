"""Re-typing a traced sub-graph without running its Python code again.

A loop body is traced once (Python side effects -- `print('tracing')`,
`log.append(...)` -- must run once per trace, docs/ARCHITECTURE.md §6).  When that trace
shows that a loop variable needs another dtype than the one it was traced
with (`s = 0; s += v * 0.5`: the Python int 0 is carried as float64), the
recorded sub-graphs are fixed up instead: the placeholder gets the new dtype
and every node downstream gets the shapes and dtypes its op's rule gives for
the new arguments.  Nested cond / while_loop nodes are re-typed recursively
(their captured placeholders and loop variables follow their outer values).

    retype(graph, [(placeholder, (shape, dtype))])  # in place

A change that the recorded graph cannot follow (a cond whose branches now
disagree, a nested loop variable whose dtype would change) raises
`RetypeError`; the caller turns it into the catalog error for the user.
"""

import numpy as np

from autograph.graph import core, python_numbers
from autograph.graph.tensor import Tensor


class RetypeError(Exception):
    """The recorded graph cannot take the new dtypes (`detail` says why)."""


def _key(tensor):
    return id(tensor.node), tensor.index


def _canonical(tensor):
    return tensor.node.outputs[tensor.index]


def _set(tensor, aval):
    shape, dtype = aval
    tensor.static_shape, tensor.dtype = tuple(shape), dtype


def retype(graph, changes, literals=None):
    """Gives the placeholders in `changes` ([(tensor, (shape, dtype))]) their
    new avals and re-infers every node of `graph` that depends on them.
    (Pairs, not dicts: a graph tensor is no dict key, its hash is refused.)

    `literals` ([(placeholder, Python number)]) makes the rules of the ops that
    use such a placeholder directly see the number itself, as numpy sees a
    Python number (weakly typed: `0 + float32` is float32): the types of the
    first iteration of a loop whose variable starts as a Python number."""
    changed = set()
    literal_values = {}
    for tensor, aval in changes:
        canonical = _canonical(tensor)
        _set(canonical, aval)
        if tensor is not canonical:
            _set(tensor, aval)
        changed.add(_key(canonical))
    for tensor, value in literals or ():
        literal_values[_key(tensor)] = value
        changed.add(_key(tensor))
    _reinfer(graph, changed, literal_values)


def _sync_args(node, changed):
    """Arguments that are other Tensor objects for a changed output follow it."""
    touched = False
    for arg in node.args:
        if isinstance(arg, Tensor) and _key(arg) in changed:
            touched = True
            canonical = _canonical(arg)
            if arg is not canonical:
                arg.static_shape, arg.dtype = canonical.static_shape, canonical.dtype
    return touched


def _reinfer(graph, changed, literals=None):
    literals = literals or {}
    for node in graph.nodes:
        if node.op is core.PLACEHOLDER:
            _follow_capture(graph, node, changed, literals)
            continue
        if node.op is core.CONST or not _sync_args(node, changed):
            continue
        if node.subgraphs:
            avals = _reinfer_control(node, changed, literals)
        else:
            _follow_numbers(node)
            args = [literals.get(_key(a), a) if isinstance(a, Tensor) else a
                    for a in node.args]
            try:
                avals = node.op.infer(*args, **node.attrs)
            except Exception as e:  # the op's rule rejects the new arguments
                raise RetypeError(f"{node.op.name}: {e}") from None
        for out, aval in zip(node.outputs, avals):
            if (out.static_shape, out.dtype) != (tuple(aval[0]), aval[1]):
                _set(out, aval)
                changed.add(_key(out))


_INT64, _FLOAT64 = np.dtype(np.int64), np.dtype(np.float64)


def _follow_numbers(node):
    """A Python number (ops/random.py PythonNumber) that is a numpy value now:
    a cast of it as numpy converts Python numbers casts nothing, and Python
    arithmetic on it gives a numpy value."""
    tensors = [a for a in node.args if isinstance(a, Tensor)]
    if node.op.name == python_numbers.FLOAT_PREFIX + "round":
        if not tensors[0].python_number:  # round(x, n) of a numpy value is np.round(x, n)
            ndigits = node.attrs["ndigits"]
            node.op, node.attrs = core.REGISTRY["np.round"], \
                {"decimals": ndigits} if ndigits else {}
            for out in node.outputs:
                _set_kind(out, Tensor)
        return
    if node.op.name == "weak_cast" and not tensors[0].python_number:
        node.attrs = {**node.attrs, "dtype": tensors[0].dtype}
    if not node.op.stateful and any(out.python_number for out in node.outputs) and \
            any(not a.python_number for a in tensors):
        for out in node.outputs:
            _set_kind(out, Tensor)
    ufunc = python_numbers.ufunc_of(node.op)
    if ufunc is not None:
        _follow_python_arithmetic(node, ufunc, tensors)


def _follow_python_arithmetic(node, ufunc, tensors):
    """Python's arithmetic of Python numbers (ops/python_ints.py) on values
    re-typed: numpy's own operator once a value is numpy's (`s = 0; s += x_u8`:
    it wraps as eager numpy does), the Python float's once an int became a
    float (`s = 1; s = s / 2`)."""
    dtypes = {a.dtype for a in tensors}
    if all(out.python_number for out in node.outputs):
        if node.op.name.startswith(python_numbers.PREFIX) and dtypes <= {_INT64}:
            return
        if dtypes <= {_INT64, _FLOAT64} and ufunc in python_numbers.FLOAT_BINARY:
            node.op = core.REGISTRY[python_numbers.FLOAT_PREFIX + ufunc.__name__]
            return
    # (ops/python_ints.py registered numpy's op for each of its ufuncs)
    node.op, node.attrs = core.REGISTRY[f"np.{ufunc.__name__}"], {}


def _set_kind(tensor, kind):
    """`tensor` (and its canonical object) a Tensor or a PythonNumber."""
    for t in (tensor, _canonical(tensor)):
        if type(t) is Tensor or t.python_number:
            t.__class__ = kind


def _follow_capture(graph, node, changed, literals):
    """A captured placeholder of a sub-graph takes its outer tensor's aval."""
    for outer, inner in graph.captured:
        if inner.node is node and _key(outer) in changed:
            canonical = _canonical(outer)
            if type(canonical) is Tensor or canonical.python_number:
                _set_kind(node.outputs[0], type(canonical))
            _set(node.outputs[0], (canonical.static_shape, canonical.dtype))
            changed.add(_key(node.outputs[0]))
            if _key(outer) in literals:
                literals[_key(node.outputs[0])] = literals[_key(outer)]


def _reinfer_control(node, changed, literals):
    for sub in node.subgraphs:
        _reinfer(sub, changed, literals)
    if node.op is core.REGISTRY["cond"]:  # (ops/control.py builds on this module)
        t_graph, f_graph = node.subgraphs
        avals = []
        for i, (t, f) in enumerate(zip(t_graph.outputs, f_graph.outputs)):
            if t.dtype != f.dtype:
                raise RetypeError(f"cond output #{i} would be {t.dtype} in the true branch "
                                  f"and {f.dtype} in the false branch")
            if len(t.static_shape) != len(f.static_shape):
                raise RetypeError(f"cond output #{i} would have rank {len(t.static_shape)} in the "
                                  f"true branch and {len(f.static_shape)} in the false branch")
            avals.append((tuple(a if a == b else None
                                for a, b in zip(t.static_shape, f.static_shape)),
                          t.dtype))
            if node.outputs[i].python_number and not (t.python_number and f.python_number):
                _set_kind(node.outputs[i], Tensor)
        return avals
    # while_loop: loop variables take their initial values' dtypes
    n_vars = len(node.outputs)
    for sub in node.subgraphs:
        updates = [(ph, (ph.static_shape, init.dtype))
                   for ph, init in zip(sub.inputs, node.args[:n_vars])]
        numbers = set()  # placeholders no longer Python numbers (their inits are not)
        for ph, init in zip(sub.inputs, node.args[:n_vars]):
            if ph.python_number and not init.python_number:
                _set_kind(ph, Tensor)
                numbers.add(_key(ph))
        _reinfer_placeholders(sub, updates, changed, numbers)
    body = node.subgraphs[1]
    for i, (ph, out) in enumerate(zip(body.inputs, body.outputs)):
        if out.dtype != ph.dtype:
            raise RetypeError(f"while_loop variable #{i} would be {ph.dtype} before an "
                              f"iteration and {out.dtype} after")
        if node.outputs[i].python_number and not ph.python_number:
            _set_kind(node.outputs[i], Tensor)
    return [(ph.static_shape, ph.dtype) for ph in body.inputs]


def _reinfer_placeholders(sub, updates, changed, fresh=()):
    fresh = set(fresh)
    for ph, aval in updates:
        if ph.dtype != aval[1]:
            _set(_canonical(ph), aval)
            fresh.add(_key(ph))
    if fresh:
        changed |= fresh
        _reinfer(sub, changed)
