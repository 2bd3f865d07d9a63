"""A dict's or list's item assigned at a key the staged statement computes
(`for k in params: params[k] = ...`, `for j in range(len(ws)): ws[j] = ...`)
is carried with all of the container's entries (`params[...]`,
converters/support/staging.py assigned_parts; runtime/control_flow.py
load_part/store_part kind 'entries'): staged, the result is Python's."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from tests.corpus.test_corpus import assert_same


def sgd(params, grads, steps):
    params = dict(params)
    for _ in range(steps):
        for name in params:
            params[name] = params[name] - 0.5 * grads[name]
    return params


def momentum(params, grads, steps):
    params = dict(params)
    velocity = {name: np.zeros_like(value) for name, value in params.items()}
    for step in range(steps):
        for name in params:
            velocity[name] = 0.9 * velocity[name] + grads[name] * step
            params[name] = params[name] - 0.1 * velocity[name]
    return params, velocity


def list_update(ws, gs, steps):
    ws = list(ws)
    for _ in range(steps):
        for j in range(len(ws)):
            ws[j] = ws[j] - 0.5 * gs[j]
    return ws


def alias_sees_changes(params, steps):
    params = dict(params)
    held = params
    for _ in range(steps):
        for name in params:
            params[name] = params[name] * 2
    return held


def in_a_branch(params, x):
    params = dict(params)
    if x.sum() > 0:
        for name in params:
            params[name] = params[name] + x
    return params


def while_with_totals(params, n):
    params = dict(params)
    total = np.float64(0)
    i = 0
    while i < n:
        for name in sorted(params):
            params[name] = params[name] * 0.5
            total = total + params[name].sum()
        i += 1
    return total, params


PARAMS = {"w": np.ones(3, np.float32), "b": np.float32(1.0)}
GRADS = {"w": np.arange(3, dtype=np.float32), "b": np.float32(2.0)}

CASES = [
    (sgd, (PARAMS, GRADS, np.int64(3))),
    (sgd, (PARAMS, GRADS, np.int64(0))),
    (momentum, (PARAMS, GRADS, np.int64(4))),
    (list_update, ([np.ones(2), np.ones(3)], [np.ones(2), np.full(3, 2.0)], np.int64(3))),
    (alias_sees_changes, ({"a": np.ones(2), "b": np.float64(3)}, np.int64(3))),
    (in_a_branch, ({"a": np.ones(2), "b": np.zeros(2)}, np.array([1.0, 2.0]))),
    (in_a_branch, ({"a": np.ones(2), "b": np.zeros(2)}, np.array([-1.0, -2.0]))),
    (while_with_totals, ({"a": np.ones(2), "b": np.ones(3)}, np.int64(3))),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}-{i}"
                                                 for i, (fn, _) in enumerate(CASES)])
def test_staged_like_python(fn, args):
    assert_same(fn(*args), ag.function(fn)(*args), numpy_scalars=True)


def test_staged_dict_argument_left_unchanged():
    params = dict(PARAMS)
    ag.function(sgd)(params, GRADS, np.int64(2))
    assert params["w"] is PARAMS["w"] and params["b"] is PARAMS["b"]


def test_to_code_carries_the_entries():
    code = ag.to_code(sgd)
    assert "ag__.load_part(params, 'entries', None, 'params[...]')" in code
    assert "ag__.store_part(params, 'entries', None, params_entries)" in code


def _adds_keys(params, n):
    params = dict(params)
    for _ in range(n):
        for name in list(params):
            params[name + "x"] = params[name]
    return params


def test_key_added_in_a_staged_loop_is_refused():
    with pytest.raises(errors.StagingError, match=r"'params\[\.\.\.\]' changes structure"):
        ag.function(_adds_keys)({"a": np.ones(2)}, np.int64(2))


def _int_entries_become_float(params, n):
    params = dict(params)
    for _ in range(n):
        for name in params:
            params[name] = params[name] * 0.5
    return params


def test_entry_changing_dtype_in_a_staged_loop_is_refused():
    with pytest.raises(errors.StagingError,
                       match=r"'params\[\.\.\.\]\['a'\]' changes dtype in the staged `for`"):
        ag.function(_int_entries_become_float)({"a": np.ones(2, np.int64)}, np.int64(3))


# --- lists held in a local dict: `hist["loss"].append(loss)` -----------------------
# (converters/lists.py rewrites it to `hist['loss'] = ag__.list_append(...)`
# when `hist` is only ever bound to a new dict: the item is then state like a
# variable, and a staged loop collects into it as into a local list)


def history(w, steps):
    hist = {"loss": [], "step": []}
    for step in range(steps):
        loss = np.sum(w * w)
        hist["loss"].append(loss)
        hist["step"].append(step)
        w = w - 0.1 * w
    return w, hist


def history_while(x, n):
    log = dict(vals=[], idx=[])
    i = 0
    while i < n:
        log["vals"].append(x + i)
        log["idx"].append(i)
        i += 1
    return log


def history_in_a_branch(x):
    hist = {"v": [x]}
    if x > 0:
        hist["v"].append(x * 2)
    return hist


HISTORY_CASES = [
    (history, (np.ones(2, np.float32), np.int64(3))),
    (history_while, (np.float64(1), np.int64(4))),
    (history_in_a_branch, (np.float64(2),)),
    (history_in_a_branch, (np.float64(-2),)),
]


@pytest.mark.parametrize("fn, args", HISTORY_CASES,
                         ids=[f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(HISTORY_CASES)])
def test_list_held_in_a_dict_collects_like_python(fn, args):
    assert_same(fn(*args), ag.function(fn)(*args), numpy_scalars=True)


def _held_elsewhere(x, n):
    hist = {"loss": []}
    losses = hist["loss"]
    for i in range(n):
        hist["loss"].append(x * i)
    return losses


def test_list_held_in_a_dict_and_by_a_variable_is_refused():
    with pytest.raises(errors.StagingError,
                       match=r"`hist\['loss'\]` and `losses` \(in _held_elsewhere at "):
        ag.function(_held_elsewhere)(np.float64(2), np.int64(3))


class _CountingMap:
    def __init__(self):
        self.items, self.stores = {"a": []}, 0

    def __getitem__(self, key):
        return self.items[key]

    def __setitem__(self, key, value):
        self.stores += 1
        self.items[key] = value


def _appends_through_a_users_mapping(m, x):
    m["a"].append(x)
    return m.stores


def test_users_mapping_is_not_stored_into():
    # (not a dict the function makes: the append stays an append, no `m['a'] = ...`)
    assert ag.to_graph(_appends_through_a_users_mapping)(_CountingMap(), 1.0) == 0
    assert "m['a'].append(x)" in ag.to_code(_appends_through_a_users_mapping)


def test_to_code_rebinds_the_item():
    code = ag.to_code(history)
    assert "hist['loss'] = ag__.list_append(hist['loss'], loss)" in code
    assert "ag__.load_part(hist, 'item', 'loss', \"hist['loss']\")" in code


def _ordered_dict_entries(x, n):
    import collections
    params = collections.OrderedDict(a=x, b=x * 2)
    for _ in range(n):
        for name in params:
            params[name] = params[name] + 1
    return params["a"]


def test_entries_of_a_dict_subclass_are_not_carried_and_refused():
    # (only a dict's or a list's entries are carried: a subclass's change is
    # refused as any change of state the statement does not carry)
    with pytest.raises(errors.StagingError, match=r"`params\['[ab]'\]` is changed inside "
                                                  r"the staged `for` loop at "):  # (either)
        ag.function(_ordered_dict_entries)(np.ones(2), np.int64(3))


def _fill_by_key(params, grads):
    new = {}
    for name in params:  # a Python loop over the keys
        new[name] = params[name] - grads[name]
    return new


def test_a_loop_keyed_by_its_own_target_carries_no_entries():
    # (were the loop staged, its items could key no dict: it is a Python
    # loop, and converting its entries would only cost the first call)
    assert "'entries'" not in ag.to_code(_fill_by_key)
    assert_same(_fill_by_key(PARAMS, GRADS), ag.function(_fill_by_key)(PARAMS, GRADS),
                numpy_scalars=True)
