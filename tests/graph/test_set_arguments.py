"""Set, frozenset and bytearray arguments are keyed by their contents: they
were keyed by identity, so a set the caller changed between two calls ran
the graph traced with its old contents (`x * len(s)` kept the old length),
silently; and an equal frozenset made anew traced again each call."""

import numpy as np
import pytest

import autograph as ag


def scaled_by_size(x, s):
    return x * len(s)


def scaled_by_kind(x, s):
    return x * sum(2.0 if isinstance(v, bool) else 3.0 for v in s)


@pytest.mark.parametrize("make, grow", [
    (lambda: {1}, lambda s: s.add(2)),
    (lambda: bytearray(b"a"), lambda s: s.extend(b"bc"))], ids=["set", "bytearray"])
def test_a_container_changed_between_calls_runs_its_own_graph(make, grow):
    staged, container = ag.function(scaled_by_size), make()
    for _ in range(3):  # (the later calls run the fast call)
        np.testing.assert_array_equal(staged(np.ones(2), container), scaled_by_size(np.ones(2), container))
    grow(container)
    for _ in range(3):
        np.testing.assert_array_equal(staged(np.ones(2), container), scaled_by_size(np.ones(2), container))
    assert staged.experimental_get_tracing_count() == 2


def test_equal_sets_share_a_graph_and_elements_differ_by_type():
    staged = ag.function(scaled_by_kind)
    for s in [frozenset({1}), frozenset({1}), {1}, frozenset({True}), frozenset({1.0}), frozenset({1})]:
        for _ in range(2):
            np.testing.assert_array_equal(staged(np.ones(2), s), scaled_by_kind(np.ones(2), s))
    assert staged.experimental_get_tracing_count() == 4  # frozenset {1}, {True}, {1.0}; set {1}
