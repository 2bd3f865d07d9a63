"""A graph tensor is no dict key or set item: Python hashes a numpy scalar by
its value, which a trace does not have.  Hashing one used to fall back on the
tensor's identity, so `v in {1.0, 2.0}`, `d.get(v)` and `{a, b}` gave answers
about tracing objects (False, the default, 3 items) where Python gives True,
the dict's value, 2 items; and a dict keyed by a tensor came back holding it."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([0.0, 1.0, 1.0, 3.0])


def looked_up_in_a_set(x):
    return x[1] in {1.0, 2.0}


def looked_up_in_a_dict(x):
    names = {1.0: "one"}
    return names.get(x[1], "none")


def a_dict_key(x):
    d = {}
    d[x.sum()] = 1
    return d


def a_set_of_items(x):
    return len({x[0], x[1], x[2]})


@pytest.mark.parametrize("fn, operand, line_text", [
    (looked_up_in_a_set, "x[1]", "return x[1] in {1.0, 2.0}"),
    (looked_up_in_a_dict, "x[1]", 'return names.get(x[1], "none")'),
    (a_dict_key, "x.sum()", "d[x.sum()] = 1"),
    (a_set_of_items, "{x[0], x[1], x[2]}", "return len({x[0], x[1], x[2]})"),
])
def test_hashing_a_graph_tensor_is_refused_at_the_users_line(fn, operand, line_text):
    fn(X)  # (Python runs it)
    with pytest.raises(errors.TensorUsageError) as info:
        ag.function(fn)(X)
    message = str(info.value)
    assert message.startswith("hash() of graph tensor")
    assert f"`{operand}`" in message
    assert f"{__file__}:" in message
    assert "np.isin" in message
    assert isinstance(info.value, TypeError)  # (as hashing an ndarray is)
    line = int(message.split(f"{__file__}:")[1].split(":")[0])
    with open(__file__) as source:
        assert source.read().splitlines()[line - 1].strip() == line_text


def test_loop_state_retyped_after_the_trace_still_stages():
    # (the engine re-types loop placeholders by identity, not in dicts keyed by them)
    def running(xs):
        total = 0
        for v in xs:
            total += v * 0.5
        return total

    assert ag.function(running)(X) == running(X)


def test_plain_mode_hashes_as_python():
    assert ag.to_graph(looked_up_in_a_set)(X) is True
    assert ag.to_graph(looked_up_in_a_dict)(X) == "one"
    assert ag.to_graph(a_set_of_items)(X) == 2
