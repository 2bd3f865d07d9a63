"""Classes and functions defined inside a converted function have the
qualified names Python gives them (`f.<locals>.P`), in plain mode and when
staged: not the factory's (`ag__factory.<locals>.ag__entity.<locals>.P`), and
not those of the functions the converters generate for a branch or loop
body (`f.<locals>.loop_body.<locals>.inner`).  A repr shows them."""

import numpy as np
import pytest

import autograph as ag


def defines_things(x):
    class Point:
        def norm(self):
            return 0

    def helper():
        return 0
    if x > 0:
        def branchy():
            return 1
    else:
        def branchy():
            return 2
    for _ in range(2):
        def in_loop():
            return 3
    return (Point.__qualname__, Point.norm.__qualname__, repr(Point()).split(" object")[0],
            helper.__qualname__, branchy.__qualname__, in_loop.__qualname__)


def test_plain_mode_gives_python_s_qualified_names():
    assert ag.to_graph(defines_things)(1) == defines_things(1)
    assert defines_things(1)[0] == "defines_things.<locals>.Point"


@pytest.mark.parametrize("run", [ag.to_graph, lambda f: f], ids=["converted", "python"])
def test_a_class_in_a_converted_method_keeps_its_qualified_name(run):
    class Model:
        def build(self):
            class Layer:
                pass
            return Layer.__qualname__
    assert run(Model.build)(Model()) == (
        "test_a_class_in_a_converted_method_keeps_its_qualified_name.<locals>.Model.build."
        "<locals>.Layer")


def staged_names(x, n):
    class Box:
        pass
    names = []
    for i in range(n):  # (staged: n is an array)
        def inner(v):
            return v + 1
        x = inner(x)
    names.append(inner.__qualname__)
    names.append(Box.__qualname__)
    return x, names


def test_staged_code_gives_python_s_qualified_names():
    _, names = ag.function(staged_names)(np.zeros(2), np.int64(2))
    assert names == ["staged_names.<locals>.inner", "staged_names.<locals>.Box"]
