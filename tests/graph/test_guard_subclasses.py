"""Items of a user's list, dict, tuple or deque subclass (`class Params(dict)`)
read by a traced function from outside its arguments are watched like the
base container's (guards.py `_plain_subclass_kind`), when the subclass does
not override how items are read: then what the code reads is what the base
holds, and a later change of an item makes `ag.function` trace again instead
of running the graph with the old value.  One that overrides them
(`__getitem__`) has its base items compared through the base's own methods
(`_overriding_kind`), and what its methods read of itself watched."""

import collections

import numpy as np

import autograph as ag


class Sizes(list):
    pass


class Params(dict):
    pass


class Ordered(collections.OrderedDict):
    pass


class Pair(tuple):
    pass


class Window(collections.deque):
    pass


class Clamped(list):
    def __getitem__(self, index):  # (computes what is read: not watched as items)
        return min(list.__getitem__(self, index), 10.0)


X = np.ones(2)


def test_list_and_dict_subclass_items():
    sizes, params = Sizes([2.0]), Params(a=2.0)

    @ag.function
    def f(x):
        return x * sizes[0] * params["a"]

    np.testing.assert_allclose(f(X), [4.0, 4.0])
    sizes[0] = 3.0
    np.testing.assert_allclose(f(X), [6.0, 6.0])
    params["a"] = 5.0
    np.testing.assert_allclose(f(X), [15.0, 15.0])
    params["b"] = 1.0  # (an entry the code does not read: the dict changed, a retrace)
    np.testing.assert_allclose(f(X), [15.0, 15.0])


def test_arrays_in_subclasses_changed_in_place_and_by_length():
    weights = Sizes([np.ones(2)])
    table = Ordered(w=np.full(2, 2.0))
    window = Window([1.0, 2.0])

    @ag.function
    def f(x):
        total = x * table["w"] + len(window)
        for w in weights:
            total = total + w
        return total

    np.testing.assert_allclose(f(X), [5.0, 5.0])
    weights[0][:] = 3.0
    np.testing.assert_allclose(f(X), [7.0, 7.0])
    table["w"] = np.full(2, 4.0)
    np.testing.assert_allclose(f(X), [9.0, 9.0])
    window.append(3.0)
    np.testing.assert_allclose(f(X), [10.0, 10.0])
    weights.append(np.ones(2))
    np.testing.assert_allclose(f(X), [11.0, 11.0])


def test_tuple_subclass_and_the_subclass_s_own_attributes():
    pair = Pair((np.full(2, 2.0), 1.0))
    params = Params(a=1.0)
    params.scale = 2.0

    @ag.function
    def f(x):
        return x * pair[0].sum() * params.scale + params["a"]  # (the sum: numpy, at tracing)

    np.testing.assert_allclose(f(X), [9.0, 9.0])
    pair[0][:] = 3.0
    np.testing.assert_allclose(f(X), [13.0, 13.0])
    params.scale = 1.0
    np.testing.assert_allclose(f(X), [7.0, 7.0])


def test_a_list_subclass_overriding_getitem_is_watched_through_its_base():
    clamped = Clamped([20.0])

    @ag.function
    def f(x):
        return x * clamped[0]

    np.testing.assert_allclose(f(X), [10.0, 10.0])
    clamped[0] = 5.0
    np.testing.assert_allclose(f(X), [5.0, 5.0])
    from autograph.graph import guards
    assert guards._container_kind(clamped) is None and guards._overriding_kind(clamped) is list
    assert guards._container_kind(Sizes()) is list
    assert guards._container_kind(Ordered()) is dict


def test_a_subclass_log_the_trace_appends_to_is_no_change():
    calls = Sizes()

    @ag.function
    def f(x):
        calls.append(1)
        return x * 2.0

    f(X)
    f(X)
    f(X)
    assert len(calls) == 1  # (traced once: the graph does not append)


class Scaled(dict):
    def __getitem__(self, key):  # (overrides how items are read: its base items are watched)
        return dict.__getitem__(self, key) * self.factor


def test_a_subclass_overriding_item_reads_is_watched_through_its_base():
    scaled = Scaled(a=2.0)
    scaled.factor = 1.0

    @ag.function
    def f(x):
        return x * scaled["a"]

    np.testing.assert_allclose(f(X), [2.0, 2.0])
    scaled["a"] = 3.0  # (its base item: compared by the base's own methods)
    np.testing.assert_allclose(f(X), [3.0, 3.0])
    scaled.factor = 2.0  # (what its __getitem__ reads of itself)
    np.testing.assert_allclose(f(X), [6.0, 6.0])
    np.testing.assert_allclose(f(X), [6.0, 6.0])
    assert f.experimental_get_tracing_count() == 3


COUNTS = collections.Counter(a=2)
TICKS = collections.Counter()


def _tick(name):
    TICKS[name] += 1  # (a log, changed while tracing by a function the trace calls)


def test_a_counter_read_is_watched_and_a_counter_log_is_not():
    @ag.function
    def f(x):
        _tick("f")
        return x * COUNTS["a"]

    np.testing.assert_allclose(f(X), [2.0, 2.0])
    TICKS.clear()
    TICKS["other"] += 5  # (the log changed outside: no trace again)
    np.testing.assert_allclose(f(X), [2.0, 2.0])
    assert f.experimental_get_tracing_count() == 1
    COUNTS["a"] = 4
    np.testing.assert_allclose(f(X), [4.0, 4.0])
    assert f.experimental_get_tracing_count() == 2
