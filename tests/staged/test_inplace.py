"""In-place operators on graph tensors (issue 8): a graph tensor is a value,
so `x += 1` rebinds `x` to a new tensor.  That is exactly Python's result when
no one else holds the numpy array; where someone does -- the caller (an
argument), a view of the array or the array a view shares memory with,
another name still used afterwards -- staged mode refuses at trace time,
naming the variable, the line and the fix (graph/tensor.py).  In-place numpy
methods and functions (`t.fill(0)`, `np.copyto(t, v)`) are refused too."""

import re

import numpy as np
import pytest

import autograph as ag

LINE = r"\S*test_inplace\.py:\d+"


def _same(fn, *args):
    """Staged gives plain Python's result and leaves the arguments as Python does."""
    plain_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    staged_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = fn(*plain_args)
    got = ag.function(fn)(*staged_args)
    np.testing.assert_array_equal(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    for p, s in zip(plain_args, staged_args):
        np.testing.assert_array_equal(s, p)


def _refused(fn, pattern, *args):
    with pytest.raises(ag.errors.InPlaceChangeError, match=pattern):
        ag.function(fn)(*args)


# --- allowed: nobody else holds the array ------------------------------------------


def fresh_result(x):
    y = x * 2
    y += 1
    y -= x
    y *= 3
    y /= 2
    y **= 2
    return y


def fresh_copy(x):
    y = x.copy()
    y += 1
    z = np.copy(x)
    z *= 2
    return y + z


def fresh_integer_operators(x):
    y = x * 3
    y //= 2
    y %= 5
    y &= 6
    y |= 1
    y ^= 2
    y <<= 1
    y >>= 1
    return y


def fresh_matmul(m):
    a = m + 0.0
    a @= m
    return a


def numpy_zeros_accumulator(xs):
    acc = np.zeros(3)
    for x in xs:
        acc += x
    return acc


def python_float_accumulator(xs):
    acc = 0.0
    for x in xs:
        acc += x
    return acc


def python_number_argument(x, k):
    k += x.sum()
    return k


def float32_plus_float64(x):
    y = x * 2  # float32: numpy writes the float64 sum back as float32
    y += x.astype(np.float64) / 3
    return y


def test_fresh_tensors_change_as_in_python():
    _same(fresh_result, np.arange(1.0, 4.0))
    _same(fresh_copy, np.arange(3.0))
    _same(fresh_integer_operators, np.arange(5))
    _same(fresh_matmul, np.eye(2) * 2)
    _same(float32_plus_float64, np.arange(3, dtype=np.float32))


def test_accumulators_made_inside():
    _same(numpy_zeros_accumulator, np.arange(12.0).reshape(4, 3))
    _same(python_float_accumulator, np.arange(4.0))
    _same(python_number_argument, np.arange(3.0), 1.5)


def accumulate_in_branch(x):
    y = x * 2
    if x.sum() > 0:
        y += 1
    return y


def test_fresh_tensor_changed_in_a_staged_if():
    _same(accumulate_in_branch, np.ones(3))
    _same(accumulate_in_branch, -np.ones(3))


# --- refused: the caller's array -----------------------------------------------------


def inplace_on_arg(x):
    x += 1
    return x


def sgd_step(w, g):
    w -= 0.1 * g


def arg_through_loop(x, n):
    for _ in range(n):
        x *= 2
    return x


def test_argument_changed_in_place_is_refused():
    _refused(inplace_on_arg, rf"`x \+= \.\.\.` at {LINE} changes the argument `x` in place.*"
             r"x = x \+ \.\.\..*ag\.Variable", np.arange(3.0))
    _refused(sgd_step, rf"`w -= \.\.\.` at {LINE} changes the argument `w`.*w = w - ",
             np.ones(3), np.ones(3))
    _refused(arg_through_loop, r"changes the argument `x`", np.ones(3), np.int64(3))
    _refused(inplace_on_arg, r"changes the argument `x`", np.array(2.0))  # 0-d array


def count_down(n):
    total = n - n
    while n > 0:
        total += n
        n -= 1
    return total, n


def test_numpy_scalar_argument_rebinds_as_in_python():
    # a numpy scalar is immutable: `+=` rebinds in Python too
    _same(inplace_on_arg, np.float64(2.0))
    _same(count_down, np.int64(4))


def test_python_number_argument_is_not_a_tensor():
    _same(inplace_on_arg, 2.0)


def test_variables_keep_their_own_updates():
    v = ag.Variable(np.zeros(2))

    @ag.function
    def step(g):
        v.assign_sub(0.5 * g)
        return v.read_value()

    step(np.ones(2))
    np.testing.assert_array_equal(v.numpy(), [-0.5, -0.5])


# --- refused: views ------------------------------------------------------------------


def view_mutation(x):
    y = x.copy()
    v = y[:2]
    v += 1
    return y


def base_changed_after_view(x):
    y = x * 2
    v = y.T
    y += 1
    return v


def reshaped_view(x):
    y = x * 2
    r = y.reshape(3, 1)
    r -= 1
    return y


def view_of_argument(x):
    v = x[1:]
    v *= 2
    return v


def astype_without_copy(x):
    y = x.astype(np.float64, copy=False)  # numpy: x itself
    y += 1
    return y


def augmented_slice(x):
    y = x * 2
    y[:2] += 1  # numpy writes into y; a tensor cannot be written into
    return y


def test_views_are_refused():
    _refused(augmented_slice, rf"`y\[\.\.\.\] \+= \.\.\.` at {LINE} changes "
             r"`y\[\.\.\.\]` in place, and `y\[\.\.\.\]` is a numpy view of `y`",
             np.arange(3.0))
    _refused(astype_without_copy, r"changes the argument `x`", np.arange(3.0))
    _refused(view_mutation, rf"`v \+= \.\.\.` at {LINE} changes `v` in place, and `v` is "
             r"a numpy view of `y`", np.arange(3.0))
    _refused(base_changed_after_view, r"`y \+= \.\.\.` .* and `v` is a numpy view of `y`, "
             r"taken before", np.ones((2, 3)))
    _refused(reshaped_view, r"`r` is a numpy view of `y`", np.ones(3))
    _refused(view_of_argument, r"`v` is a numpy view of `x`", np.ones(3))


def fancy_index_is_a_copy(x):
    y = x * 2
    picked = y[np.array([0, 2])]
    picked += 1
    return picked.sum() + y


def test_index_arrays_give_copies():
    _same(fancy_index_is_a_copy, np.arange(3.0))


def view_read_before_the_change(x):
    y = x * 2
    head = y[:2].sum()  # the view is used up: nothing can read it afterwards
    y += 1
    return y * head


def view_of_a_temporary(x):
    v = (x * 2)[:2]  # numpy changes the temporary too, which no one reads
    v += 1
    return v


def view_of_an_argument_through_a_temporary(x):
    v = x[1:][:1]
    v += 1
    return v


def test_views_no_one_reads_again_are_allowed():
    _same(view_read_before_the_change, np.arange(3.0))
    _same(view_of_a_temporary, np.arange(3.0))
    _refused(view_of_an_argument_through_a_temporary, r"`v` is a numpy view of `x`",
             np.arange(3.0))


# --- refused: another name still holding the old array -------------------------------


def alias_read_after_change(x):
    y = x * 2
    z = y
    y += 1
    return z * 1


def scalar_alias_keeps_the_old_number(x):
    s = x.sum()
    before = s
    s += 1  # a numpy scalar: `+=` rebinds, `before` keeps the old number
    return s - before


def test_alias_used_after_the_change_is_refused():
    _same(scalar_alias_keeps_the_old_number, np.arange(3.0))
    _refused(alias_read_after_change, rf"graph tensor `z` is used at {LINE}, after "
             rf"`y \+= \.\.\.` at {LINE} changed the same array in place", np.ones(3))


# --- numpy's casting and broadcasting rules for in-place operators -------------------


def int_true_divide(x):
    y = x * 2
    y /= 3
    return y


def grows(x):
    y = x * 2
    y += np.ones((2, 3))
    return y


def test_numpy_in_place_rules_are_kept():
    with pytest.raises(TypeError):  # numpy: UFuncTypeError
        int_true_divide(np.arange(3))
    with pytest.raises(TypeError, match=r"same_kind"):
        ag.function(int_true_divide)(np.arange(3))
    with pytest.raises(ValueError):
        grows(np.ones(3))
    with pytest.raises(ValueError, match=r"non-broadcastable output operand"):
        ag.function(grows)(np.ones(3))


# --- in-place numpy methods and functions -------------------------------------------


def fill(x):
    y = x * 2
    y.fill(0)
    return y


def sort_method(x):
    y = x * 2
    y.sort()
    return y


def copyto(x):
    y = x * 2
    np.copyto(y, x)
    return y


def add_out(x):
    y = x * 2
    np.add(x, 1, out=y)
    return y


def set_shape(x):
    y = x * 2
    y.shape = (3, 1)
    return y


def resize(x):
    y = x * 2
    y.resize((3, 1))
    return y


def set_item(x):
    y = x * 2
    y[0] = 5
    return y


@pytest.mark.parametrize("fn,what,name", [
    (fill, r"\.fill\(\)", "y"), (sort_method, r"\.sort\(\)", "y"),
    (copyto, r"np\.copyto\(\)", r"\w+"), (set_shape, r"setting \.shape", "y"),
    (resize, r"\.resize\(\)", "y")])
def test_in_place_numpy_calls_are_refused(fn, what, name):
    # (a method names the user's variable, not the tensor's op name `multiply`)
    _refused(fn, rf"{what} on graph tensor '{name}' at {LINE} changes an array in place",
             np.arange(3.0))


def test_out_and_item_assignment_are_refused():
    with pytest.raises(ag.errors.UnsupportedNumpyFunctionError, match=r"out="):
        ag.function(add_out)(np.arange(3.0))
    with pytest.raises(ag.errors.TensorUsageError, match=r"cannot change in place"):
        ag.function(set_item)(np.arange(3.0))


# -- an alias of a changed array, seen where the engine used to miss it ----------------

def alias_returned(x):
    y = x * 2
    z = y
    y += 1
    return z


def alias_used_after_a_staged_if(x):
    y = x * 2
    z = y
    if x.sum() > 0:
        y += 1
    return z + 0


def alias_used_after_a_staged_loop(x, n):
    y = x * 2
    z = y
    for _ in range(n):
        y += 1
    return z * 1


@pytest.mark.parametrize("fn, args, found", [
    (alias_returned, (np.ones(2),), r"is returned by `alias_returned`"),
    (alias_used_after_a_staged_if, (np.ones(2),), r"test_inplace\.py:\d+, after `y \+= \.\.\.`"),
    (alias_used_after_a_staged_loop, (np.ones(2), np.int64(2)),
     r"test_inplace\.py:\d+, after `y \+= \.\.\.`"),
])
def test_an_alias_of_an_array_changed_in_place_is_refused(fn, args, found):
    """numpy: z is the array y changed, so it sees the change (plain Python
    returns 3s); the staged `+=` rebinds y alone, so z would keep 2s."""
    with pytest.raises(ag.AutoGraphError, match=found):
        ag.function(fn)(*args)


def changed_in_one_branch_used_in_the_other(x):
    y = x * 2
    z = y
    if x.sum() > 0:
        y += 1
        out = y
    else:
        out = z * 3  # Python runs one branch: z is unchanged here
    return out


def test_an_alias_used_in_the_sibling_branch_runs():
    for x in (np.ones(2), -np.ones(2)):
        np.testing.assert_array_equal(ag.function(changed_in_one_branch_used_in_the_other)(x),
                                      changed_in_one_branch_used_in_the_other(x))


def increments(x):
    x += 1
    return x


def test_a_zero_d_array_after_a_numpy_scalar_is_refused():
    """np.float64 and a 0-d array share a cache key: the graph traced with the
    scalar (where `+=` rebinds, as in Python) must not run for a 0-d array,
    whose `+=` would change the caller's array in Python."""
    staged = ag.function(increments)
    assert staged(np.float64(1.0)) == 2.0
    with pytest.raises(ag.AutoGraphError, match=r"changes the argument `x` in place"):
        staged(np.array(1.0))
    assert staged(np.float64(5.0)) == 6.0  # the scalar calls still run


def second_name_changed_in_place(x):
    y = x * 1.0
    z = y
    z -= 1.0
    return y, z


def test_the_refusal_names_the_variable_the_statement_changed():
    """`z -= 1.0` where `y` holds the same array: the message said `y -= ...`."""
    second_name_changed_in_place(np.arange(3.0))  # plain Python runs it
    line = second_name_changed_in_place.__code__.co_firstlineno + 3
    _refused(second_name_changed_in_place,
             re.escape(f"after `z -= ...` at {__file__}:{line} changed the same array in "
                       "place") + ".*" + re.escape("rebinds `z` alone. Write `z = z - ...`"),
             np.arange(3.0))


def symmetrized(a0):
    a = a0 * 1.0
    a += a.T
    return a


def added_reversed(x0):
    x = x0 + 0.0
    x += x[::-1].reshape(-1)
    return x


def view_held_by_a_name(x0):
    x = x0 + 0.0
    t = x[::-1]
    x += t
    return x, t


@pytest.mark.parametrize("fn, arg", [(symmetrized, np.arange(4.0).reshape(2, 2)),
                                     (added_reversed, np.arange(4.0))])
def test_a_view_that_is_only_the_operand_runs(fn, arg):
    """`a += a.T`: numpy reads the operand whole before writing (it buffers
    overlapping operands), and nothing holds the view after the statement."""
    for _ in range(3):
        _same(fn, arg)


def test_a_view_held_by_a_name_is_still_refused():
    view_held_by_a_name(np.arange(4.0))  # plain Python runs it
    _refused(view_held_by_a_name, re.escape("`x += ...`") + ".*" +
             re.escape("`t` is a numpy view of `x`"), np.arange(4.0))


def view_of_a_branch_result_changed(x):
    y = x * 1.0
    if x[0] > 0:
        y = y * 2
    y = y.T
    y += 1.0
    return y


def view_of_a_loop_result_changed(x, n):
    y = x * 1.0
    for _ in range(n):
        y = x + y * 0.5
    y = y[::-1]
    y += 1.0
    return y


@pytest.mark.parametrize("fn, args", [
    (view_of_a_branch_result_changed, (np.arange(4.0),)),
    (view_of_a_branch_result_changed, (-np.arange(4.0),)),
    (view_of_a_loop_result_changed, (np.arange(4.0), np.int64(2))),
])
def test_a_view_of_a_result_nothing_else_holds_can_change(fn, args):
    """The array a staged `if` or loop gave `y` is held by nothing once `y`
    is rebound to its view; it was refused ("`y` is a numpy view of `y`"):
    runtime.structure's recursive closures kept the values they walked alive
    (a reference cycle) until the garbage collector ran, and the in-place
    check counts references."""
    _same(fn, *args)


def reversed_in_both_branches(x):
    y = x * 2.0
    if x[0, 0] > 0:
        y = y[::-1]
    else:
        y = y[::-1]
    y += 1.0
    return y


def reversed_in_one_branch(x):
    y = x * 2.0
    if x[0, 0] > 0:
        y = y[::-1]
    y += 1.0
    return y, x


def transposed_in_nested_branches(x):
    y = x * 2.0
    if x[0, 0] > 0:
        if x[1, 1] > 1:
            y = y.T
        else:
            y = y[::-1]
    else:
        y = y.T
    y += 1.0
    return y


def reversed_in_branches_in_a_loop(x):
    y = x * 2.0
    for _ in range(2):  # (a Python loop: a staged `if` at each step)
        if x[0, 0] > 0:
            y = y[::-1]
        else:
            y = y.T
    y += 1.0
    return y


def reversed_in_branches_in_a_staged_loop(x, n):
    y = x * 2.0
    for _ in range(n):
        if y[0, 0] > 0:
            y = y[::-1]
        else:
            y = y.T
    y += 1.0
    return y


@pytest.mark.parametrize("fn", [reversed_in_both_branches, reversed_in_one_branch,
                                transposed_in_nested_branches, reversed_in_branches_in_a_loop])
@pytest.mark.parametrize("x", [np.arange(4.0).reshape(2, 2), -np.arange(4.0).reshape(2, 2),
                               np.array([[1.0, 0.0], [2.0, 3.0]])])
def test_a_view_a_staged_branch_took_of_a_value_nothing_else_holds_can_change(fn, x):
    """`y = y[::-1]` in a staged branch, then `y += 1`: the array the view
    shares is held by nothing else once `y` is rebound.  It was refused ("`y`
    is a numpy view of `multiply`"): the branch's placeholder for `y`, and
    the value outside in the branches' capture records, are held by the
    engine alone, and the view the other branch took is the array changed."""
    _same(fn, x)


def reversed_in_both_branches_kept(x):
    z = x * 2.0
    y = z
    if x[0, 0] > 0:
        y = y[::-1]
    else:
        y = y[::-1]
    y += 1.0
    return y, z


def reversed_in_one_branch_kept(x):
    y = x * 2.0
    w = y
    if x[0, 0] > 0:
        y = y[::-1]
    y += 1.0
    return y, w


def view_kept_from_both_branches(x):
    y = x * 2.0
    if x[0, 0] > 0:
        y = y[::-1]
        w = y[1:]
    else:
        y = y[::-1]
        w = y[1:]
    y += 1.0
    return y, w


def reversed_in_branches_in_a_loop_kept(x):
    y = x * 2.0
    first = y
    for i in range(2):
        if x[0, 0] > 0:
            y = y[::-1]
        else:
            y = y[::-1]
        if i == 0:
            first = y
    y += 1.0
    return y, first


@pytest.mark.parametrize("fn, found", [
    (reversed_in_both_branches_kept, "`y` is a numpy view of `z`"),
    (reversed_in_branches_in_a_loop_kept, "`y` is a numpy view of `first`"),
    (reversed_in_one_branch_kept, "`y` is a numpy view of `w`"),
    (view_kept_from_both_branches, "is a numpy view of `y`, taken before"),
])
def test_a_view_a_staged_branch_took_of_a_value_still_held_is_refused(fn, found):
    fn(np.ones((2, 2)))  # plain Python runs it (and changes the other holder)
    _refused(fn, re.escape("`y += ...`") + ".*" + re.escape(found), np.ones((2, 2)))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("x", [np.arange(4.0).reshape(2, 2), -np.arange(4.0).reshape(2, 2)])
def test_views_staged_branches_took_in_a_staged_loop_can_change(x, n):
    """(The loop body's placeholder was counted as held: its graph's inputs hold it.)"""
    _same(reversed_in_branches_in_a_staged_loop, x, np.int64(n))


def reversed_in_a_staged_loop_then_read(x, n):
    y = x * 2.0
    kept = y
    for _ in range(n):
        if y[0, 0] > 0:
            y = y[::-1]
        else:
            y = y.T
    y += 1.0
    return y + kept


@pytest.mark.parametrize("n", [0, 1, 2])
def test_a_staged_loop_s_view_of_a_value_read_after_is_refused(n):
    reversed_in_a_staged_loop_then_read(np.ones((2, 2)), n)  # plain Python runs it
    _refused(reversed_in_a_staged_loop_then_read,
             re.escape("graph tensor `kept` is used at ") + LINE + re.escape(", after `y += ...`"),
             np.ones((2, 2)), np.int64(n))


def dict_item_carried_then_popped(x, n):
    state = {"a": x * 1.0}
    for _ in range(n):
        state["a"] = state["a"] + x
    a = state.pop("a")
    a = a.T
    a += 1.0
    return a


def list_item_carried_then_dropped(x, n):
    a = [x * 1.0]
    i = 0
    while i < n:
        a[0] = a[0] + x
        i += 1
    a = a[0]
    a = a.T
    a += 1.0
    return a


@pytest.mark.parametrize("fn", [dict_item_carried_then_popped, list_item_carried_then_dropped])
@pytest.mark.parametrize("n", [0, 2])
def test_an_item_a_staged_loop_carried_and_nothing_holds_now_can_change(fn, n):
    """The local the converted loop carried `state['a']` in (`state_a`) kept
    the loop's result after it was stored back: `a = state.pop('a'); a = a.T;
    a += 1` was refused ("`a` is a numpy view of `state_a`")."""
    _same(fn, np.arange(4.0).reshape(2, 2), np.int64(n))


def dict_item_carried_and_still_held(x, n):
    state = {"a": x * 1.0}
    for _ in range(n):
        state["a"] = state["a"] + x
    a = state["a"].T
    a += 1.0
    return a, state


def test_an_item_a_staged_loop_carried_and_still_held_is_refused():
    dict_item_carried_and_still_held(np.ones((2, 2)), 2)  # plain Python runs it
    _refused(dict_item_carried_and_still_held,
             re.escape("`a += ...`") + ".*" + re.escape("`a` is a numpy view of `state['a']`"),
             np.ones((2, 2)), np.int64(2))


def logged_in_nested_loops(x, n):
    log = {"v": []}
    total = x[0] * 0.0
    for i in range(n):
        k = 0
        while k < n:
            k += 1
            log["v"].append(total)
        total = total + x[i]
    return total, len(log["v"])


def test_a_loop_carrying_an_item_inside_a_staged_loop_stages():
    """The outer staged `for` refused the inner loop's `del` of the local it
    carried `log['v']` in ("a `for` loop deleting the variable 'log_v_2'"):
    found by the gradient fuzzer (seed 4303)."""
    expected = logged_in_nested_loops(np.arange(3.0), 3)
    got = ag.function(logged_in_nested_loops)(np.arange(3.0), np.int64(3))
    assert got[0] == expected[0] and got[1] == expected[1]
