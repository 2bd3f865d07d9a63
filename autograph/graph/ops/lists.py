"""A functional tensor list, for `lst.append(x)` in staged loops.

A `TensorList` is a graph value (dtype object, shape ()) that knows its
element dtype and shape (None until the first append).  Ops never mutate:
`list_append(lst, x)` returns a new list.  At run time a list is a persistent
linked list -- None when empty, else `(rest, last_value, length)` -- so
append and pop are O(1) and old versions stay valid; `list_stack` walks it
once.  A TensorList can be a while_loop variable.

`lst + [a, b]` appends (Python's new list); other operators and ufuncs on a
TensorList would act on the run-time linked list, not on the items, and are
refused with a catalog error.

A list remembers whether its items are Python numbers (`hist.append(float(loss))`,
`ks.append(k)` of a counter, `lst.append(0.5)`): `element_python` is True
when every item appended is one, False when none is, None before the first
append; both is refused (which kind each item is would be known only at run
time).  When True, an item read back (`lst[i]`, `lst.pop()`, `for v in lst`)
is a PythonNumber, typed as numpy types a Python number, and a returned or
printed list holds Python ints and floats, as in Python.
"""

import sys

import numpy as np

from autograph import errors
from autograph.graph import core
from autograph.graph.ops import base
from autograph.graph.ops.random import as_python_number
from autograph.graph.slots import ListSlot
from autograph.graph.tensor import Tensor, _UserNames

OBJECT = np.dtype(object)
MIXED = "mixed"  # element_python of a list holding Python numbers and numpy values


def _merged_kinds(a, b, lst):
    """element_python of a list whose items are those of lists of kinds a and
    b; both kinds (MIXED: an item's kind would be known only at run time, and
    numpy's promotion of later uses sees it) are refused, naming the user's
    variable holding `lst` (else its graph name)."""
    merged = b if a is None else a if b is None or a == b else MIXED
    if merged is MIXED:
        raise errors.StagingError(errors.mixed_list_message(
            _UserNames().variable_of(lst) or lst.name, core.user_location()))
    return merged


class TensorList(Tensor):
    __slots__ = ("element_dtype", "element_shape", "element_python")

    def __repr__(self):
        dtype = self.element_dtype.name if self.element_dtype is not None else "?"
        shape = self.element_shape if self.element_shape is not None else "?"
        return f"<TensorList '{self.name}' element dtype={dtype} shape={shape}>"

    def _like(self, tensor, relax=False, result=None):
        dtype, shape, python = self.element_dtype, self.element_shape, self.element_python
        if result is not None:
            dtype = dtype if dtype is not None else result.element_dtype
            shape = _merge_element_shapes(shape, result.element_shape)
            python = _merged_kinds(python, result.element_python, self)
        return wrap(tensor, dtype, shape, python)

    def __iter__(self):
        # numpy's dispatcher for np.stack/np.vstack/... iterates its argument
        # to find __array_function__ overrides: the one item it finds routes
        # the call here (see _ItemsOfStagedList).  Whatever else iterates the
        # list (any(lst), set(lst), f(*lst), a comprehension) would see that
        # one item, not the list's: any(lst) and all(lst) were always True.
        if not sys._getframe(1).f_globals.get("__name__", "").startswith("numpy."):
            raise errors.StagingError(errors.staged_list_iteration_message(
                _UserNames()(self), errors.where_user()))
        return iter((_ItemsOfStagedList(self),))

    def __reversed__(self):  # (a staged list cannot be sliced: not the tensor's fix)
        raise errors.TensorUsageError(errors.reversed_staged_list_message(
            _UserNames()(self), errors.where_user()))

    def __getitem__(self, key):
        # `lst[i]` after a staged loop built `lst`: item i of the stacked list
        # (the shape () of the list value itself would make a plain getitem
        # fail with a misleading "too many indices").  Slices would give an
        # array rather than a list, so only single items are offered.
        if type(key) is slice and key == slice(None):
            return self  # (`lst[:]`, a copy: the list itself, which no op changes)
        integral = isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_))
        if isinstance(key, Tensor) and not isinstance(key, TensorList):
            integral = key.static_shape == () and key.dtype.kind in "iu"
        if not integral:
            raise errors.GraphError(errors.graph_op_message(
                "getitem", f"a staged list (built in a staged loop) is indexed with {key!r}; "
                "it gives single items, lst[i] with an integer i: stack it with "
                "ag.stack(lst) to slice the array", core.user_location()))
        if self.element_dtype is None or self.element_shape is None:
            raise _unknown_items(f"{{}}[{key if type(key) is int else 'i'}]", self)
        return item_of(self, list_stack(self)[key])

    def __setitem__(self, key, value):
        raise errors.StagingError(errors.staged_list_setitem_message(core.user_location()))

    # `lst + [a, b]` is Python's new list: appends (the one concatenation whose
    # length is known while tracing).  Any other operator or ufunc would act on
    # the run-time linked list, not on the items: refused (_refuse_operators).
    def __add__(self, other):
        if type(other) is not list:
            _refused_operator(self, other, "+")
        result = self
        for item in other:
            result = list_append(result, item)
        return result

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise errors.StagingError(errors.staged_list_operator_message(
            f"np.{ufunc.__name__}", core.user_location()))

    # Converted code calls ag__.list_append / list_pop for these; reaching the
    # methods means the call was not converted where it stands.
    def append(self, *args):
        raise errors.StagingError(errors.staged_list_method_message(
            "append", core.user_location()))

    def pop(self, *args):
        raise errors.StagingError(errors.staged_list_method_message("pop", core.user_location()))

    # Functions that read a list as numpy reads it (np.asarray of its items):
    # the same on the stacked items (`np.mean(hist)`); others are refused.
    def __array_function__(self, func, types, args, kwargs):
        if func in _READ_AS_AN_ARRAY and args and args[0] is self:
            return func(list_stack(self), *args[1:], **kwargs)
        module = getattr(func, "__module__", None) or "numpy"
        name = ("np" + module[5:] if module.startswith("numpy") else module) + "." + \
            func.__name__  # (np.linalg.norm, not np.norm)
        raise self._usage_error(f"{name}() of a staged list (stack it first: "
                                f"{name}(ag.stack(lst), ...))")

    def __array__(self, dtype=None, copy=None):
        raise self._usage_error("np.array() of a staged list (a graph value: write "
                                "ag.stack(lst), or np.stack(lst), for the array of its items)")

    def _check_loop_output(self, out, index):
        if not isinstance(out, TensorList):
            raise errors.GraphError(f"while_loop: loop var #{index} is a tensor list before "
                                    f"an iteration and {out!r} after")
        # (not `None not in (...)`: a float64 dtype compares equal to None)
        if self.element_dtype is not None and out.element_dtype is not None and \
                self.element_dtype != out.element_dtype:
            raise errors.GraphError(
                f"while_loop: tensor list #{index} holds {self.element_dtype} before an "
                f"iteration and {out.element_dtype} after")


_READ_AS_AN_ARRAY = frozenset((
    np.mean, np.sum, np.prod, np.max, np.min, np.amax, np.amin, np.std, np.var,
    np.argmax, np.argmin, np.any, np.all, np.cumsum, np.cumprod, np.average))


def _refuse_list_methods():
    """Python list methods a staged list does not offer (converted code turns
    `lst.append`/`lst.pop` statements into functional ops): a catalog error,
    not Python's AttributeError naming TensorList."""
    def refusing(name):
        def method(self, *args, **kwargs):
            raise errors.StagingError(errors.staged_list_unsupported_method_message(
                name, core.user_location(), _UserNames()(self)))
        return method

    # (`index` is a Tensor's output index: lst.index(v) keeps Python's error)
    for name in ("extend", "insert", "remove", "reverse", "sort", "clear", "count"):
        setattr(TensorList, name, refusing(name))  # (`sort`: not the array method)
    # Its ops never change a staged list: a copy is the list itself.
    TensorList.copy = lambda self: self


def _refused_operator(lst, other, symbol):
    if symbol in ("+", "r+"):
        kind = "other_staged_list" if isinstance(other, TensorList) else type(other).__name__
        symbol = f"lst + {kind}" if symbol == "+" else f"{kind} + lst"
    raise errors.StagingError(errors.staged_list_operator_message(symbol, core.user_location()))


def _refuse_operators():
    def refusing(symbol):
        def operator(self, *other):
            _refused_operator(self, other[0] if other else None, symbol)
        return operator

    for name, symbol in (
            ("radd", "r+"), ("iadd", "+="), ("sub", "-"), ("rsub", "-"), ("mul", "*"),
            ("rmul", "*"), ("imul", "*="), ("truediv", "/"), ("rtruediv", "/"),
            ("floordiv", "//"), ("rfloordiv", "//"), ("mod", "%"), ("rmod", "%"),
            ("pow", "**"), ("rpow", "**"), ("matmul", "@"), ("rmatmul", "@"),
            ("and", "&"), ("rand", "&"), ("or", "|"), ("ror", "|"), ("xor", "^"),
            ("rxor", "^"), ("lshift", "<<"), ("rlshift", "<<"), ("rshift", ">>"),
            ("rrshift", ">>"), ("divmod", "divmod()"), ("rdivmod", "divmod()"),
            ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="), ("eq", "=="), ("ne", "!="),
            ("neg", "unary -"), ("pos", "unary +"), ("abs", "abs()"), ("invert", "~")):
        setattr(TensorList, f"__{name}__", refusing(symbol))


_refuse_operators()
_refuse_list_methods()


class _ItemsOfStagedList:
    """What iterating a TensorList yields: it only serves `np.stack(lst)`
    (axis 0) and `np.array(lst)`; any other use raises TensorUsageError."""

    __slots__ = ("lst",)
    __array_ufunc__ = None

    def __init__(self, lst):
        self.lst = lst

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.stack, np.array, np.asarray) and args and args[0] is self.lst and \
                kwargs.get("axis", 0) == 0 and not kwargs.get("out"):
            return list_stack(self.lst)
        raise self.lst._usage_error(f"np.{func.__name__}() of a staged list (only "
                                    "np.stack(lst) and ag.stack(lst) stack it)")

    def __getattr__(self, name):
        raise self.lst._usage_error("iter() of a staged list (stack it with ag.stack(lst))")


def _merge_element_shapes(a, b):
    if a is None or b is None:
        return a if b is None else b
    if len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def wrap(tensor, element_dtype, element_shape, element_python=None):
    """Replaces `tensor` (an output of its node) by a TensorList."""
    lst = TensorList(tensor.graph, tensor.node, tensor.index, (), OBJECT, tensor.name)
    lst.element_dtype = None if element_dtype is None else np.dtype(element_dtype)
    lst.element_shape = None if element_shape is None else tuple(element_shape)
    lst.element_python = element_python
    outputs = list(tensor.node.outputs)
    outputs[tensor.index] = lst
    tensor.node.outputs = tuple(outputs)
    inputs = tensor.graph.inputs
    for i, t in enumerate(inputs):
        if t is tensor:
            inputs[i] = lst
    return lst


def _list_rule(*args, **attrs):
    return [((), OBJECT)]


def _new_kernel():
    return None


def _append_kernel(lst, value):
    return (lst, value, 1 if lst is None else lst[2] + 1)


def _pop_kernel(lst):
    if lst is None:
        raise errors.GraphIndexError(errors.staged_list_empty_pop_message())
    return lst[0], lst[1]


def _pop_rule(lst):
    return [((), OBJECT), (lst.element_shape, lst.element_dtype)]


def _pop_at_kernel(lst, index):
    items = []
    while lst is not None:
        items.append(lst[1])
        lst = lst[0]
    items.reverse()
    try:
        item = items.pop(int(index))
    except IndexError:
        raise errors.GraphIndexError(errors.staged_list_empty_pop_message() if not items
                                     else "pop index out of range") from None
    rest = None
    for length, value in enumerate(items, 1):
        rest = (rest, value, length)
    return rest, item


def _pop_at_rule(lst, index):
    if index.static_shape != () or index.dtype.kind not in "iu":
        raise base.RuleError(f"list indices must be integers, not {index!r}", TypeError)
    return _pop_rule(lst)


def _set_at_kernel(lst, index, value):
    items = []
    while lst is not None:
        items.append(lst[1])
        lst = lst[0]
    items.reverse()
    try:
        items[int(index)] = value
    except IndexError:
        raise errors.GraphIndexError("list assignment index out of range") from None
    rest = None
    for length, item in enumerate(items, 1):
        rest = (rest, item, length)
    return rest


def _set_at_rule(lst, index, value):
    if index.static_shape != () or index.dtype.kind not in "iu":
        raise base.RuleError(f"list indices must be integers, not {index!r}", TypeError)
    return _list_rule()


def _stack_kernel(lst, dtype, shape):
    items = []
    while lst is not None:
        items.append(lst[1])
        lst = lst[0]
    if not items:
        if shape is None or None in shape:
            raise errors.GraphValueError(errors.staged_list_empty_stack_message())
        return np.zeros((0,) + shape, dtype)
    items.reverse()
    return np.stack(items).astype(dtype, copy=False)


def _stack_rule(lst, dtype, shape):
    return [((None,) + tuple(lst.element_shape), lst.element_dtype)]


def _length_kernel(lst):
    return np.intp(0 if lst is None else lst[2])


LIST_NEW = core.register("list_new", _new_kernel, _list_rule, foldable=False)
LIST_APPEND = core.register("list_append", _append_kernel, _list_rule, foldable=False)
LIST_POP = core.register("list_pop", _pop_kernel, _pop_rule, foldable=False)
LIST_POP_AT = core.register("list_pop_at", _pop_at_kernel, _pop_at_rule, foldable=False)
LIST_SET_AT = core.register("list_set_at", _set_at_kernel, _set_at_rule, foldable=False)
LIST_STACK = core.register("list_stack", _stack_kernel, _stack_rule)
LIST_LENGTH = core.register("list_length", _length_kernel,
                            lambda lst: [((), np.dtype(np.intp))], foldable=False)
# the Python list a staged list is when the program runs (what print shows;
# a returned one is the same list, slots.ListSlot)
LIST_ITEMS = core.register("list_items", ListSlot.items, lambda lst, python=False: [((), OBJECT)],
                           foldable=False)


def list_items(lst):
    """The list as the Python list of its items (a value of dtype object)."""
    _check_list(lst, "list_items")
    return base.record1(LIST_ITEMS, (lst,), {"python": True} if lst.element_python is True
                        else {})


def _is_python_number(value):
    """`value`, an item appended, is a Python number (a literal, or a
    PythonNumber tensor) rather than a numpy value.  (Complex numbers are
    kept as numpy values: a staged Python number is real.)"""
    return type(value) in (bool, int, float) or getattr(value, "python_number", False)


def item_of(lst, item):
    """`item`, an item of `lst` read back, as the Python number Python would
    give when `lst` holds only those.  (The items of a list holding both
    kinds are read as numpy values: which kind an item is, is known only
    when the graph runs.)"""
    return as_python_number(item) if lst.element_python is True else item


def _check_list(lst, op):
    if not isinstance(lst, TensorList):
        raise errors.GraphError(errors.graph_op_message(
            op, f"expected a TensorList, got {lst!r}", core.user_location()))


def list_new(element_dtype=None, element_shape=None):
    """An empty TensorList of the current graph."""
    graph = base.graph_for(())
    out = graph.add_node(LIST_NEW, (), {}, [((), OBJECT)]).outputs[0]
    return wrap(out, element_dtype, element_shape)


def _literal_item(value, dtype):
    """Python number `value` as an item of a list of `dtype`: numpy's value,
    when `dtype` is the one numpy gives that number (bool, int64, float64,
    complex128): the item is then the staged Python number.  Else refused:
    Python's list would hold the number as it is, and the list's dtype
    would change it (0.5 in int64 is 0, 2 in bool True) or how numpy meets
    it later (0.5 in float32, 2e9 in int32: their arithmetic, not Python's)."""
    item = np.asarray(value)
    if item.dtype != dtype:
        raise errors.StagingError(errors.staged_list_literal_message(
            value, dtype, _stored(value, dtype), item.dtype, core.user_location()))
    return item


def _stored(value, dtype):
    """What a list of `dtype` would hold for `value` (numpy's cast), for the message."""
    try:
        return np.asarray(value).astype(dtype)[()]
    except (OverflowError, ValueError, TypeError):
        return f"no {dtype} (numpy cannot cast it)"


def _item_for(lst, value, op):
    """`value` as a tensor that `lst` can hold (its element dtype and rank)."""
    graph = base.graph_for((lst,))
    if type(value) in base._PYTHON_SCALARS and lst.element_dtype is not None:
        value = graph.constant(_literal_item(value, lst.element_dtype))
    value = base.as_tensor(value, graph)
    if lst.element_dtype is not None and value.dtype != lst.element_dtype:
        filename, lineno, _ = errors.user_frame(2)
        receiver = errors.method_receiver_at(filename, lineno, "append") \
            if op == "list_append" else None
        held = np.dtype(lst.element_dtype).name
        raise errors.GraphError(errors.graph_op_message(
            op if receiver is None else f"`{receiver}.append(...)`",
            f"the staged list holds {held} items, the value is {np.dtype(value.dtype).name}; "
            f"give every item one dtype (cast this one with .astype(np.{held}), or the others)",
            errors.where(filename, lineno)))
    if lst.element_shape is not None and len(lst.element_shape) != len(value.static_shape):
        raise errors.GraphError(errors.graph_op_message(
            op, f"the list holds items of shape {lst.element_shape}, the value "
            f"has shape {value.static_shape}", core.user_location()))
    return value


def list_append(lst, value):
    """A new TensorList: `lst` plus `value` at the end."""
    _check_list(lst, "list_append")
    number = _is_python_number(value)
    value = _item_for(lst, value, "list_append")  # (its refusals are the more precise)
    python = _merged_kinds(lst.element_python, number, lst)
    out = base.record1(LIST_APPEND, (lst, value))
    return wrap(out, value.dtype, _merge_element_shapes(lst.element_shape, value.static_shape),
                python)


def list_pop(lst, index=None):
    """(the list without its last item, or item `index` (Python's negative
    indices too), that item); IndexError when there is none."""
    _check_list(lst, "list_pop")
    if lst.element_dtype is None or lst.element_shape is None:
        raise _unknown_items("{}.pop()", lst)
    if index is None:
        rest, value = base.record(LIST_POP, (lst,))
    else:  # walks the list when the graph runs: O(length)
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) \
                and not isinstance(index, Tensor):
            raise errors.GraphTypeError(
                f"list indices must be integers, not {type(index).__name__}")
        graph = base.graph_for((lst,))
        index = base.as_tensor(index if isinstance(index, Tensor) else np.intp(index), graph)
        rest, value = base.record(LIST_POP_AT, (lst, index))
    return wrap(rest, lst.element_dtype, lst.element_shape, lst.element_python), \
        item_of(lst, value)


def list_set(lst, index, value):
    """A new TensorList: `lst` with item `index` (Python's negative indices
    too) replaced by `value`; IndexError when there is no such item."""
    _check_list(lst, "list_set")
    if lst.element_dtype is None or lst.element_shape is None:
        raise _unknown_items(f"{{}}[{index if type(index) is int else 'i'}] = ...", lst)
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) \
            and not isinstance(index, Tensor):
        raise errors.GraphTypeError(f"list indices must be integers or slices, not "
                                    f"{type(index).__name__}")
    number = _is_python_number(value)
    value = _item_for(lst, value, "list_set")
    python = _merged_kinds(lst.element_python, number, lst)
    graph = base.graph_for((lst,))
    index = base.as_tensor(index if isinstance(index, Tensor) else np.intp(index), graph)
    out = base.record1(LIST_SET_AT, (lst, index, value))
    return wrap(out, lst.element_dtype,
                _merge_element_shapes(lst.element_shape, value.static_shape), python)


def _unknown_items(op, lst):
    """The error for `op` ('{}[i]', '{}.pop()': spelled with the user's
    variable) on a staged list whose item dtype and shape are not known yet:
    a staged loop whose body reads the list before its first append (`while
    stack and stack[-1] > v`)."""
    name = _UserNames()(lst)
    return errors.GraphError(errors.unknown_list_items_message(
        op.format(name), name, core.user_location()))


def list_stack(lst):
    """The items stacked into one tensor of shape (length, *element_shape)."""
    _check_list(lst, "list_stack")
    if lst.element_dtype is None or lst.element_shape is None:
        raise _unknown_items("stacking {} into an array", lst)
    return base.record1(LIST_STACK, (lst,), {"dtype": lst.element_dtype,
                                             "shape": lst.element_shape})


def list_length(lst):
    """The number of items, as an intp scalar tensor."""
    _check_list(lst, "list_length")
    return base.record1(LIST_LENGTH, (lst,))


def list_from(items, element_dtype=None, element_shape=None):
    """A TensorList holding `items` (a Python list of tensors/values)."""
    lst = list_new(element_dtype, element_shape)
    for item in items:
        lst = list_append(lst, item)
    return lst
