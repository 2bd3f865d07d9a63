"""What Python's operators do on Python numbers, for the values a staged loop
carries that are Python numbers in Python (Tensor.python_number).

ops/python_ints.py records Python int arithmetic with these operators;
graph/retype.py computes a loop's first iteration with them (a Python
number that numpy types weakly); graph/scalar_loops.py emits them inline.

    python_value(np.multiply, [1.0, 0.5])    # 0.5, a Python float
    ufunc_of(op)                             # np.multiply for python_int.multiply
"""

import operator

import numpy as np

from autograph import errors

INT_MIN, INT_MAX = -(2**63), 2**63 - 1

# ufunc -> (Python operator, symbol): Python ints give Python ints (unbounded)
BINARY = {
    np.add: (operator.add, "+"), np.subtract: (operator.sub, "-"),
    np.multiply: (operator.mul, "*"), np.floor_divide: (operator.floordiv, "//"),
    np.remainder: (operator.mod, "%"), np.power: (operator.pow, "**"),
    np.left_shift: (operator.lshift, "<<"), np.right_shift: (operator.rshift, ">>"),
    np.true_divide: (operator.truediv, "/"),
}
UNARY = {np.negative: (operator.neg, "-"), np.absolute: (operator.abs, "abs")}
SYMBOLS = {u: s for u, (_, s) in {**BINARY, **UNARY}.items()}
COMPARISONS = {np.less: (operator.lt, "<"), np.less_equal: (operator.le, "<="),
               np.greater: (operator.gt, ">"), np.greater_equal: (operator.ge, ">="),
               np.equal: (operator.eq, "=="), np.not_equal: (operator.ne, "!=")}
# operators whose results on Python ints always fit int64 (numpy's op is Python's)
_IN_RANGE = {np.positive: operator.pos, np.invert: operator.invert,
             np.bitwise_and: operator.and_, np.bitwise_or: operator.or_,
             np.bitwise_xor: operator.xor}
KEEPS_PYTHON_NUMBER = set(BINARY) | set(UNARY) | set(_IN_RANGE)

PREFIX = "python_int."
FLOAT_PREFIX = "python_float."
# where Python floats raise and numpy's give inf or NaN (`x / 0.0`, `0.0 ** -1`),
# or Python gives a complex number (`(-8.0) ** 0.5`): ops/python_ints.py
FLOAT_BINARY = (np.true_divide, np.floor_divide, np.remainder, np.power)


def ufunc_of(op):
    """The ufunc a python_int or python_float op stands for (None for another op)."""
    name = op.name
    for prefix in (PREFIX, FLOAT_PREFIX):
        if name.startswith(prefix):
            return vars(np).get(name[len(prefix):])
    return None


def python_value(ufunc, values):
    """Python's result of the operator for `ufunc` on Python numbers (None
    when `ufunc` is not such an operator)."""
    python_op = (BINARY.get(ufunc) or UNARY.get(ufunc) or (_IN_RANGE.get(ufunc),))[0]
    if python_op is None:
        return None
    return safe(python_op)(*values)


def overflow(result, variable, expression, where):
    """Raises the catalog error for a Python result int64 cannot hold."""
    if type(result) is float:
        detail = f"Python gives the float {result!r} there (a negative exponent)"
    else:
        detail = f"at run time its value, {result}, is outside int64's range"
    raise errors.PythonIntOverflowError(errors.python_int_overflow_message(
        variable, expression, where, detail))


def overflow_in(value, dtype, variable, expression, where):
    """Raises the catalog error where numpy refuses a Python int for `dtype`."""
    raise errors.PythonIntOverflowError(errors.python_int_overflow_message(
        variable, expression, where, f"at run time its value, {value}, meets a {dtype} "
        f"value, which numpy refuses (OverflowError: Python integer {value} out of bounds "
        f"for {dtype})"))


def not_a_float(result, variable, expression, where):
    """Raises the catalog error for a complex number Python gives a float."""
    raise errors.PythonFloatResultError(errors.python_float_result_message(
        variable, expression, where, result))


def power(a, b):
    """Python's `a ** b` where it fits int64; past that only a value outside
    int64's range (no huge int is built just to be refused)."""
    if type(a) is int and type(b) is int and b > 64 and abs(a) > 1:
        return INT_MAX + 1 if a > 0 or b % 2 == 0 else INT_MIN - 1
    return a ** b


def left_shift(a, b):
    """Python's `a << b`, as `power` for shifts past int64."""
    if type(b) is int and b > 64 and a:
        return INT_MAX + 1 if a > 0 else INT_MIN - 1
    return a << b


def int_lines(symbol, name, values, attrs, ctx):
    """Compiled lines of Python's `symbol` on the Python ints `values` (source
    texts) into `name`, then the refusal (`overflow`) of a result int64 cannot
    hold: ops/python_ints.py and graph/scalar_loops.py emit these."""
    if symbol == "abs":
        expression = f"abs({values[0]})"
    elif len(values) == 1:
        expression = f"-{values[0]}"
    elif symbol in ("**", "<<"):  # (no huge int built only to be refused)
        safe_op = power if symbol == "**" else left_shift
        expression = f"{ctx.bind_global(safe_op, 'py')}({values[0]}, {values[1]})"
    else:
        expression = f"{values[0]} {symbol} {values[1]}"
    lines = [f"{name} = {expression}"]
    if symbol in ("%", ">>"):  # (those stay in range: |a % b| < |b|; a >> b shrinks)
        return lines
    refuse = (f"{ctx.bind_global(overflow, 'py')}({name}, "
              f"{attrs['variable']!r}, {attrs['expression']!r}, {attrs['where']!r})")
    test = f"type({name}) is not int or " if symbol == "**" else ""  # (`2 ** -1` is a float)
    return lines + [f"if {test}not {INT_MIN} <= {name} <= {INT_MAX}:", f"    {refuse}"]


def safe(python_op):
    return {operator.pow: power, operator.lshift: left_shift}.get(python_op, python_op)
