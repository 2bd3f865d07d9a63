"""hasattr()/getattr() of staged values answer for the object the program
has eagerly (runtime/builtins.py hasattr_/getattr_): a staged Python number
(`float(x[0])`, `int(x.shape[0])`) has no `dtype`, as Python's float has none."""

import re

import numpy as np
import pytest

import autograph as ag


def duck_typing(x, s):
    v = float(x[0])
    n = len(x) * 1
    a = x.sum()
    return (hasattr(v, "dtype"), hasattr(n, "shape"), hasattr(a, "dtype"), hasattr(x, "shape"),
            hasattr(s, "dtype"), hasattr(x, "no_such_thing"), getattr(v, "dtype", None) is None,
            getattr(a, "ndim", -1), getattr(x, "size"), getattr(v, "real") + 1.0)


@pytest.mark.parametrize("x", [np.array([2.0, 5.0]), np.arange(3.0, dtype=np.float32)])
def test_answers_as_python(x):
    expected = duck_typing(x, np.float32(1))
    got = ag.function(duck_typing)(x, np.float32(1))
    assert [type(v) if type(v) is bool else v for v in got[:7]] == \
        [type(v) if type(v) is bool else v for v in expected[:7]]
    assert got == expected


def missing(x):
    return getattr(float(x[0]), "dtype")


def test_missing_attribute_raises_pythons_error():
    with pytest.raises(AttributeError, match=re.escape(
            "'float' object has no attribute 'dtype'")):
        missing(np.ones(2))
    with pytest.raises(AttributeError, match=re.escape(
            "'float' object has no attribute 'dtype'")):
        ag.function(missing)(np.ones(2))


def _read_directly(attribute):
    def fn(x, m):
        v = float(x[0])
        if attribute == "dtype":
            return v.dtype
        if attribute == "shape":
            shape = ()
            for i in range(m):  # (a staged Python int)
                shape = i.shape
            return shape
        return v.sum()
    return fn


@pytest.mark.parametrize("attribute, kind", [("dtype", "float"), ("shape", "int"),
                                             ("sum", "float")])
def test_an_array_attribute_read_directly_raises_pythons_error(attribute, kind):
    # `float(x[0]).dtype` gave float64 staged, where Python raises
    fn = _read_directly(attribute)
    message = f"'{kind}' object has no attribute '{attribute}'"
    with pytest.raises(AttributeError, match=re.escape(message)):
        fn(np.ones(2), np.int64(2))
    with pytest.raises(AttributeError, match=re.escape(message)):
        ag.function(fn)(np.ones(2), np.int64(2))


def test_a_graph_s_python_number_outputs_keep_their_attributes_after_the_trace():
    concrete = ag.function(lambda x: float(x[0]) * 2.0).get_concrete_function(np.ones(2))
    assert [(t.shape, t.dtype) for t in concrete.outputs] == [((), np.float64)]
