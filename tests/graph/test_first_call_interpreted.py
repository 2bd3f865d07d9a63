"""A graph's first run is interpreted (graph/interpreter.py), its second runs
the compiled code: both must give the same bits, print the same text, raise
the same exceptions (type, message, notes) and update Variables the same way.

Every corpus program staged by ag.function runs twice on the same arguments
(first interpreted, then compiled) and the two outcomes are compared, with
arrays and numpy scalars compared byte for byte; targeted tests cover the
staged print/assert/raise, Variables, staged lists, nested while/cond, the
np.dot special case, `.source` on demand, and that the seed workloads of
issue 10 take the interpreted path."""

import contextlib
import copy
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from autograph.graph import Variable, assert_op, concrete, core, function, interpreter, print_op
from tests.corpus import programs
from tests.corpus.test_corpus import REJECTED, SKIP, XFAIL, _lookup, assert_same, \
    assert_same_exception, user_frames


def _bits(value):
    """`value` with every array and numpy scalar replaced by its exact bytes
    (and type, dtype, shape), for comparing two runs bit for bit."""
    if isinstance(value, np.ndarray):
        data = value.tolist() if value.dtype.hasobject else value.tobytes()
        return ("ndarray", value.dtype.str, value.shape, data)
    if isinstance(value, np.generic):
        return (type(value).__name__, value.tobytes())
    if type(value) in (list, tuple):
        return type(value)(_bits(v) for v in value)
    if type(value) is dict:
        return {k: _bits(v) for k, v in value.items()}
    return value


def _run(fn, args, kwargs=None):
    """(result bits, exception, stdout) of fn on copies of the arguments."""
    out = io.StringIO()
    args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs or {})
    with contextlib.redirect_stdout(out):
        try:
            value = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - compared with the other run's
            return None, e, out.getvalue()
    return _bits(value), None, out.getvalue()


def _assert_same_runs(first, second):
    value1, error1, out1 = first
    value2, error2, out2 = second
    assert out1 == out2, "printed output differs"
    if error1 is not None or error2 is not None:
        assert error1 is not None and error2 is not None, (error1, error2)
        assert_same_exception(error1, error2)
        assert _real_frames(error1) == _real_frames(error2)
    else:
        assert_same(value1, value2)


def _real_frames(error):
    """The user frames of a traceback, without the compiled graph's own
    frame (`<autograph graph f #3>`, which only the compiled run has)."""
    return [f for f in user_frames(error) if not f[0].startswith("<autograph graph ")]


def _programs(staged):
    return [c._program for c in staged.concrete_functions]


def _graph_cases():
    cases = []
    for case in programs.CASES:
        if _lookup(SKIP, "graph", case) or _lookup(XFAIL, "graph", case) or \
                ("graph", case.name) in REJECTED:
            continue
        cases.append(pytest.param(case, id=case.id.replace(" ", "_")))
    return cases


@pytest.fixture
def interpret_loops_too(monkeypatch):
    """Every graph the interpreter supports is interpreted on its first run,
    also one made mostly of loops (which runs its loops compiled): the
    interpreter's loop and branch handling is exercised on such programs."""
    monkeypatch.setattr(interpreter, "worth_interpreting", interpreter.supports)


@pytest.mark.parametrize("case", _graph_cases())
def test_corpus_first_call_interpreted_matches_compiled(case, interpret_loops_too):
    staged = ag.function(case.entity)
    # traced first (what Python prints while tracing is printed once, here)
    _run(staged.get_concrete_function, case.call.args, case.call.kwargs)
    first = _run(staged, case.call.args, case.call.kwargs)
    ran = [p for p in _programs(staged) if p.runs]
    for program in ran:  # (a trace that failed leaves no program)
        assert program.runs == 1
        assert (program.compiled is None) == interpreter.supports(program.graph)
    second = _run(staged, case.call.args, case.call.kwargs)
    for program in ran:
        assert program.compiled is not None  # the second run compiled it
    _assert_same_runs(first, second)


# --- targeted programs ------------------------------------------------------------


def _first_and_second(fn, *args):
    """Both runs of one ag.function, checking which path each took."""
    staged = ag.function(fn)
    first = _run(staged, args)
    (program,) = _programs(staged)
    assert program.compiled is None and program.runs == 1  # interpreted
    second = _run(staged, args)
    assert program.compiled is not None and program.runs == 2
    return first, second


def printing_and_checking(x, n):
    if x[0] > 0:
        print("positive", x[0])
        total = x.sum() * n
        if total > 10:
            print("large", total)
    else:
        print("not positive", x[0], sep="|")
        total = x.min() * n
    print("total", total, sep="=", end="!\n")
    assert total < 100, "total too large"
    return total, x * total


@pytest.mark.parametrize("values", [[1.5, -2.0, 3.25], [200.0, 1.0, 0.0], [-1.0, 2.0, 3.0]])
def test_print_order_and_assert_message_are_the_same(values):
    first, second = _first_and_second(printing_and_checking,
                                      np.array(values, np.float32), np.int64(3))
    _assert_same_runs(first, second)
    assert "positive" in first[2]
    if values[0] == 200.0:
        assert type(first[1]) is AssertionError and str(first[1]) == "total too large"
        assert any("raised by the graph op `assert`" in n for n in first[1].__notes__)


def staged_raise(x):
    if np.sum(x) > 10:
        raise ValueError("sum too large")
    return x / np.sum(x)


@pytest.mark.parametrize("scale", [1.0, 10.0])
def test_staged_raise_is_the_same(scale):
    first, second = _first_and_second(staged_raise, np.arange(4.0) * scale)
    _assert_same_runs(first, second)
    assert (first[1] is not None) == (scale == 10.0)


def test_assert_failing_on_the_first_run_fails_on_the_second_too():
    @function(autograph=False)
    def check(x):
        assert_op(np.all(x > 0), "x must be positive")
        print_op("checked", x)
        return np.log(x)

    first = _run(check, (np.array([1.0, -1.0]),))
    (program,) = _programs(check)
    assert program.compiled is None
    second = _run(check, (np.array([1.0, -1.0]),))
    assert program.compiled is not None
    _assert_same_runs(first, second)
    assert type(first[1]) is AssertionError and first[2] == ""


def test_variable_updates_are_the_same():
    def make():
        counter = Variable(np.int64(0), name="counter")
        weights = Variable(np.linspace(-1.0, 1.0, 6, dtype=np.float32), name="w")

        @function(autograph=False)
        def step(x):
            counter.assign_add(np.int64(1))
            weights.assign(weights * np.float32(0.5) + x)
            print_op("step", counter.read_value())
            return weights.read_value() @ x, counter.read_value()
        return step, counter, weights

    x = np.full(6, 0.1, np.float32)
    runs = []
    for compile_first in (False, True):
        step, counter, weights = make()
        program = step.get_concrete_function(x)._program
        if compile_first:
            step.get_concrete_function(x).source  # noqa: B018 (compiles it before its first run)
        outcomes = []
        for _ in range(3):
            outcomes.append(_run(step, (x,)) + (_bits(counter.numpy()), _bits(weights.numpy())))
        assert program.compiled is not None
        runs.append(outcomes)
    interpreted_first, compiled_only = runs
    assert interpreted_first == compiled_only
    assert interpreted_first[0] != interpreted_first[1]  # (the state moves on)
    assert interpreted_first[0][2] == "step 1\n"


def nested_loops(x, n):
    rows = []
    i = 0
    while i < n:
        j = 0
        acc = x[i]
        while j < i:
            if acc > 1:
                acc = acc / 2
            else:
                acc = acc * 3 + j
            j += 1
        rows.append(acc)
        i += 1
    out = ag.stack(rows)
    return out, out.sum() if n > 2 else out.max()


def test_nested_while_cond_and_lists_are_the_same(interpret_loops_too):
    first, second = _first_and_second(nested_loops, np.linspace(0.5, 4, 5), np.int64(5))
    _assert_same_runs(first, second)
    assert first[1] is None


def branches_outside_loops(x, y, flag):
    if flag > 0:
        z = np.tanh(x @ y) * -1.0
        w = (z.T, z.sum(axis=0), z[1:, ::2][:, 0])
    else:
        z = np.maximum(x @ y, 0.0)
        w = (z.T * 2, z.mean(axis=0), z[:3, 0])
    return z.astype(np.float64) ** 2, w, -z, ~(z > 0), z.reshape(-1)[::3]


@pytest.mark.parametrize("flag", [1, -1])
def test_straight_line_ops_and_cond_are_the_same(flag):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = rng.standard_normal((3, 5)).astype(np.float32)
    first, second = _first_and_second(branches_outside_loops, x, y, np.int64(flag))
    _assert_same_runs(first, second)


def products(a, b):
    return a @ b, a.T @ a, (a @ b)[::2] @ b.T


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dot_special_case_is_the_same(dtype):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((6, 5)).astype(dtype)
    b = rng.standard_normal((5, 7)).astype(dtype)
    for args in [(a, b), (np.asfortranarray(a), b[:, ::1])]:
        first, second = _first_and_second(products, *args)
        _assert_same_runs(first, second)


def test_seed_workloads_first_and_second_runs_are_the_same():
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        import workloads
    finally:
        sys.path.remove(str(root / "benchmarks"))
    loops_only = {"Collatz(27) int64", "sum_even(np.arange(1000))",
                  "linreg 200 steps (training)", "MLP Adam 50 steps (train_mlp)"}
    for name, fn, args, *_ in workloads.WORKLOADS:
        if name in loops_only:  # compiled at once (worth_interpreting), no guard yet
            staged = ag.function(fn)
            first = _run(staged, args)
            (program,) = _programs(staged)
            assert not interpreter.worth_interpreting(program.graph), name
            assert program.compiled is not None and staged._entries == []
            second = _run(staged, args)
            assert len(staged._entries) == 1
        else:  # the other seed workloads take the interpreted path
            first, second = _first_and_second(fn, *args)
        _assert_same_runs(first, second)


def test_source_and_listing_are_there_after_an_interpreted_run():
    staged = ag.function(lambda x: np.tanh(x) + 1.0, autograph=False)
    staged(np.ones(3))
    concrete_fn = staged.get_concrete_function(np.ones(3))
    assert concrete_fn._program.compiled is None
    assert "def " in concrete_fn.source and "return" in concrete_fn.source
    assert concrete_fn._program.compiled is not None  # compiled on demand
    assert "tanh" in str(concrete_fn.graph)
    np.testing.assert_array_equal(staged(np.ones(3)), np.tanh(np.ones(3)) + 1.0)


def test_the_fast_call_is_made_by_the_second_call():
    staged = ag.function(lambda x: x * 2, autograph=False)
    staged(np.ones(2))
    assert staged._entries == []
    staged(np.ones(2))
    assert len(staged._entries) == 1
    assert concrete.COMPILE_AT_RUN == 2


def test_an_op_with_an_unknown_emitter_is_compiled_at_once():
    op = core.OpDef("test.unknown_emitter", np.negative, lambda x: [(x.shape, x.dtype)],
                    emit=lambda node, outs, args, ctx: [f"{outs[0]} = -{args[0]}"])
    graph = core.Graph("g")
    x = graph.placeholder((2,), np.float64)
    node = graph.add_node(op, (x,), {}, [((2,), np.dtype(np.float64))])
    graph.outputs = [node.outputs[0]]
    assert not interpreter.supports(graph)
    program = concrete._Program(graph)
    assert program.compiled is not None
    np.testing.assert_array_equal(program([np.ones(2)])[0], -np.ones(2))


def test_negative_literals_keep_their_sign_under_a_power():
    """`(-1) ** x` compiled to `-1 ** x`, i.e. -(1 ** x), until literals got
    parentheses; the interpreted first run was right, the second was not."""
    staged = ag.function(lambda x: (-1) ** x + (-2.0) ** x * -0.0, autograph=False)
    x = np.arange(4)
    expected = (-1) ** x + (-2.0) ** x * -0.0
    for _ in range(3):
        assert _bits(staged(x)) == _bits(expected)
    assert "(-1) ** " in staged.get_concrete_function(x).source


def _warnings_of_calls(staged, x, calls):
    """[(message, category)] shown over `calls` calls, "default" action (once
    per code location); locations are not compared (interpreter.py's line on
    run 1, the compiled graph's after)."""
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("default")
        for _ in range(calls):
            staged(x)
    return [(str(w.message), w.category) for w in shown]


def dividing(x):
    return (x + 1) / 0.0, (x + 2) / 0.0, np.log(x - 1), x * 3


def dividing_in_a_loop(x, n):
    i = 0
    while i < n:
        x = x / 0.0
        i += 1
    return x, (x + 1) * 2, x - 3, x * 4, x / 5, np.sqrt(x)


def _compiled_only(fn, *args):
    staged = ag.function(fn)
    staged.get_concrete_function(*args).source  # noqa: B018 (compiled before run 1)
    return staged


@pytest.mark.parametrize("fn", [dividing, dividing_in_a_loop])
def test_warnings_shown_once_per_op_as_compiled_code_shows_them(fn, interpret_loops_too):
    """Run 1 (interpreted) shows each op's warning once, as its own line of
    compiled code would; runs 2-3 (compiled) do not show them again."""
    args = (np.ones(2), np.int64(2)) if fn is dividing_in_a_loop else (np.zeros(2),)
    staged = ag.function(fn)
    calls = (lambda x: staged(*args)) if fn is dividing_in_a_loop else staged
    compiled = _compiled_only(fn, *args)
    compiled_calls = (lambda x: compiled(*args)) if fn is dividing_in_a_loop else compiled
    interpreted_first = _warnings_of_calls(calls, args[0], 3)
    (program,) = _programs(staged)
    assert program.compiled is not None and program.runs >= 2
    expected = _warnings_of_calls(compiled_calls, args[0], 3)
    assert interpreted_first == expected and expected
    assert ("divide by zero encountered in divide", RuntimeWarning) in expected


def test_a_warning_turned_error_is_raised_by_both_runs():
    staged = ag.function(dividing)
    outcomes = []
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            outcomes.append(_run(staged, (np.zeros(2),)))
    (program,) = _programs(staged)
    assert program.compiled is not None
    _assert_same_runs(*outcomes)
    assert type(outcomes[0][1]) is RuntimeWarning


def test_an_interpreted_first_run_inside_another_trace_reads_static_shapes():
    # the first run of `inner` (interpreted) happens while `outer` traces: the
    # interpreter must read the engine's static shapes, not user code's .shape,
    # which would record a staged dim into the outer graph
    @ag.function
    def gradient(x):
        return ag.grad(lambda v: np.sum(v * 2.0))(x)

    inner = gradient.get_concrete_function(ag.TensorSpec((None,), np.float64))

    @ag.function
    def outer(y):
        return y + inner(np.ones(3))[0]

    assert outer(np.float64(1.0)) == 3.0
