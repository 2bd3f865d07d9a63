"""Arrays a trace read from outside its arguments (guards.py): numpy work on
them while tracing is baked into the graph, so changing them in place must
make `ag.function` trace again and a ConcreteFunction refuse to run -- never
return the result for the old contents.  Functions that read no such array
keep a fast call with no content check."""

import gc
import sys
import types
import weakref

import numpy as np
import pytest

import autograph as ag
from autograph.graph import concrete as concrete_module

SCALE = np.array([1.0, 2.0])
config = types.ModuleType("watched_config")  # a module holding an array attribute
config.W = np.array([3.0, 4.0])
sys.modules["watched_config"] = config


def doubled_scale(x):
    return x * (SCALE * 2)  # numpy work on the global at tracing: one constant


def module_total(x):
    return x + config.W.sum()  # numpy work on a module's array at tracing


def _fast_call_used(staged, *args):
    """Calls through the first fast call; True when it accepted the arguments."""
    return staged._entries and staged._entries[0](args) is not concrete_module.MISS


def test_global_array_changed_in_place_traces_again():
    staged = ag.function(doubled_scale, autograph=False)
    x = np.ones(2)
    np.testing.assert_array_equal(staged(x), [2.0, 4.0])
    try:
        SCALE[:] = [5.0, 6.0]
        np.testing.assert_array_equal(staged(x), [10.0, 12.0])
        assert staged.experimental_get_tracing_count() == 2
        np.testing.assert_array_equal(staged(x), [10.0, 12.0])  # new contents: fast again
        assert _fast_call_used(staged, x)
        assert staged.experimental_get_tracing_count() == 2
    finally:
        SCALE[:] = [1.0, 2.0]


def test_unchanged_global_array_keeps_the_fast_call():
    staged = ag.function(doubled_scale, autograph=False)
    x = np.ones(2)
    for _ in range(3):
        np.testing.assert_array_equal(staged(x), [2.0, 4.0])
    assert staged.experimental_get_tracing_count() == 1
    assert _fast_call_used(staged, x)


@pytest.mark.parametrize("change", ["bits", "shape", "dtype"])
def test_any_in_place_change_is_seen(change):
    """Only the bytes count: -0.0 for 0.0 is a change, NaN for NaN is not; an
    in-place reshape or dtype view of the same bytes is a change too."""
    held = np.array([0.0, np.nan, 1.0, 2.0])

    def reads(x):
        return x + np.where(np.isnan(held), 7.0, np.copysign(3.0, held)).sum() + held.shape[0]

    staged = ag.function(reads, autograph=False)
    x = np.zeros(())
    expected = reads(x)
    np.testing.assert_array_equal(staged(x), expected)
    held[1] = np.nan  # the same bytes: no change
    np.testing.assert_array_equal(staged(x), expected)
    assert staged.experimental_get_tracing_count() == 1
    if change == "bits":
        held[0] = -0.0
    elif change == "shape":
        held.shape = (2, 2)
    else:
        held.dtype = np.int64
    assert staged(x) == reads(x) != expected
    assert staged.experimental_get_tracing_count() == 2


def test_closure_cell_array_changed_in_place():
    weights = np.ones(3)

    @ag.function
    def apply(x):
        return x @ (weights * 2)

    x = np.ones(3)
    assert apply(x) == 6.0
    weights += 1.0
    assert apply(x) == 12.0
    assert apply.experimental_get_tracing_count() == 2


def test_module_array_attribute_changed_in_place_or_replaced():
    staged = ag.function(module_total, autograph=False)
    x = np.zeros(1)
    np.testing.assert_array_equal(staged(x), [7.0])
    old = config.W
    try:
        config.W[0] = 10.0
        np.testing.assert_array_equal(staged(x), [14.0])
        config.W = np.array([1.0, 1.0])
        np.testing.assert_array_equal(staged(x), [2.0])
        assert staged.experimental_get_tracing_count() == 3
    finally:
        config.W = old
        old[:] = [3.0, 4.0]


def test_concrete_function_refuses_an_array_changed_in_place():
    staged = ag.function(doubled_scale, autograph=False)
    x = np.ones(2)
    concrete = staged.get_concrete_function(x)
    np.testing.assert_array_equal(concrete(x), [2.0, 4.0])
    np.testing.assert_array_equal(concrete(x), [2.0, 4.0])  # through its fast call
    assert concrete._entry
    try:
        SCALE[0] = 9.0
        with pytest.raises(ag.errors.GraphError,
                           match=r"test_watched_arrays\.py:\d+.*global 'SCALE'.*changed in "
                                 r"place.*Pass the array as an argument.*ag\.Variable"):
            concrete(x)
        np.testing.assert_array_equal(staged(x), [18.0, 4.0])  # the Function traces again
    finally:
        SCALE[:] = [1.0, 2.0]


def test_functions_reading_no_global_array_have_no_content_check():
    staged = ag.function(lambda x, ws: x * ws[0] + ws[1], autograph=False)
    x = np.ones(2)
    staged(x, [np.ones(2), 2.0])
    staged(x, [np.ones(2), 2.0])  # (the second call makes the guard)
    concrete = staged.get_concrete_function(x, [np.ones(2), 2.0])
    assert [g[1] for g in concrete.guards] == ["__code__"]  # (the lambda's own code only)
    # (a contents check compares bytes: tobytes(), startswith() or join())
    compares = {"tobytes", "startswith", "join"}
    assert not compares & set(staged._entries[0].__code__.co_names)
    fast = ag.function(doubled_scale, autograph=False)
    fast(x)
    fast(x)
    assert compares & set(fast._entries[0].__code__.co_names)  # (the check that test looks for)


# -- values read by the functions a trace calls, not only by the traced one ------------

from tests.graph import watched_helper  # noqa: E402


def calls_scaled(x):
    return watched_helper.scaled(x)


def calls_times_weights(x):
    return watched_helper.times_weights(x)


SCALER = watched_helper.Scaler()


def calls_scaler(x):
    return SCALER(x)


@pytest.mark.parametrize("fn, change, restore", [
    (calls_scaled, lambda: setattr(watched_helper, "SCALE", np.float64(5.0)),
     lambda: setattr(watched_helper, "SCALE", np.float64(2.0))),
    (calls_times_weights, lambda: watched_helper.WEIGHTS.__setitem__(slice(None), 4.0),
     lambda: watched_helper.WEIGHTS.__setitem__(slice(None), 1.0)),
    (calls_scaler, lambda: setattr(watched_helper.Scaler, "factor", np.float64(7.0)),
     lambda: setattr(watched_helper.Scaler, "factor", np.float64(3.0))),
    (calls_scaler, lambda: setattr(SCALER, "factor", np.float64(9.0)),
     lambda: vars(SCALER).pop("factor")),
], ids=["helper_global_replaced", "helper_global_changed_in_place",
        "class_attribute_replaced", "instance_attribute_shadows_the_class"])
def test_values_read_by_called_functions_are_watched(fn, change, restore):
    staged = ag.function(fn)
    x = np.ones(2)
    np.testing.assert_array_equal(staged(x), fn(x))
    try:
        change()
        np.testing.assert_array_equal(staged(x), fn(x))
        assert staged.experimental_get_tracing_count() == 2
        np.testing.assert_array_equal(staged(x), fn(x))
        assert staged.experimental_get_tracing_count() == 2
    finally:
        restore()


PARAMS = {"w": np.array([1.0, 2.0]), "scale": 2.0}
LAYERS = [np.array([1.0, 1.0]), np.array([2.0, 2.0])]


def reads_a_global_dict(x):
    return x * PARAMS["w"] * PARAMS["scale"]


def loops_over_a_global_list(x):
    for w in LAYERS:  # unrolled while tracing: the graph has one op per layer
        x = x * w
    return x


@pytest.mark.parametrize("fn, change", [
    (reads_a_global_dict, lambda: PARAMS.__setitem__("w", np.array([3.0, 4.0]))),
    (reads_a_global_dict, lambda: PARAMS.__setitem__("scale", 5.0)),
    (reads_a_global_dict, lambda: PARAMS["w"].__setitem__(0, 7.0)),
    (loops_over_a_global_list, lambda: LAYERS.append(np.array([3.0, 3.0]))),
    (loops_over_a_global_list, lambda: LAYERS.__setitem__(0, np.array([5.0, 5.0]))),
    (loops_over_a_global_list, lambda: LAYERS[1].__setitem__(1, 9.0)),
], ids=["dict_item_replaced", "dict_number_replaced", "dict_array_changed_in_place",
        "list_grown", "list_item_replaced", "list_array_changed_in_place"])
def test_arrays_and_numbers_in_global_containers_are_watched(fn, change):
    saved_params = {k: np.copy(v) for k, v in PARAMS.items()}
    saved_layers = [np.copy(w) for w in LAYERS]
    staged = ag.function(fn)
    x = np.ones(2)
    np.testing.assert_array_equal(staged(x), fn(x))
    try:
        change()
        np.testing.assert_array_equal(staged(x), fn(x))
        assert staged.experimental_get_tracing_count() == 2
        np.testing.assert_array_equal(staged(x), fn(x))
        assert staged.experimental_get_tracing_count() == 2
    finally:
        PARAMS.clear()
        PARAMS.update({"w": saved_params["w"], "scale": 2.0})
        LAYERS[:] = saved_layers


def test_unchanged_global_containers_keep_the_fast_call():
    staged = ag.function(loops_over_a_global_list)
    x = np.ones(2)
    for _ in range(3):
        staged(x)
    assert staged.experimental_get_tracing_count() == 1
    assert _fast_call_used(staged, x)


def test_a_dict_key_swapped_for_another_retraces():
    saved = dict(PARAMS)
    staged = ag.function(reads_a_global_dict)
    x = np.ones(2)
    staged(x)
    staged(x)  # (the fast call's guard is built by now)
    try:
        PARAMS.pop("scale")
        PARAMS["other"] = 1.0  # same length, other keys
        with pytest.raises(KeyError):
            staged(x)  # traces again, and the function's own PARAMS["scale"] fails
    finally:
        PARAMS.clear()
        PARAMS.update(saved)


def test_the_fast_call_compares_with_the_contents_at_tracing():
    """The fast call's guard is built after the trace (on a later call): it
    must compare with what the trace saw, not with the contents at that time."""
    saved_layers = [np.copy(w) for w in LAYERS]
    staged = ag.function(loops_over_a_global_list)
    x = np.ones(2)
    expected = loops_over_a_global_list(x)
    np.testing.assert_array_equal(staged(x), expected)
    try:
        LAYERS[1][:] = 7.0  # before the call that builds the fast call
        for _ in range(3):
            np.testing.assert_array_equal(staged(x), loops_over_a_global_list(x))
    finally:
        LAYERS[:] = saved_layers


class _MadeWhileTracing:
    instances = []

    def __init__(self):
        self.scale = 2.0
        _MadeWhileTracing.instances.append(weakref.ref(self))

    def apply(self, x):
        return x * self.scale


def test_what_the_trace_called_is_not_kept_with_the_graph():
    # the functions a trace ran are needed for its guards only: an object made
    # while tracing, whose method converted code called, is freed afterwards
    @ag.function
    def f(x):
        return _MadeWhileTracing().apply(x)

    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
    gc.collect()
    assert _MadeWhileTracing.instances[-1]() is None
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
