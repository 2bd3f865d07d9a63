"""What a property's getter or a class's `__getattr__` computed while
tracing is baked into the graph: the guards watch what the getter read --
the object's attributes and, like a function the trace ran, its globals --
so a later change traces again (graph/guards.py `watch_getter`)."""

import numpy as np
import pytest

import autograph as ag

BASE = 2.0


class Model:
    lr = 0.1

    def __init__(self):
        self._decay = 1.0

    @property
    def rate(self):
        return BASE * self._decay * self.lr

    def step(self, x):
        return x * self.rate


class Settings:
    def __init__(self):
        self.table = {"scale": 1.0}

    def __getattr__(self, name):
        try:
            return self.table[name] * BASE
        except KeyError:
            raise AttributeError(name) from None


MODEL = Model()
SETTINGS = Settings()


def through_a_property(x):
    return MODEL.step(x)


def through_getattr(x):
    return x * SETTINGS.scale


def through_an_argument(model, x):
    return model.step(x) + x * model.rate


CHANGES = {
    "global read by the getter": lambda: globals().__setitem__("BASE", 5.0),
    "attribute read by the property": lambda: setattr(MODEL, "_decay", 3.0),
    "class attribute read by the property": lambda: setattr(Model, "lr", 0.5),
    "item read by __getattr__": lambda: SETTINGS.table.__setitem__("scale", 7.0),
}


@pytest.mark.parametrize("change", list(CHANGES), ids=lambda c: c.replace(" ", "_"))
def test_a_change_of_what_a_getter_read_traces_again(change):
    global BASE
    x = np.array([1.0, 2.0])
    cases = [(through_a_property, (x,)), (through_getattr, (x,)),
             (through_an_argument, (MODEL, x))]
    staged = [(fn, ag.function(fn), args) for fn, args in cases]
    try:
        for fn, graph, args in staged:
            np.testing.assert_array_equal(graph(*args), fn(*args))
        CHANGES[change]()
        for fn, graph, args in staged:
            np.testing.assert_array_equal(graph(*args), fn(*args))
    finally:
        BASE, MODEL._decay, Model.lr = 2.0, 1.0, 0.1
        SETTINGS.table["scale"] = 1.0


FACTOR = 2


class Bag:
    def __init__(self):
        self.items = [1, 2]

    def __len__(self):
        return len(self.items) * FACTOR

    def __mul__(self, other):
        return other * FACTOR

    def __getitem__(self, i):
        return self.items[i] * FACTOR


BAG = Bag()


def through_implicit_methods(x):
    return x * len(BAG) + BAG * x + BAG[1]


def test_a_global_an_implicitly_called_method_read_is_watched():
    global FACTOR
    x = np.array([1.0, 2.0])
    staged = ag.function(through_implicit_methods)
    try:
        for factor in (2, 5, 5, 3):
            FACTOR = factor
            np.testing.assert_array_equal(staged(x), through_implicit_methods(x))
        BAG.items[1] = 10  # (its own object's reads: watched before too)
        np.testing.assert_array_equal(staged(x), through_implicit_methods(x))
    finally:
        FACTOR, BAG.items[1] = 2, 2
