"""A dict argument's keys in the cache key: 1, True and 1.0 (and 0.0 and
-0.0) are one key to `==`, but a function that reads the key sees an int, a
bool or a float, so each has its own graph, and neither the cache nor a
guard hands a call the graph traced for another (it returned a value
computed with the other key, silently)."""

import math

import numpy as np
import pytest

import autograph as ag
from autograph.graph import concrete, signature


def scale_by_key_kind(d):
    return [v * (2.0 if isinstance(k, bool) else 3.0 if isinstance(k, int) else 5.0)
            for k, v in d.items()]


def signed_by_key(d):
    return [v * math.copysign(1.0, k) for k, v in d.items()]


def scale_by_first_of_key(d):
    return [v * (2.0 if isinstance(k[0], bool) else 3.0) for k, v in d.items()]


def keys_back(d):
    return {k: v * 2 for k, v in d.items()}


CALLS = [(scale_by_key_kind, [{1: np.ones(2)}, {True: np.ones(2)}, {1.0: np.ones(2)},
                              {np.int64(1): np.ones(2)}, {1: np.ones(2)}]),
         (signed_by_key, [{0.0: np.ones(2)}, {-0.0: np.ones(2)}, {0.0: np.ones(2)}]),
         # (numpy floats that are no Python float subclass: by their bits too)
         (signed_by_key, [{np.float32(0.0): np.ones(2)}, {np.float32(-0.0): np.ones(2)},
                          {np.longdouble(-0.0): np.ones(2)}, {np.longdouble(0.0): np.ones(2)}]),
         (scale_by_first_of_key, [{(1, "a"): np.ones(2)}, {(True, "a"): np.ones(2)}]),
         (keys_back, [{1: np.ones(2), "w": np.ones(3)}, {True: np.ones(2), "w": np.ones(3)}])]


@pytest.mark.parametrize("fn, calls", CALLS, ids=lambda c: getattr(c, "__name__", ""))
def test_staged_results_follow_the_key_python_sees(fn, calls):
    staged = ag.function(fn)
    for _ in range(3):  # (the later rounds run the fast calls)
        for d in calls:
            got, want = staged(d), fn(d)
            if isinstance(want, dict):
                assert [(type(k), k) for k in got] == [(type(k), k) for k in want]
                got, want = list(got.values()), list(want.values())
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)


def test_a_guard_accepts_no_dict_whose_keys_differ_in_type():
    base = ({1: np.ones(2), "w": np.ones(3)},)
    fn = ag.function(lambda d: len(d), autograph=False).get_concrete_function(*base)
    entry = fn.entry(base)
    assert entry(({1: np.zeros(2), "w": np.ones(3)},)) is not concrete.MISS
    for other in ({True: np.ones(2), "w": np.ones(3)}, {1.0: np.ones(2), "w": np.ones(3)}):
        assert signature.call_key((other,), {}, [], []) != signature.call_key(base, {}, [], [])
        assert entry((other,)) is concrete.MISS


def test_a_saved_function_with_an_int_keyed_dict_loads_and_runs(tmp_path):
    staged = ag.function(lambda d: d[1] * 2 + d[2.5])
    staged({1: np.ones(2), 2.5: np.ones(2)})
    staged.save(str(tmp_path / "f"))
    loaded = ag.load(str(tmp_path / "f"))
    np.testing.assert_array_equal(loaded({1: np.ones(2), 2.5: np.ones(2)}), [3.0, 3.0])
