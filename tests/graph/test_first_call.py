"""What the first-call speedups (issue 10 item 4) must not change: the garbage
collector's state around a trace, shape rules with 0-d operands, and the
cached dtype rules (the same dtypes as numpy's, float64 included)."""

import gc

import numpy as np
import pytest

from autograph.graph import function
from autograph.graph.ops.base import broadcast_shapes


def test_trace_pauses_the_collector_and_turns_it_back_on():
    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return x + 1

    assert gc.isenabled()
    function(f, autograph=False)(np.ones(3))
    assert seen == [False] and gc.isenabled()


def test_collector_is_back_on_after_a_failing_trace():
    def f(x):
        raise KeyError("boom")

    with pytest.raises(KeyError):
        function(f, autograph=False)(np.ones(3))
    assert gc.isenabled()


def test_collector_left_off_by_the_user_stays_off():
    gc.disable()
    try:
        function(lambda x: x * 2, autograph=False)(np.ones(3))
        assert not gc.isenabled()
    finally:
        gc.enable()


def _young_objects():
    return len(gc.get_objects(0)) + len(gc.get_objects(1))


def test_a_trace_leaves_no_young_objects_to_scan():
    # (the graph's objects, and whatever else was young, go to the oldest
    # generation without the young collection that would only promote them)
    made = [[i] for i in range(2000)]  # young objects of the program's own
    assert _young_objects() >= 2000

    def f(x):
        return (x + 1) * 2

    function(f)(np.ones(3))
    assert _young_objects() < 100
    gc.collect()  # (a full collection still sees them all)
    assert len(made) == 2000


@pytest.fixture
def promotions(monkeypatch):
    """How many times a trace moved every tracked object to the oldest generation."""
    made = []
    freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (made.append(1), freeze()))
    return made


def test_a_failing_trace_promotes_nothing(promotions):
    def f(x):
        raise KeyError("boom")

    with pytest.raises(KeyError):
        function(f)(np.ones(3))
    assert promotions == []
    function(lambda x: x + 1)(np.ones(3))
    assert promotions == [1]


def test_objects_the_program_froze_stay_frozen(promotions):
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        function(lambda x: x - 1)(np.ones(3))
        assert gc.get_freeze_count() > 0  # (gc.unfreeze would make it 0)
    finally:
        gc.unfreeze()
    assert promotions == [1]  # (the program's own freeze only)


@pytest.mark.parametrize("shapes, expected", [
    (((None, 3), ()), (None, 3)),
    (((), (1,)), (1,)),
    (((), ()), ()),
    (((4,), (), (4,)), (4,)),
    (((2, 1), (), (3,)), (2, 3)),
    (((None,), (None,)), (None,)),
])
def test_broadcast_shapes_with_scalars(shapes, expected):
    assert broadcast_shapes(*shapes) == expected


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8])
@pytest.mark.parametrize("scalar", [2, 2.5, True, 300])
def test_traced_dtypes_equal_numpy_on_every_call(dtype, scalar):
    """Twice per case: the second trace reads the rule's cache."""
    x = np.arange(1, 4).astype(dtype)

    def f(x):
        return x * scalar, np.add(scalar, x), x @ x, np.sqrt(x)

    if dtype is np.int8 and scalar == 300:
        with pytest.raises(OverflowError):
            f(x)  # numpy refuses the out-of-range Python int ...
        with pytest.raises(OverflowError):
            function(f, autograph=False)(x)  # ... and so does the trace
        return
    for _ in range(2):
        staged = function(f, autograph=False)(x)
        for got, want in zip(staged, f(x)):
            assert np.asarray(got).dtype == np.asarray(want).dtype
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("name, base", [
    ("x_1", "x"), ("x_12", "x"), ("x_", "x"), ("x", "x"), ("x_1a", "x"), ("xx_1", "x"),
    ("break_1", "break_"), ("break__1", "break_"), ("y_1", "x"), ("x_\u0663", "x"),
    ("x_\u00b2", "x"), ("x_-1", "x"), ("x_1_2", "x_1"), ("x_1_2", "x"),
])
def test_numbered_names_are_told_as_the_pattern_told_them(name, base):
    """Graph.rename's string test gives what `fullmatch(escape(prefix) + r'\\d+')` gave."""
    import re

    from autograph.graph import core
    expected = re.fullmatch(re.escape(core._numbered(base, "")) + r"\d+", name) is not None
    assert core._is_numbered(name, base) == expected



def test_gufunc_signatures_parse_as_the_pattern_parsed_them():
    """linalg._parse_signature's string splits give what `re.findall(r'\\(([^)]*)\\)')`
    gave, for every generalized ufunc numpy has (and spacing variants)."""
    import re

    from autograph.graph.ops import linalg

    def by_pattern(signature):
        ins, outs = signature.split("->")
        return tuple([[d.strip() for d in group.split(",") if d.strip()]
                      for group in re.findall(r"\(([^)]*)\)", part)] for part in (ins, outs))

    modules = [np, np.linalg._umath_linalg]
    signatures = {getattr(m, n).signature for m in modules for n in dir(m)
                  if isinstance(getattr(m, n), np.ufunc) and getattr(m, n).signature}
    signatures |= {"(),()->()", "( m , n ),(n)->( m )", "(3),(3)->(3)"}
    assert "(n?,k),(k,m?)->(n?,m?)" in signatures
    for signature in signatures:
        assert linalg._parse_signature(signature) == by_pattern(signature), signature
