"""Control flow with sub-graphs: `cond` and `while_loop`.

Branches and loop bodies are traced into sub-graphs of the current graph;
outer tensors they use are captured (they become arguments of the node).
Compiled code runs them inline: `cond` as an if/else, `while_loop` as a real
Python `while` loop whose loop variables are the node's output names.
"""

import numpy as np

from autograph import errors
from autograph.graph import compiler, core, loops, scalar_loops
from autograph.graph.ops import base, random
from autograph.graph.tensor import Tensor

_NUMBERS = (bool, int, float, complex)


def _error(detail, kind=errors.GraphError):
    return kind(detail + f" (at {core.user_location()})")


def _describe(value):
    if isinstance(value, Tensor):
        return f"{value.dtype.name}{list(value.static_shape)}".replace("None", "?")
    return f"Python {type(value).__name__} {value!r}"


def _to_graph(graph, value):
    """A branch/body output as a tensor of `graph`; Python numbers stay."""
    if isinstance(value, Tensor):
        return base.resolve(graph, value)
    if isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "_as_graph_tensor"):
        return base.resolve(graph, value)
    return value


def _const_like(graph, value, dtype, python_number=False):
    if not np.can_cast(np.result_type(dtype, value), dtype, "same_kind") or \
            np.result_type(dtype, value) != dtype:
        return None
    const = graph.constant(np.asarray(value, dtype=dtype))
    return random.as_python_number(const) if python_number else const


def _trace(parent, fn, args, name):
    sub = core.Graph(name, parent)
    with core.scope(sub):
        placeholders = [arg(sub) for arg in args]
        result = fn(*placeholders)
        if not isinstance(result, (tuple, list)):
            raise _error(f"{name}: the function must return a tuple, got {_describe(result)}")
        result = [_to_graph(sub, v) for v in result]
    return sub, placeholders, result


def _merge_shapes(a, b, what):
    if len(a.static_shape) != len(b.static_shape):
        raise _error(f"{what}: ranks differ, {_describe(a)} vs {_describe(b)}")
    return tuple(x if x == y else None for x, y in zip(a.static_shape, b.static_shape))


# --- cond ------------------------------------------------------------------------


def _reconcile(i, t_graph, t, f_graph, f):
    """Outputs #i of both branches as tensors of one dtype, or a shared Python value."""
    t_tensor, f_tensor = isinstance(t, Tensor), isinstance(f, Tensor)
    if not t_tensor and not f_tensor:
        if isinstance(t, _NUMBERS) and isinstance(f, _NUMBERS):
            dtype = np.result_type(t, f) if type(t) is not type(f) else np.asarray(t).dtype
            t_out, f_out = t_graph.constant(np.asarray(t, dtype)), f_graph.constant(
                np.asarray(f, dtype))
            if type(t) is type(f) and type(t) in _NUMBERS:  # a Python number either way
                random.as_python_number(t_out), random.as_python_number(f_out)
            return t_out, f_out
        if t is f or (type(t) is type(f) and t == f):
            return t, f
    elif not t_tensor and isinstance(t, _NUMBERS):
        t = _first_not_none(_const_like(t_graph, t, f.dtype, f.python_number), t)
    elif not f_tensor and isinstance(f, _NUMBERS):
        f = _first_not_none(_const_like(f_graph, f, t.dtype, t.python_number), f)
    if isinstance(t, Tensor) and isinstance(f, Tensor) and t.python_number != f.python_number:
        # a Python number meeting a numpy value: cast as numpy converts it
        if t.python_number:
            with core.scope(t_graph):
                t = _number_met_by(t, f)
        else:
            with core.scope(f_graph):
                f = _number_met_by(f, t)
    if not (isinstance(t, Tensor) and isinstance(f, Tensor)) or t.dtype != f.dtype:
        raise _error(f"cond: output #{i} differs between branches: true branch gives "
                     f"{_describe(t)}, false branch gives {_describe(f)}")
    return t, f


def _number_met_by(number, other):
    """A staged Python number as numpy converts it meeting `other`, in
    `other`'s dtype where numpy gives that one: `_as_met_by` leaves an int
    meeting float64 as it is (the ufunc promotes it), which a branch output
    cannot be (`s = 0; for v in x_f64: if v > 0: s = s + v`)."""
    met = number._as_met_by(other)
    if met.dtype != other.dtype and \
            np.result_type(np.ones((), other.dtype), met.dtype.type(0).item()) == other.dtype:
        met = base.record1(random.WEAK_CAST, (met,), {"dtype": other.dtype})
    return met


def _first_not_none(a, b):
    return b if a is None else a


def _cond_rule(*args, explicit_args):
    raise base.RuleError("cond nodes are built by control.cond")


def _emit_cond(node, outs, args, ctx):
    lines = [f"if {args[0]}:"]
    captured = iter(args[node.attrs["explicit_args"]:])
    for i, sub in enumerate(node.subgraphs):
        for _, inner in sub.captured:
            ctx.names[id(inner)] = next(captured)
        body = ctx.emit_graph(sub)
        if outs:
            body.append(f"{', '.join(outs)} = {', '.join(ctx.arg(t) for t in sub.outputs)}")
        if i == 1:
            lines.append("else:")
        lines.extend(compiler.indent(body or ["pass"]))
    return lines


COND = core.register("cond", None, _cond_rule, emit=_emit_cond, foldable=False,
                     aliasing=True)


def cond(pred, true_fn, false_fn, names=None, finish=None):
    """Stages `true_fn() if pred else false_fn()`; returns a tuple of Tensors.

    `names` (optional, one per output) are the user's variable names: the
    node's outputs and the values each branch computes for them are named
    after them, so a listing reads `n = cond(equal)`.  They are read once both
    branches are traced, so a caller may fill the list while they trace.

    Each branch takes no arguments and returns a tuple; it is traced into a
    sub-graph, so its ops (prints, asserts, variable writes included) run
    only when the branch is taken.  Output #i must have the same dtype in
    both branches (a Python number adopts the other side's dtype when numpy
    would keep it); its shape is per-dim the same or None.

    `finish(t_out, f_out)` (optional) sees both branches' results once both
    are traced and returns them completed (a caller fills in one branch's
    value from the other's type without tracing either again).
    """
    if not isinstance(pred, Tensor):
        return tuple(true_fn() if pred else false_fn())
    graph = base.graph_for((pred,))
    pred = base.resolve(graph, pred)
    if pred.static_size is not None and pred.static_size != 1:
        raise _error(f"cond: the condition has shape {pred.static_shape}; it needs a single value "
                     "(use np.all(...) or np.any(...))",
                     errors.GraphValueError)  # numpy: ValueError (ambiguous truth)
    t_graph, _, t_out = _trace(graph, true_fn, (), "cond_true")
    f_graph, _, f_out = _trace(graph, false_fn, (), "cond_false")
    if finish is not None:
        t_out, f_out = finish(t_out, f_out)
        t_out = [_to_graph(t_graph, v) for v in t_out]
        f_out = [_to_graph(f_graph, v) for v in f_out]
    if len(t_out) != len(f_out):
        raise _error(f"cond: the true branch returns {len(t_out)} values, the false branch "
                     f"{len(f_out)}")
    if names is not None and len(names) != len(t_out):
        names = None
    outputs, passthrough, output_names = [], {}, []
    for i, (t, f) in enumerate(zip(t_out, f_out)):
        t, f = _reconcile(i, t_graph, t, f_graph, f)
        if isinstance(t, Tensor):
            outputs.append((t, f))
            output_names.append(names[i] if names is not None else None)
        else:
            passthrough[i] = t
    t_graph.outputs = [t for t, _ in outputs]
    f_graph.outputs = [f for _, f in outputs]
    avals = [(_merge_shapes(t, f, f"cond output #{i}"), t.dtype) for i, (t, f) in
             enumerate(outputs)]
    args = (pred, *[o for o, _ in t_graph.captured], *[o for o, _ in f_graph.captured])
    if names is not None:
        _name_results(t_graph, t_graph.outputs, output_names)
        _name_results(f_graph, f_graph.outputs, output_names)
    node = graph.add_node(COND, args, {"explicit_args": 1}, avals,
                          subgraphs=(t_graph, f_graph),
                          stateful=t_graph.is_stateful() or f_graph.is_stateful(),
                          names=output_names if names is not None else None)
    # (an output is a Python number when both branches give one; a staged
    # list holds Python numbers when both branches' items are)
    results = iter(_retype(node.outputs, [f if t.python_number and not f.python_number else t
                                          for t, f in outputs], [f for _, f in outputs]))
    return tuple(passthrough[i] if i in passthrough else next(results)
                 for i in range(len(t_out)))


def _name_results(sub, results, names):
    """Names the tensors `sub` computes for its outputs after the variables
    they are assigned to (inputs and captures passed through keep theirs)."""
    done = set()
    for tensor, name in zip(results, names):
        key = (id(tensor.node), tensor.index) if isinstance(tensor, Tensor) else None
        if key is not None and tensor.graph is sub and key not in done \
                and tensor.node.op is not core.PLACEHOLDER:
            done.add(key)
            sub.rename(tensor, name)


def _retype(outputs, likes, others):
    """Outputs keep the kind of tensor they stand for (TensorList stays a list,
    its items' kind merged with the other branch's)."""
    return [like._like(out, result=other) for out, like, other in zip(outputs, likes, others)]


# --- while_loop ------------------------------------------------------------------


def _emit_while(node, outs, args, ctx):
    unread = ctx.unread
    kinds = scalar_loops.analyse(node)  # None: the loop runs on numpy values
    counters = loops.python_counters(node)
    element_loop = loops.element_loop(node, counters) if counters else None
    kept = range(len(outs))
    if element_loop is not None and element_loop[0] in unread and \
            loops.counter_only_indexes(node, element_loop):
        # `for item in x` does the counting: a counter nobody reads is dropped
        kept = [i for i in kept if i != element_loop[0]]
        ctx.emitted.add(id(node.subgraphs[1].outputs[element_loop[0]].node))
    comma = "," if len(kept) == 1 else ""
    targets = ", ".join(outs[i] for i in kept) + comma
    init = [loops.initial_value(node, i, args[i], counters, kinds, ctx) for i in kept]
    lines = [f"{targets} = {', '.join(init)}{comma}"] if kept else []
    max_iterations = args[len(outs)]
    counter = ctx.fresh("n") if max_iterations != "None" else None
    if counter:
        lines.append(f"{counter} = 0")
    captured = iter(args[node.attrs["explicit_args"]:])
    unboxed = {}  # outer name -> its Python value's name (scalar loops)
    in_range = {id(loops.counter_step(node.subgraphs[1], j)[0]) for j in counters}

    def emit(graph):
        if kinds is None:
            return ctx.emit_graph(graph)
        return scalar_loops.emit_graph(graph, kinds, ctx, in_range)

    loop = []
    header = "while True:"
    for i, sub in enumerate(node.subgraphs):
        for tensor, name in zip(sub.inputs, outs):
            ctx.names[id(tensor)] = name
        for _, inner in sub.captured:
            name = next(captured)
            if kinds is not None and kinds[id(inner)] in "if":
                if name not in unboxed:
                    unboxed[name] = ctx.fresh("u")
                    lines.append(f"{unboxed[name]} = "
                                 f"{scalar_loops.unbox(kinds[id(inner)], name)}")
                name = unboxed[name]
            ctx.names[id(inner)] = name
        if i == 0:
            if element_loop is not None:
                continue  # the `for` statement is the test
            if kinds is None:
                for bound in loops.int_bounds(sub, counters):
                    # compared with a Python counter only: compare Python ints
                    # (int() of an int64 is exact; int < np.int64 is the slow path)
                    name = ctx.fresh("u")
                    lines.append(f"{name} = int({ctx.names[id(bound)]})")
                    ctx.names[id(bound)] = name
            if counter:
                loop += [f"if {counter} >= {max_iterations}:", "    break",
                         f"{counter} += 1"]
            test = emit(sub)
            inline = loops.inline_test(test, ctx.arg(sub.outputs[0]))
            if inline is not None and not counter:
                header = f"while {inline}"  # the test is one expression
            else:
                loop += test + [f"if not {ctx.arg(sub.outputs[0])}:", "    break"]
        else:
            if element_loop is not None:
                _, getter, array = element_loop
                item = ctx.fresh()
                ctx.names[id(getter.outputs[0])] = item
                ctx.emitted.add(id(getter))
                items = ctx.names[id(array)]
                if kinds is not None:  # Python scalars, as x.item(i) gives
                    items = f"{items}.tolist()"
                header = f"for {item} in {items}:"
            lines += loops.hoist_views(sub, ctx)
            loop += emit(sub)
            if kept:
                loop.append(f"{targets} = {', '.join(ctx.arg(sub.outputs[j]) for j in kept)}"
                            + comma)
    lines.append(header)
    lines.extend(compiler.indent(loop or ["pass"]))
    if kinds is not None:
        lines.extend(f"{outs[i]} = {scalar_loops.box(kinds[id(node.outputs[i])])}({outs[i]})"
                     for i in kept)
    else:
        lines.extend(f"{outs[i]} = _int64({outs[i]})" for i in counters if i in kept)
    return lines


WHILE = core.register("while_loop", None, _cond_rule, emit=_emit_while, foldable=False,
                      aliasing=True)


def _loop_var(graph, value):
    if isinstance(value, Tensor):
        return base.resolve(graph, value)
    if isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "_as_graph_tensor"):
        return base.resolve(graph, value)
    if isinstance(value, _NUMBERS):  # a Python number stays one (ops/random.py)
        return random.as_python_number(graph.constant(np.asarray(value)))
    raise _error(f"while_loop: loop variable {value!r} is not a tensor, numpy value or "
                 "Python number")


def _placeholder_maker(init, shape, name):
    def make(sub):
        return init._like(sub.placeholder(shape, init.dtype, name=name), relax=True)
    return make


def _loop_var_names(init, names):
    if names is not None and len(names) == len(init):
        return [core.identifier(name) for name in names]
    return [f"v{i}" if var.node.op is core.CONST else var.node.outputs[var.index].name
            for i, var in enumerate(init)]


def while_loop(cond_fn, body_fn, loop_vars, maximum_iterations=None, shape_invariants=None,
               names=None):
    """Stages `while cond_fn(*vs): vs = body_fn(*vs)`; returns the final vars.

    `names` (optional, one per loop var) are the user's variable names: the
    sub-graphs' parameters, the body's results and the node's outputs are
    named after them, so a listing reads `n, count = while_loop(n, count=0)`.

    The body is traced once into a sub-graph.  Python numbers among the loop
    vars become tensors (int -> int64, float -> float64, bool -> bool).  A
    var's dtype may not change; its shape may only change within its
    `shape_invariants` entry (None dims, or None for "any shape of that rank").
    (`trace_while_loop` + `LoopTrace.finish` is the same in two steps, for a
    caller that fixes up the traced loop in between.)
    """
    trace = trace_while_loop(cond_fn, body_fn, loop_vars, shape_invariants, names)
    return trace.finish(maximum_iterations)


class LoopTrace:
    """A while_loop whose test and body are traced but whose node is not
    made yet.  Between the two, without running any Python body again:

        first_iteration(i, number) # the body's output types when loop var i
                                   # is the Python number `number`
        retype_var(i, init)        # loop var i starts as `init` (another dtype):
                                   # both sub-graphs are re-inferred
        add_var(init, result, name, shape)  # a new loop var the test does not
                                   # read; the body computes `result` (a function:
                                   # of the var's placeholder, recorded in the body)
    """

    def __init__(self, graph, init, shapes, var_names, c_graph, b_graph, placeholders, b_out):
        self.graph, self.init, self.shapes, self.var_names = graph, init, shapes, var_names
        self.c_graph, self.b_graph = c_graph, b_graph
        self.placeholders, self.body_outputs = placeholders, b_out

    def first_iteration(self, i, number):
        """The body's outputs typed as in the loop's first iteration when loop
        var i is the Python number `number` there (numpy types a Python
        number weakly: `0 + float32` is float32).  Follow with retype_var."""
        from autograph.graph import retype
        retype.retype(self.b_graph, [], literals=[(self.b_graph.inputs[i], number)])
        return self.body_outputs

    def retype_var(self, i, value):
        from autograph.graph import retype
        init = _loop_var(self.graph, value)
        self.init[i] = init
        shape = self.placeholders[i].static_shape if len(self.placeholders[i].static_shape) == len(
            init.static_shape) else init.static_shape
        for sub in (self.c_graph, self.b_graph):
            placeholder = sub.inputs[i].node.outputs[0]
            placeholder.__class__ = sub.inputs[i].__class__ = type(init)  # (a Python number or not)
            retype.retype(sub, [(sub.inputs[i], (shape, init.dtype))])

    def add_var(self, value, result, name, shape=None):
        init = _loop_var(self.graph, value)
        shape = init.static_shape if shape is None else tuple(shape)
        name = core.identifier(name)
        self.init.append(init)
        self.shapes.append(shape)
        self.var_names.append(name)
        placeholder = None
        for sub in (self.c_graph, self.b_graph):
            placeholder = _placeholder_maker(init, shape, name)(sub)
        self.placeholders.append(placeholder)
        if callable(result):
            with core.scope(self.b_graph):
                result = result(placeholder)
        self.body_outputs.append(_to_graph(self.b_graph, result))

    def finish(self, maximum_iterations=None):
        graph, init, c_graph, b_graph = self.graph, self.init, self.c_graph, self.b_graph
        placeholders, b_out, var_names = self.placeholders, self.body_outputs, self.var_names
        if len(b_out) != len(init):
            raise _error(f"while_loop: the body returns {len(b_out)} values for {len(init)} "
                         "loop vars")
        outputs = []
        for i, (var, ph, out) in enumerate(zip(init, placeholders, b_out)):
            if not isinstance(out, Tensor):
                out = _const_like(b_graph, out, var.dtype) if isinstance(out, _NUMBERS) \
                    else None
                if out is None:
                    raise _error(f"while_loop: loop var #{i} is {_describe(var)} before the "
                                 f"loop but the body makes it {_describe(b_out[i])}")
            if out.dtype != var.dtype:
                raise _error(f"while_loop: loop var #{i} is {_describe(var)} before the loop "
                             f"but {_describe(out)} after an iteration; keep its dtype (cast "
                             "with .astype)")
            if len(out.static_shape) != len(ph.static_shape) or any(
                    p is not None and p != o for p, o in zip(ph.static_shape, out.static_shape)):
                raise _error(f"while_loop: loop var #{i} has shape {ph.static_shape} before an "
                             f"iteration and {out.static_shape} after; pass shape_invariants with "
                             "None for the dims that change")
            ph._check_loop_output(out, i)
            outputs.append(out)
        b_graph.outputs = outputs
        _name_results(b_graph, outputs, var_names)
        if maximum_iterations is not None:
            maximum_iterations = base.resolve(graph, maximum_iterations)
        args = (*init, maximum_iterations,
                *[o for o, _ in c_graph.captured], *[o for o, _ in b_graph.captured])
        avals = [(ph.static_shape, ph.dtype) for ph in placeholders]
        node = graph.add_node(WHILE, args, {"explicit_args": len(init) + 1}, avals,
                              subgraphs=(c_graph, b_graph),
                              stateful=c_graph.is_stateful() or b_graph.is_stateful(),
                              names=var_names)
        return tuple(ph._like(out, result=b) for ph, out, b in zip(placeholders, node.outputs,
                                                                   outputs))


def trace_while_loop(cond_fn, body_fn, loop_vars, shape_invariants=None, names=None):
    """Traces the test and the body of `while_loop` (each once); returns a
    LoopTrace, whose `finish()` makes the node."""
    graph = base.graph_for(loop_vars)
    init = [_loop_var(graph, v) for v in loop_vars]
    shapes = []
    for i, var in enumerate(init):
        invariant = shape_invariants[i] if shape_invariants else None
        if invariant is None:
            shapes.append(var.static_shape)
            continue
        invariant = tuple(invariant)
        if len(invariant) != len(var.static_shape) or any(
                s is not None and d is not None and s != d
                for s, d in zip(invariant, var.static_shape)):
            raise _error(f"while_loop: loop var #{i} has shape {var.static_shape}, which its shape "
                         f"invariant {invariant} does not allow")
        shapes.append(invariant)
    var_names = _loop_var_names(init, names)
    makers = [_placeholder_maker(v, s, n) for v, s, n in zip(init, shapes, var_names)]
    c_graph, _, c_out = _trace(graph, lambda *vs: (cond_fn(*vs),), makers, "while_cond")
    pred = c_out[0]
    if not isinstance(pred, Tensor):
        pred = c_graph.constant(np.asarray(bool(pred)))
    elif pred.static_size is not None and pred.static_size != 1:
        raise _error(f"while_loop: the condition has shape {pred.static_shape}; it needs a single "
                     "value (use np.all(...) or np.any(...))",
                     errors.GraphValueError)  # numpy: ValueError (ambiguous truth)
    c_graph.outputs = [pred]
    b_graph, placeholders, b_out = _trace(graph, lambda *vs: tuple(body_fn(*vs)), makers,
                                          "while_body")
    return LoopTrace(graph, init, shapes, var_names, c_graph, b_graph, placeholders, b_out)
