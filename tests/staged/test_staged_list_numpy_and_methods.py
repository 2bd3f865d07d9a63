"""A staged list (built by a staged loop) meets numpy as Python's list does
where that is the array of its items (`np.mean(hist)`: numpy reads a list
as np.asarray of it); other numpy functions, np.array() and the list
methods it does not offer are refused with a catalog error naming the fix,
not an AttributeError about TensorList or a crash inside numpy."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([0.5, -1.5, 2.0, 3.0])
N = np.int64(4)


def _built(x, n):
    out = []
    for i in range(n):
        out.append(x[i] * 2)
    return out


def reductions(x, n):
    out = _built(x, n)
    return (np.mean(out), np.sum(out), np.max(out), np.min(out), np.std(out),
            np.argmax(out), np.any(out), np.cumsum(out))


def test_numpy_reads_a_staged_list_as_the_array_of_its_items():
    want = reductions(X, 4)
    got = ag.function(reductions)(X, N)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype


def copied(x, n):
    out = _built(x, n)
    other = out.copy()
    return other


def test_a_copy_is_the_list_itself_as_its_ops_never_change_it():
    assert ag.function(copied)(X, N) == copied(X, 4)


def reversed_in_place(x, n):
    out = _built(x, n)
    out.reverse()
    return out


def as_array(x, n):
    out = _built(x, n)
    return np.array(out)


def concatenated(x, n):
    out = _built(x, n)
    return np.concatenate(out)


@pytest.mark.parametrize("fn, error, text", [
    (reversed_in_place, errors.StagingError, "`lst.reverse(...)` at "),
    (as_array, errors.TensorUsageError, "np.array() of a staged list"),
    (concatenated, errors.StagingError, "np.concatenate(lst)"),  # (iterated as any() iterates)
])
def test_what_a_staged_list_does_not_offer_is_refused_with_the_fix(fn, error, text):
    with pytest.raises(error) as raised:
        ag.function(fn)(X, N)
    message = str(raised.value)
    assert text in message and "ag.stack(lst)" in message


def normed(x, n):
    out = _built(x, n)
    return np.linalg.norm(out)


def test_the_refused_function_is_named_with_its_module():
    with pytest.raises(errors.TensorUsageError) as raised:
        ag.function(normed)(X, N)
    assert "np.linalg.norm() of a staged list" in str(raised.value)
