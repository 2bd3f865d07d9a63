"""In-place operators on arrays that a staged `if` or loop passes on (issue 8).

graph/tensor.py refuses `x += 1` where numpy would change an array another
holder sees (an argument, a view, an alias used later).  A staged `if` or
loop passes values on -- a branch result, a loop variable's next value, a
loop's result -- so which array a tensor holds may depend on the path the
graph takes.  Each program here gave a silently wrong result (or left the
caller's array unchanged) before the pass-through edges were followed: now
staged mode matches Python exactly or refuses at trace time, naming the
variable, the line and the fix.  A fresh array (`acc = np.zeros(3)`) keeps
working with `+=` in staged loops and branches.
"""

import numpy as np
import pytest

import autograph as ag

LINE = r"\S*test_inplace_control_flow\.py:\d+"
N = np.int64(3)


def _same(fn, *args):
    """Staged gives plain Python's result and leaves the arguments as Python does."""
    plain_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    staged_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = fn(*plain_args)
    got = ag.function(fn)(*staged_args)
    np.testing.assert_array_equal(got, expected)
    for p, s in zip(plain_args, staged_args):
        np.testing.assert_array_equal(s, p)


def _refused(fn, pattern, *args):
    with pytest.raises(ag.errors.InPlaceChangeError, match=pattern):
        ag.function(fn)(*args)


def _differs_in_python(fn, *args):
    """Plain Python changes an argument, or gives another result than the
    program would with `op=` read as a rebinding: what a silent graph got wrong."""
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn(*args)
    return any(isinstance(a, np.ndarray) and not np.array_equal(a, b)
               for a, b in zip(args, before))


# --- an argument reaches `+=` through a staged `if` or loop ---------------------------


def if_then_loop(x, n):
    if n > 1:
        y = x
    else:
        y = x * 2
    i = 0
    while i < n:
        y += 1
        i += 1
    return y


def if_in_loop(x, n):
    i = 0
    y = np.zeros(3)
    while i < n:
        if i == 1:
            y = x
        y += 1
        i += 1
    return y


def swapped_in_loop(x, n):
    i = 0
    y = np.zeros(3)
    while i < n:
        y += 1
        y, x = x, y
        i += 1
    return x, y


def rebound_after_change_in_for(x, n):
    y = np.zeros(3)
    for _ in range(n):
        y += 1
        y = x
    return y


def loop_result_may_be_argument(x, n):
    b = x * 3
    i = 0
    while i < n:
        b = x
        i += 1
    b += 1
    return b


def nested_if(x, c):
    if c > 0:
        if c > 1:
            y = x
        else:
            y = x * 2
    else:
        y = x * 3
    y *= 2
    return y


def for_over_array(x, xs):
    y = x * 0
    for v in xs:
        y -= v
        y = x
    return y


@pytest.mark.parametrize("fn, args, variable", [
    (if_then_loop, (np.ones(3), N), "y"),
    (if_in_loop, (np.ones(3), N), "y"),
    (swapped_in_loop, (np.ones(3), N), "y"),
    (rebound_after_change_in_for, (np.ones(3), N), "y"),
    (loop_result_may_be_argument, (np.ones(3), N), "b"),
    (nested_if, (np.ones(3), np.float64(2)), "y"),
    (for_over_array, (np.ones(3), np.ones((3, 3))), "y"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_argument_passed_on_by_control_flow_is_refused(fn, args, variable):
    assert _differs_in_python(fn, *[a.copy() for a in args])
    _refused(fn, rf"`{variable} \S+ \.\.\.` at {LINE} changes `{variable}` in place, and "
             rf"`{variable}` may hold the argument `x` \(passed on by the staged (`if`|loop) "
             rf"at {LINE}\)", *args)


# --- another name holds the old array after a staged `if` or loop --------------------


def alias_from_branch(x, c):
    a = x * 1
    if c > 0:
        b = a
    else:
        b = a * 2
    a += 1
    return b


def alias_from_loop(x, n):
    a = x * 1
    b = x * 3
    i = 0
    while i < n:
        b = a
        i += 1
    a += 1
    return b


def alias_changed_in_loop(x, n):
    a = x * 1
    b = x * 3
    i = 0
    while i < n:
        b = a
        a += 1
        i += 1
    return b


def alias_read_next_iteration(x, n):
    a = x * 1
    b = a
    s = x * 0
    i = 0
    while i < n:
        s = s + b
        a += 1
        i += 1
    return s


def alias_read_by_loop_test(x, n):
    a = x * 1
    b = a
    i = 0
    while np.sum(b) < 5 and i < n:
        a += 1
        i += 1
    return a


@pytest.mark.parametrize("fn, args", [
    (alias_from_branch, (np.zeros(3), np.float64(1))),
    (alias_from_loop, (np.zeros(3), N)),
    (alias_changed_in_loop, (np.zeros(3), N)),
    (alias_read_next_iteration, (np.zeros(3), N)),
    (alias_read_by_loop_test, (np.zeros(3), np.int64(10))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_stale_alias_through_control_flow_is_refused(fn, args):
    _refused(fn, rf"`a \+= \.\.\.` at {LINE}", *args)


def test_stale_alias_messages_name_the_holder():
    _refused(alias_from_branch, r"a value \(`b` in the graph\) is returned",
             np.zeros(3), np.float64(1))
    _refused(alias_read_next_iteration, r"an array that `b` also holds, and the loop reads "
             r"`b` again on its next iteration", np.zeros(3), N)


# --- a numpy array the function holds becomes a graph value in a staged region -------

HELD = np.zeros(3)


class Holder:
    def __init__(self):
        self.w = np.zeros(3)


def global_in_loop(n):
    w = HELD
    i = 0
    while i < n:
        w += 1
        i += 1
    return w


def global_in_if(c):
    w = HELD
    if c > 0:
        w += 1
    return w


def local_alias_in_loop(n):
    acc = np.zeros(3)
    b = acc
    i = 0
    while i < n:
        acc += 1
        i += 1
    return b


def local_alias_in_if(c):
    acc = np.zeros(3)
    b = acc
    if c > 0:
        acc *= 2
    return b + acc


def attribute_in_loop(holder, n):
    w = holder.w
    for _ in range(n):
        w -= 1
    return w


@pytest.mark.parametrize("fn, args, variable, holder", [
    (global_in_loop, (N,), "w", "HELD"),
    (global_in_if, (np.float64(1),), "w", "HELD"),
    (local_alias_in_loop, (N,), "acc", "b"),
    (local_alias_in_if, (np.float64(1),), "acc", "b"),
    (attribute_in_loop, (Holder(), N), "w", r"holder\.w"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_held_array_changed_in_staged_region_is_refused(fn, args, variable, holder):
    before = HELD.copy()
    _refused(fn, rf"`{variable} \S+ \.\.\.` at {LINE} changes `{variable}` in place, and "
             rf"the numpy array it holds is also held by `{holder}`", *args)
    np.testing.assert_array_equal(HELD, before)  # not changed while tracing either


# --- allowed: fresh arrays ------------------------------------------------------------


def fresh_in_while(x, n):
    acc = np.zeros(3)
    i = 0
    while i < n:
        acc += x
        i += 1
    return acc


def fresh_in_for(x, n):
    acc = np.zeros(3)
    for i in range(n):
        acc += x * i
        acc *= 2
    return acc


def fresh_in_if(c):
    w = np.zeros(3)
    if c > 0:
        w += 1
    return w


def fresh_in_if_in_loop(x, n):
    acc = np.zeros(3)
    i = 0
    while i < n:
        if i % 2 == 0:
            acc += x
        else:
            acc -= 1
        i += 1
    return acc


def fresh_in_nested_loops(x, n):
    acc = x * 0
    i = 0
    while i < n:
        j = 0
        while j < n:
            acc += x
            j += 1
        i += 1
    return acc


def copy_of_argument_in_loop(x, n):
    y = x.copy()
    i = 0
    while i < n:
        y += 1
        i += 1
    return y


def either_branch_changes(x, c):
    a = x * 1
    if c > 0:
        a += 1
    else:
        a -= 1
    return a


def fresh_swap_without_change(x, n):
    a = x * 1
    b = x * 2
    i = 0
    while i < n:
        a, b = b, a
        a += 1
        i += 1
    return a, b


@pytest.mark.parametrize("fn, args", [
    (fresh_in_while, (np.arange(3.0), N)),
    (fresh_in_for, (np.arange(3.0), N)),
    (fresh_in_if, (np.float64(1),)),
    (fresh_in_if, (np.float64(-1),)),
    (fresh_in_if_in_loop, (np.arange(3.0), np.int64(5))),
    (fresh_in_nested_loops, (np.arange(3.0), N)),
    (copy_of_argument_in_loop, (np.arange(3.0), N)),
    (either_branch_changes, (np.arange(3.0), np.float64(1))),
    (either_branch_changes, (np.arange(3.0), np.float64(-1))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_fresh_arrays_change_in_place(fn, args):
    _same(fn, *args)


def test_swapped_fresh_arrays_change_in_place():
    """`a, b = b, a; a += 1` in a loop: each array keeps one holder, so the
    rebinding `+=` gives numpy's result."""
    _same(fresh_swap_without_change, np.arange(3.0), N)


def test_fresh_array_branch_sees_no_change_from_other_branch():
    """The true branch's `w += 1` ran while tracing on the numpy array both
    branches were given: the false branch returned the changed array."""
    f = ag.function(fresh_in_if)
    np.testing.assert_array_equal(f(np.float64(-1)), np.zeros(3))
    np.testing.assert_array_equal(f(np.float64(1)), np.ones(3))


def test_jax_fresh_array_branch_sees_no_change_from_other_branch():
    """The same under `jax.jit`: the branches are given JAX arrays, so the true
    branch's `w += 1` rebinds `w` instead of changing the one numpy array."""
    jax = pytest.importorskip("jax")
    f = jax.jit(ag.to_graph(fresh_in_if))
    np.testing.assert_array_equal(f(-1.0), np.zeros(3))
    np.testing.assert_array_equal(f(1.0), np.ones(3))


# --- numpy changing a Python-held array in place inside a staged region --------------
# An array a staged `if` or loop body reads but does not carry stays a numpy
# array while the body is traced: `b = w; b += 1` there changed it once, while
# tracing (whichever path the graph later took).  The arrays the user's frames
# hold are read-only while a staged region is traced (runtime/staging.region);
# numpy's error becomes a catalog error naming the variable.


def numpy_alias_changed_in_loop(n):
    w = np.zeros(3)
    i = 0
    while i < n:
        b = w
        b += 1
        i += 1
    return w


def numpy_alias_changed_in_branch(c):
    w = np.zeros(3)
    if c > 0:
        b = w
        b += 1
    return w


def numpy_item_assigned_in_branch(c):
    w = np.zeros(3)
    if c > 0:
        v = w
        v[0] = 5.0
    return w


def numpy_copyto_in_loop(x, n):  # (refused even though this write is idempotent)
    out = np.zeros(3)
    for _ in range(n):
        np.copyto(out, np.arange(3.0))
        x = x + out
    return x


def numpy_list_item_changed_in_loop(n):
    arrays = [np.zeros(3)]
    i = 0
    while i < n:
        first = arrays[0]
        first *= 2
        i += 1
    return arrays[0]


def numpy_fresh_in_body(n):
    acc = np.zeros(3)
    i = 0
    while i < n:
        t = np.ones(3)
        t += 1
        acc = acc + t
        i += 1
    return acc


@pytest.mark.parametrize("fn, args, name", [
    (numpy_alias_changed_in_loop, (N,), "b"),
    (numpy_alias_changed_in_branch, (np.float64(-1),), "b"),
    (numpy_item_assigned_in_branch, (np.float64(-1),), "v"),
    (numpy_copyto_in_loop, (np.ones(3), N), "out"),
    (numpy_list_item_changed_in_loop, (N,), "first"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_numpy_in_place_change_in_staged_region_is_refused(fn, args, name):
    _refused(fn, rf"numpy changes `{name}` in place at {LINE}, inside a staged `if` or loop",
             *args)


def test_arrays_made_in_the_body_and_after_tracing_stay_writeable():
    _same(numpy_fresh_in_body, N)
    held = np.zeros(3)

    def reads(x, n):
        s = x * 0
        for _ in range(n):
            s = s + held
        return s
    _same(reads, np.ones(3), N)
    assert held.flags.writeable


def test_jax_numpy_in_place_change_in_staged_branch_is_refused():
    jax = pytest.importorskip("jax")
    with pytest.raises(ag.errors.InPlaceChangeError, match=r"numpy changes `b` in place"):
        jax.jit(ag.to_graph(numpy_alias_changed_in_branch))(-1.0)


# --- an array held by an attribute or item that a staged statement carries ----------
# `self.w -= lr * g` in a staged loop: the attribute is loop state, so while
# the body is traced it holds a tensor, and the array stays with the object.
# Python changes that array in place (the model's state); the graph rebound
# a value, and after tracing left a graph tensor in `self.w`.


class Model:
    def __init__(self):
        self.w = np.zeros(3)

    def step(self, x, n):
        for _ in range(n):
            self.w -= 0.1 * x
        return self.w

    def maybe_step(self, x):
        if np.sum(x) > 0:
            self.w += x
        return self.w


PARAMS = {"w": np.ones(3)}


def dict_item_in_loop(n):
    d = PARAMS
    i = 0
    while i < n:
        d["w"] *= 2
        i += 1
    return d["w"]


@pytest.mark.parametrize("make_call, holder", [
    (lambda: ag.function(Model().step)(np.ones(3), N), r"<Model object>\.w"),
    (lambda: ag.function(Model().maybe_step)(np.ones(3)), r"<Model object>\.w"),
    (lambda: ag.function(dict_item_in_loop)(N), r"<dict object>\['w'\]"),
], ids=["attribute_in_loop", "attribute_in_if", "dict_item_in_loop"])
def test_array_of_carried_attribute_or_item_changed_in_place_is_refused(make_call, holder):
    with pytest.raises(ag.errors.InPlaceChangeError,
                       match=rf"in place, and the numpy array it holds is also held by `{holder}`"):
        make_call()


def test_refused_attribute_keeps_its_array():
    model = Model()
    with pytest.raises(ag.errors.InPlaceChangeError):
        ag.function(model.step)(np.ones(3), N)
    assert type(model.w) is np.ndarray
    np.testing.assert_array_equal(model.w, np.zeros(3))


def slice_changed_in_a_branch(x):
    y = x * 1
    if x[0] > 0:
        y[1:3] += 10
    return y


def test_a_view_changed_in_a_branch_is_named_after_the_users_variable():
    # (the branch sees the tensor it captured: the message named it `multiply[...]`)
    with pytest.raises(ag.AutoGraphError, match=r"`y\[\.\.\.\] \+= \.\.\.` at " + LINE +
                       r" changes `y\[\.\.\.\]` in place, and `y\[\.\.\.\]` is a numpy view of `y`"):
        ag.function(slice_changed_in_a_branch)(np.array([1.0, 2.0, 3.0, 4.0]))
