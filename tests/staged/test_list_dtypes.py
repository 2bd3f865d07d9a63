"""A staged list holds items of one dtype: branches that append items of two
dtypes are refused.  float64 is the case that slipped through once: a float64
dtype compares equal to None (np.dtype(None) is float64), so a check written
`None not in (a, b)` skipped every float64 list."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def appends_by_branch(x, n, true_dtype, false_dtype):
    items = []
    for _ in range(n):
        if x > 0:
            items.append(x.astype(true_dtype))
        else:
            items.append(x.astype(false_dtype))
    return ag.stack(items)


@pytest.mark.parametrize("true_dtype, false_dtype", [(np.float32, np.float64),
                                                     (np.float64, np.float32),
                                                     (np.float64, np.int64)])
def test_branches_appending_two_dtypes_are_refused(true_dtype, false_dtype):
    staged = ag.function(lambda x, n: appends_by_branch(x, n, true_dtype, false_dtype))
    with pytest.raises(errors.StagingError, match=r"variable 'items' has a different dtype in "
                       r"the two branches"):
        staged(np.float64(1.0), np.int64(3))


def test_branches_appending_one_dtype_run():
    staged = ag.function(lambda x, n: appends_by_branch(x, n, np.float64, np.float64))
    np.testing.assert_array_equal(staged(np.float64(-2.0), np.int64(3)), [-2.0] * 3)
