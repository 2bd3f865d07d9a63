"""The backend protocol: everything the runtime asks of a backend.

A backend subclasses `Backend`, sets `name`, and overrides what it can
stage; every method has a documented default here, so a backend that cannot
stage something raises a catalog error naming the user's line instead of an
AttributeError. The runtime calls these methods and nothing else (no
`getattr` probing), and passes the user's names as arguments.

Conventions (docs/BACKENDS.md tells the whole story):

- Branch and body functions take the state as positional arguments and
  return a tuple; `names` are the user's variable names, one per state entry.
- State entries are nested lists/tuples/dicts/namedtuples/dataclasses of
  leaves; `autograph.runtime.structure` flattens them, and
  `autograph.runtime.staging` checks them (structure, dtype, shape, Python
  values that must stay put) with messages naming the variable, and its
  `LoopState` is the backend-neutral part of a staged loop. Before a
  backend's `cond` or loop sees them, the runtime has already checked that
  both branches give the same structure and that no loop variable is
  undefined.
- `opts` of a loop holds the user's `ag.set_loop_options(...)`:
  `maximum_iterations`, `shape_invariants` (may be empty).
"""

import numpy as np

from autograph import errors


def exception_text(exception):
    """'ValueError: negative' for ValueError('negative'); 'ValueError' for the class."""
    cls = exception if isinstance(exception, type) else type(exception)
    text = str(exception) if not isinstance(exception, type) else ""
    return f"{cls.__name__}: {text}" if text else cls.__name__


_PLAIN = (str, int, float, bool, type(None))


def exception_parts(exception):
    """(class, args) that rebuild a raised exception when a graph runs: its
    args when they are plain constants, else its text (formatted while
    tracing); None when the class cannot be called with them."""
    cls = exception if isinstance(exception, type) else type(exception)
    args = () if isinstance(exception, type) else exception.args
    if not all(type(a) in _PLAIN for a in args):
        args = (str(exception),)
    try:
        cls(*args)
    except Exception:  # noqa: BLE001 - a class whose __init__ takes other arguments
        return None
    return cls, tuple(args)


def _unsupported(backend, operation):
    return errors.StagingError(errors.staged_operation_message(
        operation, backend.name, errors.where_user()))


class Backend:
    """Base class of every backend; the defaults say what a backend may leave out."""

    name = "backend"

    # True if for_range/for_each accept `extra_test` (a test of the state run
    # before each iteration, from a `break`); else the runtime guards each
    # iteration's body with a cond on it instead.
    folds_extra_test = False

    # True if `cond` itself reconciles a variable that the two branches leave
    # as a Python list on one side and a staged list (or a Python list of
    # another length) on the other; else the runtime refuses it first.
    reconciles_branch_lists = False

    # True if this backend's staged values follow which numpy array they hold,
    # so an in-place operator (`w += 1`) on a loop or branch variable that
    # holds an array someone else holds is refused by the backend itself
    # (the graph engine: graph/tensor.py).  Else the runtime refuses it when
    # the staged `if`/loop starts (control_flow, `inplace=`): a traced value's
    # `+=` rebinds the variable alone, where numpy changes the array in place.
    follows_in_place_changes = False

    # True if this backend's library traces functions itself (`jax.jit`), so
    # a converted function called by that trace must run its staged body:
    # the registry then asks `is_tracing()` on every entry of a converted
    # function (registry.tracing). Default: only autograph's own tracing counts.
    detects_tracing = False

    # True if this backend's staged values tell a Python bool (a staged one:
    # `i > 0` of a Python counter) from a numpy bool, as the graph engine's
    # do: a staged `if`/loop that would leave a variable either is then
    # refused (staging.python_and_numpy_bool), as `~a` differs (-2 / False).
    keeps_python_bools = False

    # The words of this backend's library in the catalog messages the runtime
    # raises for every backend (a fix hint must be one the user can write):
    # what its staged values are called, the module whose array functions
    # take them (`np.sum(...)` / `jnp.sum(...)`), and where state that
    # outlives one call belongs (a clause ending a sentence).
    value_noun = "staged value"
    array_module = "np"
    kept_state = ("state kept across calls is passed in as an argument and returned "
                  "(`state, y = step(state, x)`)")

    def owns(self, value):
        """Is `value` a staged value of this backend? (Asked once per type.)"""
        return False

    def held_elsewhere(self, value, name):
        """(holder, where) when `value`, which the variable `name` holds on
        entry to a staged `if`/loop whose body changes it in place -- this
        backend's staged value, or a numpy array no other variable holds
        (control_flow.array_holders) -- stands for a numpy array something
        else holds in Python (another variable, a view, the caller, the object
        `name` is an attribute of): numpy would change it there too.  Asked
        only if not `follows_in_place_changes`.  Default: None."""
        return None

    def is_tracing(self):
        """Is this backend's library tracing on this thread right now? Asked
        only if `detects_tracing`, on every call of a converted function: keep
        it to a few attribute lookups; and by `runtime.random` to find the
        backend a draw with no staged argument belongs to. Default: False."""
        return False

    # --- control flow (a backend stages at least `cond`) ----------------------

    def cond(self, pred, true_fn, false_fn, state, names):
        """Stages `true_fn(*state) if pred else false_fn(*state)`; returns the
        outputs (a tuple, one per name)."""
        raise _unsupported(self, "if")

    def while_loop(self, test_fn, body_fn, state, names, opts):
        """Stages `while test_fn(*state): state = body_fn(*state)`; returns the
        final state."""
        raise _unsupported(self, "while")

    def for_range(self, start, stop, step, body_fn, state, names, opts, target=None,
                  extra_test=None):
        """Stages `for i in range(start, stop, step): state = body_fn(i, *state)`.

        `target` is the user's loop variable name (None for a tuple target or
        when unknown), for naming the counter in the backend's graph.
        `extra_test` (only if `folds_extra_test`) is checked before each
        iteration: `if not extra_test(*state): break`.
        Default: a while_loop over a counter."""
        def test(i, *rest):
            if self.owns(step):
                return self.select(step > 0, i < stop, i > stop)
            return i < stop if step > 0 else i > stop

        def body(i, *rest):
            return (i + step, *body_fn(i, *rest))

        final = self.while_loop(test, body, (start, *state), ("<range index>", *names), opts)
        return tuple(final[1:])

    def for_each(self, iterable, body_fn, state, names, opts, target=None, extra_test=None):
        """Stages `for item in iterable: state = body_fn(item, *state)` over a
        staged iterable (e.g. a tensor's first axis). `target`, `extra_test`:
        as for `for_range`."""
        raise errors.StagingError(errors.staged_iteration_message(
            repr(iterable), errors.where_user()))

    def select(self, pred, if_true, if_false):
        """`if_true if pred else if_false` for a staged `pred`, elementwise
        (used by the default `for_range` with a staged step)."""
        return self.cond(pred, lambda: (if_true,), lambda: (if_false,), (),
                         ("<select>",))[0]

    def logical_not(self, value):
        """`not value` for a staged value. Default: a cond giving False/True."""
        return self.cond(value, lambda: (False,), lambda: (True,), (), ("<value of `not`>",))[0]

    # --- side effects that run every time the graph runs ----------------------

    def print_(self, *values, sep=" ", end="\n", template=None):
        """Stages a print that runs every time the graph runs.  With
        `template` (an f-string of staged values: runtime builtins.StagedText)
        it prints `template.format(*values)` and `end` (`sep` is in the
        template); a value that is a Python number in Python formats as one."""
        raise _unsupported(self, "print()")

    def assert_(self, pred, message):
        """Stages an assertion that fails (with `message`) when the graph runs."""
        raise _unsupported(self, "assert")

    def random_draw(self, method, args, kwargs):
        """Stages `method(*args, **kwargs)`: a draw from a numpy Generator or
        RandomState that exists outside the traced function (`method` is its
        bound method, e.g. `np.random.rand` or `rng.normal`; `args`/`kwargs`
        may hold staged values). It must run on every call, in program order,
        consuming the generator's stream as eager numpy would (never folded,
        merged, reordered or dropped). Asked while this backend traces, even
        when no argument is staged (`is_tracing()` or a staged region says
        so). Default: refuses (a draw made while tracing would be a constant)."""
        from autograph.runtime.random import call_text  # (it imports this module)
        raise errors.StagingError(errors.random_draw_backend_message(
            call_text(method), self.name, errors.where_user()))

    def raise_(self, pred, exception):
        """Stages a staged branch's `raise exception` (an instance or a class):
        raises it when the graph runs with `pred` false.  The default stages
        an assertion whose message is the exception's type and text."""
        self.assert_(pred, exception_text(exception))

    # --- builtins on staged values --------------------------------------------

    def len_(self, value):
        """`len(value)` of a staged value (may be staged itself)."""
        raise _unsupported(self, "len()")

    def python_number(self, value, kind):
        """`float(value)` (`kind` "float") or `int(value)` ("int") of a staged
        value, as a staged value that later arithmetic treats as Python treats
        a Python number; NotImplemented where the backend has none (the
        builtin is then called, and refuses the staged value)."""
        return NotImplemented

    def python_math(self, function, number):
        """`math.<function>(number)` (`function` a name of ops/python_ints.py
        MATH_FUNCTIONS) of what `python_number(value, "float")` gave, as
        another such value; NotImplemented where the backend has none (the
        math function is then called, and refuses the staged value)."""
        return NotImplemented

    def numpy_type_of(self, value, dtype):
        """`dtype.type(value)` (`np.float32(total)`) of a staged value: for an
        array or a numpy value, `value.astype(dtype)`; a backend whose staged
        values include Python numbers converts those as numpy converts a
        Python number (`np.int8(300)` raises).  NotImplemented: the numpy
        type is called, and refuses the staged value."""
        astype = getattr(value, "astype", None)
        return NotImplemented if astype is None else astype(dtype)

    def array_of(self, value, dtype, copy):
        """`np.array(value, dtype)` (`copy` True) or `np.asarray(value, dtype)`
        (`copy` None) of a staged value: numpy's conversion of it, a copy
        unless np.asarray keeps the value itself (the same dtype: an in-place
        change of it is then the argument's, as in numpy).  NotImplemented:
        the numpy function is called, and refuses the staged value."""
        if not copy and dtype == value.dtype and getattr(value, "python_number", False) is not True:
            return value
        return self.numpy_type_of(value, dtype)

    def range_len(self, start, stop, step):
        """`len(range(start, stop, step))` with a staged bound."""
        raise _unsupported(self, "len(range(...))")

    def enumerate_(self, iterable, start=0):
        """`enumerate(iterable, start)` of a staged iterable: something this
        backend owns and `for_each` iterates."""
        raise _unsupported(self, "enumerate()")

    def zip_(self, *iterables, strict=False):
        """`zip(*iterables, strict=strict)` with a staged iterable (as enumerate_)."""
        raise _unsupported(self, "zip()")

    def effects(self):
        """How many side effects -- prints, asserts, raises, random draws,
        variable updates: what runs each time the program runs and no
        optimisation may drop -- this thread's traces have staged so far
        (any count that grows with each).  A staged `while` compares it
        around the first evaluation of its test (control_flow.while_stmt).
        The default, 0, says nothing is known."""
        return 0

    def eager_types(self, value):
        """The classes staged `value` can have when the same program runs
        eagerly on the values it was traced for (runtime/builtins.py answers
        converted code's `type(value)` and `isinstance(value, cls)` from
        them): one class when known, so `type()` gives it; several when the
        trace cannot tell (numpy gives a 0-d result as a numpy scalar or a 0-d
        array depending on how it was computed, a Python number carried
        through a loop stays one if the loop runs no iteration), then
        `isinstance` answers where they all agree and everything else is
        refused (TracedTypeError).  Default: () -- not known: both refused."""
        return ()

    # --- lists ------------------------------------------------------------------

    def stack(self, items):
        """Stacks a Python list of staged values (or a staged list) into one."""
        raise _unsupported(self, "ag.stack()")

    def full(self, shape, fill_value, dtype):
        """`np.full(shape, fill_value, dtype)` where a dim of `shape` (an int or
        a tuple) or `fill_value` is staged (np.zeros/ones/empty come here too)."""
        raise _unsupported(self, "np.zeros/ones/full() with a staged size")

    def arange(self, start, stop, step, dtype=None):
        """`np.arange(start, stop, step, dtype)` with a staged bound."""
        raise _unsupported(self, "np.arange() with a staged bound")

    def take(self, a, indices, axis, mode):
        """`np.take(a, indices, axis=axis, mode=mode)` of a numpy `a` with
        staged `indices`.  Default: numpy's own call (which refuses them)."""
        return np.take(a, indices, axis, None, mode)

    def list_append(self, target, item):
        """`target.append(item)` on a staged list; returns the new list."""
        raise _unsupported(self, "list.append()")

    def list_pop(self, target, index=None):
        """`target.pop(index)` on a staged list; returns (new list, item)."""
        raise _unsupported(self, "list.pop()")

    def list_setitem(self, target, index, value):
        """`target[index] = value` on a staged list; returns the new list.
        Default: the item assignment as written (the list's own __setitem__)."""
        target[index] = value
        return target

    def list_element_type(self, value):
        """(dtype, shape) of the items of `value` if it is a staged list of this
        backend (either None while not known yet), else None. The runtime's
        checks tell staged lists from arrays with it. Default: None (no
        staged lists)."""
        return None

    def set_element_type(self, target, dtype, shape=None):
        """`ag.set_element_type` on a staged list of this backend. Default: no-op."""
        return target

    def python_list_element_type(self, target, dtype, shape=None):
        """`ag.set_element_type` on a Python list: a backend that is tracing may
        turn it into one of its staged lists (so appends in staged loops are
        staged). Default, and whenever this backend is not tracing: `target`
        unchanged."""
        return target
