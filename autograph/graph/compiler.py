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
        # scratch buffers (see _scratch_candidates): the graph whose products may
        # use them, those products' output ids, and (shape, dtype) of each buffer
        self.scratch_graph = None
        self.scratch_candidates = set()
        self.scratch_specs = []

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
        aliasing op returns are never written into, nor a value that an op
        other than a ufunc, or a branch or loop, read: its output may share
        the buffer (_may_keep_input_buffers)."""
        lines = []
        nodes = graph.nodes
        last_use = _last_uses(graph)
        temporaries = {}  # id(tensor) -> name, for tensors made at this level
        fresh = set()  # id(tensor): a new array only this graph refers to
        free = []  # names of dead temporaries
        scratch = self.scratch_graph is graph  # (only the top level: not loop bodies, branches)
        held = {}  # id(tensor) -> the scratch buffer holding its value
        idle = {}  # (shape, dtype) -> scratch buffers no live tensor holds
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
            emitted, outs, buffer = None, None, None
            if single and dying and fresh:
                target = _writable_input(node, dying, fresh)
                if target is not None:
                    name = temporaries[id(target)]
                    if id(target) in self.row_major:  # (the same buffer, written in place)
                        self.row_major.add(id(node.outputs[0]))
                    buffer = held.pop(id(target), None)  # (the output takes it over)
                    dying = [t for t in dying if t is not target]  # (== is an op)
                    outs = [name]
                    out = name if op.kernel not in _KEYWORD_OUT else f"out={name}"
                    emitted = [f"{name} = {self.kernel(op)}({', '.join(args)}, {out})"]
            if emitted is None:
                outs = [self.fresh() for _ in node.outputs]
                for tensor, name in zip(node.outputs, outs):
                    self.names[id(tensor)] = name
                emitted = None
                if op.emit is not None:  # (the emitters read `unread`: not the kernel call)
                    self.unread = _unread_outputs(node, last_use)
                    emitted = op.emit(node, outs, args, self)
                if op.kernel is np.matmul and _dot_applies(node):
                    if scratch and id(node.outputs[0]) in self.scratch_candidates:
                        buffer = self._scratch_buffer(node.outputs[0], idle)
                    emitted = _as_dot(node, outs[0], args, self, buffer)
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
            if held:  # (after this node chose its buffer: np.dot's out must not be an input)
                for t in node.args:
                    if isinstance(t, Tensor) and last_use.get(id(t)) == position \
                            and id(t) in held:
                        name = held.pop(id(t))
                        idle.setdefault(self._scratch_key(t), []).append(name)
            if buffer is not None:
                held[id(node.outputs[0])] = buffer
            if fresh and _may_keep_input_buffers(node):
                fresh.difference_update(_read_by(node))
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

    def _scratch_key(self, tensor):
        return tuple(tensor.static_shape), tensor.dtype

    def _scratch_buffer(self, tensor, idle):
        """The name of a scratch buffer for `tensor`: an idle one of its
        shape and dtype, else a new one."""
        key = self._scratch_key(tensor)
        if idle.get(key):
            return idle[key].pop()
        self.scratch_specs.append(key)
        return f"s{len(self.scratch_specs) - 1}"

    def output(self, value):
        if not isinstance(value, Tensor):
            return self.literal(value)
        expr = self.names[id(value)]
        if value.python_number:  # a Python number in Python: returned as one
            return f"_python_number({expr})"
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
            if last_use.get(key) == position and key in temporaries and key not in seen:
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
    if node.attrs or len(node.args) != 2:
        return False
    a, b = node.args
    if not (isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype == b.dtype
            and a.dtype in (np.float32, np.float64)
            and len(a.static_shape) == 2 and len(b.static_shape) == 2):
        return False
    for d in a.static_shape + b.static_shape:  # (a loop, not all() of a generator:
        if type(d) is not int or d < 2:        # the interpreter asks for each product)
            return False
    return True


def _as_dot(node, out, args, ctx, buffer=None):
    """`out = a @ b`, as np.dot when both operands are C-contiguous at run time
    (a layout the graph cannot know for arguments and constants); np.dot
    writes into scratch buffer `buffer` if given (a C-contiguous array of the
    result's shape and dtype, as dot's `out` must be: the same gemm call)."""
    size = node.args[0].dtype.itemsize
    tests = [f"{name}.strides == {(tensor.static_shape[1] * size, size)!r}"
             for tensor, name in zip(node.args, args) if id(tensor) not in ctx.row_major]
    # np.dot and matmul both return a new 2-D array in C order: later products
    # of this result (and of in-place ops on its buffer) skip its test
    ctx.row_major.add(id(node.outputs[0]))
    ctx.globals["_dot"] = np.dot
    first, second = args
    dot = f"_dot({first}, {second})" if buffer is None else f"_dot({first}, {second}, out={buffer})"
    if not tests:
        return [f"{out} = {dot}"]
    return [f"{out} = {dot} if {' and '.join(tests)} else {first} @ {second}"]


# Scratch buffers are kept for products up to this size, up to SCRATCH_BYTES a
# set (a set per thread running the function at once)
SCRATCH_BUFFER_BYTES = 1 << 20
SCRATCH_BYTES = 4 << 20


def _scratch_candidates(graph):
    """ids of the top-level products (np.dot, see _dot_applies) whose value
    may live in a buffer kept across calls: the value, and every value an
    elementwise ufunc may write into its buffer (emit_graph's in-place
    rule), is read only by ufuncs at this level -- which return new arrays
    -- so no reference to the buffer outlives the call: not an output, not
    read by a sub-graph (loop, branch), an aliasing op (a view, reshape,
    getitem), a print, an assign or any other op."""
    products = [node for node in graph.nodes
                if node.op.kernel is np.matmul and _dot_applies(node)]
    if not products:  # (most graphs: no cost at compile time)
        return set()
    readers = {}
    for node in graph.nodes:
        for a in node.args:
            if isinstance(a, Tensor):
                known = readers.get(id(a))
                if known is None:
                    readers[id(a)] = [node]
                else:
                    known.append(node)
    escaping = {id(t) for t in graph.outputs if isinstance(t, Tensor)}
    for node in graph.nodes:
        for sub in node.subgraphs:
            escaping.update(_read_inside(sub))
    contained = set()  # ids; readers come later in program order: computed first
    ufunc = np.ufunc
    for node in reversed(graph.nodes):
        if not isinstance(node.op.kernel, ufunc):  # (only ufuncs' outputs are asked about)
            continue
        for tensor in node.outputs:
            if id(tensor) in escaping:
                continue
            for reader in readers.get(id(tensor), ()):
                if not _reads_into_new_array(reader, tensor, contained):
                    break
            else:
                contained.add(id(tensor))
    candidates, total = set(), 0
    for node in products:
        out = node.outputs[0]
        size = math.prod(out.static_shape) * out.dtype.itemsize
        if size <= SCRATCH_BUFFER_BYTES and total + size <= SCRATCH_BYTES \
                and id(out) in contained:
            candidates.add(id(out))
            total += size
    return candidates


def _reads_into_new_array(node, tensor, contained):
    """Whether `node` reading `tensor` keeps no reference to its buffer: a
    ufunc returns a new array, unless emit_graph writes it into `tensor`'s
    buffer (then that output must be in `contained` as well)."""
    op = node.op
    if node.subgraphs or not isinstance(op.kernel, np.ufunc) or op.aliasing or op.stateful \
            or "out" in node.attrs:
        return False
    out = node.outputs[0]
    may_write_in_place = op.kernel.signature is None and op.kernel.nout == 1 \
        and not node.attrs and out.static_shape == tensor.static_shape \
        and out.dtype == tensor.dtype
    return not may_write_in_place or id(out) in contained


def _read_inside(graph):
    """ids of every tensor read by a node of `graph` or of its sub-graphs."""
    read = set()
    for node in graph.nodes:
        read.update(id(a) for a in node.args if isinstance(a, Tensor))
        for sub in node.subgraphs:
            read.update(_read_inside(sub))
    read.update(id(t) for t in graph.outputs if isinstance(t, Tensor))
    return read


def _scratch_lines(specs, ctx):
    """Lines taking a set of scratch buffers from the function's pool (a
    new set when it is empty: another thread, or a call re-entered from
    inside this one, holds the others), and the line giving it back.
    list.pop and list.append are atomic, so no two calls share a set; a
    call that raises keeps its set (it is dropped)."""
    pool = []
    ctx.globals["_scratch_take"] = pool.pop
    ctx.globals["_scratch_give"] = pool.append
    ctx.globals["_scratch_new"] = lambda: tuple(np.empty(shape, dtype) for shape, dtype in specs)
    names = ", ".join(f"s{i}" for i in range(len(specs)))
    take = ["try:", "    _scratch = _scratch_take()", "except IndexError:",
            "    _scratch = _scratch_new()", f"{names}{',' if len(specs) == 1 else ''} = _scratch"]
    return take, "_scratch_give(_scratch); "  # (on the return line)


def _makes_fresh_array(op, tensor):
    """A ufunc (or gufunc such as matmul) returns a new array when its result
    has a known shape of rank >= 1 (rank 0 gives a numpy scalar)."""
    return isinstance(op.kernel, np.ufunc) and not op.aliasing and not op.stateful \
        and len(tensor.static_shape) >= 1 and None not in tensor.static_shape \
        and not tensor.dtype.hasobject


def _may_keep_input_buffers(node):
    """Whether an output of `node` may be (or view) the buffer of a tensor it
    reads: a view, reshape or item (`t[0:2]`, `t.T`), a branch or loop whose
    output is a value it captured, a variable write.  Such an input is no
    longer written into in place at its last use: the value sharing its
    buffer may still be read.  A ufunc or a reduction returns a new array."""
    op = node.op
    if op.fresh and not node.subgraphs:
        return False  # (a new array or a scalar)
    return bool(node.subgraphs) or not isinstance(op.kernel, np.ufunc) or op.aliasing \
        or op.stateful or "out" in node.attrs


def _read_by(node):
    """ids of the tensors `node` reads: its arguments and what its sub-graphs read."""
    read = {id(a) for a in node.args if isinstance(a, Tensor)}
    for sub in node.subgraphs:
        read.update(_read_inside(sub))
    return read


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


def _python_number(value):
    return value.item() if isinstance(value, (np.ndarray, np.generic)) else value


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
    ctx.globals["_python_number"] = _python_number
    params = []
    for i, tensor in enumerate(graph.inputs):
        param = f"a{i}"
        params.append(param)
        ctx.names[id(tensor)] = param
    ctx.scratch_graph = graph
    ctx.scratch_candidates = _scratch_candidates(graph)
    body = ctx.emit_graph(graph)
    outputs = [ctx.arg(t) if raw_outputs else ctx.output(t) for t in graph.outputs]
    give = ""
    if ctx.scratch_specs:  # (outputs are never scratch buffers: give the set back first)
        take, give = _scratch_lines(ctx.scratch_specs, ctx)
        body = take + body
    body.append(f"{give}return ({', '.join(outputs)}{',' if len(outputs) == 1 else ''})")
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
    if name in ctx.globals:  # the def rebound a global of the same name (a function named c1)
        namespace[name] = ctx.globals[name]
    function.__source__ = source
    function.__graph_lines__ = by_line  # (line -> node: warnings.py registries, interpreter.py)
    return function, source
