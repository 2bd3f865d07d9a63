"""print, assert and Variable: side effects in program order, every call;
Python side effects at trace time only; bool()/len()/iter()/int() errors."""

import re

import numpy as np
import pytest

from autograph import errors
from autograph.graph import TensorSpec, Variable, assert_op, function, print_op


def test_python_side_effects_happen_while_tracing_only(capsys):
    log = []

    @function(autograph=False)
    def f(x):
        print("tracing")
        log.append("traced")
        return x + 1

    f(np.ones(2))
    f(np.ones(2))
    assert capsys.readouterr().out == "tracing\n" and log == ["traced"]


def test_graph_print_runs_every_call_in_program_order(capsys):
    @function(autograph=False)
    def f(x):
        print_op("x:", x)
        y = x * 2
        print_op("y:", y, "sum", y.sum(), sep="|", end="!\n")
        return y

    x = np.arange(3.0)
    f(x)
    f(x + 1)
    expected = ""
    for value in (x, x + 1):
        expected += "x: " + str(value) + "\n"
        expected += "|".join(["y:", str(value * 2), "sum", str((value * 2).sum())]) + "!\n"
    assert capsys.readouterr().out == expected


def test_print_formats_exactly_like_print_of_the_numpy_value(capsys):
    values = (np.float32(1) / 3, np.arange(12).reshape(3, 4), np.array([True, False]))
    f = function(lambda a, b, c: print_op(a, b, c, None, "s", 1.5), autograph=False)
    f(*values)
    out = capsys.readouterr().out
    print(*values, None, "s", 1.5)
    assert out == capsys.readouterr().out


def test_graph_assert_raises_with_message_at_run_time():
    @function(autograph=False)
    def f(x):
        assert_op(np.all(x > 0), "x must be positive")
        assert_op(x.sum() < 100)
        return np.log(x)

    np.testing.assert_allclose(f(np.ones(2)), np.zeros(2))
    with pytest.raises(AssertionError) as e:
        f(-np.ones(2))
    assert type(e.value) is AssertionError and str(e.value) == "x must be positive"
    # the message stays the user's; a note says which op of which line failed
    line = f.python_function.__code__.co_firstlineno + 2
    assert e.value.__notes__ == [
        f"raised by the graph op `assert` recorded at {__file__}:{line}"]
    with pytest.raises(AssertionError) as e:
        f(np.full(2, 60.0))
    assert e.value.args == ()
    assert e.value.__notes__ == [
        f"raised by the graph op `assert` recorded at {__file__}:{line + 1}"]
    assert f.experimental_get_tracing_count() == 1


def test_assert_on_a_non_scalar_condition_is_a_graph_error():
    with pytest.raises(errors.GraphError, match=re.escape("np.all(...)")):
        function(lambda x: assert_op(x > 0, "m"), autograph=False)(np.ones(2))


def test_variable_assign_then_read_sees_the_assign():
    v = Variable(1.0)

    @function(autograph=False)
    def f(x):
        v.assign(2.0)
        a = v.read_value() + x
        v.assign_add(x)
        b = v * 1
        v.assign_sub(1.0)
        return a, b, v.read_value()

    for _ in range(2):
        a, b, c = f(np.float64(10.0))
        assert (a, b, c) == (12.0, 12.0, 11.0)
    assert v.numpy() == 11.0


def test_variable_state_lives_across_calls():
    counter = Variable(0, dtype=np.int64)
    f = function(lambda: counter.assign_add(1).read_value(), autograph=False)
    assert [int(f()) for _ in range(3)] == [1, 2, 3]
    assert counter.numpy() == 3
    counter.assign(10)
    assert f() == 11


def test_variable_in_expressions_and_numpy_functions():
    w = Variable(np.ones((3, 2)))
    f = function(lambda x: (x @ w, np.sum(w), w.T.shape, np.tanh(w)[0]), autograph=False)
    out = f(np.ones((1, 3)))
    np.testing.assert_array_equal(out[0], np.full((1, 2), 3.0))
    assert out[1] == 6.0 and out[2] == (2, 3)
    w.assign(np.zeros((3, 2)))
    assert f(np.ones((1, 3)))[1] == 0.0


def test_returned_variable_value_cannot_mutate_the_variable():
    v = Variable(np.zeros(2))
    f = function(lambda: v.read_value(), autograph=False)
    out = f()
    out[0] = 5
    assert v.numpy()[0] == 0


def test_variable_assign_checks_shape_and_dtype():
    v = Variable(np.zeros(2, np.float32))
    with pytest.raises(errors.GraphError, match=re.escape("cannot assign a value of shape (3,)")):
        function(lambda x: v.assign(x), autograph=False)(np.ones(3, np.float32))
    with pytest.raises(errors.GraphError, match="cannot assign a complex128"):
        function(lambda x: v.assign(x), autograph=False)(np.ones(2, np.complex128))


def test_variable_needs_a_concrete_initial_value():
    with pytest.raises(errors.GraphError, match="concrete initial value"):
        function(lambda x: Variable(x), autograph=False)(np.ones(1))


def test_eager_variable():
    v = Variable([1.0, 2.0])
    v.assign_add(np.ones(2))
    np.testing.assert_array_equal(v.read_value(), [2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(v) * 2, [4.0, 6.0])


@pytest.mark.parametrize("use,what", [
    (lambda t: bool(t), "bool()"),
    (lambda t: iter(t), "iter()"),
    (lambda t: int(t.sum()), "int()"),
    (lambda t: float(t.sum()), "float()"),
    (lambda t: range(t.sum()), "use as a Python index or size"),
])
def test_tensor_needing_a_concrete_value_raises(use, what):
    def f(x):
        return use(x)

    line = use.__code__.co_firstlineno  # the innermost user frame: the lambda
    with pytest.raises(errors.TensorUsageError, match=re.escape(what)) as e:
        function(f, autograph=False)(np.ones(2))
    assert f"test_state.py:{line}" in str(e.value)
    assert "convert" in str(e.value)
    assert isinstance(e.value, errors.AutoGraphError)


def test_len_in_unconverted_code_is_numpys_where_the_dim_is_known():
    """Python's own len() (a user class's `__len__` Python calls by itself,
    unconverted code): the first dim known while tracing, as numpy gives it;
    numpy's TypeError for a 0-d value; refused where the dim is only known
    at run time."""
    def f(x):
        return len(x) * x

    x = np.ones(3)
    np.testing.assert_array_equal(function(f, autograph=False)(x), f(x))
    with pytest.raises(TypeError, match=re.escape("len() of unsized object")):
        function(f, autograph=False)(np.float64(2.0))
    relaxed = function(f, autograph=False, input_signature=[TensorSpec([None], np.float64)])
    with pytest.raises(errors.TensorUsageError, match=re.escape("len()")):
        relaxed(x)


def test_if_on_a_tensor_in_unconverted_code_names_the_line():
    def f(x):
        if x.sum() > 0:  # the line
            return x
        return -x

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(errors.TensorUsageError, match=re.escape(f"test_state.py:{line}")):
        function(f, autograph=False)(np.ones(2))


# --- run-time errors name the graph op and the user's line that recorded it -------


def _line(marker):
    with open(__file__) as source:
        found = [i for i, line in enumerate(source, 1) if line.rstrip().endswith(marker)]
    assert len(found) == 1, found
    return f"{__file__}:{found[0]}"


def test_kernel_error_at_run_time_keeps_type_and_message_and_names_the_line():
    @function(autograph=False)
    def f(x, i):
        y = x * 2
        return np.take(y, i)  # take-line

    assert f(np.arange(3.0), np.int64(1)) == 2.0
    with pytest.raises(IndexError) as e:
        f(np.arange(3.0), np.int64(7))
    with pytest.raises(IndexError) as eager:
        np.take(np.arange(3.0), 7)
    assert type(e.value) is type(eager.value) and str(e.value) == str(eager.value)
    assert e.value.__notes__ == [
        f"raised by the graph op `np.take` recorded at {_line('# take-line')}"]


def test_error_inside_a_loop_body_names_the_op_in_the_body():
    from autograph.graph import while_loop

    @function(autograph=False)
    def f(x, i):
        return while_loop(lambda n, s: n < 3,
                          lambda n, s: (n + 1, s + np.take(x, i + n)),  # body-line
                          (np.int64(0), np.float64(0)))

    assert f(np.arange(5.0), np.int64(0))[1] == 3.0
    with pytest.raises(IndexError) as e:
        f(np.arange(5.0), np.int64(3))
    assert e.value.__notes__ == [
        f"raised by the graph op `np.take` recorded at {_line('# body-line')}"]


def test_each_failing_call_gets_one_note_and_success_none():
    # the note is added once per exception, nothing on the fast path
    @function(autograph=False)
    def f(x):
        assert_op(np.all(x > 0), "positive")
        return x

    for _ in range(2):
        with pytest.raises(AssertionError) as e:
            f(-np.ones(1))
        assert len(e.value.__notes__) == 1
    np.testing.assert_array_equal(f(np.ones(1)), np.ones(1))
