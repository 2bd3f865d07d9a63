"""The backend for autograph's built-in graph engine (`autograph.graph`).

The runtime hands staged statements here (DESIGN.md §3):

    if_stmt(t > 0, ...)        -> cond: both branches traced as sub-graphs
    while_stmt(test, body, ...) -> while_loop: the body traced once
    for_stmt(range_(t), ...)   -> for_range: a while_loop over a counter
    for_stmt(t, ...)           -> for_each: a while_loop over t's first axis

Branch outputs and loop state are nested lists/tuples/dicts; they are
flattened to leaves, and each leaf is checked here (dtype, shape, Python
values that must stay put) with an error naming the user's variable.
Python numbers in loop state start as numpy would type them, and take the
dtype numpy gives after one iteration (`s = 0; s += x_f32` carries float32).
An empty Python list in loop state becomes a TensorList, so `lst.append(x)`
in a staged loop builds a list at run time (`ag.stack(lst)` stacks it).
A `return` inside a staged loop (`retval_` still UndefinedReturnValue on
entry) gets its dtype and shape from a dry run of the body.
"""

import numpy as np

from autograph import errors
from autograph import graph as engine
from autograph.graph import core
from autograph.graph.ops import base
from autograph.graph.ops.lists import TensorList
from autograph.graph.tensor import Tensor
from autograph.runtime.special_values import UndefinedReturnValue
from autograph.backends import _checks
from autograph.backends._checks import (
    UNDEFINED_RETURN, flatten, is_number, unflatten)

_INDEX = np.dtype(np.intp)


def _dim_rule(x, axis):
    return [((), _INDEX)]


def _dim_kernel(x, axis):
    return np.intp(x.shape[axis])


DIM = core.register("backend.dim", _dim_kernel, _dim_rule)


def _dim(x, axis=0):
    """x.shape[axis]: a Python int when static, else a staged intp scalar."""
    if x.shape[axis] is not None:
        return x.shape[axis]
    return base.record1(DIM, (x,), {"axis": axis})


def _identity(i):
    return i


class _Promote(Exception):
    """A Python number in loop state got another dtype in the body: retrace."""


class _Sequence:
    """A staged iterable: `length` items, item i is `get(i)`."""

    __slots__ = ("length", "get", "label")

    def __init__(self, length, get, label):
        self.length, self.get, self.label = length, get, label


class StagedEnumerate:
    __slots__ = ("iterable", "start")

    def __init__(self, iterable, start):
        self.iterable, self.start = iterable, start


class StagedZip:
    __slots__ = ("iterables", "strict")

    def __init__(self, iterables, strict=False):
        self.iterables, self.strict = iterables, strict


def _zip_strict_message(lengths):
    """Python's text for zip(..., strict=True) over iterables of `lengths`."""
    n = min(lengths)
    if lengths[0] == n:  # the first runs out: the first longer one is reported
        j = next(j for j, length in enumerate(lengths) if length > n)
        relation = "longer"
    else:
        j = next(j for j, length in enumerate(lengths) if length == n)
        relation = "shorter"
    others = "argument 1" if j == 1 else f"arguments 1-{j}"
    return f"zip() argument {j + 1} is {relation} than {others}"


class GraphBackend:
    """Stages control flow, prints, asserts and lists into autograph.graph."""

    name = "graph"
    folds_extra_test = True  # for_range/for_each take opts['extra_test'] as a loop test

    def __init__(self):
        self._dry_runs = 0  # > 0 while a loop body is traced only to learn its types

    def owns(self, value):
        return isinstance(value, (Tensor, StagedEnumerate, StagedZip))

    # --- if / conditional expressions ------------------------------------------

    def cond(self, pred, true_fn, false_fn, state, names):
        location = _checks.user_location()
        entry = flatten(state, _checks.input_names(state))
        if self._dry_runs:
            return self._dry_cond(true_fn, false_fn, entry, names)
        stand_ins = {}
        if any(v is UNDEFINED_RETURN for v in entry.values):
            # `return` in one branch only: the other gets a stand-in of the same
            # type (the do_return flag, also an output, says which one is real)
            true_out, false_out = self._dry_sides(true_fn, false_fn, entry)
            for k, (t, f) in enumerate(zip(true_out, false_out)):
                if type(t) is UndefinedReturnValue and type(f) is not UndefinedReturnValue:
                    stand_ins[k] = _checks.zeros_structure(f)
                elif type(f) is UndefinedReturnValue and type(t) is not UndefinedReturnValue:
                    stand_ins[k] = _checks.zeros_structure(t)
        sides = {}
        leaf_names = []  # filled by the true branch; engine.cond reads it afterwards

        def branch(fn, side):
            def run():
                out = list(fn(*unflatten(entry.structure, entry.values)))
                for k, stand_in in stand_ins.items():
                    if type(out[k]) is UndefinedReturnValue:
                        out[k] = stand_in
                leaves = sides[side] = flatten(out, names)
                if side is True:
                    leaf_names[:] = leaves.names
                if side is False:
                    _checks.check_branches(sides[True], sides[False], location)
                return tuple(leaves.values)
            return run

        outputs = engine.cond(pred, branch(true_fn, True), branch(false_fn, False),
                              names=leaf_names)
        return unflatten(sides[True].structure, outputs)

    def _dry_sides(self, true_fn, false_fn, entry):
        """Both branches' outputs, traced into throwaway graphs (a dry run)."""
        graph = engine.current_graph()
        sides = []
        self._dry_runs += 1
        try:
            for fn in (true_fn, false_fn):
                with core.scope(core.Graph("dry_run", graph)):
                    sides.append(tuple(fn(*unflatten(entry.structure, entry.values))))
        finally:
            self._dry_runs -= 1
        return sides

    def _dry_cond(self, true_fn, false_fn, entry, names):
        """A cond while dry-running a loop body or branch, to learn types only:
        each output a stand-in merging both sides (an UndefinedReturnValue
        side adopts the other side)."""
        graph = engine.current_graph()
        true_out, false_out = self._dry_sides(true_fn, false_fn, entry)
        true_out = [f if type(t) is UndefinedReturnValue else t
                    for t, f in zip(true_out, false_out)]
        false_out = [t if type(f) is UndefinedReturnValue else f
                     for t, f in zip(true_out, false_out)]
        t_side, f_side = flatten(true_out, names), flatten(false_out, names)
        if t_side.structure != f_side.structure:
            f_side = t_side
        merged = []
        for t, f in zip(t_side.values, f_side.values):
            if not isinstance(t, Tensor) and isinstance(f, Tensor):
                t, f = f, t
            if isinstance(t, Tensor):
                shape = t.shape
                if isinstance(f, Tensor) and len(f.shape) == len(shape):
                    shape = tuple(a if a == b else None for a, b in zip(shape, f.shape))
                node = graph.add_node(core.PLACEHOLDER, (), {}, [(shape, t.dtype)], name="dry")
                merged.append(t._like(node.outputs[0]))
            else:
                merged.append(t)
        return unflatten(t_side.structure, merged)

    def logical_not(self, value):
        """`not value`: one bool, like Python's truth test (numpy raises for an
        array of several elements; elementwise np.logical_not would silently
        give an array instead)."""
        if value.size is not None and value.size != 1:
            raise errors.GraphValueError(errors.graph_op_message(  # numpy: ValueError
                "not", f"the operand has shape {value.shape}; it needs a single value "
                "(use np.all(...) or np.any(...))", _checks.user_location()))
        result = np.logical_not(value)
        return result if not result.shape else np.reshape(result, ())

    # --- loops -------------------------------------------------------------------

    def while_loop(self, test_fn, body_fn, state, names, opts):
        return _Loop(self, "while", test_fn, body_fn, state, names, opts).run()

    def for_range(self, start, stop, step, body_fn, state, names, opts):
        opts = dict(opts or {})
        extra_test = opts.pop("extra_test", None)
        return self._for_counter(start, stop, step, _identity, body_fn, extra_test,
                                 opts.pop("target", None), state, names, opts)

    def for_each(self, iterable, body_fn, state, names, opts):
        opts = dict(opts or {})
        extra_test = opts.pop("extra_test", None)
        sequence = self._sequence(iterable)
        return self._for_counter(0, sequence.length, 1, sequence.get, body_fn, extra_test,
                                 opts.pop("target", None), state, names, opts)

    def _sequence(self, iterable):
        if isinstance(iterable, StagedEnumerate):
            inner = self._sequence(iterable.iterable)
            start = iterable.start
            def count(i):
                return i if type(start) is int and start == 0 else i + start
            return _Sequence(inner.length, lambda i: (count(i), inner.get(i)), "enumerate")
        if isinstance(iterable, StagedZip):
            inners = [self._sequence(it) for it in iterable.iterables]
            if iterable.strict:
                self._check_zip_lengths([s.length for s in inners])
            length = inners[0].length
            for inner in inners[1:]:
                length = np.minimum(length, inner.length) if isinstance(
                    length, Tensor) or isinstance(inner.length, Tensor) else min(
                        length, inner.length)
            return _Sequence(length, lambda i: tuple(s.get(i) for s in inners), "zip")
        if isinstance(iterable, TensorList):
            iterable = engine.list_stack(iterable)
        if isinstance(iterable, Tensor):
            if not iterable.shape:
                raise errors.StagingError(errors.staged_iteration_message(
                    iterable.name, _checks.user_location()))
            tensor = iterable
            return _Sequence(_dim(tensor), lambda i: tensor[i], "tensor")
        if isinstance(iterable, (np.ndarray, list, tuple)):
            # zipped or enumerated with a staged iterable: its items are fetched
            # by the staged loop counter, so the sequence becomes a tensor
            try:
                tensor = base.as_tensor(iterable)
            except (ValueError, TypeError, errors.GraphError):
                tensor = None
            if tensor is None or tensor.dtype.kind == "O" or not tensor.shape:
                raise errors.StagingError(errors.staged_iteration_message(
                    f"the Python {type(iterable).__name__} {iterable!r} (its items do not "
                    "make one array)", _checks.user_location()))
            return _Sequence(tensor.shape[0], lambda i: tensor[i], "python")
        raise errors.StagingError(errors.staged_iteration_message(
            repr(iterable), _checks.user_location()))

    def _check_zip_lengths(self, lengths):
        """zip(..., strict=True): Python's ValueError when the lengths are known
        now, else a staged assert (it fails when the graph runs)."""
        if not any(isinstance(n, Tensor) for n in lengths):
            if len(set(lengths)) > 1:
                raise errors.GraphValueError(_zip_strict_message(lengths))
            return
        for j, length in enumerate(lengths[1:], 2):
            engine.assert_op(np.equal(length, lengths[0]),
                             f"zip() argument {j} has a different length than argument 1 "
                             "(strict=True)")

    def _for_counter(self, start, stop, step, get_item, body_fn, extra_test, target, state,
                     names, opts):
        """`for i in range(start, stop, step): state = body(get_item(i), *state)`,
        staged as a while_loop whose state is (i, *state).  `target` (the user's
        loop variable, from opts['target'], or None) names the counter and item
        in graph listings."""
        dtype = np.result_type(*[v.dtype if isinstance(v, Tensor) else v
                                 for v in (start, stop, step)])
        if dtype.kind not in "iu":
            raise errors.StagingError(errors.staged_range_message(
                str(dtype), _checks.user_location()))
        counter = np.asarray(start, dtype)[()] if not isinstance(start, Tensor) else (
            start.astype(dtype) if start.dtype != dtype else start)

        def in_range(i):
            if isinstance(step, Tensor):
                return np.where(step > 0, i < stop, i > stop)
            return i < stop if step > 0 else i > stop

        def test(i, *rest):
            keep_going = in_range(i)
            if extra_test is None:
                return keep_going
            more = extra_test(*rest)
            if not isinstance(more, Tensor):
                return keep_going if more else False
            return np.logical_and(keep_going, more)

        counter_name = target if get_item is _identity and target else "index"

        def body(i, *rest):
            item = get_item(i)
            if target and isinstance(item, Tensor) and item.graph is engine.current_graph() \
                    and item.node.op is not core.PLACEHOLDER:
                item.graph.rename(item, target)  # `c = items[index]` reads as the user's `c`
            out = body_fn(item, *rest)
            return (i + step, *out)

        result = _Loop(self, "for", test, body, (counter, *state), (counter_name, *names),
                       opts).run()
        return tuple(result[1:])

    # --- print, assert ---------------------------------------------------------------

    def print_(self, *values, sep=" ", end="\n"):
        engine.print_op(*values, sep=sep, end=end)

    def assert_(self, pred, message):
        engine.assert_op(pred, message)

    # --- builtins ----------------------------------------------------------------------

    def len_(self, value):
        if isinstance(value, TensorList):
            return engine.list_length(value)
        if not value.shape:
            raise errors.GraphTypeError("len() of unsized object")  # numpy's own text
        return _dim(value)

    def range_len(self, start, stop, step):
        # np.subtract, not `-`: stop may be a Python int (numpy-typed here, like
        # the loop counter) or a Tensor (which np.asarray cannot take)
        span = (np.subtract(stop, start) + step - np.sign(step)) // step
        return np.maximum(span, 0)

    def enumerate_(self, iterable, start=0):
        return StagedEnumerate(iterable, start)

    def zip_(self, *iterables, strict=False):
        return StagedZip(iterables, strict)

    # --- lists -------------------------------------------------------------------------

    def stack(self, items):
        if isinstance(items, TensorList):
            return engine.list_stack(items)
        return np.stack(list(items))

    def list_append(self, target, item):
        return engine.list_append(target, item)

    def list_pop(self, target, index=None):
        if index is not None:
            raise errors.StagingError(errors.staged_list_pop_message(_checks.user_location()))
        return engine.list_pop(target)

    def set_element_type(self, target, dtype, shape=None):
        """A staged list gets its element dtype/shape; a Python list being
        traced becomes a TensorList of that type holding its items."""
        if isinstance(target, TensorList):
            if target.element_dtype is None:
                target.element_dtype = np.dtype(dtype)
            if target.element_shape is None and shape is not None:
                target.element_shape = tuple(shape)
            return target
        return engine.list_from(list(target), dtype, None if shape is None else tuple(shape))

    def python_list_element_type(self, target, dtype, shape=None):
        """`set_element_type` on a Python list: while tracing it becomes a
        TensorList (so appends in staged loops are staged), else unchanged."""
        if engine.current_graph() is None or type(target) is not list:
            return target
        return self.set_element_type(target, dtype, shape)


class _Loop:
    """One staged loop: its state split into carried leaves (tensors, numbers,
    lists that become TensorLists) and leaves that must stay put."""

    def __init__(self, backend, kind, test_fn, body_fn, state, names, opts):
        self.backend, self.kind = backend, kind
        self.test_fn, self.body_fn = test_fn, body_fn
        self.state, self.names = list(state), names
        self.location = _checks.user_location()
        self.opts = opts or {}

    def run(self):
        relaxed = {}
        if any(type(v) is UndefinedReturnValue for v in self.state):
            # a `return` inside the loop: learn the returned value's type from
            # a dry run, and start from a stand-in of that type
            self.entry = flatten(self.state, self.names, lists_become_tensor_lists=True)
            out = self._dry_run(self.entry.values, keep=())
            for k, value in enumerate(self.state):
                if type(value) is UndefinedReturnValue and \
                        type(out[k]) is not UndefinedReturnValue:
                    self.state[k] = _checks.zeros_structure(out[k], relaxed)
        self.entry = entry = flatten(self.state, self.names, lists_become_tensor_lists=True)
        self.invariants = _checks.invariants_by_leaf(
            entry, self.opts.get("shape_invariants"), self.location, self.kind)
        for i, leaf in enumerate(entry.values):
            if id(leaf) in relaxed:
                self.invariants.setdefault(i, relaxed[id(leaf)])
        values = list(entry.values)
        weak = {i for i, v in enumerate(values) if is_number(v)}
        try:
            return self._stage(values, weak)
        except _Promote:
            pass
        out = flatten(self._dry_run(values, keep=weak), entry.names).values
        for i in sorted(weak):
            values[i] = _checks.promoted(entry.names[i], values[i], out[i], self.location,
                                         self.kind)
        return self._stage(values, set())

    def _call(self, fn, values, carried, loop_vars):
        current = list(values)
        for i, v in zip(carried, loop_vars):
            current[i] = v
        return fn(*unflatten(self.entry.structure, current))

    def _stage(self, values, weak):
        entry = self.entry
        carried = [i for i, v in enumerate(values) if _checks.is_carried(v)]
        initial = [values[i] for i in carried]
        shapes = [self.invariants.get(i) for i in carried]

        def test(*loop_vars):
            return self._call(self.test_fn, values, carried, loop_vars)

        def body(*loop_vars):
            out = flatten(self._call(self.body_fn, values, carried, loop_vars), entry.names)
            _checks.check_same_structure(entry, out, self.location, self.kind)
            for i, (before, after) in enumerate(zip(values, out.values)):
                if i not in carried:
                    _checks.check_unchanged(entry.names[i], before, after, self.location,
                                            self.kind)
            result = []
            for i, var in zip(carried, loop_vars):
                after = out.values[i]
                if i in weak and _checks.changes_dtype(var, after):
                    raise _Promote()
                _checks.check_loop_leaf(entry.names[i], var, after, self.location, self.kind)
                result.append(after)
            return tuple(result)

        final = engine.while_loop(
            test, body, initial, maximum_iterations=self.opts.get("maximum_iterations"),
            shape_invariants=shapes if any(s is not None for s in shapes) else None,
            names=[entry.names[i] for i in carried])
        out = list(values)
        for i, v in zip(carried, final):
            out[i] = v
        return unflatten(entry.structure, out)

    def _dry_run(self, values, keep):
        """The body's outputs, traced once into a throwaway graph to learn
        types: leaves in `keep` (Python numbers) go in as they are, other
        carried leaves as stand-ins of their type."""
        graph = engine.current_graph()
        backend = self.backend
        backend._dry_runs += 1
        try:
            with core.scope(core.Graph("dry_run", graph)) as sub:
                args = [v if i in keep or not _checks.is_carried(v)
                        else _checks.stand_in(sub, v, self.invariants.get(i)
                                              if hasattr(self, "invariants") else None)
                        for i, v in enumerate(values)]
                return tuple(self._call(self.body_fn, args, [], []))
        finally:
            backend._dry_runs -= 1


BACKEND = GraphBackend()
