"""How a staged while_loop compiles: the loop specialisations chosen when
its node is emitted (ops/control.py `_emit_while` calls these).

    # a counter loop over x[i], as traced      # as compiled
    i, s = c0, c0                              s, = c0,
    while True:                                for item in a0:
        t = i < 1000                               ...
        if not t: break
        item = a0[i]; ...; i = i + 1

The rules below keep eager numpy's results exactly; tests/graph/test_specialise.py
checks each one bit for bit and from the generated source.  Loops whose values
are all 0-d int64/float64 go further: graph/scalar_loops.py.
"""

import numpy as np

from autograph.graph import core, scalar_loops
from autograph.graph.tensor import Tensor

# Specialisations:
#
# * Python counter.  An int64 loop var that starts at a constant (|init| <
#   2**40), grows by a Python int step (|step| <= 16) each iteration, and is
#   read only by comparisons with Python ints or int64 values (results used
#   only as loop or branch tests) and as an index (`x[i]`), runs as a Python
#   int.  Each of those uses gives what the int64 gives (a comparison's truth,
#   the indexed item), and the counter cannot leave int64's range in fewer than
#   2**59 iterations, so no wrap-around is lost.  It leaves the loop as np.int64.
# * Element loop.  A counter from 0 by 1 whose test is `i < len(x)` (a known
#   length) and whose body takes `x[i]` iterates `for item in x:` instead:
#   ndarray iteration yields exactly `x[i]` for each i.

_COMPARISONS = {np.less, np.less_equal, np.greater, np.greater_equal, np.equal,
                np.not_equal}
_COUNTER_INIT_LIMIT = 1 << 40
_COUNTER_STEP_LIMIT = 16


def _uses(graph):
    """id(tensor) -> [(node, argument position)] over the nodes of `graph`."""
    uses = {}
    for node in graph.nodes:
        for position, a in enumerate(node.args):
            if isinstance(a, Tensor):
                uses.setdefault(id(a), []).append((node, position))
    return uses


def _is_int64_or_python_int(value):
    if isinstance(value, Tensor):
        return value.dtype == np.int64 and value.static_shape == ()
    return type(value) is int and -_COUNTER_INIT_LIMIT < value < _COUNTER_INIT_LIMIT


def _only_tests(tensor, uses):
    """`tensor` is read by nothing but branch conditions."""
    return all(user.op.name == "cond" and position == 0 for user, position in
               uses.get(id(tensor), ()))


def _counter_reads_ok(placeholder, graph, uses, step_node=None):
    """Every read of the counter's placeholder in `graph` gives the same
    result for a Python int as for an int64 (see the note above)."""
    for user, position in uses.get(id(placeholder), ()):
        if user is step_node:
            continue
        if user.op.kernel in _COMPARISONS and not user.attrs:
            result = user.outputs[0]
            # a comparison result may only be tested: the loop test (the test
            # graph's output) or a branch condition, never a value
            is_loop_test = step_node is None and graph.outputs[0] is result
            if not _is_int64_or_python_int(user.args[1 - position]) or \
                    not _only_tests(result, uses) or (
                    any(result is t for t in graph.outputs) and not is_loop_test):
                return False
        elif user.op.name != "getitem" or position == 0:
            return False
    # passed on as it is (another loop var, a branch result), it would leak
    return not any(out is placeholder for out in graph.outputs)


def counter_step(b_graph, i):
    """(step node, step) when body output #i is `input #i + Python int`."""
    out = b_graph.outputs[i]
    node = out.node
    if node.op.kernel is not np.add or node.attrs or len(node.args) != 2:
        return None
    a, b = node.args
    if b is b_graph.inputs[i] and type(a) is int:
        a, b = b, a
    if a is not b_graph.inputs[i] or type(b) is not int or \
            not 0 < abs(b) <= _COUNTER_STEP_LIMIT:
        return None
    return node, b


def python_counters(node):
    """{loop var index: (initial Python int, step)} for the counters above."""
    c_graph, b_graph = node.subgraphs
    c_uses, b_uses = _uses(c_graph), _uses(b_graph)
    counters = {}
    for i, out in enumerate(node.outputs):
        init = node.args[i]
        if out.dtype != np.int64 or out.static_shape != () or not isinstance(init, Tensor) \
                or init.node.op is not core.CONST:
            continue
        value = init.node.attrs["value"]
        if np.shape(value) != () or np.asarray(value).dtype != np.int64:
            continue
        value = int(value)
        step = counter_step(b_graph, i)
        if step is None or not -_COUNTER_INIT_LIMIT < value < _COUNTER_INIT_LIMIT:
            continue
        next_count = step[0].outputs[0]
        if b_uses.get(id(next_count)) or sum(t is next_count for t in b_graph.outputs) != 1:
            continue  # `i + 1` read as a value in the body: it must stay int64
        if _counter_reads_ok(c_graph.inputs[i], c_graph, c_uses) and \
                _counter_reads_ok(b_graph.inputs[i], b_graph, b_uses, step[0]):
            counters[i] = (value, step[1])
    return counters


def element_loop(node, counters):
    """(counter index, item getter node, captured array) when the loop is
    `for item in x` over a known length, else None."""
    c_graph, b_graph = node.subgraphs
    if node.args[len(node.outputs)] is not None:  # maximum_iterations
        return None
    for i, (start, step) in counters.items():
        if start != 0 or step != 1:
            continue
        tests = [n for n in c_graph.nodes if n.op is not core.PLACEHOLDER]
        if len(tests) != 1 or tests[0].op.kernel is not np.less or \
                tests[0].args[0] is not c_graph.inputs[i] or \
                type(tests[0].args[1]) is not int or c_graph.outputs[0] is not \
                tests[0].outputs[0]:
            continue
        length = tests[0].args[1]
        for getter in b_graph.nodes:
            if getter.op.name != "getitem" or len(getter.args) != 2 or \
                    getter.args[1] is not b_graph.inputs[i] or \
                    getter.attrs["template"] != (("t", 0),):
                continue
            array = getter.args[0]
            if not any(array is inner for _, inner in b_graph.captured) or \
                    not array.static_shape or array.static_shape[0] != length:
                continue
            return i, getter, array
    return None


_VIEWS = (".T", "np.transpose")  # cannot fail, warn or write: safe to run once


def hoist_views(body, ctx):
    """Lines computing, once before the loop, the body's transposes of values
    that do not change in the loop (`x.T` of a captured x)."""
    invariant = {id(inner) for _, inner in body.captured}
    lines = []
    for node in body.nodes:
        if node.op.name in _VIEWS and all(
                id(a) in invariant for a in node.args if isinstance(a, Tensor)):
            name = ctx.fresh()
            args = [ctx.arg(a) for a in node.args]
            lines += node.op.emit(node, [name], args, ctx)
            ctx.names[id(node.outputs[0])] = name
            ctx.emitted.add(id(node))
    return lines


def initial_value(node, i, arg, counters, kinds, ctx):
    """Source of loop var #i's value before the loop."""
    init = node.args[i]
    if kinds is not None:
        kind = kinds[id(node.outputs[i])]
        if isinstance(init, Tensor) and init.node.op is core.CONST:
            value = init.node.attrs["value"]
            return ctx.literal(int(value) if kind == "i" else float(value))
        return scalar_loops.unbox(kind, arg)
    if i in counters:
        return repr(counters[i][0])
    return arg


def int_bounds(c_graph, counters):
    """Captured 0-d int64 values the test graph only compares with counters
    (loop invariants: converted to Python ints once, before the loop)."""
    counter_inputs = {id(c_graph.inputs[i]) for i in counters}
    uses = _uses(c_graph)
    bounds = []
    for _, inner in c_graph.captured:
        reads = uses.get(id(inner), ())
        if inner.dtype == np.int64 and inner.static_shape == () and reads and all(
                user.op.kernel in _COMPARISONS and not user.attrs and isinstance(
                    user.args[1 - position], Tensor) and id(user.args[1 - position])
                in counter_inputs for user, position in reads):
            bounds.append(inner)
    return bounds


def inline_test(lines, result):
    """`EXPR:` (with the line's node tag) when the test graph compiled to the
    single line `result = EXPR`, so the loop can read `while EXPR:`."""
    if len(lines) != 1 or not lines[0].startswith(f"{result} = "):
        return None
    expr, tagged, tag = lines[0][len(result) + 3:].partition("  #@")
    return f"{expr}:" + (f"  #@{tag}" if tagged else "")


def counter_only_indexes(node, element_loop):
    """The body reads the counter only to take the item and to count."""
    index, getter, _ = element_loop
    body = node.subgraphs[1]
    step = body.outputs[index].node
    uses = _uses(body)
    if uses.get(id(step.outputs[0])) or sum(t is step.outputs[0] for t in body.outputs) != 1:
        return False  # the next count is read in the body (or twice as a result)
    return all(user is getter or user is step
               for user, _ in uses.get(id(body.inputs[index]), ()))
