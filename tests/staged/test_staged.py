"""Every staged program (programs.py) run three ways with equal results:

  * plain Python on the numpy arguments (the reference);
  * `ag.to_graph` on Python scalars and on numpy values (the Python path of
    the converted code), against the original on the same values;
  * `ag.function` on numpy arrays: traced once for all argument sets of one
    signature, its loop bodies traced a bounded number of times (not once
    per iteration), printing what the plain run prints on every call.
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from . import programs
from .programs import PROGRAMS, TICKS

# Lines a program prints with Python's print (no tensor): tracing time only.
TRACE_ONLY_OUTPUT = {"print_python_and_staged": "tracing\n"}
MAX_BODY_TRACES = 4  # per program over all its calls; plain runs tick per iteration


def _same(expected, actual, path="result"):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), \
            f"{path}: {actual!r}, expected {expected!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            _same(e, a, f"{path}[{i}]")
        return
    e, a = np.asarray(expected), np.asarray(actual)
    assert e.shape == a.shape and np.array_equal(e, a), f"{path}: {actual!r}, expected {expected!r}"
    assert e.dtype.kind == a.dtype.kind or {e.dtype.kind, a.dtype.kind} <= {"i", "u"}, \
        f"{path}: dtype {a.dtype}, expected {e.dtype}"


def _run(fn, args, capsys):
    capsys.readouterr()
    result = fn(*args)
    return result, capsys.readouterr().out


def _python_scalars(args):
    return tuple(a.item() if isinstance(a, np.generic) else a for a in args)


def _ids(p):
    return p.name


@pytest.mark.parametrize("program", PROGRAMS, ids=_ids)
def test_python_path_matches_plain_python(program, capsys):
    converted = ag.to_graph(program.fn)
    sets = list(program.argument_sets)
    if program.python_args:
        sets += [_python_scalars(args) for args in program.argument_sets]
    for args in sets:
        expected, expected_out = _run(program.fn, args, capsys)
        actual, actual_out = _run(converted, args, capsys)
        assert type(actual) is type(expected)
        _same(expected, actual)
        assert actual_out == expected_out


@pytest.mark.parametrize("program", PROGRAMS, ids=_ids)
def test_staged_matches_plain_python(program, capsys):
    staged = ag.function(program.fn)
    plain_ticks = graph_ticks = 0
    trace_only = TRACE_ONLY_OUTPUT.get(program.name, "")
    for call, args in enumerate(program.argument_sets):
        TICKS.clear()
        expected, expected_out = _run(program.fn, args, capsys)
        plain_ticks += TICKS[program.name]
        TICKS.clear()
        actual, actual_out = _run(staged, args, capsys)
        graph_ticks += TICKS[program.name]
        _same(expected, actual)
        if call > 0:
            expected_out = expected_out.replace(trace_only, "", 1)
        assert actual_out == expected_out, f"call {call}: printed {actual_out!r}"
    assert staged.experimental_get_tracing_count() == 1
    assert graph_ticks <= MAX_BODY_TRACES, f"loop body traced {graph_ticks} times"
    if program.loops:
        assert plain_ticks > graph_ticks or plain_ticks == 0, (plain_ticks, graph_ticks)


@pytest.mark.parametrize("program", PROGRAMS, ids=_ids)
def test_graph_holds_staged_control_flow(program):
    graph = str(ag.function(program.fn).get_concrete_function(*program.argument_sets[0]).graph)
    if program.loops:
        assert "while_loop(" in graph
    else:
        assert "cond(" in graph or "np.where" in graph


def test_suite_is_large_enough():
    assert len(PROGRAMS) >= 30
    assert len({p.name for p in PROGRAMS}) == len(PROGRAMS)


def test_loop_body_traced_once_not_per_iteration():
    staged = ag.function(programs.collatz)
    TICKS.clear()
    assert staged(np.int64(27)) == 111  # 111 iterations
    assert TICKS["collatz"] == 1
    assert staged(np.int64(97)) == 118
    assert TICKS["collatz"] == 1
    assert staged.experimental_get_tracing_count() == 1


def test_print_in_staged_loop_prints_on_every_call(capsys):
    staged = ag.function(programs.print_python_and_staged)
    staged(np.int64(3))
    assert capsys.readouterr().out == "tracing\n0\n1\n2\n"
    staged(np.int64(3))
    assert capsys.readouterr().out == "0\n1\n2\n"
    graph = str(staged.get_concrete_function(np.int64(3)).graph)
    assert graph.count("print(") == 1


def test_condition_on_static_shape_is_decided_while_tracing():
    def by_shape(x):
        if x.shape[0] > 3:
            return x.sum()
        return -x.sum()

    staged = ag.function(by_shape)
    assert staged(np.ones((5, 2))) == 10.0 and staged(np.ones((2, 2))) == -4.0
    assert staged.experimental_get_tracing_count() == 2  # one graph per shape
    assert "cond(" not in str(staged.get_concrete_function(np.ones((5, 2))).graph)


def test_python_range_unrolls_tensor_range_does_not():
    def over_python_range(x):
        for i in range(3):
            print(x + i)
        return x

    def over_tensor_range(n):
        for i in range(n):
            print(i)
        return n

    unrolled = str(ag.function(over_python_range).get_concrete_function(np.int64(1)).graph)
    assert unrolled.count("print(") == 3 and "while_loop" not in unrolled
    staged = str(ag.function(over_tensor_range).get_concrete_function(np.int64(1)).graph)
    assert staged.count("print(") == 1 and staged.count("while_loop(") == 1


def test_maximum_iterations_bounds_the_staged_loop():
    staged = ag.function(programs.maximum_iterations)
    assert staged(np.int64(1000)) == 10
    assert staged(np.int64(4)) == 4


def test_shape_invariants_allow_a_growing_array():
    staged = ag.function(programs.growing_array)
    total, length = staged(np.int64(4))
    assert (total, length) == (81.0, 16)


def test_failing_assert_in_staged_loop_fails_at_run_time():
    def checked(n):
        total = 0
        for i in range(n):
            assert total < 10, "total too large"
            total += i
        return total

    staged = ag.function(checked)
    assert staged(np.int64(4)) == 6
    with pytest.raises(AssertionError, match="total too large"):
        staged(np.int64(8))
    assert staged(np.int64(3)) == 3
    assert staged.experimental_get_tracing_count() == 1


def test_lazy_or_does_not_evaluate_right_operand_when_not_needed(capsys):
    staged = ag.function(programs.lazy_and_or)
    staged(np.float64(-1.0))
    assert capsys.readouterr().out == ""
    staged(np.float64(2.0))
    assert capsys.readouterr().out == "evaluating the right operand of 2.0\n"


def test_np_stack_of_python_list_of_tensors_in_unrolled_loop():
    def stacked(x):
        items = []
        for i in range(3):
            items.append(x * i)
        return np.stack(items)

    np.testing.assert_array_equal(ag.function(stacked)(np.float64(2.0)), [0.0, 2.0, 4.0])


def test_staged_list_with_declared_element_type_can_be_empty():
    def maybe_empty(n):
        out = []
        ag.set_element_type(out, np.float64, ())
        for i in range(n):
            out.append(i * 2.0)
        return ag.stack(out)

    staged = ag.function(maybe_empty)
    np.testing.assert_array_equal(staged(np.int64(0)), np.zeros(0, np.float64))
    result = staged(np.int64(3))
    assert result.dtype == np.float64
    np.testing.assert_array_equal(result, [0.0, 2.0, 4.0])


def test_scalar_promotion_follows_numpy():
    staged = ag.function(programs.scalar_promotion)
    result = staged(np.float32(1.5), np.int64(4))
    expected = programs.scalar_promotion(np.float32(1.5), np.int64(4))
    assert result.dtype == expected.dtype == np.float32
    assert result == expected


def test_unknown_dims_use_dynamic_length():
    def total_rows(m):
        count = 0
        for row in m:
            count += 1
        return count

    staged = ag.function(total_rows, input_signature=[ag.TensorSpec((None, 2), np.float64)])
    assert staged(np.ones((5, 2))) == 5
    assert staged(np.ones((0, 2))) == 0
    assert staged.experimental_get_tracing_count() == 1


def test_np_stack_of_list_built_in_staged_loop():
    def doubled(xs):
        out = []
        for x in xs:
            out.append(x * 2)
        return np.stack(out)

    staged = ag.function(doubled)
    np.testing.assert_array_equal(staged(np.arange(4)), [0, 2, 4, 6])
    assert "list_stack" in str(staged.get_concrete_function(np.arange(4)).graph)


def test_list_built_in_staged_loop_is_returned_as_python_list():
    def rows_of(matrix):
        rows = []
        for row in matrix:
            rows.append(row + 1)
        return rows

    result = ag.function(rows_of)(np.array([[1, 2], [3, 4]]))
    assert type(result) is list and len(result) == 2
    np.testing.assert_array_equal(result[1], [4, 5])


def test_other_uses_of_a_staged_list_item_iterator_fail_clearly():
    def concatenated(n):
        out = []
        for i in range(n):
            out.append(i)
        return np.concatenate(out)

    # (numpy's C dispatcher iterates the list from the user's frame, as any() does)
    with pytest.raises(ag.AutoGraphError, match=r"staged list 'out' .* is iterated at .*"
                                                r"np\.concatenate\(lst\)"):
        ag.function(concatenated)(np.int64(2))


def built_then_iterated(x, n, use):
    out = []
    for i in range(n):
        out.append(x[i] > 1)
    return use(out)


@pytest.mark.parametrize("use", [any, all, set, lambda out: [v for v in out],
                                 lambda out: (lambda *items: len(items))(*out)],
                         ids=["any", "all", "set", "comprehension", "star"])
def test_a_staged_list_iterated_by_python_is_refused(use):
    # iterating it gave one stand-in object for the whole list: any() and
    # all() were always True, len(set(out)) 1, f(*out) got one argument
    x = np.array([0.5, -1.5, 2.0, 3.0])
    with pytest.raises(errors.StagingError, match=r"staged list 'out' .* is iterated at "
                                                  r".*test_staged\.py"):
        ag.function(built_then_iterated)(x, np.int64(4), use)


def test_len_of_range_with_staged_bounds():
    # regression (corpus range_with_numpy_bounds): len(range(t)) took
    # np.asarray of the staged bound and failed with a TensorUsageError
    def range_lengths(stop, step):
        return len(range(stop)), len(range(stop, 0, step)), len(range(1, stop, 2))

    staged = ag.function(range_lengths)
    for stop, step in [(5, -1), (0, -1), (-3, -2), (6, -4)]:
        args = (np.int64(stop), np.int32(step))
        assert tuple(staged(*args)) == range_lengths(*args), (stop, step)
    assert staged.experimental_get_tracing_count() == 1


def test_not_of_a_staged_value_is_one_bool():
    # regression (corpus numpy_truthiness_errors 'not'): `not t` gave the
    # elementwise np.logical_not of a multi-element tensor, an array where
    # Python raises; a one-element array gives a scalar, as Python's bool does
    def negate(x):
        return not x

    staged = ag.function(negate)
    for value in (np.array([3]), np.array([[0.0]]), np.int64(0), np.bool_(True)):
        result = staged(value)
        assert type(result) is bool and result == negate(value), value  # Python's bool


def test_item_of_a_list_built_in_staged_loop():
    # regression (corpus range_with_numpy_bounds): `out[0]` on the staged list
    # failed with "too many indices for a tensor of shape ()"
    def ends(stop, k):
        out = []
        for i in range(stop, 0, -1):
            out.append(i * 10)
        return out[0], out[-1], out[k], len(out)

    staged = ag.function(ends)
    assert tuple(staged(np.int64(5), np.int64(1))) == (50, 10, 40, 5)
    with pytest.raises(IndexError):
        staged(np.int64(0), np.int64(1))

    def sliced(stop):
        out = []
        for i in range(stop):
            out.append(i)
        return out[1:]

    with pytest.raises(errors.GraphError, match=re.escape(
            "a staged list (built in a staged loop) is indexed with slice(1, None, None)")):
        ag.function(sliced)(np.int64(3))
