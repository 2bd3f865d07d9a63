"""ndarray subclasses (np.memmap, np.recarray, masked arrays, a user's own)
as ag.function arguments: their cache key is the object's identity, so a
guard made for a plain array never accepts one; the trace refuses them with
a message naming the argument and the fix (a graph would drop what the
subclass adds, a masked array's mask), where it used to fail inside with
StopIteration."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors


class Tagged(np.ndarray):
    pass


def _subclassed(tmp_path):
    memmap = np.memmap(tmp_path / "a.dat", dtype=np.float64, mode="w+", shape=(3,))
    memmap[:] = [1.0, 2.0, 3.0]
    return [memmap, np.ones(3).view(np.recarray), np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]),
            np.arange(3.0).view(Tagged)]


@pytest.mark.parametrize("index", range(4), ids=["memmap", "recarray", "masked", "user"])
def test_a_subclass_argument_is_refused_by_name(tmp_path, index):
    value = _subclassed(tmp_path)[index]
    staged = ag.function(lambda x, scale: x * scale)
    np.testing.assert_array_equal(staged(np.ones(3), 2.0), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(staged(np.ones(3), 2.0), [2.0, 2.0, 2.0])  # (fast call)
    for _ in range(2):  # (not cached after the first refusal either)
        with pytest.raises(errors.FunctionUsageError,
                           match=rf"argument `x` .*\.{type(value).__name__}, .* np\.asarray\(x\)"):
            staged(value, 2.0)


def test_a_subclass_inside_a_container_is_refused_by_its_path():
    staged = ag.function(lambda d: d["w"][0] * 2)
    with pytest.raises(errors.FunctionUsageError, match=r"argument `d_w_0` .*Tagged"):
        staged({"w": [np.arange(3.0).view(Tagged)]})
    np.testing.assert_array_equal(staged({"w": [np.arange(3.0)]}), [0.0, 2.0, 4.0])
