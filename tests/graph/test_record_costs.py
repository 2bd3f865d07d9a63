"""Cheaper per-node recording and per-call tests (issue 10, item 4) keep
their results: the tracing-scope test of Function.__call__ across threads,
the ufunc dtype cache with ints outside its range, names of ops recorded
again and again, the interpreter dropping values after their last reader."""

import threading

import numpy as np

import autograph as ag
from autograph.graph import core
from autograph.graph.ops import elementwise


def test_a_trace_in_another_thread_does_not_make_a_call_join_it():
    inner = ag.function(lambda x: x * 2, autograph=False)
    started, release, seen = threading.Event(), threading.Event(), []

    def tracing_thread():
        with core.scope(core.Graph("elsewhere")):
            started.set()
            release.wait(10)

    thread = threading.Thread(target=tracing_thread)
    thread.start()
    try:
        assert started.wait(10)
        assert core.traces_anywhere  # some thread traces, this one does not
        for _ in range(3):  # the first calls trace and interpret, then the fast call
            seen.append(inner(np.arange(3.0)))
    finally:
        release.set()
        thread.join()
    assert all(type(v) is np.ndarray and v.tolist() == [0.0, 2.0, 4.0] for v in seen)
    assert core.traces_anywhere == []


def test_a_call_while_this_thread_traces_joins_the_trace():
    inner = ag.function(lambda x: x + 1, autograph=False)
    inner(np.ones(2))  # its own graph and fast call exist
    outer = ag.function(lambda x: inner(x) * 3, autograph=False)
    assert outer(np.ones(2)).tolist() == [6.0, 6.0]
    graph = outer.get_concrete_function(np.ones(2)).graph
    assert [n.op.name for n in graph.nodes if n.op is not core.PLACEHOLDER] == \
        ["np.add", "np.multiply"]


def test_the_count_of_traces_survives_a_failing_trace():
    def broken(x):
        raise KeyError("boom")
    f = ag.function(broken, autograph=False)
    try:
        f(np.ones(2))
    except KeyError:
        pass
    assert core.traces_anywhere == []


def test_big_ints_are_not_cached_and_small_ones_are():
    # numpy's result dtype depends on a Python int's value (NEP 50): int8 + 1000 fails,
    # int8 + 100 stays int8; a big int must never reuse a cached answer
    f = ag.function(lambda x: x + 100, autograph=False)
    assert f(np.int8(1)).dtype == np.int8
    g = ag.function(lambda x: x + 2 ** 40, autograph=False)
    assert g(np.int64(1)) == 1 + 2 ** 40
    assert not any(key[1] and any(k is elementwise._UNCACHED for k in key[1])
                   for key in elementwise._dtype_cache)
    h = ag.function(lambda x: x + 2 ** 70, autograph=False)  # numpy: OverflowError
    try:
        h(np.int64(1))
    except OverflowError:
        pass
    else:
        raise AssertionError("x + 2**70 on int64 must fail as numpy does")


def test_repeated_op_names_are_numbered_and_unique():
    g = core.Graph("names")
    names = [g.unique_name("add") for _ in range(3)] + [g.unique_name("add_3")]
    names += [g.unique_name("add"), g.unique_name("x_"), g.unique_name("x_")]
    assert names == ["add", "add_1", "add_2", "add_3", "add_4", "x_", "x_1"]
    assert core.identifier("state[0]['k']") == "state_0_k"
    assert core.identifier("9lives") == "v_9lives" and core.identifier("snake_") == "snake_"


def test_the_interpreter_keeps_values_read_later_and_outputs():
    def fn(x):
        y = x + 1
        z = y * 2
        w = z - y  # y read again after z
        return w, y, w + z
    staged = ag.function(fn, autograph=False)
    x = np.arange(4.0)
    first = staged(x)  # interpreted
    second = staged(x)  # compiled
    want = fn(x)
    for got in (first, second):
        assert all(np.array_equal(a, b) for a, b in zip(got, want))


def _line_of(marker):
    import inspect
    lines, start = inspect.getsourcelines(__import__(__name__))
    return next(i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(marker))


def _loss(w):
    y = np.tanh(w * 2.0)  # FORWARD
    return (y * y).sum()


def _nodes(graph):
    for node in graph.nodes:
        yield node
        for sub in node.subgraphs:
            yield from _nodes(sub)


def test_gradient_ops_are_located_at_the_line_asking_for_the_gradient():
    def step(w):
        return ag.grad(_loss)(w)  # GRADIENT

    for autograph in (False, True):
        staged = ag.function(step, autograph=autograph)
        w = np.linspace(-1.0, 1.0, 5)
        assert np.allclose(staged(w), 4 * np.tanh(2 * w) * (1 - np.tanh(2 * w) ** 2))
        graph = staged.get_concrete_function(w).graph
        where = {n.location for n in _nodes(graph) if n.op is not core.PLACEHOLDER}
        assert where >= {(__file__, _line_of("# GRADIENT")), (__file__, _line_of("# FORWARD"))}
        assert {line for _, line in where} <= {
            _line_of("# GRADIENT"), _line_of("# FORWARD"), _line_of("# FORWARD") + 1}


def _branchy_loss(w):
    if w.sum() > 0:  # BRANCH
        y = w * 3.0
    else:
        y = w * w
    return y.sum()


def test_gradient_ops_of_a_staged_branch_are_located_at_the_gradient_line():
    def step(w):
        return ag.grad(_branchy_loss)(w)  # BRANCH GRADIENT

    staged = ag.function(step)
    w = np.ones(3)
    assert staged(w).tolist() == [3.0, 3.0, 3.0]
    assert staged(-w).tolist() == [-2.0, -2.0, -2.0]
    graph = staged.get_concrete_function(w).graph
    conds = [n for n in graph.nodes if n.subgraphs]
    assert len(conds) == 2  # the forward `if`, and its adjoint's
    adjoint = conds[1]
    assert adjoint.location == (__file__, _line_of("# BRANCH GRADIENT"))
    inner = [n.location for sub in adjoint.subgraphs for n in sub.nodes
             if n.op is not core.PLACEHOLDER]
    assert inner and set(inner) == {(__file__, _line_of("# BRANCH GRADIENT"))}
    assert graph.fixed_location is None
