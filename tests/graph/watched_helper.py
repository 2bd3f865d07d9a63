"""A helper module for tests/graph/test_watched_arrays.py: functions whose
globals live here, called from a staged function in another module."""

import numpy as np

SCALE = np.float64(2.0)
WEIGHTS = np.ones(2)


def scaled(x):
    return x * SCALE


def times_weights(x):
    return x * (WEIGHTS * 1.0)  # numpy work on this module's array at tracing


class Scaler:
    factor = np.float64(3.0)  # a class attribute read as self.factor

    def __call__(self, x):
        return x * self.factor
