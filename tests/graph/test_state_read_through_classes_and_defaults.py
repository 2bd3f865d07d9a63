"""Values read through containers and class attributes that change between
calls: the staged result must follow Python (a retrace), never the value the
first trace baked in."""

import collections
import functools
import re
import warnings

import numpy as np
import pytest
from follows_python import assert_follows_python

import autograph as ag
from autograph.errors import RetracingWarning

X = np.arange(3.0)


def _follows_python(f, change):
    """ag.function(f) on x gives Python's result before and after change();
    it runs three times first, so that the compiled fast path is built."""
    return assert_follows_python(f, (X,), change, calls=3)


class _Scaled:
    SIZES = [2.0]
    TABLE = {"s": 2.0}
    PAIR = (2.0,)

    def by_list(self, x):
        return x * self.SIZES[0]

    def by_dict(self, x):
        return x * self.TABLE["s"]

    def by_tuple(self, x):
        return x * self.PAIR[0]


class _Settings:
    scale = 2.0


class _WithSettings:
    settings = _Settings()

    def __call__(self, x):
        return x * self.settings.scale


def test_class_attribute_list_read_through_self_changed_in_place():
    _follows_python(_Scaled().by_list,
                                   lambda: _Scaled.SIZES.__setitem__(0, 5.0))


def test_class_attribute_dict_read_through_self_changed_in_place():
    _follows_python(_Scaled().by_dict,
                                   lambda: _Scaled.TABLE.__setitem__("s", 5.0))


def test_class_attribute_tuple_read_through_self_rebound():
    _follows_python(_Scaled().by_tuple,
                                   lambda: setattr(_Scaled, "PAIR", (5.0,)))


def test_class_attribute_object_read_through_self_changed():
    _follows_python(_WithSettings(),
                                   lambda: setattr(_WithSettings.settings, "scale", 5.0))


_LONG = [np.longdouble(1)]
_LONG_GLOBAL = np.longdouble(1)


def _long_in_list(x):
    return x * float(_LONG[0] * 2**62 - 2**62)


def _long_global(x):
    return x * float(_LONG_GLOBAL * 2**62 - 2**62)


def test_longdouble_in_a_list_compared_by_all_its_bits():
    bigger = np.longdouble(1) + np.longdouble(2) ** -62
    if bigger == np.longdouble(1):
        pytest.skip("longdouble is a double here: nothing to tell apart")
    _follows_python(_long_in_list, lambda: _LONG.__setitem__(0, bigger))


def test_longdouble_global_compared_by_all_its_bits():
    bigger = np.longdouble(1) + np.longdouble(2) ** -62
    if bigger == np.longdouble(1):
        pytest.skip("longdouble is a double here: nothing to tell apart")

    def rebind():
        global _LONG_GLOBAL
        _LONG_GLOBAL = bigger
    _follows_python(_long_global, rebind)


_DEFAULTS = collections.defaultdict(float)
_SETTINGS = {}


def _by_defaultdict(x):
    return x * _DEFAULTS["scale"]  # (the trace's read adds the entry)


def _by_setdefault(x):
    return x * _SETTINGS.setdefault("scale", 1.0)


def test_defaultdict_entry_added_by_the_trace_is_watched():
    _follows_python(_by_defaultdict,
                                   lambda: _DEFAULTS.__setitem__("scale", 3.0))


def test_setdefault_entry_added_by_the_trace_is_watched():
    _follows_python(_by_setdefault,
                                   lambda: _SETTINGS.__setitem__("scale", 4.0))


def test_dict_gaining_a_key_per_trace_does_not_trace_at_every_call():
    seen_shapes, runs = {}, []

    def record(x):
        runs.append(1)  # (a log: runs while tracing only)
        seen_shapes[x.shape] = 1
        return x * 2

    staged = ag.function(record)
    for _ in range(5):
        staged(np.arange(3.0))
        staged(np.arange(4.0))
    # (the second trace's new key makes the first trace again, once)
    assert len(runs) <= 3
    assert seen_shapes == {(3,): 1, (4,): 1}


def _scaled_by_default(x, settings={"scale": 2.0}):  # noqa: B006 - the mutable default is the point
    return x * settings["scale"]


def _scaled_by_keyword_default(x, *, sizes=[2.0]):  # noqa: B006
    return x * sizes[0]


def _scaled_by(x, sizes):
    return x * sizes[0]


def test_mutable_default_changed_in_place():
    _follows_python(
        _scaled_by_default, lambda: _scaled_by_default.__defaults__[0].__setitem__("scale", 5.0))


def test_mutable_keyword_default_changed_in_place():
    _follows_python(
        _scaled_by_keyword_default,
        lambda: _scaled_by_keyword_default.__kwdefaults__["sizes"].__setitem__(0, 5.0))


def test_list_bound_by_partial_changed_in_place():
    sizes = [2.0]
    _follows_python(functools.partial(_scaled_by, sizes=sizes),
                                   lambda: sizes.__setitem__(0, 5.0))


def test_list_bound_by_partial_positionally_changed_in_place():
    sizes = [2.0]
    _follows_python(functools.partial(lambda s, x: x * s[0], sizes),
                                   lambda: sizes.__setitem__(0, 5.0))



class _Base:
    SIZES = [2.0]
    scale = 2.0


class _Derived(_Base):
    def by_list(self, x):
        return x * self.SIZES[0]

    def by_number(self, x):
        return x * self.scale


def test_subclass_gaining_the_class_attribute_list_it_inherited():
    _follows_python(_Derived().by_list, lambda: setattr(_Derived, "SIZES", [7.0]))


def test_subclass_gaining_the_class_attribute_number_it_inherited():
    _follows_python(_Derived().by_number, lambda: setattr(_Derived, "scale", 7.0))


class _Config:
    pass


_CONFIG = _Config()
_CONFIG.sizes = [2.0]
_CONFIG.scale = 2.0


def _by_getattr(x):
    return x * getattr(_CONFIG, "sizes")[0]


def _by_getattr_with_default(x):
    return x * getattr(_CONFIG, "scale", 1.0)


def test_attribute_read_by_getattr_with_a_literal_name_changed_in_place():
    _follows_python(_by_getattr, lambda: _CONFIG.sizes.__setitem__(0, 5.0))


def test_attribute_read_by_getattr_with_a_default_rebound():
    _follows_python(_by_getattr_with_default,
                                   lambda: setattr(_CONFIG, "scale", 5.0))


_COUNTED = {"calls": 0, "scale": 2.0}
_COUNTED_LIST = [0, 2.0]


def _counts_and_reads(x):
    _COUNTED["calls"] += 1  # (a log: runs while tracing only)
    return x * _COUNTED["scale"]


def _counts_and_reads_list(x):
    _COUNTED_LIST[0] += 1
    return x * _COUNTED_LIST[1]


def test_dict_entry_beside_a_counter_the_trace_changed_is_watched():
    _follows_python(_counts_and_reads,
                                   lambda: _COUNTED.__setitem__("scale", 5.0))


def test_list_item_beside_a_counter_the_trace_changed_is_watched():
    _follows_python(_counts_and_reads_list,
                                   lambda: _COUNTED_LIST.__setitem__(1, 5.0))


def test_log_rebound_is_watched():
    log = [1.0]

    def logs(x):
        log.append(1.0)
        return x * log[0]

    def rebind():
        nonlocal log
        log = [5.0]
    _follows_python(logs, rebind)


def test_a_counter_the_trace_changes_in_place_counts_as_python_does():
    # (as `self.step += 1`: the graph holds what the trace read of it, so the
    # next call, finding another value, traces again and counts again)
    state, runs = {"calls": 0, "scale": 2.0}, []

    def counts(x):
        runs.append(1)
        state["calls"] += 1
        return x * state["scale"]

    staged = ag.function(counts)
    with pytest.warns(RetracingWarning, match=re.escape("'state['calls']' held a new value")):
        for _ in range(10):
            staged(np.arange(3.0))
    assert state["calls"] == len(runs) == 10


@pytest.mark.parametrize("make", [lambda: {"calls": 0}, lambda: [0]])
def test_a_counter_read_back_after_the_trace_changed_it_is_pythons(make):
    counter = make()
    key = "calls" if isinstance(counter, dict) else 0

    def bump(x):
        counter[key] += 1
        return x * counter[key]

    staged, got = ag.function(bump), []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        got = [float(staged(np.float64(1.5))) for _ in range(3)]
    assert got == [1.5, 3.0, 4.5] and counter[key] == 3


def test_a_log_appended_to_does_not_trace_at_every_call():
    log, runs = [], []

    def logs(x):
        runs.append(1)
        log.append(1.0)
        return x * 2

    staged = ag.function(logs)
    for _ in range(5):
        staged(np.arange(3.0))
        staged(np.arange(4.0))
    assert len(runs) == 2


_PARAMS = {"a": np.ones(3), "b": np.full(3, 2.0)}
_BY_KEY = {0.0: 1.0}


def _in_key_order(x):
    out = x
    for _, w in _PARAMS.items():
        out = out * 10 + w
    return out


def _sign_of_key(x):
    return x * np.copysign(1.0, list(_BY_KEY)[0])


def _move_first_to_end():
    first = next(iter(_PARAMS))
    _PARAMS[first] = _PARAMS.pop(first)


def test_dict_of_arrays_reordered():
    _follows_python(_in_key_order, _move_first_to_end)


def test_dict_key_zero_becoming_negative_zero_retraces():
    def replace_key():
        _BY_KEY.clear()
        _BY_KEY[-0.0] = 1.0
    staged = _follows_python(_sign_of_key, replace_key)
    # (-x equals x when compared as numbers: the sign bits tell them apart)
    assert np.signbit(staged(X)).tolist() == np.signbit(_sign_of_key(X)).tolist()
