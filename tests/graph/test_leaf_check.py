"""The C test of call guards' array leaves (graph/_leafcheck.c, loaded by
graph/leaf_check.py): it answers exactly what the guards' Python test
answers, guards written with it accept exactly the calls guards written
without it accept, and staged results do not depend on which one ran."""

import collections
import importlib.util
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.graph import concrete, leaf_check, signature

BUILT = importlib.util.find_spec("autograph.graph._leafcheck") is not None
C_CHECK = leaf_check.leaves_ok


def _c_check():
    if C_CHECK is None:
        pytest.skip(f"no C leaf check here: {leaf_check.status}")
    return C_CHECK


@pytest.fixture(params=["C leaf check", "pure Python"])
def path(request, monkeypatch):
    """Runs a test once with each kind of guard."""
    if request.param == "C leaf check":
        _c_check()
    else:
        monkeypatch.setattr(leaf_check, "leaves_ok", None)
    return request.param


@pytest.mark.skipif(not BUILT, reason="the C extension _leafcheck is not built "
                                      "(an install without a compiler)")
def test_the_built_extension_is_what_guards_use():
    if os.environ.get(leaf_check.PURE_PYTHON_VARIABLE, "") not in ("", "0"):
        pytest.skip(f"{leaf_check.PURE_PYTHON_VARIABLE} is set")
    from autograph.graph import _leafcheck
    assert leaf_check.leaves_ok is _leafcheck.leaves_ok, leaf_check.status
    assert leaf_check.status == "C leaf check"
    lines, _, namespace = signature.guard(([np.ones(2), np.ones(3)],))
    assert namespace["_leaves_ok"] is _leafcheck.leaves_ok
    assert "_leaves_ok(" in lines[-2] and ".shape" not in "".join(lines)


def test_the_environment_variable_forces_the_python_guards():
    code = ("import numpy as np; from autograph.graph import leaf_check, signature; "
            "print(leaf_check.leaves_ok, leaf_check.status); "
            "print(''.join(signature.guard((np.ones(2),))[0]))")
    env = dict(os.environ, **{leaf_check.PURE_PYTHON_VARIABLE: "1"})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith(f"None pure Python ({leaf_check.PURE_PYTHON_VARIABLE} is set)")
    assert "x0.shape == (2,)" in out and "_leaves_ok" not in out


def test_the_self_test_refuses_a_wrong_check():
    assert leaf_check._self_test(
        lambda spec, *xs: all(type(x) is np.ndarray for x in xs)) is not None
    assert leaf_check._self_test(  # equal dtypes are not enough: the test is `is`
        lambda spec, *xs: len(xs) == len(spec[1]) and all(
            type(x) is np.ndarray and x.dtype == d for x, d in zip(xs, spec[1]))
        and [s for x in xs for s in (x.ndim, *x.shape)] == list(
            np.frombuffer(spec[2], np.intp))) is not None
    if C_CHECK is not None:
        assert leaf_check._self_test(C_CHECK) is None


def _agrees(check, leaves, shapes, dtypes):
    answer = check(leaf_check.spec(shapes, dtypes), *leaves)
    assert answer is leaf_check.python_answer(leaves, shapes, dtypes), (leaves, shapes, dtypes)
    return answer


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_the_c_check_agrees_with_python_on_the_edge_cases():
    check = _c_check()
    answers = set()
    for x in leaf_check._samples():
        for shape, dtype in leaf_check._expectations(x):
            answers.add(_agrees(check, [x], [shape], [dtype]))
    assert answers == {True, False}
    metadata = np.dtype(np.float64, metadata={"unit": "m"})
    assert not check(leaf_check.spec([(3,)], [np.dtype(np.float64)]), np.zeros(3, metadata))
    assert not check(leaf_check.spec([(2, 2)], [np.dtype(np.float64)]),
                     np.asmatrix(np.ones((2, 2))))


def test_a_malformed_spec_is_an_error_not_a_crash():
    check = _c_check()
    x = np.ones(2)
    good = leaf_check.spec([(2,)], [x.dtype])
    for spec in [None, (), good[:2], (np.ndarray, [x.dtype], good[2]), (np.ndarray,) + good[1:2]
                 + (good[2][:-1],), (np.ndarray, good[1], good[2] + good[2]),
                 (np.ndarray, good[1], leaf_check.spec([(2, 2, 2, 2, 2)], [x.dtype])[2][:16])]:
        with pytest.raises(TypeError):
            check(spec, x)
    with pytest.raises(TypeError):
        check(good)  # one dtype, no leaf
    with pytest.raises(TypeError):
        check()
    assert check(good, x) is True and check(good, "not an array") is False


_DTYPES = [np.dtype(t) for t in ("f8", "f4", "i8", "i1", "?", "c16", ">f8", "<i4")] + [
    np.dtype([("a", "i4"), ("b", "f8")]), np.dtype(np.float64, metadata={"k": 1})]


@st.composite
def _leaf_cases(draw):
    """(leaves, shapes, dtypes): arrays and what to test them against, often
    equal, sometimes one dim, the rank, the dtype object or the type off."""
    count = draw(st.integers(0, 4))
    leaves, shapes, dtypes = [], [], []
    for _ in range(count):
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=4)))
        dtype = draw(st.sampled_from(_DTYPES))
        x = np.zeros(shape, dtype)
        form = draw(st.sampled_from(["same", "transposed", "view", "subclass", "scalar"]))
        if form == "transposed":
            x = x.T
        elif form == "view" and x.ndim:
            x = x[::2]
        elif form == "subclass":
            x = x.view(np.ma.MaskedArray)
        elif form == "scalar":
            x = x.dtype.type(0) if x.dtype.names is None else x
        expected_shape, expected_dtype = np.shape(x), x.dtype
        change = draw(st.sampled_from(["none", "none", "dim", "rank", "dtype", "equal dtype"]))
        if change == "dim" and expected_shape:
            expected_shape = (expected_shape[0] + 1,) + expected_shape[1:]
        elif change == "rank":
            expected_shape = expected_shape + (1,)
        elif change == "dtype":
            expected_dtype = draw(st.sampled_from(_DTYPES))
        elif change == "equal dtype":
            expected_dtype = np.dtype(expected_dtype.descr if expected_dtype.names
                                      else expected_dtype.str)
        leaves.append(x)
        shapes.append(expected_shape)
        dtypes.append(expected_dtype)
    return leaves, shapes, dtypes


@pytest.mark.skipif(C_CHECK is None, reason=f"no C leaf check here: {leaf_check.status}")
@settings(max_examples=300, deadline=None)
@given(_leaf_cases())
def test_the_c_check_agrees_with_python_on_drawn_arrays(case):
    _agrees(C_CHECK, *case)


def _calls():
    """(arguments a guard is made for, other calls to try on it)."""
    a2, a3, m = np.ones(2), np.ones(3), np.ones((2, 3))
    with warnings.catch_warnings():  # ("the matrix subclass is not the recommended way")
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        matrix = np.asmatrix(m)
    Pair = collections.namedtuple("Pair", "a b")
    base = ([a2, (a3, {"k": m, "n": 1})], {"w": a2, "s": np.float32(1)}, Pair(a3, 2.5))
    yield base, [
        ([np.zeros(2), (np.zeros(3), {"k": np.ones((2, 3)), "n": 1})],
         {"w": np.ones(2), "s": np.float32(2)}, Pair(np.ones(3), 2.5)),  # equal key
        ([a2, (a3, {"n": 1, "k": m})], base[1], base[2]),  # another order: Python's loops see it
        ([a3, (a3, {"k": m, "n": 1})], base[1], base[2]),  # wrong shape
        ([a2, (a3, {"k": m.T, "n": 1})], base[1], base[2]),  # transposed
        ([a2, (a3, {"k": m.astype(np.float32), "n": 1})], base[1], base[2]),  # dtype
        ([a2.astype(">f8"), (a3, {"k": m, "n": 1})], base[1], base[2]),  # byte order
        ([np.ones(2, np.dtype("f8", metadata={"u": 1})), (a3, {"k": m, "n": 1})],
         base[1], base[2]),  # an equal dtype, another object
        ([a2.view(np.ma.MaskedArray), (a3, {"k": m, "n": 1})], base[1], base[2]),  # subclass
        ([a2, (a3, {"k": matrix, "n": 1})], base[1], base[2]),  # np.matrix
        ([a2, (a3,)], base[1], base[2]),  # shorter tuple
        ([a2, (a3, {"k": m, "n": 1}), a2], base[1], base[2]),  # longer list
        ([a2, (a3, {"n": 1})], base[1], base[2]),  # a missing key
        ([a2, (a3, {"k": m, "q": 1})], base[1], base[2]),  # another key
        ([a2, (a3, {"k": m, "n": 1})], {"w": a2, "s": np.float64(1)}, base[2]),  # scalar dtype
        ([a2, (a3, {"k": m, "n": 1})], {"w": a2, "s": np.ones((), np.float32)}, base[2]),
        ([a2, (a3, {"k": m, "n": 1})], {"w": np.float64(1), "s": np.float32(1)}, base[2]),
        ([a2, (a3, {"k": m, "n": 1})], base[1], Pair(a3, 3.5)),  # a Python value
        ([a2, (a3, {"k": m, "n": 1})], base[1], (a3, 2.5)),  # tuple for namedtuple
        ([a2, (a3, {"k": [1.0, 2.0], "n": 1})], base[1], base[2]),  # a list for an array
        ([a2, (a3, {"k": m, "n": 1})], base[1]),  # an argument fewer
    ]
    many = [np.full(4, float(i)) for i in range(20)]
    yield (many,), [([np.zeros(4) for _ in range(20)],), (many[:19],), (many + [many[0]],),
                    (many[:19] + [np.ones(5)],), (many[:19] + [np.ones(4, np.int64)],),
                    (tuple(many),), ({f"k{i}": a for i, a in enumerate(many)},)]
    yield (np.float64(1), 2), [(np.float64(3), 2), (np.ones(()), 2), (np.float32(1), 2)]
    yield (), [(), (a2,)]


@pytest.mark.parametrize("base, others", list(_calls()))
def test_guards_with_and_without_the_c_check_accept_the_same_calls(base, others, monkeypatch):
    fn = ag.function(lambda *args: len(args), autograph=False).get_concrete_function(*base)
    key = signature.call_key(base, {}, [], [])
    expected = [signature.call_key(o, {}, [], []) == key for o in others]

    def accepted(leaves_ok):
        monkeypatch.setattr(leaf_check, "leaves_ok", leaves_ok)
        entry = fn.entry(base)
        assert entry(base) is not concrete.MISS
        return [entry(o) is not concrete.MISS for o in others]

    # (a guard may refuse an equal key -- a 0-d array for a numpy scalar, a
    # dtype with metadata -- and the call then computes the key)
    python = accepted(None)
    assert True in python and False in python
    assert all(equal for ok, equal in zip(python, expected) if ok)
    if C_CHECK is not None:
        assert accepted(C_CHECK) == python


def _model(params, x):
    h = x
    for w, b in params["layers"]:
        h = np.tanh(h @ w + b)
    return h * params["scale"] + sum(params["extras"])


def test_staged_results_do_not_depend_on_the_guards(path):
    rng = np.random.default_rng(0)
    layers = [(rng.standard_normal((4, 4)), rng.standard_normal(4)) for _ in range(3)]
    params = {"layers": layers, "scale": np.float32(2), "extras": (np.ones(4), np.ones(4))}
    staged = ag.function(_model, autograph=False)
    calls = [(params, np.ones((2, 4))), (params, np.ones((2, 4))), (params, np.zeros((2, 4))),
             (dict(params, scale=np.float64(2)), np.ones((2, 4))),
             (dict(params, layers=layers[:2]), np.ones((2, 4))), (params, np.ones((3, 4))),
             (params, np.ones((2, 4)))]
    for p, x in calls:
        out = staged(p, x)
        expected = _model(p, x)
        assert out.dtype == expected.dtype
        np.testing.assert_array_equal(out, expected)
    assert staged.experimental_get_tracing_count() == 4
    uses_c = any("_leaves_ok" in e.__globals__ for e in staged._entries)
    assert uses_c == (path == "C leaf check")
