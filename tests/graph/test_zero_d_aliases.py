"""0-d arrays, numpy scalars and their aliases under ag.function.

numpy's in-place operators change a 0-d array in place -- in its own dtype,
under every name holding it -- and rebind a numpy scalar or a Python number.
A 0-d graph tensor cannot tell the two apart by its shape, so the ops that
make a 0-d array in Python mark it (tensor.is_zero_d_array): `s =
np.array(total); t = s; s += 1` used to return the old `t`, and `s_f32 +=
x_f64` gave float64.  A holder left stale by an in-place change is refused
where it is read -- also through a unary operator, .astype(), .copy(),
.reshape(), .T, .item(), float() or np.array(), which used to read the old
value silently (n-d arrays too).
"""

import linecache
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.arange(3.0)


def same_as_python(f, *args):
    """Runs `f` plain and staged: the same values, types and dtypes."""
    expected = f(*args)
    got = ag.function(f)(*args)
    assert type(got) is type(expected) or (  # (documented: a computed 0-d array
        type(expected) is np.ndarray and expected.shape == ()  # comes back a scalar)
        and isinstance(got, np.generic))
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def line_of(f, k):
    """file:line of the k-th line of `f`'s body (the `def` is line 0)."""
    code = f.__code__
    return errors.where(code.co_filename, code.co_firstlineno + k)


# --- an alias of a 0-d array changed in place ----------------------------------------

def aliased_array_incremented(x):
    s = np.array(x.sum())
    t = s
    s += 1
    return t * 1


def aliased_asarray_doubled(x):
    s = np.asarray(x.sum())
    t = s
    s *= 2
    return t * 1


def aliased_np_copy_floor_divided(x):
    s = np.copy(x.sum())
    t = s
    s //= 2
    return t * 1


def aliased_copy_of_an_array_powered(x):
    s = np.array(x.sum()).copy()
    t = s
    s **= 2
    return t * 1


def aliased_int_array_masked(x):
    s = np.array(x.sum(), dtype=np.int64)
    t = s
    s &= 2
    return t * 1


def aliased_zeros_accumulated(x):
    s = np.zeros(())
    t = s
    for v in x:
        s -= v
    return t * 1


@pytest.mark.parametrize("f, symbol", [
    (aliased_array_incremented, "+="), (aliased_asarray_doubled, "*="),
    (aliased_np_copy_floor_divided, "//="), (aliased_copy_of_an_array_powered, "**="),
    (aliased_int_array_masked, "&=")])
def test_an_alias_of_a_zero_d_array_changed_in_place_is_refused_where_read(f, symbol):
    f(X)  # (Python: `t` sees the change; the graph would give the old value)
    message = errors.in_place_alias_message("t", "s", symbol, line_of(f, 3), line_of(f, 4))
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.function(f)(X)


def test_an_alias_of_a_zero_d_array_changed_in_a_staged_loop_is_refused():
    # (the numpy array is held by `t`: refused as the loop's in-place change)
    with pytest.raises(errors.InPlaceChangeError,
                       match=re.escape(f"`s -= ...` at {line_of(aliased_zeros_accumulated, 4)} "
                                       "changes `s` in place, and the numpy array it holds "
                                       "is also held by `t`")):
        ag.function(aliased_zeros_accumulated)(X)


def returns_the_alias(x):
    s = np.array(x.sum())
    t = s
    s += 1
    return t


def test_a_returned_alias_of_a_zero_d_array_changed_in_place_is_refused():
    f = returns_the_alias
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(
            f"is returned by `{f.__name__}` (called at ")) as caught:
        ag.function(f)(X)
    assert f"after `s += ...` at {line_of(f, 3)} changed the same array" in str(caught.value)


def held_in_a_list(x):
    s = np.array(x.sum())
    items = [s]
    s += 1
    return items[0] * 1


def held_in_a_dict(x):
    s = np.array(x.sum())
    d = {"a": s}
    s += 1
    return d["a"] * 1


def held_in_a_tuple(x):
    s = np.array(x.sum())
    u = (s, 0)
    s += 1
    return u[0] * 1


class _Box:
    pass


def held_by_an_attribute(x):
    box = _Box()
    box.s = np.array(x.sum())
    s = box.s
    s += 1
    return box.s * 1


def changed_through_a_list_item(x):
    s = np.array(x.sum())
    out = [s, s]
    out[0] += 1
    return out[1] * 1


@pytest.mark.parametrize("f", [held_in_a_list, held_in_a_dict, held_in_a_tuple,
                               held_by_an_attribute, changed_through_a_list_item])
def test_a_zero_d_array_held_in_a_container_and_changed_in_place_is_refused(f):
    f(X)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape("changed the same array in "
                                                                  "place")):
        ag.function(f)(X)


def aliased_in_a_branch(x):
    s = np.array(x.sum())
    t = s
    if x[0] >= 0:
        s += 1
    return t * 1


def test_an_alias_of_a_zero_d_array_changed_in_a_staged_branch_is_refused():
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(
            f"after `s += ...` at {line_of(aliased_in_a_branch, 4)} changed the same array")):
        ag.function(aliased_in_a_branch)(X)


# --- a 0-d array changed in place keeps its dtype, as numpy's -------------------------

def float32_array_plus_a_float64(x):
    s = np.array(x.sum(), np.float32)
    s += x[0]
    return s * 1


def astype_float32_plus_a_float64(x):
    s = np.array(x.sum()).astype(np.float32)
    s += x[1]
    return s * 1


def float32_array_plus_a_python_float(x):
    s = np.array(x.sum(), dtype=np.float32)
    s += 0.1
    return s * 1


def int32_array_floor_divided_by_an_int64(x):
    s = np.array(x.sum(), np.int32)
    s //= np.int64(2)
    s %= 5
    s <<= 3
    return s * 1


def float32_accumulator(x):
    s = np.zeros((), np.float32)
    for v in x:
        s += v
        s *= 0.5
    return s * 1


def float32_accumulator_subtracting(x):
    s = np.zeros((), np.float32)
    for v in x:
        s -= v * 2.0
    return s * 1


def int32_counter(x):
    s = np.zeros((), np.int32)
    for i in range(len(x)):
        s += i
    return s * 1


def float16_counter(x):
    s = np.zeros((), np.float16)
    for v in x:
        s += 1
    return s * 1


def float32_array_in_a_branch(x):
    s = np.array(x.sum(), np.float32)
    if x[0] >= 0:
        s += x[1]
    return s * 1


def unaliased_array_incremented(x):
    s = np.array(x.sum())
    s += 1
    return s * 1


def reshaped_to_zero_d(x):
    s = (x.astype(np.float32) * 2)[:1].reshape(())
    s += x[2]
    return s * 1


@pytest.mark.parametrize("f", [
    float32_array_plus_a_float64, astype_float32_plus_a_float64,
    float32_array_plus_a_python_float, int32_array_floor_divided_by_an_int64,
    float32_accumulator, float32_accumulator_subtracting, int32_counter, float16_counter,
    float32_array_in_a_branch, unaliased_array_incremented, reshaped_to_zero_d])
def test_a_zero_d_array_changed_in_place_keeps_its_dtype(f):
    same_as_python(f, X)


def int_array_plus_a_half(x):
    s = np.array(x.sum(), dtype=np.int64)
    s += 0.5
    return s


def zero_d_array_plus_a_vector(x):
    s = np.array(x.sum())
    s += np.ones(2)
    return s


def test_numpy_refuses_casting_into_a_zero_d_int_array():
    with pytest.raises(TypeError, match="Cannot cast"):  # (numpy's UFuncTypeError)
        int_array_plus_a_half(X)
    with pytest.raises(errors.GraphTypeError, match=re.escape(
            "+=: numpy cannot cast the result (float64) into `s` (int64) with casting rule "
            f"'same_kind'; write `s = s + ...` for a new array (at "
            f"{line_of(int_array_plus_a_half, 2)})")):
        ag.function(int_array_plus_a_half)(X)
    assert issubclass(errors.GraphTypeError, TypeError)


def test_numpy_refuses_growing_a_zero_d_array_in_place():
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        zero_d_array_plus_a_vector(X)
    with pytest.raises(errors.GraphValueError, match=re.escape(
            "+=: the result has shape (2,), `s` has (): numpy cannot write it into the array "
            "in place (non-broadcastable output operand)")):
        ag.function(zero_d_array_plus_a_vector)(X)


# --- numpy scalars and Python numbers still rebind --------------------------------------

def scalar_alias(x):
    s = x.sum()
    t = s
    s += 1
    return t, s


def float32_scalar_plus_a_float64(x):
    s = np.float32(x.sum())
    s += x[0]
    return s


def item_of_an_array_kept(x):
    s = np.array(x.sum())
    t = s[()]
    s += 1
    return t


def asarray_of_a_scalar_is_a_new_array(x):
    s = np.asarray(x.sum())
    v = x.sum()
    w = v
    w += 1
    s += 2
    return s * 1, v * 1, w * 1


def astype_of_a_scalar_is_a_scalar(x):
    n = np.array(x.sum())
    m = n.astype(np.float32)
    m += 1
    return n * 1, m * 1


def copy_of_a_scalar_is_a_scalar(x):
    s = x.sum().copy()
    t = s
    s += 1
    return t


def sum_rebound_then_aliased(x):
    s = np.array(x.sum())
    s = s + 1  # (a numpy scalar from here on)
    t = s
    s += 1
    return t


@pytest.mark.parametrize("f", [scalar_alias, float32_scalar_plus_a_float64,
                               item_of_an_array_kept, asarray_of_a_scalar_is_a_new_array,
                               astype_of_a_scalar_is_a_scalar, copy_of_a_scalar_is_a_scalar,
                               sum_rebound_then_aliased])
def test_numpy_scalars_rebind_as_in_python(f):
    expected, got = f(X), ag.function(f)(X)
    for e, g in zip(*(v if isinstance(v, tuple) else (v,) for v in (expected, got))):
        assert type(g) is type(e) and g == e


# --- a stale holder read through any operation ----------------------------------------

STALE_READS = ["-t", "abs(t)", "t.astype(np.float32)", "t.copy()", "t.reshape(-1)", "t.T",
               "t.ravel()", "t.squeeze()", "t.transpose()", "np.array(t)", "np.asarray(t)",
               "np.copy(t)"]


def _stale_read(made, expression):
    source = (f"def stale(x):\n    s = {made}\n    t = s\n    s += 1\n"
              f"    return {expression}\n")
    namespace = {"np": np}
    filename = f"<zero-d-stale {made} {expression}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace["stale"]


@pytest.mark.parametrize("made", ["np.array(x.sum())", "x * 1"])
@pytest.mark.parametrize("expression", STALE_READS)
def test_a_stale_holder_is_refused_however_it_is_read(made, expression):
    f = _stale_read(made, expression)
    f(X)
    message = errors.in_place_alias_message("t", "s", "+=", line_of(f, 3), line_of(f, 4))
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.function(f)(X)


@pytest.mark.parametrize("expression", ["t.item()", "float(t)"])
def test_a_stale_zero_d_holder_read_as_a_python_number_is_refused(expression):
    f = _stale_read("np.array(x.sum())", expression)
    assert f(X) == X.sum() + 1  # (Python reads the changed array)
    message = errors.in_place_alias_message("t", "s", "+=", line_of(f, 3), line_of(f, 4))
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.function(f)(X)


# --- what a 0-d array is, asked while tracing -----------------------------------------

def type_of_an_array(x):
    s = np.array(x.sum())
    z = np.zeros(())
    for v in x:
        z += v
    return type(s).__name__, isinstance(s, np.ndarray), type(z).__name__, np.isscalar(s)


def test_type_and_isinstance_of_a_zero_d_array_answer_ndarray():
    assert ag.function(type_of_an_array)(X) == type_of_an_array(X)


def prints_an_array(x):
    s = np.array(x.sum(), np.float32)
    t = np.asarray(x[1])
    print(f"{s!r} {t!r} {x.sum()!r}")
    print("%r" % (s,))
    return s * 1


def test_a_zero_d_array_prints_as_an_array(capsys):
    prints_an_array(X)
    expected = capsys.readouterr().out
    ag.function(prints_an_array)(X)
    assert capsys.readouterr().out == expected


# --- more ops that give a 0-d array -------------------------------------------------

def where_of_float32_values(x):
    f = x.astype(np.float32)
    w = np.where(f[0] >= 0, f[1], f[2])
    w += x[0]
    return w * 1


def tensordot_of_vectors(x):
    w = np.tensordot(x.astype(np.float32), x.astype(np.float32), 1)
    w -= x[1]
    return w * 1


@pytest.mark.parametrize("f", [where_of_float32_values, tensordot_of_vectors])
def test_np_where_and_np_tensordot_give_zero_d_arrays(f):
    same_as_python(f, X)


def aliased_where(x):
    w = np.where(x[0] >= 0, x[1], 2.0)
    t = w
    w += 1
    return t * 1


def test_an_alias_of_np_where_changed_in_place_is_refused():
    message = errors.in_place_alias_message("t", "w", "+=", line_of(aliased_where, 3),
                                            line_of(aliased_where, 4))
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.function(aliased_where)(X)


# --- a numpy scalar argument has no views ---------------------------------------------

def ellipsis_of_an_argument(s):
    y = s[...]
    y += 1
    return s * 1, y * 1


def reshape_of_an_argument(s):
    y = s.reshape(())
    y *= 3
    return s * 1, y * 1


@pytest.mark.parametrize("f", [ellipsis_of_an_argument, reshape_of_an_argument])
def test_a_numpy_scalar_arguments_ellipsis_or_reshape_changed_in_place(f):
    expected, got = f(np.float64(2.0)), ag.function(f)(np.float64(2.0))
    assert got == expected
    # (of a 0-d array argument they are views: numpy would change the caller's array)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(
            "and `y` is a numpy view of `s`")):
        ag.function(f)(np.array(2.0))


# --- a Python number a staged loop that ran no iteration left -------------------------

W32 = np.ones(2, np.float32)
ANY_LENGTH = [ag.TensorSpec((None,), np.float64), ag.TensorSpec((2,), np.float32)]


def sum_then_scale(xs, w):
    s = 0.0
    for v in xs:
        s = s + v
    return s * w


def while_sum_then_scale(xs, w):
    s = 0.0
    i = 0
    while i < xs.shape[0]:
        s = s + xs[i]
        i += 1
    return s * w


def count_then_scale(xs, w):
    n = 0
    for i in range(xs.shape[0]):
        n = n + np.int64(1)
    return n * w.astype(np.int32)


def doubled_sum_then_scale(xs, w):
    s = 0.0
    for v in xs:
        s += v
    t = s * 2
    return t * w


@pytest.mark.parametrize("f, loop_line, use_line", [
    (sum_then_scale, 2, 4), (while_sum_then_scale, 3, 6), (count_then_scale, 2, 4),
    (doubled_sum_then_scale, 2, 5)])
def test_a_loop_that_ran_no_iteration_refuses_its_python_start_where_the_dtype_differs(
        f, loop_line, use_line):
    staged = ag.function(f, input_signature=ANY_LENGTH)
    xs = np.arange(3.0)
    same = staged(xs, W32)  # (the loop ran: the numpy value, as in Python)
    expected = f(xs, W32)
    assert same.dtype == expected.dtype and np.array_equal(same, expected)
    empty = np.zeros(0)
    python = f(empty, W32)  # (Python: the start's weak Python number keeps w's narrower dtype)
    name, kind, dtype = ("n", "int", "int64") if f is count_then_scale else \
        ("s", "float", "float64")
    statement = "while" if f is while_sum_then_scale else "for"
    message = errors.python_number_before_loop_message(
        name, kind, dtype, statement, line_of(f, loop_line), python.dtype.name,
        line_of(f, use_line))
    with pytest.raises(errors.PythonNumberPathError, match=re.escape(message)):
        staged(empty, W32)
    assert issubclass(errors.PythonNumberPathError, TypeError)


def narrow_sum_then_scale(xs, w):
    s = 0.0
    for v in xs:
        s = s + v
    return s * w


@pytest.mark.parametrize("nested", [False, True])
def test_a_loop_carrying_its_python_start_narrower_refuses_it_where_the_dtype_differs(nested):
    # `s` carried as float32 (one iteration makes it np.float32) was not marked
    # at all: with no iteration `s * w_f16` gave float32, Python's float16.
    def nested_narrow_sum_then_scale(xs, w):
        s = 0.0
        for _ in range(2):
            for v in xs:
                s = s + v
        return s * w
    f = nested_narrow_sum_then_scale if nested else narrow_sum_then_scale
    w16 = np.ones(2, np.float16)
    staged = ag.function(f, input_signature=[ag.TensorSpec((None,), np.float32),
                                             ag.TensorSpec((2,), np.float16)])
    xs = np.arange(3, dtype=np.float32)
    got, python = staged(xs, w16), f(xs, w16)
    assert got.dtype == python.dtype == np.float32 and np.array_equal(got, python)
    empty = np.zeros(0, np.float32)
    assert f(empty, w16).dtype == np.float16
    loop_line, use_line = (3, 5) if nested else (2, 4)
    message = errors.python_number_before_loop_message(
        "s", "float", "float32", "for", line_of(f, loop_line), "float16", line_of(f, use_line))
    with pytest.raises(errors.PythonNumberPathError, match=re.escape(message)):
        staged(empty, w16)


def nested_sum_then_scale(xs, n, m, w):
    s = 0.0
    for i in range(n):
        for j in range(m - i):
            s = s + xs[j]
    return s * w


def nested_reset_sum_then_scale(xs, n, m, w):
    s = 0.0
    for i in range(n):
        s = 0.0
        for j in range(m - i):
            s = s + xs[j]
    return s * w


def twice_nested_sum_then_scale(xs, n, m, w):
    s = 0.0
    for i in range(n):
        for k in range(2):
            for j in range(m - i):
                s = s + xs[j]
    return s * w


@pytest.mark.parametrize("f, inner_line, use_line", [
    (nested_sum_then_scale, 3, 5), (nested_reset_sum_then_scale, 4, 6),
    (twice_nested_sum_then_scale, 4, 6)])
@pytest.mark.parametrize("n, m", [(2, 0), (2, 1), (3, 1), (1, 2), (0, 2)])
def test_a_nested_loop_that_ran_no_iteration_refuses_its_python_start_where_the_dtype_differs(
        f, inner_line, use_line, n, m):
    # The outer loop ran, an inner one did not: `s` was still Python's float,
    # and `s * w` float32 in Python, where the graph gave float64 silently.
    xs = np.arange(3.0)
    n, m = np.int64(n), np.int64(m)
    python = f(xs, n, m, W32)
    if python.dtype == np.float64:  # (an inner loop ran: the numpy value, as in Python)
        got = ag.function(f)(xs, n, m, W32)
        assert got.dtype == python.dtype and np.array_equal(got, python)
        return
    message = errors.python_number_before_loop_message(  # (the loop that ran none: the
        # inner one, also when the outer one ran none)
        "s", "float", "float64", "for", line_of(f, inner_line), "float32", line_of(f, use_line))
    with pytest.raises(errors.PythonNumberPathError, match=re.escape(message)):
        ag.function(f)(xs, n, m, W32)


def sum_then_default_dtype_uses(xs, w):
    s = 0.0
    for v in xs:
        s = s + v
    return s + 1.0, s * xs.sum(), (s * w).dtype.name


def test_a_loop_that_ran_no_iteration_is_not_refused_where_the_dtype_agrees():
    staged = ag.function(sum_then_default_dtype_uses)
    xs = np.arange(3.0)
    assert staged(xs, W32)[:2] == sum_then_default_dtype_uses(xs, W32)[:2]
    assert staged(xs, W32)[2] == "float64"


def test_gradient_through_the_python_start_check():
    def loss(w, xs):
        s = 0.0
        for v in xs:
            s = s + v
        return np.sum(s * w)
    xs = np.arange(3.0)
    g = ag.grad(ag.function(loss))(W32, xs)
    np.testing.assert_allclose(g, np.full(2, xs.sum()))
    assert g.dtype == W32.dtype
    with pytest.raises(errors.PythonNumberPathError):  # (the check runs in the gradient too)
        ag.grad(ag.function(loss, input_signature=ANY_LENGTH[::-1]))(W32, np.zeros(0))
