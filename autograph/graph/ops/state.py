"""Stateful ops: print, assert, variable read and assign.

These run on every call of the graph, in program order, and the optimiser
never folds, merges or removes them.
"""

import builtins

import numpy as np

from autograph import errors
from autograph.graph import core
from autograph.graph.ops import base
from autograph.graph.tensor import Tensor


def _no_outputs(*args, **attrs):
    return []


# --- print -----------------------------------------------------------------------


def _print_kernel(*values, sep=" ", end="\n", file=None, template=None, numbers=(),
                  arrays=()):
    if template is None:
        print(*values, sep=sep, end=end, file=file)
        return
    # 0-d values as numpy scalars, as eager numpy gives them (and as the graph
    # returns them), but for the 0-d arrays (`arrays`: arguments, np.array(t),
    # which the compiled graph may hold as numpy scalars); Python numbers
    # in Python as those: `{!r}` gives '2', not 'np.int64(2)' or 'array(2)'
    values = [np.asarray(v) if i in arrays else v[()] if type(v) is np.ndarray and not v.shape
              and v.dtype.kind != "O" else v for i, v in enumerate(values)]
    for i in numbers:
        if isinstance(values[i], np.generic):
            values[i] = values[i].item()
    print(template.format(*values), end=end, file=file)


def python_numbers(node):
    """Which arguments of a print node are Python numbers in Python: read when
    the graph is compiled, after a loop's re-typing settled them (retype.py)."""
    return tuple(i for i, a in enumerate(node.args) if getattr(a, "python_number", False))


def _emit_print(node, outs, args, ctx):
    options = [f"{k}={ctx.literal(v)}" for k, v in node.attrs.items()]
    if "template" in node.attrs:
        options.append(f"numbers={ctx.literal(python_numbers(node))}")
        return [f"{ctx.kernel(PRINT)}({', '.join(args + options)})"]
    return [f"print({', '.join(args + options)})"]


PRINT = core.register("print", _print_kernel, _no_outputs, stateful=True, emit=_emit_print,
                      effect=True)


def print_op(*values, sep=" ", end="\n", file=None, template=None, arrays=()):
    """Records a print that runs on every call: tensors print as the numpy
    values they hold (exactly `print(value)`), other values as they are.
    With `template` it prints `template.format(*values)` (then `end`), the
    tensors that are Python numbers in Python formatted as Python numbers,
    the 0-d ones at `arrays` (0-d arrays in Python: arguments, np.array(t))
    as arrays, others as numpy scalars."""
    attrs = {}
    if sep != " ":
        attrs["sep"] = sep
    if end != "\n":
        attrs["end"] = end
    if file is not None:
        attrs["file"] = file
    if template is not None:
        attrs["template"] = template
    if arrays:
        attrs["arrays"] = tuple(arrays)
    graph = base.graph_for(values)
    base.record(PRINT, values, attrs, graph=graph)


# --- assert ----------------------------------------------------------------------


def _exception_class(error):
    """The class an assert with attribute `error` raises: a builtin
    exception's name (what a saved graph may hold) or the class itself."""
    return getattr(builtins, error) if type(error) is str else error


def _assert_kernel(pred, message=None, error=None, error_args=()):
    if not pred:
        if error is not None:  # a staged `raise`: the user's exception
            raise _exception_class(error)(*error_args)
        raise AssertionError() if message is None else AssertionError(message)


def _emit_assert(node, outs, args, ctx):
    error = node.attrs.get("error")
    if error is not None:
        raised = (f"{ctx.bind_global(_exception_class(error), 'exc')}"
                  f"(*{ctx.literal(tuple(node.attrs.get('error_args', ())))})")
        return [f"if not {args[0]}:", f"    raise {raised}"]
    message = args[1] if len(args) > 1 else "None"
    error = "AssertionError()" if message == "None" else f"AssertionError({message})"
    return [f"if not {args[0]}:", f"    raise {error}"]


ASSERT = core.register("assert", _assert_kernel, _no_outputs, stateful=True, emit=_emit_assert,
                       effect=True)


def assert_op(pred, message=None, error=None, error_args=()):
    """Records a check that raises AssertionError(message) when `pred` is
    false at run time.  A Python `pred` is checked now, like Python's assert.
    With `error` (a builtin exception's name, or an exception class) the
    check raises `error(*error_args)` instead: a staged `raise`."""
    if not isinstance(pred, Tensor):
        _assert_kernel(pred, message, error, error_args)
        return
    if pred.static_size is not None and pred.static_size > 1:
        raise errors.GraphValueError(errors.graph_op_message(  # numpy: ValueError
            "assert", f"the condition has shape {pred.static_shape}; it needs a single value "
            "(use np.all(...) or np.any(...))", core.user_location()))
    args = (pred,) if message is None else (pred, message)
    attrs = {} if error is None else {"error": error, "error_args": tuple(error_args)}
    base.record(ASSERT, args, attrs)


# --- variables ---------------------------------------------------------------


def _read_rule(variable):
    return [(variable.shape, variable.dtype)]


def _read_kernel(variable):
    return variable._value


def _emit_read(node, outs, args, ctx):
    return [f"{outs[0]} = {ctx.bind_global(node.attrs['variable'], 'var')}._value"]


def _emit_assign(node, outs, args, ctx):
    return [f"{ctx.bind_global(node.attrs['variable'], 'var')}._store({args[0]})"]


def _assign_kernel(value, variable):
    variable._store(value)


def _assign_rule(value, variable):
    shape = base.shape_of(value)
    dtype = value.dtype if isinstance(value, Tensor) else np.asarray(value).dtype
    if len(shape) != len(variable.shape) or any(
            d is not None and d != v for d, v in zip(shape, variable.shape)):
        raise base.RuleError(f"cannot assign a value of shape {tuple(shape)} to variable "
                             f"'{variable.name}' of shape {variable.shape}")
    if not np.can_cast(dtype, variable.dtype, "same_kind"):
        raise base.RuleError(f"cannot assign a {dtype} value to variable "
                             f"'{variable.name}' of dtype {variable.dtype}")
    return []


VAR_READ = core.register("variable.read", _read_kernel, _read_rule, stateful=True,
                         emit=_emit_read, aliasing=True)
VAR_ASSIGN = core.register("variable.assign", _assign_kernel, _assign_rule, stateful=True,
                           emit=_emit_assign, effect=True)


def read_variable(variable):
    return base.record(VAR_READ, (), {"variable": variable}, graph=core.current_graph(),
                       name=f"read_{variable.name}")[0]


def assign_variable(variable, value):
    base.record(VAR_ASSIGN, (value,), {"variable": variable}, graph=core.current_graph())
