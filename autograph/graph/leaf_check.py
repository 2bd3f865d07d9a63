"""The array-leaf test of call guards in one C call, when the extension is built.

A guard (signature.py) tests each array leaf of a call with
`type(x) is ndarray and x.shape == S and x.dtype is D`: ~60 ns a leaf in
CPython 3.11, most of it building the tuple `x.shape`, so a list of 20
arrays cost 1.2 us.  `_leafcheck.c` answers the same question for all the
leaves of a call at once, reading numpy's array struct; a guard's last
test then reads, for arrays x0, x1, x2 (found in any containers):

    ... and _leaves_ok(_g7, x0, x1, x2)                         # with it
    ... type(x0) is _nd and x0.shape == (4,) and x0.dtype is _g3 ...  # without

`leaves_ok` is that C function, or None -- the guards then keep the Python
test -- when the extension is not built (a pure-Python install), when
AUTOGRAPH_PURE_PYTHON_GUARDS=1, or when the check at import below finds
that the struct it reads, or its answers, differ from numpy's and Python's.
`status` says which, for benchmarks.
Tests set `leaves_ok = None` to run the Python path.
"""

import os
import struct

import numpy as np

PURE_PYTHON_VARIABLE = "AUTOGRAPH_PURE_PYTHON_GUARDS"


def spec(shapes, dtypes):
    """What `leaves_ok(spec, *leaves)` tests the leaves against."""
    packed = [n for shape in shapes for n in (len(shape), *shape)]
    return (np.ndarray, tuple(dtypes), struct.pack(f"{len(packed)}n", *packed))


def python_answer(leaves, shapes, dtypes):
    """The meaning of `leaves_ok`: the guards' Python test."""
    return len(leaves) == len(shapes) == len(dtypes) and all(
        type(x) is np.ndarray and x.shape == s and x.dtype is d
        for x, s, d in zip(leaves, shapes, dtypes))


class _Subclass(np.ndarray):
    pass


def _samples():
    """Arrays (and non-arrays) the self-test asks about: every layout case
    whose struct fields could be read wrong."""
    cube = np.arange(24.0).reshape(2, 3, 4)
    with_metadata = np.dtype(np.float64, metadata={"unit": "m"})  # == float64, another object
    return [np.zeros(()), np.arange(5), cube, np.zeros((0, 3), np.float32),
            cube[1:, ::2], cube.T, np.zeros(3, ">f8"),
            np.zeros(2, [("a", "i4"), ("b", "f8", (2,))]), np.zeros(3, with_metadata),
            np.ones((2, 2)).view(np.recarray), np.ones(3).view(_Subclass),
            np.float64(1.0), [1.0, 2.0], None]


def _expectations(x):
    """(shape, dtype) pairs to test `x` against: its own, an equal dtype
    that may be another object, and near misses."""
    shape, dtype = np.shape(x), getattr(x, "dtype", np.dtype(np.float64))
    equal_dtype = np.dtype(dtype.descr if dtype.names else dtype.str)
    longer = shape[:-1] + (shape[-1] + 1,) if shape else (1,)
    return [(shape, dtype), (shape, equal_dtype), (shape, np.dtype(np.int8)),
            (shape + (1,), dtype), ((), dtype), (shape[:-1], dtype), (longer, dtype)]


def _layout_matches(layout):
    """The struct mirror reads what numpy says (no pointer followed yet)."""
    return all(layout(np.ndarray, x) == (x.__array_interface__["data"][0], x.ndim, id(x.dtype))
               for x in _samples() if type(x) is np.ndarray)


def _self_test(leaves_ok):
    """None when `leaves_ok` agrees with Python on every sample, else the first
    case where it does not."""
    cases = [([x], [s], [d]) for x in _samples() for s, d in _expectations(x)]
    arrays = [x for x in _samples() if type(x) is np.ndarray]
    own = ([a.shape for a in arrays], [a.dtype for a in arrays])
    cases += [(arrays, *own), (arrays[::-1], *own), ([], [], []),
              (arrays[:-1] + [arrays[0]], *own)]
    for leaves, shapes, dtypes in cases:
        if leaves_ok(spec(shapes, dtypes), *leaves) is not python_answer(leaves, shapes, dtypes):
            return f"leaves_ok disagrees with Python on {leaves!r} vs {shapes}, {dtypes}"
    if python_answer(arrays, *own) is not True:  # (the cases above hold both answers)
        return "the self-test's own arrays do not pass"
    return None


def _load():
    """(leaves_ok or None, status)."""
    if os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0"):
        return None, f"pure Python ({PURE_PYTHON_VARIABLE} is set)"
    try:
        from autograph.graph import _leafcheck
    except ImportError:
        return None, "pure Python (the C extension _leafcheck is not built)"
    if not _layout_matches(_leafcheck.layout):
        return None, "pure Python (numpy's array struct is not the one _leafcheck reads)"
    problem = _self_test(_leafcheck.leaves_ok)
    if problem is not None:
        return None, f"pure Python ({problem})"
    return _leafcheck.leaves_ok, "C leaf check"


leaves_ok, status = _load()
