"""Compiles a graph into Python source that calls the numpy kernels directly.

    def graph_fn(x, w):
        v0 = x @ w                      # one line per node, program order
        v1 = k_tanh(v0)
        if v1.sum() > 0: ...            # cond: an inline if/else
        while True: ...                 # while_loop: a real Python loop
        return (v1,)

Kernels and non-literal constants are globals of the generated module.  The
source is registered with `linecache`, so tracebacks and debuggers show the
generated line.  Building the source is linear in the number of nodes.

An exception raised while the compiled function runs (a failing assert op, a
kernel error) keeps its type and message, and gets a `__notes__` entry naming
the graph op and the user's file:line that recorded it: the body is wrapped in
one try/except (free when nothing raises), and the failing generated line is
mapped back to its node.
"""

import itertools
import linecache
import math
import re

import numpy as np

from autograph.graph import core
from autograph.graph.tensor import Tensor

_module_ids = itertools.count()

# Each emitted line carries a tag `  #@<k>` (k: the node that emitted it) until
# compile_graph strips it and keeps a line -> node table instead.
_TAG = re.compile(r"  #@(\d+)$")


class Context:
    """Names and globals of one generated module."""

    def __init__(self):
        self.globals = {"np": np, "_int64": np.int64, "_float64": np.float64}
        self.names = {}  # id(Tensor) -> source expression
        self._global_ids = {}  # id(object) -> global name
        self._keep = []
        self._counter = itertools.count()
        self.nodes = []  # tag -> node, for mapping a failing line back to its op
        self.emitted = set()  # id(node): computed by its parent's code (names set)
        self.unread = set()  # output positions of the node being emitted nothing reads
        self.row_major = set()  # id(tensor): a C-contiguous array (_as_dot made its buffer)

    def fresh(self, prefix="v"):
        return f"{prefix}{next(self._counter)}"

    def bind_global(self, value, prefix="c"):
        name = self._global_ids.get(id(value))
        if name is None:
            name = self._global_ids[id(value)] = self.fresh(prefix)
            self.globals[name] = value
            self._keep.append(value)
        return name

    def kernel(self, op):
        name = self._global_ids.get(id(op.kernel))
        if name is None:
            base = "".join(c if c.isalnum() else "_" for c in op.name.split(".")[-1])
            name = self._global_ids[id(op.kernel)] = f"k_{base}_{next(self._counter)}"
            self.globals[name] = op.kernel
            self._keep.append(op.kernel)
        return name

    def literal(self, value):
        """Source text for a static value: a literal when exact, else a global."""
        kind = type(value)
        if kind in (int, float) and math.copysign(1, value) < 0 and math.isfinite(value):
            return f"({value!r})"  # `-1 ** x` would read -(1 ** x)
        if kind in (int, bool, str, type(None)):
            return repr(value)
        if kind is float and math.isfinite(value):
            return repr(value)
        if kind is tuple and all(type(v) in (int, bool, str, type(None)) for v in value):
            return repr(value)
        return self.bind_global(value)

    def arg(self, value):
        if isinstance(value, Tensor):
            return self.names[id(value)]
        return self.literal(value)

    def emit_graph(self, graph):
        """Lines (unindented) computing every node of `graph` in order.

        Temporaries made at this level give their name back after their last
        use, so a chain of ops rebinds a few names and numpy's allocation
        cache gets each dead buffer back at once (a graph holding every
        intermediate alive is slower than eager numpy).  An elementwise ufunc
        whose input is a dead fresh array of the output's shape and dtype
        writes into it (`k_add(v1, c2, v1)`): the same ufunc loop, no new
        array.  Placeholders, constants, captured values and anything an
        aliasing op returns are never written into."""
        lines = []
        nodes = graph.nodes
        last_use = _last_uses(graph)
        temporaries = {}  # id(tensor) -> name, for tensors made at this level
        fresh = set()  # id(tensor): a new array only this graph refers to
        free = []  # names of dead temporaries
        for position, node in enumerate(nodes):
            op = node.op
            if op is core.PLACEHOLDER or id(node) in self.emitted:
                continue
            if op is core.CONST:
                self.names[id(node.outputs[0])] = self.bind_global(node.attrs["value"])
                continue
            names = self.names
            args = [names[id(a)] if isinstance(a, Tensor) else self.literal(a)
                    for a in node.args]
            dying = _dying(node, position, last_use, temporaries)
            single = len(node.outputs) == 1 and not node.subgraphs
            emitted, outs = None, None
            if single and dying and fresh:
                target = _writable_input(node, dying, fresh)
                if target is not None:
                    name = temporaries[id(target)]
                    if id(target) in self.row_major:  # (the same buffer, written in place)
                        self.row_major.add(id(node.outputs[0]))
                    dying = [t for t in dying if t is not target]  # (== is an op)
                    outs = [name]
                    out = name if op.kernel not in _KEYWORD_OUT else f"out={name}"
                    emitted = [f"{name} = {self.kernel(op)}({', '.join(args)}, {out})"]
            if emitted is None:
                outs = [self.fresh() for _ in node.outputs]
                for tensor, name in zip(node.outputs, outs):
                    self.names[id(tensor)] = name
                self.unread = _unread_outputs(node, last_use)
                emitted = op.emit(node, outs, args, self) if op.emit is not None else None
                if op.kernel is np.matmul and _dot_applies(node):
                    emitted = _as_dot(node, outs[0], args, self)
                if emitted is None:
                    call_args = args + [f"{k}={self.literal(v)}" for k, v in node.attrs.items()]
                    call = f"{self.kernel(op)}({', '.join(call_args)})"
                    emitted = [f"{', '.join(outs)} = {call}" if outs else call]
                if single:  # `v = expr` reads its arguments before rebinding
                    free.extend([temporaries[id(t)] for t in dying])
                    dying = []
                    prefix = f"{outs[0]} = "
                    if free and len(emitted) == 1 and emitted[0].startswith(prefix):
                        outs = [free.pop()]
                        emitted = [outs[0] + " = " + emitted[0][len(prefix):]]
            if dying:
                free.extend([temporaries[id(t)] for t in dying])
            for tensor, name in zip(node.outputs, outs):
                self.names[id(tensor)] = temporaries[id(tensor)] = name
                if _makes_fresh_array(op, tensor):
                    fresh.add(id(tensor))
            tag = f"  #@{len(self.nodes)}"
            self.nodes.append(node)
            if node.subgraphs:  # lines of sub-graphs keep their own node's tag
                lines.extend(line if _TAG.search(line) else line + tag for line in emitted)
            else:  # (only control flow emits sub-graphs' lines)
                lines.extend([line + tag for line in emitted])
        return lines

    def output(self, value):
        if not isinstance(value, Tensor):
            return self.literal(value)
        expr = self.names[id(value)]
        if value.static_shape == () and value.dtype.kind != "O":
            # A scalar result is a numpy scalar, as eager numpy gives, whichever
            # kernel, constant, input or variable it comes from (a scalar is
            # immutable, so no copy either).
            return f"_scalar({expr})"
        if value.node.op.aliasing:  # callers must not be able to mutate graph state
            return f"_copy({expr})"
        return expr


# ufuncs whose output array must be passed as `out=` (numpy deprecates a third
# positional argument there); the others take it positionally, which is cheaper
_KEYWORD_OUT = {np.maximum, np.minimum, np.fmax, np.fmin}


def _last_uses(graph):
    """id(tensor) -> position of the last node reading it (outputs: the end)."""
    last = {}
    for position, node in enumerate(graph.nodes):
        for a in node.args:
            if isinstance(a, Tensor):
                last[id(a)] = position
    for t in graph.outputs:
        if isinstance(t, Tensor):
            last[id(t)] = len(graph.nodes)
    return last


def _unread_outputs(node, last_use):
    """Positions of `node`'s outputs that nothing reads (an emitter may skip them)."""
    return {i for i, t in enumerate(node.outputs) if id(t) not in last_use}


def _dying(node, position, last_use, temporaries):
    """This level's temporaries that `node` reads for the last time."""
    dying, seen = [], []  # (by id: `in` on Tensors would compare with ==, an op)
    for a in node.args:
        if isinstance(a, Tensor):
            key = id(a)
            if key in temporaries and last_use.get(key) == position and key not in seen:
                dying.append(a)
                seen.append(key)
    return dying


def _dot_applies(node):
    """`a @ b` of two 2-D float32 (or two float64) arrays whose every dim is
    known and >= 2: np.dot computes it with less call overhead (~440 ns
    against ~620 ns for [8,16]@[16,16]).  For C-contiguous operands both make
    the same BLAS call -- gemm(row-major, no transpose, M, P, N, A, lda=N,
    B, ldb=P, C, ldc=P) -- so the bits are equal (tests/graph/test_dot_kernel.py);
    other layouts, dims of 1 (gemv, dot) and other dtypes keep `@`."""
    if node.attrs or len(node.args) != 2 or not all(isinstance(a, Tensor) for a in node.args):
        return False
    a, b = node.args
    return (a.dtype == b.dtype and a.dtype in (np.float32, np.float64)
            and len(a.static_shape) == 2 and len(b.static_shape) == 2
            and all(type(d) is int and d >= 2 for d in a.static_shape + b.static_shape))


def _as_dot(node, out, args, ctx):
    """`out = a @ b`, as np.dot when both operands are C-contiguous at run time
    (a layout the graph cannot know for arguments and constants)."""
    size = node.args[0].dtype.itemsize
    tests = [f"{name}.strides == {(tensor.static_shape[1] * size, size)!r}"
             for tensor, name in zip(node.args, args) if id(tensor) not in ctx.row_major]
    # np.dot and matmul both return a new 2-D array in C order: later products
    # of this result (and of in-place ops on its buffer) skip its test
    ctx.row_major.add(id(node.outputs[0]))
    ctx.globals["_dot"] = np.dot
    first, second = args
    if not tests:
        return [f"{out} = _dot({first}, {second})"]
    return [f"{out} = _dot({first}, {second}) if {' and '.join(tests)} else {first} @ {second}"]


def _makes_fresh_array(op, tensor):
    """A ufunc (or gufunc such as matmul) returns a new array when its result
    has a known shape of rank >= 1 (rank 0 gives a numpy scalar)."""
    return isinstance(op.kernel, np.ufunc) and not op.aliasing and not op.stateful \
        and len(tensor.static_shape) >= 1 and None not in tensor.static_shape \
        and not tensor.dtype.hasobject


def _writable_input(node, dying, fresh):
    """An input an elementwise ufunc can write its result into, or None."""
    kernel = node.op.kernel
    if not isinstance(kernel, np.ufunc) or kernel.signature is not None or \
            kernel.nout != 1 or node.attrs or node.op.aliasing or node.op.stateful:
        return None
    out = node.outputs[0]
    for a in dying:
        if id(a) in fresh and a.static_shape == out.static_shape and a.dtype == out.dtype:
            return a
    return None


def indent(lines, prefix="    "):
    return [prefix + line for line in lines]


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def _scalar(value):
    return value[()] if type(value) is np.ndarray else value


def _untag(lines, first_line, nodes):
    """`lines` without their tags, and {line number: node} (numbered from first_line)."""
    plain, by_line = [], {}
    for number, line in enumerate(lines, first_line):
        at = line.rfind("  #@")  # (what _TAG matches, without a regex per line)
        if at >= 0 and line[at + 4:].isdecimal():
            by_line[number] = nodes[int(line[at + 4:])]
            line = line[:at]
        plain.append(line)
    return plain, by_line


def op_note(node):
    """The note added to an exception raised by `node` at run time."""
    filename, lineno = node.location
    return (f"raised by the graph op `{node.op.name}` recorded at "
            f"{filename}:{lineno}")


def _annotator(filename, by_line):
    def annotate(exc):
        """Adds the failing op's user location to `exc` (once: an outer graph
        calling this one sees the note already there)."""
        tb, lineno = exc.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                lineno = tb.tb_lineno
            tb = tb.tb_next
        add_op_note(exc, by_line.get(lineno))
    return annotate


def add_op_note(exc, node):
    """Names `node`'s user location on `exc`, unless a graph op already did
    (an outer graph, or the op of an outer sub-graph, sees the note there)."""
    if node is None or node.location is None:
        return
    notes = getattr(exc, "__notes__", ())
    if not any(n.startswith("raised by the graph op ") for n in notes):
        exc.add_note(op_note(node))


class _OneNode:
    """The graph compile_node compiles: one node of another graph, whose
    tensor arguments are its inputs."""

    def __init__(self, node):
        self.inputs = list({id(a): a for a in node.args if isinstance(a, Tensor)}.values())
        self.nodes = [node]
        self.outputs = list(node.outputs)


def compile_node(node, name="node_fn"):
    """(function, input tensors): the function computes `node`'s outputs (a
    tuple, the values its line in a compiled graph gives them) from the
    values of the input tensors, as compile_graph compiles it inside a graph."""
    graph = _OneNode(node)
    return compile_graph(graph, name, raw_outputs=True)[0], graph.inputs


def compile_graph(graph, name="graph_fn", arg_names=None, raw_outputs=False):
    """Python function computing `graph.outputs` (a tuple) from its inputs
    (as a function returns them: see Context.output; `raw_outputs`: as the
    graph's code computes them)."""
    ctx = Context()
    ctx.globals["_copy"] = _copy
    ctx.globals["_scalar"] = _scalar
    params = []
    for i, tensor in enumerate(graph.inputs):
        param = f"a{i}"
        params.append(param)
        ctx.names[id(tensor)] = param
    body = ctx.emit_graph(graph)
    outputs = [ctx.arg(t) if raw_outputs else ctx.output(t) for t in graph.outputs]
    body.append(f"return ({', '.join(outputs)}{',' if len(outputs) == 1 else ''})")
    filename = f"<autograph graph {name} #{next(_module_ids)}>"
    body, by_line = _untag(body, 3, ctx.nodes)  # line 1: def, line 2: try
    source = "\n".join([f"def {name}({', '.join(params)}):", "    try:"]
                       + indent(body, "        ")
                       + ["    except Exception as exc:", "        _annotate(exc)",
                          "        raise"]) + "\n"
    ctx.globals["_annotate"] = _annotator(filename, by_line)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(ctx.globals)
    exec(compile(source, filename, "exec"), namespace)
    function = namespace[name]
    function.__source__ = source
    function.__graph_lines__ = by_line  # (line -> node: warnings.py registries, interpreter.py)
    return function, source
