"""Private names (`self.__w`, a local `__total`) in methods: Python mangles
them with the class's name when it compiles the class (`_A__w`); the
transpiler compiles a method's converted code inside a class of the same
name, so the converted code reads the same attributes -- in plain calls and
staged."""

import numpy as np
import pytest

import autograph as ag


class Base:
    def scale(self, x):
        return x * 2.0


class A(Base):
    def __init__(self):
        self.__w = np.float64(2.0)

    def uses_super(self, x):
        return super().scale(np.sin(x)) * self.__w

    def staged_loop(self, x):
        __total = x * 0.0
        for _ in range(3):
            if x > 0:
                __total = __total + self.__w
        return __total

    def nested_function(self, x):
        def inner(v):
            return v * self.__w
        return inner(x)

    class B:
        def __init__(self):
            self.__v = np.float64(3.0)

        def method(self, x):
            return x * self.__v


class __Underscored:  # mangled with the name stripped: `_Underscored__z`
    def __init__(self):
        self.__z = np.float64(4.0)

    def method(self, x):
        return x * self.__z


class _:  # a name of underscores only: Python mangles nothing
    def __init__(self):
        self.__z = np.float64(5.0)

    def method(self, x):
        return x * self.__z


CASES = [(A().uses_super, 1.0), (A().staged_loop, 1.0), (A().staged_loop, -1.0),
         (A().nested_function, 2.0), (A.B().method, 2.0), (__Underscored().method, 3.0),
         (_().method, 3.0)]


@pytest.mark.parametrize("method, x", CASES, ids=lambda c: getattr(c, "__qualname__", str(c)))
def test_private_names_are_mangled_as_python_mangles_them(method, x):
    x = np.float64(x)
    expected = method(x)
    assert ag.to_graph(method)(x) == expected  # the plain body
    assert ag.function(method)(x) == expected  # the staged one
