"""State read through long paths (guards.py `_PATH_LINKS`, `_NESTING`): an
array or number many links from its root (`C.nxt.nxt...w`, a list nested in
lists) is watched up to 24 links, so a later change there makes
`ag.function` trace again; where the walk would go further (the code names
the link, and data lies past it), the trace is refused (UnwatchedPathError,
naming the root and the fix) instead of leaving that data unwatched."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from autograph.graph import guards

X = np.ones(2)


class Node:
    pass


def _chain(links, leaf):
    root = node = Node()
    for _ in range(links):
        node.nxt = Node()
        node = node.nxt
    node.w = leaf
    return root


def _last(root):
    while hasattr(root, "nxt"):
        root = root.nxt
    return root


def _nested(value, levels):
    for _ in range(levels):
        value = [value]
    return value


def test_a_number_eight_links_down_is_watched():
    chain = _chain(8, 2.0)

    @ag.function
    def f(x):
        return x * chain.nxt.nxt.nxt.nxt.nxt.nxt.nxt.nxt.w

    np.testing.assert_allclose(f(X), [2.0, 2.0])
    _last(chain).w = 5.0
    np.testing.assert_allclose(f(X), [5.0, 5.0])


def test_an_array_changed_in_place_ten_lists_down_is_watched():
    nested = _nested(np.full(2, 2.0), 10)

    @ag.function
    def f(x):
        value = nested
        for _ in range(10):
            value = value[0]
        return x * value.sum()  # (numpy, while tracing: a constant)

    np.testing.assert_allclose(f(X), [4.0, 4.0])
    inner = nested
    for _ in range(10):
        inner = inner[0]
    inner[:] = 3.0
    np.testing.assert_allclose(f(X), [6.0, 6.0])


def test_a_number_in_the_innermost_of_lists_nested_to_the_limit():
    nested = _nested(2.0, guards._PATH_LINKS)

    @ag.function
    def f(x):
        value = nested
        while isinstance(value, list):
            value = value[0]
        return x * value

    np.testing.assert_allclose(f(X), [2.0, 2.0])
    inner = nested
    for _ in range(guards._PATH_LINKS - 1):
        inner = inner[0]
    inner[0] = 7.0
    np.testing.assert_allclose(f(X), [7.0, 7.0])


def test_a_path_past_the_limit_is_refused_naming_its_root():
    chain = _chain(guards._PATH_LINKS + 6, 2.0)

    @ag.function
    def f(x):
        node = chain
        while hasattr(node, "nxt"):
            node = node.nxt
        return x * node.w

    with pytest.raises(errors.UnwatchedPathError) as caught:
        f(X)
    message = str(caught.value)
    assert "closure variable 'chain.nxt.nxt" in message and "from `chain`" in message
    assert "test_guard_long_paths.py:" in message and "name of its own" in message


def test_lists_nested_past_the_limit_are_refused():
    nested = _nested(2.0, guards._PATH_LINKS + 4)

    @ag.function
    def f(x):
        value = nested
        while isinstance(value, list):
            value = value[0]
        return x * value

    with pytest.raises(errors.UnwatchedPathError, match="closure variable 'nested\\[0\\]"):
        f(X)


def test_a_long_chain_the_code_does_not_name_is_not_walked():
    chain = _chain(guards._PATH_LINKS + 6, 2.0)
    chain.w = 3.0

    @ag.function
    def f(x):
        return x * chain.w

    np.testing.assert_allclose(f(X), [3.0, 3.0])
    watched = [g[3] for g in f.get_concrete_function(X).guards]
    assert len(watched) == 3, watched  # (the cell, chain's `w`, f's __code__)
