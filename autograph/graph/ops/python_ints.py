"""Python int arithmetic on values a staged loop carries as int64.

A Python int in a staged loop's state (`s = 1; while ...: s = s * 3`), a
range() counter, len() of a list: a 0-d int64 PythonNumber in the graph
(ops/random.py), but Python gives it unbounded ints: numpy's `s * 3` would
wrap where Python grows.  PythonNumber's operators (ops/random.py
`_operator`) record these ops for two Python ints:

    s * 3        # traced: python_int.multiply(s, 3, variable='s', ...)
    # compiled:  v6 = int(v2) * 3
    #            if not -2**63 <= v6 <= 2**63 - 1: overflow(v6, 's', ...)
    #            v6 = _int64(v6)
    # in a scalar loop (graph/scalar_loops.py), inline:
    #            v6 = v2 * 3
    #            if not -2**63 <= v6 <= 2**63 - 1: overflow(...)

Each kernel computes Python's result on Python ints, so every value in int64's
range is Python's exactly (`//` and `%` floor, a zero divisor raises Python's
ZeroDivisionError, a negative shift Python's ValueError).  A result Python
has but int64 cannot hold -- a bigger int, or the float of `2 ** -1` --
raises PythonIntOverflowError (python_numbers.overflow: start the variable as
np.int64 or as a float).  `/` of two ints is Python's correctly rounded float.
A value numpy types from the second iteration on (re-typing: `s = 0; s += x_u8`)
takes numpy's own op again (graph/retype.py), which wraps as eager numpy does.

A Python float's `/ // % **` (python_float ops) likewise computes Python's
float: a zero divisor raises Python's ZeroDivisionError where numpy would give
inf or nan, and a complex result (`(-8.0) ** 0.5`) raises
PythonFloatResultError.  Its `+ - *` are numpy's float64 operations, whose
values Python's equal (IEEE double arithmetic both).

A loop counter (`i = i + 1` from a constant below 2**40, by a step of at most
16) keeps numpy's add (`plain_counters`): it cannot leave int64's range in
fewer than 2**59 iterations, so both give the same values.
"""

import math

import numpy as np

from autograph.graph import core, python_numbers
from autograph.graph.compiler import _python_number  # (an int64 as an int)
from autograph.graph.ops import elementwise
from autograph.graph.tensor import Tensor

_INT_MIN, _INT_MAX = python_numbers.INT_MIN, python_numbers.INT_MAX


def _binary_kernel(python_op):
    compute = python_numbers.safe(python_op)
    true_divide = python_op is python_numbers.BINARY[np.true_divide][0]

    def kernel(a, b, variable, expression, where):
        result = compute(int(a), int(b))
        if true_divide:
            return np.float64(result)
        if type(result) is int and _INT_MIN <= result <= _INT_MAX:
            return np.int64(result)
        python_numbers.overflow(result, variable, expression, where)
    return kernel


def _unary_kernel(python_op):
    def kernel(a, variable, expression, where):
        result = python_op(int(a))
        if _INT_MIN <= result <= _INT_MAX:
            return np.int64(result)
        python_numbers.overflow(result, variable, expression, where)
    return kernel


def _infer_like(plain):
    def infer(*args, variable=None, expression=None, where=None):
        return plain.infer(*args)
    return infer


def _emit(node, outs, args, ctx):
    """The kernel's lines inline (a kernel call with its keywords costs
    ~0.5 us; these ~0.2 us): Python's operator on int() of the values, the
    range test, the int64."""
    ufunc = python_numbers.ufunc_of(node.op)
    name = outs[0]
    values = [text if type(value) is int else f"int({text})"
              for text, value in zip(args, node.args)]
    if ufunc is np.true_divide:
        return [f"{name} = _float64({values[0]} / {values[1]})"]
    return python_numbers.int_lines(python_numbers.SYMBOLS[ufunc], name, values,
                                    node.attrs, ctx) + [f"{name} = _int64({name})"]


OPS = {}  # ufunc -> its python_int op
PLAIN = {}  # python_int op -> numpy's op for the ufunc (on numpy values)
for _ufunc, (_op, _) in {**python_numbers.BINARY, **python_numbers.UNARY}.items():
    _kernel = (_binary_kernel if _ufunc in python_numbers.BINARY else _unary_kernel)(_op)
    _plain = elementwise._ufunc_op(_ufunc)
    OPS[_ufunc] = core.register(python_numbers.PREFIX + _ufunc.__name__, _kernel,
                                _infer_like(_plain), emit=_emit)
    PLAIN[OPS[_ufunc]] = _plain


def _float_kernel(python_op):
    compute = python_numbers.safe(python_op)

    def kernel(a, b, variable, expression, where):
        # (Python's ZeroDivisionError, OverflowError)
        result = compute(_python_number(a), _python_number(b))
        if type(result) is not float:
            python_numbers.not_a_float(result, variable, expression, where)
        return np.float64(result)
    return kernel


def _infer_float(*args, variable=None, expression=None, where=None):
    """A Python float, from 0-d Python numbers (`2 ** -1` too, which numpy's
    int64 refuses)."""
    return [((), np.dtype(np.float64))]


FLOAT_OPS = {}  # ufunc -> its python_float op: a Python float's `/ // % **`
for _ufunc in python_numbers.FLOAT_BINARY:
    FLOAT_OPS[_ufunc] = core.register(
        python_numbers.FLOAT_PREFIX + _ufunc.__name__,
        _float_kernel(python_numbers.BINARY[_ufunc][0]), _infer_float)
    PLAIN[FLOAT_OPS[_ufunc]] = elementwise._ufunc_op(_ufunc)


def _round_kernel(x, ndigits):
    return np.float64(round(float(x), ndigits))  # (Python's round of a float)


ROUND = core.register(python_numbers.FLOAT_PREFIX + "round", _round_kernel,
                      lambda x, ndigits: [((), np.dtype(np.float64))])


# math's float functions of a Python float (`math.sqrt(1 - b2 ** t)`): Python's
# own function (numpy's may differ in the last bit; math raises ValueError
# where numpy gives nan), its float as a Python float
MATH_FUNCTIONS = frozenset((
    "sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "fabs", "erf",
    "erfc", "gamma", "lgamma", "radians", "degrees"))


def _math_kernel(x, function):
    return np.float64(getattr(math, function)(float(x)))


MATH = core.register(python_numbers.FLOAT_PREFIX + "math", _math_kernel,
                     lambda x, function: [((), np.dtype(np.float64))])


_COUNTER_INIT_LIMIT = 1 << 40
_COUNTER_STEP_LIMIT = 16


def plain_counters(init, placeholders, results):
    """Loop var j whose body result is `placeholder + step` (a python_int add)
    and which starts at a constant counts: its add becomes numpy's (see the
    module docstring)."""
    for start, ph, out in zip(init, placeholders, results):
        if not isinstance(out, Tensor) or out.node.op is not OPS[np.add] or \
                not isinstance(start, Tensor) or start.node.op is not core.CONST or \
                np.shape(start.node.attrs["value"]):
            continue
        a, b = out.node.args
        if b is ph:
            a, b = b, a
        if a is ph and type(b) is int and 0 < abs(b) <= _COUNTER_STEP_LIMIT and \
                abs(int(start.node.attrs["value"])) < _COUNTER_INIT_LIMIT:
            out.node.op, out.node.attrs = PLAIN[out.node.op], {}
