"""Arrays inside objects held by globals, read directly by the traced function
(issue 8): `LAYERS[0].w`, a dataclass field `P.w`, `MODEL.w`.

ag.function bakes what it reads from outside into the graph as constants and
watches them (graph/guards.py): an array changed in place is seen (its
contents are compared), and so is an attribute of an object held by a global
rebound to another array (`MODEL.w = new_array`, the usual way to update a
parameter): guards.py watches each link of the path from the global.  Each
test compares the call after the change with plain Python.
"""

from dataclasses import dataclass

import numpy as np
import pytest

import autograph as ag


class Layer:
    def __init__(self, w):
        self.w = w


@dataclass
class Params:
    w: np.ndarray


def _fresh():
    global LAYERS, P, MODEL
    LAYERS = [Layer(np.ones(3))]
    P = Params(np.ones(3))
    MODEL = Layer(np.ones(3))


_fresh()


def reads_item_attribute(x):
    return x * LAYERS[0].w


def reads_dataclass_field(x):
    return x + P.w


def reads_attribute(x):
    return x + MODEL.w


REBINDS = [
    (reads_item_attribute, lambda: setattr(LAYERS[0], "w", np.full(3, 5.0))),
    (reads_dataclass_field, lambda: setattr(P, "w", np.full(3, 5.0))),
    (reads_attribute, lambda: setattr(MODEL, "w", np.full(3, 5.0))),
]
IN_PLACE = [
    (reads_item_attribute, lambda: LAYERS[0].w.__setitem__(slice(None), 7.0)),
    (reads_dataclass_field, lambda: P.w.__setitem__(slice(None), 7.0)),
    (reads_attribute, lambda: MODEL.w.__setitem__(slice(None), 7.0)),
]


def _after_change(fn, change):
    _fresh()
    staged = ag.function(fn)
    x = np.ones(3)
    staged(x)
    change()
    return staged(x), fn(x)


@pytest.mark.parametrize("fn, change", IN_PLACE, ids=lambda v: getattr(v, "__name__", ""))
def test_array_changed_in_place_is_seen(fn, change):
    got, expected = _after_change(fn, change)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("fn, change", REBINDS, ids=lambda v: getattr(v, "__name__", ""))
def test_rebound_attribute_is_seen(fn, change):
    got, expected = _after_change(fn, change)
    np.testing.assert_array_equal(got, expected)


class Stateful:
    def __init__(self):
        self.w = np.zeros(3)

    def step(self, x):
        self.w = self.w + x  # rebinds the attribute: a graph tensor, while tracing
        return self.w


def test_attribute_rebound_to_a_tensor_is_refused():
    """Python rebinds self.w on every call; a graph would keep the first
    trace's tensor there (and bake the traced self.w into later calls)."""
    plain, staged_model = Stateful(), Stateful()
    staged = ag.function(staged_model.step)
    x = np.ones(3)
    plain.step(x)
    np.testing.assert_array_equal(plain.step(x), [2.0, 2.0, 2.0])
    with pytest.raises(ag.errors.TraceLeakError, match=r"self\.w"):
        staged(x)
