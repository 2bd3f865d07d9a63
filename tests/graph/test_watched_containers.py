"""Containers of plain numbers and strings that a traced function reads are
watched like those holding arrays: changed between calls, the function
traces again instead of running a graph that baked in their old contents.
A container the trace itself changed (a log or a trace counter) is not
watched: the graph never changes it.  Floats are compared by their bits
(0.0 -> -0.0 traces again)."""

import collections

import numpy as np
from follows_python import assert_follows_python

import autograph as ag

SIZES = [1, 2]
CONFIG = {"scale": 2.0}
SHAPE = (3, 4)
ALLOWED = {1, 2}
QUEUE = collections.deque([1.0])
ZERO = 0.0
ZEROS = [0.0]
FROZEN = frozenset({1, 2})


def reads_sizes(x):
    return x * len(SIZES) + sum(SIZES)


def reads_config(x):
    return x * CONFIG["scale"]


def reads_shape(x):
    return x * SHAPE[0]


def reads_allowed(x):
    return x * len(ALLOWED)


def reads_queue(x):
    return x * QUEUE[-1]


def reads_frozen(x):
    return x * len(FROZEN)


def divides_by_zero(x):
    return x / ZERO + x / ZEROS[0]


def test_a_global_list_of_numbers_changed_between_calls():
    assert_follows_python(reads_sizes, (np.ones(2),), lambda: SIZES.append(3))


def test_a_global_dict_of_numbers_changed_between_calls():
    assert_follows_python(reads_config, (np.ones(2),), lambda: CONFIG.update(scale=3.0))


def test_a_global_tuple_rebound_between_calls():
    global SHAPE

    def rebind():
        global SHAPE
        SHAPE = (5, 4)
    try:
        assert_follows_python(reads_shape, (np.ones(2),), rebind)
    finally:
        SHAPE = (3, 4)


def test_a_global_set_and_deque_changed_between_calls():
    assert_follows_python(reads_allowed, (np.ones(2),), lambda: ALLOWED.add(3))
    assert_follows_python(reads_queue, (np.ones(2),), lambda: QUEUE.append(4.0))


def test_a_global_frozenset_rebound_between_calls():
    def rebind():
        global FROZEN
        FROZEN = frozenset({1, 2, 3})
    try:
        assert_follows_python(reads_frozen, (np.ones(2),), rebind)
    finally:
        globals()["FROZEN"] = frozenset({1, 2})


def test_an_attribute_list_of_numbers_changed_between_calls():
    class Holder:
        def __init__(self):
            self.items = [1]
    held = Holder()

    def reads_items(x):
        return x * len(held.items)
    assert_follows_python(reads_items, (np.ones(2),), lambda: held.items.append(2))


def test_minus_zero_is_a_change(recwarn):
    def flip():
        global ZERO
        ZERO = -0.0
        ZEROS[0] = -0.0
    assert_follows_python(divides_by_zero, (np.ones(2),), flip)


def test_a_log_the_trace_appends_to_does_not_trace_again():
    calls = []

    def counts_its_traces(x):
        calls.append(1)
        return x * 2
    staged = ag.function(counts_its_traces)
    for _ in range(3):
        staged(np.ones(2))
        staged(np.ones(3))
    assert len(calls) == 2 and staged.experimental_get_tracing_count() == 2
