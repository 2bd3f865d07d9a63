"""The shortcuts a first call takes (docs/GRAPH_PERFORMANCE.md, "First call")
give what the general paths give:

* the two-operand ufunc rule (ops/elementwise.py), with its dtype cache cold
  and warm, against numpy itself on edge dtypes and Python numbers
  (NEP 50 weak scalars, ints beyond the cache's range, complex, bool);
* the drops the optimiser's dead-code pass hands the interpreter
  (graph.last_reads) against interpreter._drops on the optimised graph;
* worth_interpreting's single pass against supports() and _op_counts, and
  _op_counts' one test for an ordinary op against its full checks;
* record keeps a tuple of its own graph's tensors as the node's arguments,
  and nodes recorded on one line share one location.
"""

import functools
import itertools
import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.graph import core, interpreter, optimize
from autograph.graph.ops import base, elementwise
from tests.corpus import programs

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float16,
          np.float32, np.float64, np.complex64, np.complex128]
PYTHON_NUMBERS = [True, 3, -300, 2 ** 70, 1.5, float("nan"), 1j]
UFUNCS = [np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.power,
          np.maximum, np.logaddexp, np.arctan2, np.less, np.equal, np.bitwise_and,
          np.left_shift, np.divmod, np.hypot]


def _outcome(thunk):
    try:
        return ("ok", thunk())
    except Exception as e:  # noqa: BLE001 - the outcome compared is the exception's type
        return ("error", type(e))


def _numpy_outcome(ufunc, a, b):
    """What numpy gives: the dtypes of ufunc on 0-d stand-ins (or the error)."""
    def run():
        with np.errstate(all="ignore"):
            result = ufunc(a, b)
        results = result if ufunc.nout > 1 else (result,)
        return tuple(np.asarray(r).dtype for r in results)
    return _outcome(run)


@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
def test_two_operand_rule_matches_numpy_cold_and_warm(ufunc):
    graph = core.Graph("g")
    op = elementwise._ufunc_op(ufunc)
    with core.scope(graph):
        tensors = {dt: graph.placeholder((2, 3), dt) for dt in DTYPES}
        operands = [(t, np.ones((), dt)) for dt, t in tensors.items()]
        operands += [(n, n) for n in PYTHON_NUMBERS]
        pairs = [(a, b) for a, b in itertools.product(operands, repeat=2)
                 if isinstance(a[0], core.Tensor) or isinstance(b[0], core.Tensor)]
        elementwise._dtype_cache.clear()
        for (a, a_example), (b, b_example) in pairs + pairs:  # the cache cold, then warm
            expected = _numpy_outcome(ufunc, a_example, b_example)
            got = _outcome(lambda: op.infer(a, b))
            if expected[0] == "error":  # (the rule's error; record names the op and line)
                assert got[0] == "error", (ufunc, a_example, b_example, got)
                continue
            assert got[0] == "ok", (ufunc, a_example, b_example, got)
            assert [dt for _, dt in got[1]] == list(expected[1]), (ufunc, a, b)
            assert all(shape == (2, 3) for shape, _ in got[1])


SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1), (None, 3), (2, None), (4, 3)]


@pytest.mark.parametrize("first,second", list(itertools.product(SHAPES, repeat=2)))
def test_two_operand_rule_shapes_are_broadcast_shapes(first, second):
    graph = core.Graph("g")
    op = elementwise._ufunc_op(np.add)
    with core.scope(graph):
        a = graph.placeholder(first, np.float32)
        b = graph.placeholder(second, np.float32)
        expected = _outcome(lambda: base.broadcast_shapes(first, second))
        got = _outcome(lambda: op.infer(a, b))
        assert got[0] == expected[0]
        if got[0] == "ok":
            assert got[1] == [(expected[1], np.dtype(np.float32))]
            assert type(got[1][0][0]) is tuple
        else:  # the same RuleError, which record turns into the catalog's error
            assert got[1] is expected[1] is base.RuleError
        for number in (2, 2.5):
            assert op.infer(a, number) == [(tuple(first), np.dtype(np.float32))]


def _optimised_graphs():
    """Every corpus program's optimised graph, not run yet (so the optimiser's
    drops are still there), with its sub-graphs."""
    graphs = []
    for case in programs.CASES:
        if case.index or not callable(case.entity):
            continue
        try:
            concrete = ag.function(case.entity).get_concrete_function(*case.call.args,
                                                                      **case.call.kwargs)
        except Exception:  # noqa: BLE001 - programs the corpus expects to be refused
            continue
        todo = [concrete.graph]
        while todo:
            graph = todo.pop()
            graphs.append((case.name, graph))
            todo += [sub for node in graph.nodes for sub in node.subgraphs]
    return graphs


def test_the_optimisers_drops_are_the_interpreters():
    checked = 0
    for name, graph in _optimised_graphs():
        if graph.last_reads is None:  # (compiled at once: optimised again, here)
            optimize.optimize(graph)
        nodes, drops = graph.last_reads
        assert nodes is graph.nodes, name
        assert type(drops) is list and len(drops) == len(nodes), name
        assert drops == interpreter._drops(graph), name
        for dying in drops:
            assert dying is None or type(dying) is int or (
                type(dying) is tuple and len(dying) > 1), name
        checked += 1
    assert checked > 50


def test_worth_interpreting_is_supports_and_more_ops_outside_loops():
    def reference(graph):
        if not interpreter.supports(graph):
            return False
        outside, inside = interpreter._op_counts(graph)
        return outside > inside

    graphs = _optimised_graphs()
    assert len(graphs) > 50
    verdicts = set()
    for name, graph in graphs:
        verdict = interpreter.worth_interpreting(graph)
        assert verdict == reference(graph), name
        verdicts.add(verdict)
    assert verdicts == {True, False}


def test_op_counts_ordinary_ops_shortcut_counts_as_the_full_checks(monkeypatch):
    # (_op_counts counts an op of interpreter._ORDINARY in one test: the same
    # verdicts and counts as the checks each node passes without it)
    graphs = _optimised_graphs()
    fast = [(interpreter._op_counts(g, checked=True), interpreter._op_counts(g))
            for _, g in graphs]
    assert interpreter._ORDINARY
    assert not interpreter._ORDINARY & interpreter._SPECIAL

    class Never(set):
        def add(self, op):
            pass

    monkeypatch.setattr(interpreter, "_ORDINARY", Never())
    monkeypatch.setattr(interpreter, "_MAKERS", {})
    slow = [(interpreter._op_counts(g, checked=True), interpreter._op_counts(g))
            for _, g in graphs]
    assert fast == slow
    assert any(checked is None for checked, _ in slow)  # (loops' bodies: not interpreted)


def test_record_keeps_its_own_tensors_tuple_and_resolves_the_rest():
    graph = core.Graph("g")
    op = elementwise._ufunc_op(np.add)
    with core.scope(graph):
        x = graph.placeholder((3,), np.float32)
        args = (x, x)
        node = base.record(op, args)[0].node
        assert node.args is args
        listed = base.record(op, [x, x])[0].node  # (a list becomes a tuple)
        assert type(listed.args) is tuple and listed.args == (x, x)
        constant = np.ones(3, np.float32)
        mixed = base.record(op, (x, constant))[0].node
        assert mixed.args[0] is x and mixed.args[1].node.op is core.CONST


def test_nodes_on_one_line_share_their_location():
    @ag.function(autograph=False)
    def f(x):
        y = x * 2.0 + 1.0; z = y - x  # noqa: E702 - three ops on one line
        return z / 3.0

    graph = f.get_concrete_function(np.ones(3)).graph
    ops = [n for n in graph.nodes if n.op not in (core.PLACEHOLDER, core.CONST)]
    line = f.python_function.__code__.co_firstlineno + 2
    first_line = [n for n in ops if n.location[1] == line]
    assert len(first_line) == 3
    assert all(n.location is first_line[0].location for n in first_line)
    assert first_line[0].location == (__file__, line)
    assert [n.location for n in ops if n not in first_line] == [(__file__, line + 1)]


def test_a_generator_method_called_through_its_class_is_made_once_and_draws_as_bound():
    from autograph.runtime import call

    operator = call._override(np.random.Generator.normal)
    assert operator is call._override(np.random.Generator.normal)  # (made on first use)
    assert operator.__doc__.startswith("Python meaning: `Generator.normal(generator,")
    assert call._override(np.random.RandomState.rand) is not None
    assert call._override(len) is not None and call._override(np.ndarray) is None

    def through_class(rng, x):
        return x + np.random.Generator.normal(rng, size=3)

    def bound(rng, x):
        return x + rng.normal(size=3)

    x = np.zeros(3)
    results = []
    for fn in (through_class, bound):
        staged = ag.function(fn)
        rng = np.random.default_rng(7)
        results.append([staged(rng, x), staged(rng, x)])
    assert all(np.array_equal(a, b) for a, b in zip(*results))
    assert not np.array_equal(results[0][0], results[0][1])  # (a draw per call)


def test_a_compiled_graph_keeps_no_drops():
    def branchy(x, n):
        if x.sum() > 0:
            x = x * 2.0
        while n > 0:
            x = x + 1.0
            n -= 1
        return x

    staged = ag.function(branchy)
    for _ in range(2):  # (interpreted, then compiled)
        staged(np.ones(3), np.int64(2))
    graph = staged.get_concrete_function(np.ones(3), np.int64(2)).graph
    todo = [graph]
    while todo:
        current = todo.pop()
        assert current.last_reads is None
        todo += [sub for node in current.nodes for sub in node.subgraphs]


REDUCTION_DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.dtype("l"), np.dtype("q"),
                    np.float16, np.float32, np.float64, np.complex64, np.dtype(object)]


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "argmax", "std", "any"])
def test_reduction_dtypes_cached_are_numpys(name):
    from autograph.graph.ops import reductions

    op = reductions._op(name)
    graph = core.Graph("g")
    options = [{}, {"axis": 0}, {"axis": 1}, {"axis": (0, 1)}, {"axis": True},
               {"axis": np.int64(1)}, {"keepdims": True}, {"axis": 1, "keepdims": 1},
               {"dtype": np.dtype(np.float32)}, {"dtype": np.dtype("q")}, {"ddof": 1},
               {"axis": 5}]
    with core.scope(graph):
        cases = [(graph.placeholder((2, 3), dt), np.dtype(dt), attrs)
                 for dt in REDUCTION_DTYPES for attrs in options]
        reductions._sample_dtypes.clear()
        seen = {}
        for number, (x, dtype, attrs) in enumerate(cases * 2):  # the cache cold, then warm
            def eager():
                with np.errstate(all="ignore"):
                    return np.asarray(getattr(np, name)(np.ones((2, 3), dtype), **attrs))
            with warnings.catch_warnings(record=True) as shown:
                warnings.simplefilter("always")
                expected = _outcome(eager)
                del shown[:]
                got = _outcome(lambda: op.infer(x, **attrs))
            # (what the rule shows on each trace does not depend on the cache)
            outcome = (got[0], [str(w.message) for w in shown])
            assert seen.setdefault(number % len(cases), outcome) == outcome, (name, attrs)
            assert got[0] == expected[0], (name, dtype, attrs, got, expected)
            if got[0] == "ok":
                (shape, result), = got[1]
                assert shape == expected[1].shape, (name, dtype, attrs)
                assert result == expected[1].dtype and result.char == expected[1].dtype.char, \
                    (name, dtype, attrs, result, expected[1].dtype)
        assert reductions._sample_dtypes  # (some were cached)


def _user_helper(x):
    return x + 1


def test_code_owners_follows_wrappers_and_skips_code_free_callables():
    # (_code_owners reads a function's python_function and __wrapped__ from its
    # __dict__, and returns at once for a ufunc, a builtin or None)
    from autograph.graph import guards

    @functools.wraps(_user_helper)
    def wrapper(x):
        return _user_helper(x)

    staged = ag.function(_user_helper)

    @functools.wraps(staged)  # (copies the ag.function's __dict__: python_function too)
    def around_staged(x):
        return staged(x)

    class Box:
        def method(self):
            return 1

    box = Box()
    owners = guards._code_owners(wrapper, [np.tanh, len, None, box.method, around_staged,
                                           functools.partial(_user_helper, 1), staged])
    assert owners == [(wrapper, None), (_user_helper, None), (Box.method, box)]
    assert "python_function" in around_staged.__dict__
    partials = []
    guards._code_owners(around_staged, [functools.partial(_user_helper, 1)], partials)
    assert [p.func for p in partials] == [_user_helper]


def test_present_names_are_the_intersection():
    from autograph.graph import guards
    big = dict.fromkeys(dir(np), 0)
    for names in [set(), {"tanh"}, {"tanh", "nope", "sum"}, set(big) | {"x"}, set(dir(np)[:3])]:
        for namespace in [big, {}, {"tanh": 1, "x": 2}]:
            assert guards._present(names, namespace) == names.intersection(namespace)
