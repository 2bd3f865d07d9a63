"""Compiled call guards (signature.guard, ConcreteFunction.entry): a guard
accepts exactly the calls whose cache key equals the one it was made for, so
the fast path never runs a graph traced for other arguments."""

import collections
import re

import numpy as np
import pytest

import autograph as ag
from autograph.graph import concrete, signature


def _traced(fn):
    staged = ag.function(fn, autograph=False)
    return staged


def first_plus(xs, scale):
    return xs[0] * scale


@pytest.mark.parametrize("first, second", [
    ((0.0,), (-0.0,)),
    ((float("nan"),), (1.5,)),
    ((1,), (True,)),
    ((2,), (3,)),
    ((2.0,), (2,)),
    (("a",), ("b",)),
    ((None,), (0,)),
    ((1j,), (2j,)),
])
def test_python_scalars_key_by_type_and_bits(first, second):
    staged = _traced(lambda x, s: (x * 2, s))
    x = np.ones(2)
    out1 = staged(x, *first)
    out2 = staged(x, *second)
    assert staged.experimental_get_tracing_count() == 2
    assert repr(out1[1]) == repr(first[0]) and repr(out2[1]) == repr(second[0])
    staged(x, *first)  # back to the first: no new trace
    assert staged.experimental_get_tracing_count() == 2


@pytest.mark.filterwarnings("ignore::autograph.errors.RetracingWarning")  # retraces on purpose
def test_lists_of_arrays_are_checked_leaf_by_leaf():
    staged = _traced(first_plus)
    xs = [np.ones(3), np.ones(2)]
    np.testing.assert_array_equal(staged(xs, 2.0), np.full(3, 2.0))
    for changed in ([np.ones(4), np.ones(2)], [np.ones(3), np.ones(2, np.float32)],
                    [np.ones(3)], (np.ones(3), np.ones(2)), [np.ones(3), np.float64(1)]):
        before = staged.experimental_get_tracing_count()
        out = staged(changed, 2.0)
        assert staged.experimental_get_tracing_count() == before + 1
        np.testing.assert_array_equal(out, changed[0] * 2.0)


def test_dicts_and_namedtuples():
    Pair = collections.namedtuple("Pair", "a b")
    staged = _traced(lambda d: d["w"] + d["b"].a)
    d = {"w": np.ones(2), "b": Pair(np.ones(2), 3)}
    np.testing.assert_array_equal(staged(d), np.full(2, 2.0))
    staged({"w": np.zeros(2), "b": Pair(np.ones(2), 3)})  # same key
    assert staged.experimental_get_tracing_count() == 1
    staged({"w": np.ones(2), "b": Pair(np.ones(2), 4)})
    assert staged.experimental_get_tracing_count() == 2
    # (another key order: a loop over the dict would see it, as Python's does)
    staged({"b": Pair(np.ones(2), 3), "w": np.ones(2)})
    assert staged.experimental_get_tracing_count() == 3


def test_numpy_scalars_and_0d_arrays_have_traces_of_their_own_and_dtype_counts():
    # (a trace answers `isinstance(x, np.ndarray)` for what it was traced with)
    staged = _traced(lambda x: x + 1)
    assert staged(np.float64(1.0)) == 2.0 and staged(np.zeros(())) == 1.0
    assert staged.experimental_get_tracing_count() == 2
    assert staged(np.float64(5.0)) == 6.0 and staged(np.ones(())) == 2.0
    assert staged.experimental_get_tracing_count() == 2
    out = staged(np.float32(1.0))
    assert type(out) is np.float32 and staged.experimental_get_tracing_count() == 3


def test_objects_by_identity():
    class Box:
        value = 1
    a, b = Box(), Box()
    staged = _traced(lambda box, x: x + box.value)
    staged(a, np.zeros(2))
    b.value = 5
    np.testing.assert_array_equal(staged(b, np.zeros(2)), np.full(2, 5.0))
    assert staged.experimental_get_tracing_count() == 2


def _checker(args):
    """The guard made for `args`, as a function: True when it accepts a call."""
    lines, leaves, namespace = signature.guard(args)
    namespace = dict(namespace, _MISS=False)
    body = "".join(f"    {line}\n" for line in lines)
    exec(f"def check(args):\n{body}    return ({', '.join(leaves)},)\n", namespace)  # noqa: S102
    return namespace["check"]


def test_guard_condition_matches_call_key():
    args = ([np.ones(2), {"k": 1.5, "z": np.int64(3)}], None, "s")
    check = _checker(args)
    leaves = check(args)
    assert len(leaves) == 2 and leaves[0] is args[0][0] and leaves[1] is args[0][1]["z"]
    assert not check(([np.ones(2), {"k": 1.5, "z": np.int32(3)}], None, "s"))
    assert not check(([np.ones(2), {"k": 1.5, "y": np.int64(3)}], None, "s"))
    assert not check(([np.ones(2), {"k": 1.5, "z": np.int64(3)}], None))


def test_concrete_function_called_directly_uses_its_guard_and_still_checks():
    staged = _traced(lambda x, n: x * n)
    fn = staged.get_concrete_function(np.ones(3), 2)
    np.testing.assert_array_equal(fn(np.ones(3), 2), np.full(3, 2.0))
    assert fn._entry is None  # the first run is interpreted, without a guard
    np.testing.assert_array_equal(fn(np.ones(3), 2), np.full(3, 2.0))
    assert fn._entry is not None  # made by the second, with the compiled graph
    np.testing.assert_array_equal(fn(np.ones(3), 2), np.full(3, 2.0))
    with pytest.raises(ag.errors.GraphError):
        fn(np.ones(4, np.int32), 2)
    assert fn._entry((np.ones(3), 3)) is concrete.MISS


def _variants():
    """(base arguments, other arguments): calls a guard made for the first must
    accept exactly when their cache keys are equal."""
    a2, a3 = np.ones(2), np.ones(3)
    base = ([a2, (a3, {"k": a2, "n": 1})], {"w": a2, "b": (1.5, None)}, (a2,) * 3)
    yield base, ([np.zeros(2), (np.zeros(3), {"n": 1, "k": np.ones(2)})],
                 {"b": (1.5, None), "w": np.ones(2)}, (np.ones(2),) * 3)  # equal key
    yield base, ([a2, (a2, {"k": a2, "n": 1})], base[1], base[2])  # nested shape
    yield base, ([a2, (a3, {"k": a2.astype(np.float32), "n": 1})], base[1], base[2])
    yield base, ([a2, [a3, {"k": a2, "n": 1}]], base[1], base[2])  # tuple -> list
    yield base, ([a2, (a3, {"k": a2, "m": 1})], base[1], base[2])  # other dict key
    yield base, ([a2, (a3, {"k": a2, "n": 1, "z": 2})], base[1], base[2])  # extra key
    yield base, ([a2, (a3, {"k": a2, "n": True})], base[1], base[2])  # 1 vs True
    yield base, ([a2, (a3, {"k": a2, "n": 1})], {"w": a2, "b": (-1.5, None)}, base[2])
    yield base, (base[0], base[1], (a2,) * 2)  # shorter tuple
    yield base, (base[0], base[1], (a2, a2, np.float64(1)))  # 0-d scalar for an array
    yield base, (base[0], base[1], (a2, a2, a2.reshape(2, 1)))  # rank
    yield base, (base[0], base[1], (a2, a2, np.ones(2, np.int64)))  # dtype
    yield base, (base[0], base[1], (a2, a2, np.ma.masked_array(a2)))  # a subclass
    yield base, (base[0], base[1])  # fewer arguments
    matrix = [[np.ones((2, 2)) for _ in range(3)] for _ in range(2)]
    yield (matrix,), ([[np.ones((2, 2)) for _ in range(3)] for _ in range(2)],)
    yield (matrix,), ([matrix[0], matrix[1][:2]],)
    yield (matrix,), ([matrix[0], matrix[1][:2] + [np.ones((2, 3))]],)
    yield ({},), ({"a": a2},)
    yield ([],), ((),)


@pytest.mark.parametrize("base, other", list(_variants()))
def test_guards_accept_exactly_the_calls_with_an_equal_key(base, other):
    key = signature.call_key(base, {}, [], [])
    equal = signature.call_key(other, {}, [], []) == key
    fn = ag.function(lambda *args: len(args), autograph=False).get_concrete_function(*base)
    entry = fn.entry(base)
    assert entry(base) is not concrete.MISS
    assert (entry(other) is not concrete.MISS) == equal


class _Defaulting(dict):
    def __missing__(self, key):  # like defaultdict: reading a missing key adds it
        self[key] = np.zeros(2)
        return self[key]


def test_a_dict_subclass_is_not_changed_by_its_guard():
    staged = _traced(lambda d: d["a"] + d["b"])
    staged(_Defaulting(a=np.ones(2), b=np.ones(2)))
    staged(_Defaulting(a=np.ones(2), b=np.ones(2)))  # (the second call makes the guard)
    other = _Defaulting(a=np.ones(2), c=np.ones(2))
    assert staged._entries[0]((other,)) is concrete.MISS
    assert sorted(other) == ["a", "c"]  # (other["b"] would have added "b")


@pytest.mark.filterwarnings("ignore::autograph.errors.RetracingWarning")
def test_relaxed_shapes_get_a_fast_call_per_shape_and_still_check_dtype():
    """reduce_retracing gives a graph with None dims; each new shape it accepts
    gets its own exact fast call, and a dtype it was not traced for does not."""
    staged = ag.function(lambda x: x * 2, autograph=False, reduce_retracing=True)
    for n in (2, 3, 4, 5):
        np.testing.assert_array_equal(staged(np.ones(n)), np.full(n, 2.0))
    assert staged.experimental_get_tracing_count() == 2  # (2,) then (None,)
    assert any(entry((np.ones(4),)) is not concrete.MISS for entry in staged._entries)
    assert all(entry((np.ones(6),)) is concrete.MISS for entry in staged._entries)
    assert all(entry((np.ones(4, np.int64),)) is concrete.MISS for entry in staged._entries)
    out = staged(np.ones(4, np.int64))
    assert out.dtype == np.int64 and staged.experimental_get_tracing_count() == 3


def test_signature_functions_with_none_dims_accept_new_shapes_through_fast_calls():
    staged = ag.function(lambda x: x + 1, autograph=False,
                         input_signature=[ag.TensorSpec([None], np.float64)])
    for n in (1, 3, 3, 7):
        np.testing.assert_array_equal(staged(np.zeros(n)), np.ones(n))
    assert staged.experimental_get_tracing_count() == 1
    with pytest.raises(ag.errors.GraphError):
        staged(np.zeros((2, 2)))


def _is_scalar(x):
    if np.isscalar(x):
        return x * 2
    return x * 3


def _is_array(x):
    return isinstance(x, np.ndarray)


def _bumped_argument(x):
    y = x
    y += 1  # an ndarray changes in place (the caller's too), a numpy scalar rebinds y
    return x


@pytest.mark.parametrize("fn", [_is_scalar, _is_array])
@pytest.mark.parametrize("order", [(np.float64(1.0), np.array(1.0)),
                                   (np.array(1.0), np.float64(1.0))])
def test_a_numpy_scalar_and_a_0d_array_get_python_answers_in_either_order(fn, order):
    staged = ag.function(fn)
    for x in order:
        want, got = fn(x), staged(x)
        assert type(got) is type(want) and got == want


def test_a_0d_array_changed_in_place_is_refused_after_a_numpy_scalar_trace():
    staged = ag.function(_bumped_argument)
    assert staged(np.float64(1.0)) == _bumped_argument(np.float64(1.0)) == 1.0
    with pytest.raises(ag.AutoGraphError, match=re.escape("changes the argument `x` in place")):
        staged(np.array(1.0))


def test_a_concrete_function_of_a_numpy_scalar_says_it_takes_a_scalar():
    concrete = ag.function(lambda x: x * 2).get_concrete_function(np.float64(1.0))
    assert concrete(np.float64(2.0)) == 4.0
    with pytest.raises(ag.AutoGraphError, match=re.escape(
            "called with arrays (() float64) that don't match its traced signature "
            "[TensorSpec(shape=(), dtype=float64) numpy scalar]")):
        concrete(np.array(2.0))
    from_spec = ag.function(lambda x: x * 2).get_concrete_function(ag.TensorSpec([], np.float64))
    assert from_spec(np.float64(2.0)) == from_spec(np.array(2.0)) == 4.0
