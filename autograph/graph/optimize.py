"""Graph optimisations: constant folding, common-subexpression elimination
(one forward pass) and dead-code elimination (one backward pass).

Both passes are linear in the number of nodes.  Stateful nodes (print,
assert, variable reads and writes, control flow containing them) are never
folded, merged or removed, and nothing is ever reordered, so program order
of side effects is kept by construction.  Sub-graphs are optimised on their
own; a captured constant is known to be constant inside the sub-graph.
"""

import struct

import numpy as np

from autograph.graph import core
from autograph.graph.tensor import Tensor

FOLD_LIMIT = 1 << 16  # elements; bigger results are recomputed, not stored
_SMALL_CONST = 64


class Report:
    """How much each pass did, for tests, listings and benchmarks."""

    def __init__(self):
        self.folded = self.merged = self.removed = 0

    def __repr__(self):
        return f"Report(folded={self.folded}, merged={self.merged}, removed={self.removed})"


_ATOMS = frozenset((int, float, bool, str, complex, type(None)))
_EXACT_ATOMS = _ATOMS - {float, complex}  # (equal values are the same value)
_pack_double = struct.Struct("<d").pack


def freeze(value):
    """A hashable key for a literal argument or attribute (1, 1.0, True differ;
    floats by their bits: 0.0 and -0.0 differ, `x + 0.0` is not `x + -0.0`)."""
    kind = type(value)
    if kind is float:
        return (kind, _pack_double(value))
    if kind is complex:
        return (kind, struct.pack("<dd", value.real, value.imag))
    if kind in _ATOMS:
        return (kind, value)
    if kind in (tuple, list):
        return (kind, tuple(freeze(v) for v in value))
    if kind is slice:
        return (slice, freeze(value.start), freeze(value.stop), freeze(value.step))
    if kind is dict:
        return (dict, tuple(sorted((k, freeze(v)) for k, v in value.items())))
    if isinstance(value, np.dtype):
        return (np.dtype, value.str)
    if isinstance(value, Tensor):
        return (Tensor, id(value))
    return (object, id(value))


def _const_key(value, tensor):
    """Equal small constants share a key: same dtype, shape and bytes, whether
    held as a numpy scalar or an array (`np.int64(0)` and `np.asarray(0)`).
    Bytes, not `==`: NaN equals a NaN of the same bits, and 0.0 and -0.0 stay
    apart.  Object arrays hold references and are never merged, nor is a
    Python number with a numpy value (`tensor`: returned as another type)."""
    if not isinstance(value, (np.ndarray, np.generic)) or value.size > _SMALL_CONST \
            or value.dtype.hasobject:
        return None
    # (the shape before ascontiguousarray, which makes a 0-d value 1-d: `x + np.float64(1)`
    # and `x + np.ones(1)` keep apart)
    return (core.CONST, value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes(),
            tensor.python_number)


def optimize(graph, report=None, known=None):
    """Optimises `graph` in place; `known` maps id(tensor) -> constant value."""
    report = report or Report()
    known = {} if known is None else known
    replace, seen, kept = {}, {}, []
    placeholder, const = core.PLACEHOLDER, core.CONST
    for node in graph.nodes:
        op = node.op
        if op is placeholder:
            kept.append(node)
            continue
        if op is const:
            value = node.attrs["value"]
            key = _const_key(value, node.outputs[0])
            if key is not None and key in seen:
                replace[id(node.outputs[0])] = seen[key][0]
                report.merged += 1
                continue
            if key is not None:
                seen[key] = node.outputs
            known[id(node.outputs[0])] = value
            kept.append(node)
            continue
        # (one pass over the arguments: those merged into another replaced,
        # the CSE key's tensor ids, and whether every tensor argument is a
        # known constant, which folding needs)
        parts, every_known, literals, replaced = [], True, False, False
        for a in node.args:
            if isinstance(a, Tensor):
                k = id(a)
                if k in replace:
                    k = id(replace[k])
                    replaced = True
                parts.append(k)
                if every_known and k not in known:
                    every_known = False
            else:
                kind = type(a)  # (freeze's commonest cases inline: most literals are numbers)
                if kind in _EXACT_ATOMS:
                    parts.append((kind, a))
                elif kind is float:
                    parts.append((kind, _pack_double(a)))
                else:
                    parts.append(a)
                    literals = True
        if replaced:  # (a new tuple only for a node reading a replaced tensor)
            node.args = tuple([replace.get(id(a), a) if isinstance(a, Tensor) else a
                               for a in node.args])
        if node.subgraphs:
            _optimize_subgraphs(node, report, known)
            kept.append(node)
            continue
        if node.stateful:
            kept.append(node)
            continue
        if op.foldable and every_known and \
                _fold(graph, node, known, replace, kept, report, seen):
            continue
        if literals:  # (the others frozen after folding was tried: freeze may raise)
            for i, a in enumerate(node.args):
                if parts[i] is a:  # (a literal the pass above left as it is)
                    parts[i] = freeze(a)
        key = (op, tuple(parts), freeze(node.attrs) if node.attrs else None,
               node.outputs[0].python_number if node.outputs else False)
        outputs = node.outputs
        # (the key hashed once; every node here has outputs of its own: ops without
        # any -- print, assert, a variable write -- are stateful)
        match = seen.setdefault(key, outputs)
        if match is not outputs:
            for old, new in zip(outputs, match):
                replace[id(old)] = new
            report.merged += 1
            continue
        kept.append(node)
    graph.outputs = [replace.get(id(t), t) if isinstance(t, Tensor) else t
                     for t in graph.outputs]
    graph.nodes, drops = _eliminate_dead_code(kept, graph.outputs, report)
    # (what the interpreter's `_drops` finds, from the same backward pass:
    # read while graph.nodes is still this list, see interpreter.Interpreter.run)
    graph.last_reads = (graph.nodes, drops)
    return report


def _fold(graph, node, known, replace, kept, report, seen):
    values = [known[id(a)] if isinstance(a, Tensor) else a for a in node.args]
    try:
        with np.errstate(all="ignore"):
            result = node.op.kernel(*values, **node.attrs)
    except Exception:  # left for run time, where it raises as it would eagerly
        return False
    results = result if len(node.outputs) > 1 else (result,)
    for value, tensor in zip(results, node.outputs):
        if not isinstance(value, (np.ndarray, np.generic)) or value.size > FOLD_LIMIT:
            return False
        if value.dtype != tensor.dtype or len(value.shape) != len(tensor.static_shape):
            return False
    for value, tensor in zip(results, node.outputs):
        const = core.Node(core.CONST, (), {"value": value}, location=node.location)
        tensor.node, tensor.index = const, 0
        const.outputs = (tensor,)
        known[id(tensor)] = value
        key = _const_key(value, tensor)
        if key is not None and key in seen:  # folded to a constant the graph has
            replace[id(tensor)] = seen[key][0]
            continue
        if key is not None:
            seen[key] = const.outputs
        kept.append(const)
    report.folded += 1
    return True


def _optimize_subgraphs(node, report, known):
    args = iter(node.args[node.attrs["explicit_args"]:])
    for sub in node.subgraphs:
        inner_known = {}
        # node.args already point at merged tensors; keep `captured` in step
        sub.captured = [(next(args), inner) for _, inner in sub.captured]
        for arg, inner in sub.captured:
            if id(arg) in known:
                inner_known[id(inner)] = known[id(arg)]
        optimize(sub, report, inner_known)
    node.stateful = node.op.stateful or any(_stateful(sub) for sub in node.subgraphs)


def _stateful(graph):
    return any(n.stateful for n in graph.nodes)


def _eliminate_dead_code(nodes, outputs, report):
    """(the nodes kept, per kept node the ids of the tensors it reads for the
    last time): a tensor is live from its last reader in this backward pass
    on (the graph's outputs from the start: never dropped).  A node's drops
    are None, an id, or a tuple of ids (`with_drop`)."""
    live = {id(t) for t in outputs if isinstance(t, Tensor)}
    kept, drops = [], []
    placeholder = core.PLACEHOLDER
    for node in reversed(nodes):
        outs = node.outputs
        if (id(outs[0]) in live if len(outs) == 1 else any(id(o) in live for o in outs)) \
                or node.stateful or node.op is placeholder:
            dying = None
            for a in node.args:
                if isinstance(a, Tensor):
                    k = id(a)
                    if k not in live:
                        live.add(k)
                        dying = k if dying is None else with_drop(dying, k)
            kept.append(node)
            drops.append(dying)
        else:
            report.removed += 1
    kept.reverse()
    drops.reverse()
    return kept, drops


def with_drop(dying, key):
    """`dying` (an id, or a tuple of ids) and `key`: a node's drops are an int
    or a tuple, not lists (objects the garbage collector would scan)."""
    return (dying, key) if type(dying) is int else dying + (key,)
