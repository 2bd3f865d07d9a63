"""The checks of staging that are the same for every backend, and their messages.

Before a backend stages an `if` or a loop, and while it traces one, the
runtime (and the backend, with these functions) checks that

- both branches give each variable the same structure (nested
  lists/tuples/dicts/namedtuples/dataclasses), and no variable is undefined
  on one side only;
- a loop keeps each variable's structure, dtype and shape across an
  iteration (unless the user relaxed the shape with set_loop_options), and a
  Python value that is not loop state stays put;
- a Python number in loop state takes the dtype numpy gives it after one
  iteration (`s = 0; s += x_f32` carries float32): `promoted`;
- a `return` inside a staged branch or loop sets its value on every path.

Each failure is a StagingError from the catalog naming the user's variable,
both sides and the user's line.  Leaves are told apart without knowing any
backend: an array is a leaf with a numpy `dtype` and a tuple `shape` (numpy
arrays and scalars, and the staged values of backends on numpy dtypes), a
staged list is what its backend's `list_element_type` recognises.
"""

import ast
import collections
import contextlib
import functools
import inspect
import itertools
import linecache
import operator
import os
import re
import sys
import threading
import types

import numpy as np

from autograph import errors
from autograph.runtime import aliases, special_values, structure
from autograph.runtime.registry import backend_of
from autograph.runtime.scope import FunctionScope, scope_in
from autograph.runtime.special_values import Undefined, UndefinedReturnValue
from autograph.runtime.structure import UNDEFINED_RETURN
from autograph.runtime.tracebacks import generated_owner

_NUMBERS = (bool, int, float, complex)

user_location = errors.where_user

_regions = threading.local()  # .stack: backends whose branch / loop body is being traced


@contextlib.contextmanager
def region(backend, taken=None, statement=None):
    """While a backend traces a staged branch or loop body: what runs there
    runs only when (and as often as) the graph takes that path, so a Python
    side effect such as `print("x")` must be staged too (`region_backend`).
    `taken`: for a branch, a function giving a staged value true exactly when
    the graph takes it.  `statement`: (the state's names, location, what it
    is: "`for` loop") of the user's statement, whose Python state that the
    region changes other than its own state is refused (`_refuse_changed`).
    Whatever the body (or the protection walk) raises, the stacks are popped
    and every array this region made read-only is writeable again (or handed
    to the enclosing region: `_writeable_again`)."""
    entering = sys._getframe(2)  # (the frame entering the region; see frames_outside_region)
    state = _regions.__dict__
    stack, outside = state.setdefault("stack", []), state.setdefault("outside", [])
    protections = state.setdefault("protected", [])  # per region: what it made read-only
    protected = {}
    held = [] if statement is not None else None
    stack.append((backend, taken))
    outside.append(entering)
    protections.append(protected)
    try:
        _protect_arrays(entering, protected, held)
        yield
        if held:
            _refuse_changed(held, *statement, _carried_parts(entering, statement[0]),
                            backend.kept_state)
    except ValueError as e:
        if protected and "read-only" in str(e):
            raise _in_place_numpy_error(e, protected, backend) from e
        raise
    except RecursionError as e:
        if statement is None or isinstance(e, errors.AutoGraphError):
            raise
        # (the innermost region the recursion ran through: its statement is the
        # staged test that could not stop it; the long traceback helps no one)
        raise errors.StagedRecursionError(
            errors.staged_recursion_message(statement[2], statement[1])) from None
    finally:
        stack.pop()
        outside.pop()
        protections.pop()
        _writeable_again(protected, protections[-1] if protections else None)


def _writeable_again(protected, enclosing):
    """Undoes `_protect_arrays`: the arrays a view is taken of first (numpy
    keeps a view read-only while the array it views is).  A view whose base
    an enclosing region keeps read-only cannot be made writeable yet: it is
    handed to the `enclosing` region's `protected`, which undoes it after
    that base."""
    def chain_length(array):
        n = 0
        while isinstance(array, np.ndarray):
            array, n = array.base, n + 1
        return n
    for key, (array, path) in sorted(protected.items(),
                                     key=lambda pair: chain_length(pair[1][0])):
        try:
            array.flags.writeable = True
        except ValueError:  # ("cannot set WRITEABLE flag to True": its base is read-only)
            if enclosing is not None:
                enclosing.setdefault(key, (array, path))


def _protect_arrays(frame, protected=None, held=None):
    """The numpy arrays the user's running frames hold or read, made
    read-only while a staged branch or loop body is traced: an in-place numpy
    change of one there (`b = w; b += 1`, `np.copyto(w, ...)`, `box.w += 1`
    on a global `box`) would run once, while tracing, where Python runs it
    each time the path is taken (or never).  Looked at: the frames'
    variables (closure cells included) and the globals their code (and the
    code nested in it: the generated branch and loop bodies) reads by name,
    then `_HOLDER_DEPTH` levels into the lists, tuples and dicts and the
    attributes of the user's objects they hold.  Numpy's read-only error is
    turned into a catalog error naming the holder (`region`).  Returns
    {id(array): (array, its path: 'box.w' as `_spelled` makes it)}, filled
    into `protected` as it goes (the caller undoes what it holds, should the
    walk fail).  `held`, a list: the same walk appends what it saw of the
    Python state -- the frames' closure cells, the globals read, the items
    and attributes of the containers and objects -- for `_refuse_changed`."""
    protected = {} if protected is None else protected
    converted = errors.is_converted_code or (lambda code: False)
    for frame in _traced_user_frames(frame):
        variables, code = frame.f_locals, frame.f_code
        traced = converted(code)
        # (a value the traced code made itself: a local but for its parameters
        # and the cells it shares with an enclosing function, whose own frame
        # says whether they are its own)
        outside = _parameters(code) | set(code.co_freevars) if traced else ()
        roots = [(name, value, name not in outside) for name, value in variables.items()]
        if traced:  # (not the frames of whoever called jax.jit: only the traced code's)
            namespace = frame.f_globals
            read = [(name, namespace[name]) for name in errors.names_read(code)
                    if name in namespace]
            roots += [(name, value, False) for name, value in read]
            if held is not None:  # (a plain local cannot change while the region runs)
                held.append((_CELLS, frame, {
                    name: variables[name] for name in code.co_cellvars + code.co_freevars
                    if name in variables and name not in _CELL_NAMES}, True))
                held.append((_GLOBALS, namespace, dict(read), True))
        for name, value, own in roots:  # (the `ag__` cell holds a module: not looked into)
            if not name.startswith("__") and value.__class__ is not FunctionScope:
                _protect_held(value, name, protected, _HOLDER_DEPTH if traced else 1,
                              objects=traced, held=held if traced else None, own=own)
    return protected


def _parameters(code):
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return set(code.co_varnames[:count])


_HOLDER_DEPTH = 2  # levels of items and attributes looked into (a cap on the cost)
_SCANNED_ITEMS = 256  # items of one container looked into (further ones: only if arrays)


def _protect_held(value, path, protected, depth, objects=True, held=None, own=True):
    """Makes `value` read-only if it is a writeable numpy array; else, `depth`
    levels down, the arrays its list/tuple/dict items and (with `objects`)
    the attributes of a user's object (its class from a user's file) hold.
    `held`: a list the lists, dicts, sets and objects seen are appended to,
    with a copy of their items or attributes and whether they are held by
    the traced code's own variables (`own`; `_refuse_changed`)."""
    kind = type(value)
    if kind is np.ndarray:
        if value.flags.writeable:
            value.flags.writeable = False
            protected[id(value)] = (value, path)
        return
    if depth == 0 or kind in _SCALARS:
        return
    if kind is dict or kind in _DICTS:
        pairs, spelled = dict.items(value), "{}[{!r}]"
        if held is not None:
            held.append((value, path, dict(dict.items(value)), own))
    elif kind in (list, tuple):
        pairs, spelled = enumerate(value), "{}[{}]"
        if held is not None and kind is list:
            held.append((value, path, list(value), own))
    elif objects and _users_object(value):
        attributes = _attributes(value)
        pairs, spelled = attributes.items(), "{}.{}"
        if held is not None:
            held.append((value, path, dict(attributes), own))
            cls = type(value)  # (`type(self).count += 1`, a counter the class holds)
            held.append((cls, cls.__name__, _class_items(cls), own))
    elif held is not None and objects and _users_class(value):
        held.append((value, path, _class_items(value), own))  # (`Layer.count += 1`)
        return
    elif held is not None and objects and kind is types.FunctionType and value.__dict__ \
            and not errors._not_users(value.__code__.co_filename):
        held.append((value, path, dict(value.__dict__), own))  # (`helper.calls += 1`)
        return
    elif held is not None and objects and hasattr(kind, "ATTRIBUTES_OF_ITS_OWN"):
        held.append((value, path, _users_attributes(value), own))  # (an ag.function's)
        return
    else:
        if held is not None and kind is set:
            held.append((value, path, set(value), own))
        elif held is not None:
            position = _iterator_position(value)
            if position is not None:  # (`next(it)` in the body would take one item, once)
                held.append((_ITERATOR, path, (value, position), own))
        return
    pairs = iter(pairs)
    for key, item in itertools.islice(pairs, _SCANNED_ITEMS):
        if type(item) not in _SCALARS:  # (the common case, skipped without a call)
            _protect_held(item, (path, spelled, key), protected, depth - 1, objects, held, own)
    for key, item in pairs:  # (past the cap, its arrays alone: a type test each)
        if type(item) is np.ndarray:
            _protect_held(item, (path, spelled, key), protected, 0, objects)


_DICTS = (collections.defaultdict, collections.Counter, collections.OrderedDict)
_CELLS, _GLOBALS = "a closure variable", "a global"
_ITERATOR = "an iterator"


def _iterator_position(value):
    """Where Python's iterator `value` stands (a generator: its frame's last
    instruction; a list, tuple, range or dict iterator: how many items it
    has left), read without advancing it; None for another value, or an
    iterator that cannot tell."""
    if isinstance(value, types.GeneratorType):
        frame = value.gi_frame
        return "finished" if frame is None else frame.f_lasti
    kind = type(value)
    if kind.__name__.endswith("iterator") and kind.__module__ == "builtins":
        return operator.length_hint(value, -1)
    return None
_CELL_NAMES = frozenset(("ag__", "fscope"))  # (the converted code's own cells)


def _carried_parts(frame, names):
    """{(id(holder), key)} of the items and attributes among the statement's
    state `names` (`self.total`, `d['k']`, `ws[0]`), found from the variables
    of the user function it is in: the walk may reach the same object by
    another path (the caller's `acc.total` is the method's `self.total`)."""
    converted = errors.is_converted_code or (lambda code: False)
    user = next((f for f in _traced_user_frames(frame) if converted(f.f_code)), None)
    parts = set()
    if user is None:
        return parts
    variables = user.f_locals
    for name in names:
        if name and ("." in name or "[" in name):
            try:
                node = ast.parse(name, mode="eval").body
            except SyntaxError:
                continue
            holder = _part_holder(node.value, variables) if isinstance(
                node, (ast.Attribute, ast.Subscript)) else _GONE
            if holder is not _GONE:
                key = node.attr if isinstance(node, ast.Attribute) else \
                    node.slice.value if isinstance(node.slice, ast.Constant) else _GONE
                if key is ... and type(holder) not in ENTRY_CONTAINERS:
                    continue  # (not carried: control_flow.load_part)
                parts.add((id(holder), key))
    return parts


# The containers whose entries a `d[...]` part carries (a key the statement
# computes: control_flow.load_part/store_part); a subclass's are not carried.
ENTRY_CONTAINERS = frozenset((dict, list))


def _part_holder(node, variables):
    """The object a state name's prefix (`self`, `d['a']`) spells, read the
    way the walk reads (an instance's own __dict__, a dict's or list's item:
    no user code runs), or _GONE."""
    if isinstance(node, ast.Name):
        return variables.get(node.id, _GONE)
    if isinstance(node, ast.Attribute):
        holder = _part_holder(node.value, variables)
        attributes = _attributes(holder) if holder is not _GONE else None
        return attributes.get(node.attr, _GONE) if attributes is not None else _GONE
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        holder = _part_holder(node.value, variables)
        try:
            return holder[node.slice.value] if type(holder) in (dict, list) else _GONE
        except (KeyError, IndexError, TypeError):
            return _GONE
    return _GONE


def _refuse_changed(held, names, location, statement, carried, kept_state):
    """Refuses a change the staged branch or loop body just traced made to
    Python state from before it (what `_protect_arrays` saw in `held`),
    other than to the statement's own state (`names`, which the converted
    code carries).  A Python side effect there runs once, while tracing:
    a counter a helper bumps (`nonlocal`, `global`, `self.n += 1`,
    `stats["calls"] += 1`) would count one iteration, or a branch the
    graph may never take, and the traced code would compute with that.
    A list or set that only the caller or a global holds is left to change
    once per trace (a log: the documented meaning of a Python side effect,
    docs/ARCHITECTURE.md §6).  Compared by identity (a number by value)."""
    for holder, path, before, own in held:
        if holder is _ITERATOR:
            iterator, position = before
            if _iterator_position(iterator) != position:
                _raise_changed(f"the iterator `{_spelled(path)}` (advanced by next() or a "
                               "Python loop over it)", None, None, location, statement, kept_state)
            continue
        if holder is _CELLS:
            frame, cells = path, before
            now = frame.f_locals
            for name, value in cells.items():
                if name not in names and not _same(value, now.get(name, _GONE)):
                    _raise_changed(f"variable '{name}'", _CELLS, frame, location, statement, kept_state)
            continue
        if holder is _GLOBALS:
            for name, value in before.items():
                if name not in names and not _same(value, path.get(name, _GONE)):
                    _raise_changed(f"global '{name}'", None, None, location, statement, kept_state)
            continue
        kind = type(holder)
        if not own and kind in (list, set):
            continue
        if kind is set:
            if holder != before:
                _raise_changed(f"`{_spelled(path)}`", "a set's items", None, location,
                               statement, kept_state)
            continue
        if isinstance(holder, type):
            now, spelled, mapping = _class_items(holder), "{}.{}", False
        elif kind is list:
            if len(holder) != len(before):
                _raise_changed(f"the list `{_spelled(path)}`", None, None, location, statement, kept_state)
            now, spelled = holder, "{}[{}]"
            before, now = dict(enumerate(before)), dict(enumerate(now))
        else:  # (a dict, a dict subclass, a user's object or function, an ag.function)
            mapping = kind is dict or kind in _DICTS
            now = dict(dict.items(holder)) if mapping else _users_attributes(holder) \
                if hasattr(kind, "ATTRIBUTES_OF_ITS_OWN") else _attributes(holder) or {}
            spelled = "{}[{!r}]" if mapping else "{}.{}"
        if (id(holder), ...) in carried:  # (all its entries: `d[...]`)
            continue
        for key in before.keys() | now.keys():
            old, new = before.get(key, _GONE), now.get(key, _GONE)
            if _same(old, new) or (id(holder), key) in carried:
                continue
            part = spelled.format(_spelled(path), key)
            if part in names or _cached_on_first_use(holder, key, old):
                continue
            _raise_changed(f"`{part}`", None, None, location, statement, kept_state)


_GONE = object()


def _same(old, new):
    return old is new or (type(old) is type(new) and type(old) in _SCALARS and old == new)


def _cached_on_first_use(holder, key, old):
    """`functools.cached_property` stores its value on the object the first
    time it is read: that is no change of the object's state."""
    return old is _GONE and isinstance(
        getattr(type(holder), key, None) if type(key) is str else None,
        functools.cached_property)


def _raise_changed(what, kind, frame, location, statement, kept_state):
    owner = generated_owner(frame.f_code) if frame is not None else None
    while owner is not None and frame is not None and id(frame.f_code) != owner:
        frame = frame.f_back  # (a generated branch or loop function's cell: its user function's)
    owner = (f" ({kind} of {frame.f_code.co_name} at "
             f"{errors.where(frame.f_code.co_filename, frame.f_code.co_firstlineno)})"
             if frame is not None else f" ({kind})" if kind else "")
    raise errors.StagingError(errors.outer_state_changed_message(
        what + owner, statement, location, kept_state))


def _spelled(path):
    """'box.w' for a path `_protect_held` records as ('box', '{}.{}', 'w')
    (spelled out only for an error message)."""
    if type(path) is str:
        return path
    parent, spelled, key = path
    return spelled.format(_spelled(parent), key)


_SCALARS = frozenset((bool, int, float, complex, str, bytes, type(None)))


def _users_object(value):
    """Is `value` an instance of a class defined in a user's file (not a
    module, class, function, nor autograph's, numpy's or a library's object)
    with a plain `__dict__`?  Asked by type, without running the user's code
    (a `__getattr__` or property that raises)."""
    kind = type(value)
    if issubclass(kind, _NOT_OBJECTS):  # (first: the converted code's own functions)
        return False
    return errors.in_users_file(kind) and _attributes(value) is not None


_NOT_OBJECTS = (type, types.ModuleType, types.FunctionType)


def _users_class(value):
    """Is `value` a class defined in a user's file?"""
    return isinstance(value, type) and errors.in_users_file(value)


def _class_items(cls):
    """A class's own attributes, but its dunders (`__dict__`, `__weakref__`, ...)."""
    return {name: item for name, item in vars(cls).items() if not name.startswith("__")}


def _attributes(value):
    """`value`'s instance `__dict__` (a plain dict), or None; read as
    `object` reads it, so no user `__getattr__` or `__getattribute__` runs."""
    try:
        attributes = object.__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 - no __dict__ (slots), or a user's property raising
        return None
    return attributes if type(attributes) is dict else None


def _users_attributes(function):
    """The attributes a user set on an ag.function (`step.calls`), not its
    own state (graph/function.py Function.ATTRIBUTES_OF_ITS_OWN)."""
    own = type(function).ATTRIBUTES_OF_ITS_OWN
    return {k: v for k, v in (_attributes(function) or {}).items() if k not in own}


_TRACE_ENTRIES = (os.path.join("autograph", "graph", "function.py"),
                  os.path.join("autograph", "graph", "concrete.py"))


def _traced_user_frames(frame):
    """The user's frames from `frame` outwards, up to where ag.function
    started tracing (its caller's variables are not the traced code's: what
    the traced code reads of them, it reads through its own frames' closure
    variables), or all of them (under another library's tracing)."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.endswith(_TRACE_ENTRIES):
            return
        if not errors._not_users(filename):
            yield frame
        frame = frame.f_back


def _in_place_numpy_error(error, protected, backend):
    """The catalog error for numpy's read-only error inside a staged region,
    naming the user's variable (or the item or attribute holding the array:
    `box.w`) and line (the innermost user frame)."""
    user = errors.innermost_user_traceback(error)
    frame, line = (user.tb_frame, user.tb_lineno) if user is not None else (None, None)
    name, location = "an array", user_location()
    if frame is not None:
        location = errors.where(frame.f_code.co_filename, line)
        for key, value in user_variables(frame):
            base = value
            while type(base) is np.ndarray and id(base) not in protected:
                base = base.base
            if type(base) is np.ndarray:
                return errors.InPlaceChangeError(
                    errors.in_place_numpy_in_region_message(
                        f"`{key}`", location, backend.array_module, backend.kept_state))
        # (a holder the line spells out: `box.w += 1` on a global or a closure's object)
        text = linecache.getline(frame.f_code.co_filename, line).replace('"', "'")
        spelled = [path for path in map(_spelled, (p for _, p in protected.values()))
                   if re.search(rf"(?<![\w.]){re.escape(path)}(?!\w)", text)]
        if spelled:
            name = f"`{max(spelled, key=len)}`"
    return errors.InPlaceChangeError(errors.in_place_numpy_in_region_message(
        name, location, backend.array_module, backend.kept_state))


def user_spelling(frame, name):
    """How the user spells the variable `name` of `frame`: `name` itself,
    or, for the local a generated branch or loop function carries an item or
    attribute in (`b_w` for `b.w`, named by the converters), the item or
    attribute of a user's variable that holds the same value (`b.w`:
    store_part put it there)."""
    generated = _generated_names(frame)
    code = frame.f_code
    carried = generated_owner(code) is not None and name in code.co_varnames[:code.co_argcount]
    if name not in generated and not carried:  # (no `fscope`: a body's parameters)
        return name
    value = frame.f_locals.get(name)
    for key, held in user_variables(frame, generated):
        path = aliases.path_to(held, value, key)
        if path is not None and path != key:
            return path
    return name


def enclosing_frame(frame):
    """The frame of the user's function whose generated branch or loop
    function `frame` runs (its own frame, or an outer generated function of
    it): where a variable the body does not read is held (`for row in y:`).
    None when `frame` runs no generated function."""
    owner = generated_owner(frame.f_code)
    if owner is None or frame.f_back is None:
        return None
    outer = errors.user_frame(_want_frame=True, _start=frame.f_back)
    if outer is not None and owner in (id(outer.f_code), generated_owner(outer.f_code)):
        return outer
    return None


def part_path(frame, value):
    """How a variable of the user's in `frame` holds `value` one level down
    (`xs[0]`, `d['w']`, `p.w`), or None."""
    for key, held in user_variables(frame):
        path = aliases.path_to(held, value, key) if held is not value else None
        if path is not None:
            return path
    return None


def user_variables(frame, generated=None):
    """[(name, value)] for the variables of `frame` the user wrote: not the
    names the converters generated (`_generated_names`; `generated` if the
    caller has them), `fscope`, `ag__...` nor dunder names.  The one filter
    by which the runtime looks for "the user's variable holding a value" in
    a frame (user_spelling, local_object_name, builtins' messages, the
    in-place numpy error)."""
    if generated is None:
        generated = _generated_names(frame)
    return [(name, held) for name, held in list(frame.f_locals.items())
            if name not in generated and not name.startswith("__")]


def local_object_name(value):
    """The variable holding `value` (an object an item or attribute of which
    a staged statement carries) when only the traced code holds it: a local
    of the user function being traced -- not a parameter, closure cell or
    global -- that no other variable, container or global holds
    (`outside_holders`); else None.  Its part's old array is then held by
    nobody the staged statement does not rebind."""
    frame = errors.user_frame(2, _want_frame=True)
    owner = _owner_frame(frame) if frame is not None else None
    if owner is None:
        return None
    code = owner.f_code
    parameters = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount
                                  + bool(code.co_flags & 4) + bool(code.co_flags & 8)]
    name = next((key for key, held in user_variables(owner, _generated_names(frame))
                 if held is value and key not in parameters and key not in code.co_freevars),
                None)
    if name is None or outside_holders(value, name):
        return None
    return name


def _owner_frame(frame):
    """The frame of the user function `frame` is, or whose generated branch
    or loop function it runs (None if that frame is not running)."""
    frames = frames_of_call(frame)
    return frames[-1] if frames else None


def frames_of_call(frame):
    """The frames of one call of a user function, from `frame` -- the
    function's own, or a generated branch or loop function it runs -- out to
    the function's own, which comes last (the frames of other code between
    them left out); [] if the function's frame is not running."""
    owner = generated_owner(frame.f_code)
    if owner is None:
        return [frame]
    found = []
    while frame is not None:
        if id(frame.f_code) == owner:
            found.append(frame)
            return found
        if generated_owner(frame.f_code) == owner:
            found.append(frame)
        frame = frame.f_back
    return []


def _generated_names(frame):
    """The names the converters generated in the user function `frame` is
    (or whose generated branch or loop function it runs), its cells' included:
    its `fscope`'s."""
    scope = scope_in(frame.f_locals)
    if scope is None:
        owner = _owner_frame(frame)
        scope = scope_in(owner.f_locals) if owner is not None else None
    if scope is None:  # (a body run as code of its own: the nearest converted caller's)
        scope = next(filter(None, map(scope_in, (f.f_locals for f in _traced_user_frames(frame)))),
                     None)
    return scope.internal_names if scope is not None else ()


def frames_outside_region():
    """Ids of the frames that were running when the innermost staged branch
    or loop body began (aliases.check_container_change), or None outside one."""
    outside = getattr(_regions, "outside", None)
    return aliases.running_frames(outside[-1]) if outside else None


def region_backend():
    """The backend tracing the innermost staged branch or loop body, or None."""
    stack = getattr(_regions, "stack", None)
    return stack[-1][0] if stack else None


class BranchRaised(BaseException):
    """Raised by `raise_stmt` once it has staged a staged branch's `raise`:
    Python would leave the branch there, and what follows may read variables
    that only the other path assigns (`else: raise ValueError(...)` then the
    branch's `return (y,)`).  The branch's `if_stmt` catches it and gives the
    branch stand-ins of the other branch's types (the graph raises on that
    path, so they are never seen).  A BaseException: the user's `except
    Exception` does not catch it."""


def innermost_region():
    """(backend, taken) of the innermost staged branch or loop body, or None."""
    stack = getattr(_regions, "stack", None)
    return stack[-1] if stack else None


def is_number(value):
    return type(value) in _NUMBERS


def array_type(value):
    """(dtype, shape) of an array leaf (shape dims may be None), else None.
    A backend whose `.shape` holds staged sizes for the dims only known at run
    time (what user code sees) gives the static one, with None there, as
    `static_shape`."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype, value.shape
    dtype = getattr(value, "dtype", None)
    shape = getattr(value, "static_shape", None)
    if shape is None:
        shape = getattr(value, "shape", None)
    if isinstance(dtype, np.dtype) and type(shape) is tuple:
        return dtype, shape
    return None


def _is_array(value):
    return array_type(value) is not None


def list_element_type(value):
    """(dtype, shape) of a staged list's items (None where not known yet), or
    None if `value` is not a staged list of its backend."""
    backend = backend_of(value)
    return None if backend is None else backend.list_element_type(value)


def is_carried(value):
    """Can this leaf be a loop variable of a staged loop (an array or a number)?"""
    return type(value) in _NUMBERS or _is_array(value)


# --- checks before staging (runtime/control_flow.py) --------------------------------

_structure = structure.structure_of


def _describe_outline(value):
    if type(value) is Undefined:
        return "undefined"
    container = structure.describe_container(value)
    if container is not None:
        return container
    if list_element_type(value) is not None:
        return describe(value)  # a staged list: 'a staged list of float64 items'
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _return_pending(a, b):
    """A `return` that ran on one side only: the backend gives the other side
    a stand-in (the do_return flag says which value is real)."""
    return type(a) is UndefinedReturnValue or type(b) is UndefinedReturnValue


def check_branch_structure(true_out, false_out, names, location, lists_reconciled=False):
    """Both branches of a staged `if` give each variable a value of the same
    nesting, and neither leaves it undefined (if_stmt runs it).  With
    `lists_reconciled` (the backend's `reconciles_branch_lists`), a Python
    list on one side and a staged list or a Python list of another length on
    the other is left to the backend."""
    for name, a, b in zip(names, true_out, false_out):
        if type(a) is Undefined or type(b) is Undefined:
            raise errors.StagingError(errors.undefined_branch_message(
                shown(name), location, _describe_outline(a), _describe_outline(b)))
        if _structure(a) != _structure(b) and not _return_pending(a, b):
            if lists_reconciled and _branch_lists(a, b):
                continue
            if type(a) is list and type(b) is list and len(a) != len(b):
                raise errors.StagingError(errors.branch_list_length_message(
                    name, location, len(a), len(b)))
            raise errors.StagingError(errors.branch_structure_message(
                shown(name), location, _describe_outline(a), _describe_outline(b)))


def dead_after_jump(outputs, names, jumps):
    """Outputs of a staged branch that surely jumped (a jump flag among its
    outputs, `jumps` names them, is Python True): a variable it left undefined is assigned only
    on the path that did not jump, and everything after the jump that could
    read it runs under `if not flag:` (jumps.py), so on this path it is dead.
    It travels as an UndefinedReturnValue, which the backend fills with
    zeros of the other branch's type, instead of being refused as undefined.
    Only a `finally` body, which runs after the jump too, reads the stand-in
    unguarded: if_stmt notes it (special_values.note_unbound_when) and `ld`
    stages Python's UnboundLocalError for the path that jumped.  The flags
    are named by the converters (`jumps`), never told by their names: a
    user's variable `break_ = True` is not one."""
    if not jumps or not any(value is True and name in jumps
                            for name, value in zip(names, outputs)):
        return outputs
    return tuple(UndefinedReturnValue() if type(value) is Undefined else value
                 for value in outputs)


def may_leave_unbound(state, jumps):
    """May a staged `if` give an output a value that is unbound on some path:
    it has jump flags among its outputs (`dead_after_jump`; a jump nested in
    it sets one too), or a value noted so (special_values.note_unbound_when)
    in its state, which it may pass on."""
    return bool(jumps) or any(
        special_values.unbound_condition(value) is not None for value in state)


# The variable the return pass keeps a `return`'s value in (a leaf of it:
# `retval_[0]`, `retval_.a`); messages call it what it is.
_RETURN_VALUE = re.compile(r"retval_(_\d+)?(?=$|[\[.])")


def shown(name):
    """A variable's name as messages show it: the user's, or what a
    generated one stands for ('retval_[0]' -> 'the returned value[0]')."""
    return _RETURN_VALUE.sub("the returned value", name, count=1) \
        if name.startswith("retval_") else name


def _branch_lists(a, b):
    """A Python list on one side, a staged list or another Python list on the other."""
    if type(a) is list:
        return type(b) is list or list_element_type(b) is not None
    return type(b) is list and list_element_type(a) is not None


def check_branch_defined(outputs, side, names, location):
    """The first branch traced leaves no output undefined (checked before the
    backend uses the outputs; the other side is not traced yet)."""
    for name, value in zip(names, outputs):
        if type(value) is Undefined:
            this, other = "undefined", "not traced yet"
            raise errors.StagingError(errors.undefined_branch_message(
                shown(name), location, *((this, other) if side else (other, this))))


def check_defined(state, names, location, loop):
    """No variable of a staged loop's state is undefined on entry."""
    for name, value in zip(names, state):
        if type(value) is Undefined:
            raise errors.StagingError(errors.undefined_loop_state_message(
                shown(name), location, loop))


def _carried_containers(value, name, statement, location):
    """[(path, container)]: `value` and the lists, dicts and dataclasses
    nested in it, which a staged statement carrying `value` takes apart into
    its leaves (runtime/structure.py) and builds anew.  One held twice in
    `value` (`m = [row, row]`) is refused here: the two places would come
    back as two containers."""
    found, seen = [], {}

    def walk(held, path):
        children = structure.named_children(held, path)
        if children is None:
            return
        if not isinstance(held, tuple):  # (a tuple is rebuilt, never changed)
            if id(held) in seen:
                raise errors.StagingError(errors.held_container_changed_message(
                    path, statement, location, seen[id(held)],
                    "the same container, in the same state"))
            seen[id(held)] = path
            found.append((path, held))
        for child_path, child in children:
            walk(child, child_path)

    walk(value, name)
    return found


def refuse_held_container(value, name, statement, location):
    """Raises StagingError if `value`, state `name` of the staged `statement`
    whose body changes it in place, is or holds a Python list, dict or
    dataclass that someone else holds too (another variable, the caller):
    the statement takes it apart and gives `name` new containers holding
    its results, which that holder would not see.  (A list that is a staged
    `if`'s state itself is aliases.BranchLists' to write back or refuse.)"""
    for path, held in _carried_containers(value, name, statement, location):
        if path == name and type(held) is list and statement == "`if`":
            continue
        holders = outside_holders(held, name) if path == name else \
            [(holder, where) for holder, where in outside_holders(held, path)
             if not holder.startswith((name + "[", name + "."))]
        if holders:
            raise errors.StagingError(errors.held_container_changed_message(
                path, statement, location, *holders[0]))


def _leaf_ids(value):
    """The identities of a container's leaves (None for a leaf itself)."""
    if structure.named_children(value, "v") is None:
        return None
    return [id(v) for v in structure.flatten((value,), ("v",)).values]


@contextlib.contextmanager
def changed_containers_refused(initial, given, names, statement, location):
    """Around a staged branch or loop body given the state `given` (the
    backend's new containers for the containers in `initial`, the state on
    entry): a container the body changed in place (a helper's `a[0] = v`,
    which the converters cannot see) is refused where someone else holds
    the one it stands for (refuse_held_container)."""
    before = [_leaf_ids(v) for v in given]
    yield
    for k, ids in enumerate(before):
        if ids is None or k >= len(initial) or k >= len(names) or given[k] is initial[k]:
            continue
        after = _leaf_ids(given[k])
        # (an append or pop: the staged list machinery's, runtime/lists.py)
        if len(after) == len(ids) and after != ids:
            refuse_held_container(initial[k], names[k], statement, location)


def checked_body(loop_body, initial, names, location, loop, with_item):
    """`loop_body` checked after each run: same nesting, nothing undefined."""
    # Compared with the state the body is given, taken before the body runs
    # (which may mutate it): a backend may carry a value in its own form,
    # e.g. an empty Python list as a staged list.
    def run_checked(state, run):
        expected = [_structure(v) for v in state]
        # described now: the body may append to a list it was given
        outlines = [structure.describe_container(v) for v in state]
        with changed_containers_refused(initial, state, names, f"`{loop}` loop", location):
            result = run()
        for k, (name, before, value, shape, outline) in enumerate(zip(
                names, state, result, expected, outlines)):
            if type(value) is Undefined or (_structure(value) != shape
                                            and not _return_pending(before, value)):
                if type(before) is list and shape[1] and (
                        len(value) != len(shape[1]) if type(value) is list
                        else list_element_type(value) is not None):
                    # runtime/lists.py may stage it pre-filled with its items
                    raise errors.GrowingListError(errors.growing_python_list_message(
                        shown(name), location, loop, len(shape[1]),
                        len(value) if type(value) is list else "one known at run time"),
                        k, value[len(shape[1]):] if type(value) is list else value)
                part = structure.first_difference(shape, _structure(value), name)
                if part is not None and part[0] != name:  # (a part inside it: `rows[1]`)
                    raise errors.StagingError(errors.loop_structure_message(
                        shown(part[0]), location, loop, part[1], part[2]))
                raise errors.StagingError(errors.loop_structure_message(
                    shown(name), location, loop, outline or _describe_outline(before),
                    _describe_outline(value)))
        return result

    if with_item:
        return lambda item, *state: run_checked(state, lambda: loop_body(item, *state))
    return lambda *state: run_checked(state, lambda: loop_body(*state))


def outside_holders(array, variable, same=None):
    """[(name, where)] for the names besides `variable` that hold numpy `array`
    (or, with `same`, a value `same` is true of: a view of it): the user's
    variables and one level into their containers (aliases.other_holders),
    and the globals of the user's modules.  For an in-place change staged
    code cannot make on the array itself."""
    holders = aliases.other_holders(array, variable, skip_depth=2,
                                    by_pending_call=False, same=same)[0]
    scanned = set()
    for frame in _traced_user_frames(sys._getframe(1)):
        namespace = frame.f_globals
        if id(namespace) not in scanned:
            scanned.add(id(namespace))
            module = namespace.get("__name__", "?")
            for name, held in list(namespace.items()):
                path = None if name.startswith("__") else aliases.path_to(held, array, name,
                                                                          same)
                if path is not None:
                    holders.append((path, f"a global of module {module}"))
    return holders


# --- describing values for messages --------------------------------------------

def describe(value):
    """How messages name a leaf: 'a tensor of dtype float32 and shape (3,)', ..."""
    element = list_element_type(value)
    if element is not None:
        if element[0] is None:
            return "a staged list (its items' dtype not known yet)"
        return f"a staged list of {element[0].name} items"
    typed = array_type(value)
    if typed is not None and getattr(value, "python_number", False):
        return f"a staged Python {_PYTHON_TYPES[typed[0].kind].__name__}"
    if typed is not None:
        what = "a tensor" if backend_of(value) is not None else "an array"
        return f"{what} of dtype {typed[0].name} and shape {_shape(typed[1])}"
    if type(value) is UndefinedReturnValue:
        return "no return value"
    if type(value) is Undefined:
        return "undefined"
    if type(value) in _NUMBERS:
        return f"the Python {type(value).__name__} {value!r}"
    text = repr(value)
    return f"the Python value {text if len(text) <= 60 else text[:57] + '...'}"


def _shape(shape):
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + \
        (",)" if len(shape) == 1 else ")")


def _dtype(value):
    typed = array_type(value)
    return None if typed is None or list_element_type(value) is not None else typed[0]


def _rank(value):
    return len(array_type(value)[1])


def _user_objects(a, b):
    """Are `a` and `b` objects of one class of the user's (with a `__dict__`)?"""
    return type(a) is type(b) and isinstance(getattr(a, "__dict__", None), dict) and \
        type(a).__module__ not in ("builtins", "types") and not isinstance(a, type)


def _same_python_value(a, b):
    if a is b:
        return True
    if type(a) is not type(b) or _is_array(a):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an object without a usable == is not "the same"
        return False


# --- branches ----------------------------------------------------------------------

def check_branches(t, f, location, before=(), names=None):
    """`before`: the values the variables held before the `if` (a staged
    Python number one branch leaves unchanged may be a loop variable that the
    loop promotes: _check_branch_leaf); `names`: the variables' (t.names
    names the leaves), for the message when the structures differ."""
    if t.structure != f.structure:
        name, true_side, false_side = _structure_difference(t, f, names)
        raise errors.StagingError(errors.branch_structure_message(
            name, location, true_side, false_side))
    # (a branch holds its own copy of an outer value, under the same name)
    kept = {v.name for v in before if getattr(type(v), "python_number", False) is True}
    for name, a, b in zip(t.names, t.values, f.values):
        _check_branch_leaf(name, a, b, location, kept)


def python_number_type(value):
    """int, float, complex or bool when `value` is a Python number in Python (a
    staged one too: a backend's value with `python_number` set), else None."""
    if type(value) in _NUMBERS:
        return type(value)
    if getattr(value, "python_number", False):
        return _PYTHON_TYPES[value.dtype.kind]
    return None


def _one_type_fix(a, b):
    """The spelling that gives a literal Python number of one branch the
    other branch's type (`np.float32(1.0)`, `2.0`), or None."""
    for number, other in ((a, b), (b, a)):
        if type(number) not in _NUMBERS or python_number_type(other) is type(number):
            continue
        dtype = _dtype(other) if python_number_type(other) is None else None
        if dtype is not None:
            return f"np.{dtype.name}({number!r})"
        if python_number_type(other) is float and type(number) in (int, bool):
            return repr(float(number))
    return None


def python_number_on_one_side(a, b):
    """The Python type of a branch result that is a Python number (a staged
    one too) on one side and a numpy value of that number's default dtype on
    the other (`lr = 0.1` / `lr = base * np.cos(t)`), which a staged `if`
    lets through as the numpy value (_check_branch_leaf); else None.  The
    two differ only where the value meets a narrower array or scalar (`lr *
    w_f32`: float32 for the Python float, float64 for np.float64): the graph
    backend marks the result, and such a use is refused (tensor.py)."""
    for number, other in ((a, b), (b, a)):
        kind = python_number_type(number)
        if kind is None or kind is bool or python_number_type(other) is not None:
            continue
        dtype = _dtype(other)
        if dtype is not None and dtype == np.asarray(kind(0)).dtype:
            return kind
    return None


def _number_changes_type(a, b):
    """A Python number in one branch, a numpy value of another kind or size
    than numpy gives that number in the other (`x_f32 if c else 2`).  Left
    alone: a number of its default dtype (`i64 if c else -1`, where only a
    later meeting with a narrower array could tell the two apart), and a
    staged Python number, a loop variable the loop promotes as after its
    first iteration (backends/graph.py)."""
    number, other = (a, b) if is_number(a) else (b, a)
    if not is_number(number) or python_number_type(other) is not None:
        return False
    dtype = _dtype(other)
    return dtype is not None and dtype != np.asarray(number).dtype


def python_number_items(iterable, numbers=(bool, int, float, complex)):
    """For a backend's staged loop over a Python list or tuple: True when it
    holds Python numbers of one type (its items, fetched by a staged counter,
    are then staged Python numbers), False when it mixes several (or numbers
    and numpy values: an item's type would depend on the counter), None
    when it holds no Python number of the kinds `numbers`."""
    if not isinstance(iterable, (list, tuple)) or not iterable:
        return None
    kinds = {type(v) for v in iterable}
    if not kinds.intersection(numbers):
        return None
    return len(kinds) == 1


def python_and_numpy_bool(a, b, backend=None):
    """(the Python bool side, the numpy bool side) when one of `a`, `b` is a
    Python bool (a staged one too) and the other a numpy bool, else None.
    numpy's rule letting a Python number of its default dtype through as the
    numpy value (`i64 if c else -1`) does not hold for bools: `~True` is -2,
    `~np.True_` False.  Asked only where a side is a staged value of a
    backend that keeps Python bools apart (`Backend.keeps_python_bools`:
    under JAX a Python bool is a JAX bool anyway, BACKENDS.md)."""
    backend = backend or backend_of(a) or backend_of(b)
    if backend is None or not backend.keeps_python_bools:
        return None
    for python, other in ((a, b), (b, a)):
        if python_number_type(python) is bool and python_number_type(other) is None \
                and _dtype(other) == np.bool_ and _is_array(other):
            return python, other
    return None


# Branches `and`/`or` stage (logical.py): their value is nearly always a
# condition, whose truth the two kinds of bool agree on (not refused, see
# python_and_numpy_bool; ARCHITECTURE.md says what is left).  Not those of
# a conditional expression or of max()/min() (builtins.py), a value.
_LOGICAL_VALUE = re.compile(
    r"<value of `(and|or)`>$|the value of `(?!\.\.\. if |(max|min)\(\.\.\.\)`$)")


def _check_branch_leaf(name, a, b, location, kept=frozenset()):
    a_undef, b_undef = a is UNDEFINED_RETURN, b is UNDEFINED_RETURN
    if a_undef and b_undef:
        return
    if _RETURN_VALUE.match(name) and (a_undef or b_undef or a is None or b is None) and \
            not (a is None and b is None) and not (a_undef and b is None or b_undef and a is None):
        raise errors.StagingError(errors.partial_return_message(
            location, describe(a), describe(b)))

    def fail(message):
        raise errors.StagingError(message(shown(name), location, describe(a), describe(b)))

    mixed_bools = python_and_numpy_bool(a, b)
    if mixed_bools is not None and not _LOGICAL_VALUE.match(name):
        raise errors.StagingError(errors.python_or_numpy_bool_message(
            shown(name), location, "if", describe(mixed_bools[0]), describe(mixed_bools[1])))
    a_number, b_number = python_number_type(a), python_number_type(b)
    if a_number and b_number and a_number is not b_number or _number_changes_type(a, b):
        # Python gives the type of the branch taken (an int or a float, a
        # Python number or a numpy value), which later numpy promotion sees.
        raise errors.StagingError(errors.branch_python_number_message(
            shown(name), location, describe(a), describe(b), _one_type_fix(a, b)))
    a_dtype, b_dtype = _dtype(a), _dtype(b)
    a_list, b_list = list_element_type(a), list_element_type(b)
    if a_list is not None or b_list is not None:
        if a_list is None or b_list is None:
            fail(errors.branch_kind_message)
        if a_list[0] is not None and b_list[0] is not None and a_list[0] != b_list[0]:
            fail(errors.branch_dtype_message)
        return
    if a_dtype is not None and b_dtype is not None:
        if a_number or b_number:  # one staged Python number (see above)
            dtype, number = (b_dtype, a_number) if a_number else (a_dtype, b_number)
            staged_number = a if a_number else b
            # another dtype than the number's own is its branch's numpy value
            # (`r = i if c else x_f32[i]`: Python's int 3, not float32 3.0),
            # unless the branch left a loop variable as it was (`if v > 0: s =
            # s + v`): the loop promotes that one (backends/graph.py)
            if np.result_type(dtype, number(0)) != dtype or (
                    not (a_number and b_number) and getattr(staged_number, "name", None) not in kept
                    and _dtype(staged_number) != dtype):
                fail(errors.branch_dtype_message)
        elif a_dtype != b_dtype:
            fail(errors.branch_dtype_message)
        if _rank(a) != _rank(b):
            fail(errors.branch_rank_message)
        return
    if a_dtype is not None or b_dtype is not None:
        array, other, dtype = (a, b, a_dtype) if a_dtype is not None else (b, a, b_dtype)
        if not is_number(other):
            fail(errors.branch_kind_message)
        if np.result_type(dtype, other) != dtype:
            fail(errors.branch_dtype_message)
        return
    if is_number(a) and is_number(b):
        return
    if not _same_python_value(a, b):
        fail(functools.partial(errors.branch_python_value_message,
                               objects=_user_objects(a, b)))


def return_stand_ins(true_out, false_out, zeros_like):
    """Branch outputs where a `return` ran in one branch only: the other gets,
    in place of its UndefinedReturnValue, a stand-in of the same structure
    and types (`zeros_like(leaf)` per leaf); the do_return flag, also an
    output, says which one is real."""
    true_out, false_out = list(true_out), list(false_out)
    for k, (t, f) in enumerate(zip(true_out, false_out)):
        if type(t) is UndefinedReturnValue and type(f) is not UndefinedReturnValue:
            true_out[k] = structure.map_leaves(zeros_like, f)
        elif type(f) is UndefinedReturnValue and type(t) is not UndefinedReturnValue:
            false_out[k] = structure.map_leaves(zeros_like, t)
    return true_out, false_out


# --- loops -----------------------------------------------------------------------

def check_same_structure(entry, out, location, loop, names=None):
    if entry.structure != out.structure:
        name, before, after = _structure_difference(entry, out, names)
        raise errors.StagingError(errors.loop_structure_message(
            name, location, loop, before, after))


def _structure_difference(a, b, names):
    """(the user's name of the first part where Leaves `a` and `b` nest
    differently, what it is in `a`, in `b`): 'list of length 2', or for a
    leaf what the value is ('a staged list of float32 items')."""
    if names is None:
        names = [n or "?" for n in structure.variable_names(a)] or ["?"]
    leaf_names = {True: list(a.names), False: list(b.names)}
    for name, x, y in zip(names, a.structure, b.structure):
        found = structure.first_difference(x, y, name)
        if found is not None:
            part, x_text, y_text = found
            texts = []
            for side, leaves, text in ((True, a, x_text), (False, b, y_text)):
                if text == "a value" and part in leaf_names[side]:
                    text = describe(leaves.values[leaf_names[side].index(part)])
                texts.append(text)
            return shown(part), texts[0], texts[1]
    return shown(names[0]), "another nesting", "another nesting"


def check_unchanged(name, before, after, location, loop):
    """A leaf that is not carried by the loop (a Python value) must stay put."""
    if is_carried(after) or not _same_python_value(before, after):
        if before is UNDEFINED_RETURN:
            return  # retval_ is carried only if the body sets it (see _Loop)
        message = errors.loop_python_value_becomes_tensor_message if _is_array(
            after) else functools.partial(errors.loop_python_value_message,
                                          objects=_user_objects(before, after))
        raise errors.StagingError(message(shown(name), location, loop, describe(before),
                                          describe(after)))


def changes_dtype(var, after):
    """Would `after` change the dtype of loop var `var` (a staged value)?"""
    if is_number(after):
        return np.result_type(var.dtype, after) != var.dtype
    dtype = _dtype(after)
    return dtype is not None and dtype != var.dtype


def check_loop_leaf(name, var, after, location, loop):
    def fail(message, hint=None):
        raise errors.StagingError(message(shown(name), location, loop, describe(var),
                                          describe(after)))

    var_list, after_list = list_element_type(var), list_element_type(after)
    if var_list is not None or after_list is not None:
        if var_list is None or after_list is None:
            fail(errors.loop_kind_message)
        # (`is not None`: a float64 dtype compares equal to None)
        if var_list[0] is not None and after_list[0] is not None and \
                var_list[0] != after_list[0]:
            fail(errors.loop_dtype_message)
        return
    if python_and_numpy_bool(after, var) is not None:
        # (after one iteration Python's is the Python bool: `~a` is -2, not False)
        raise errors.StagingError(errors.python_or_numpy_bool_message(
            shown(name), location, loop, describe(after), describe(var)))
    if python_number_type(after) is not None and not getattr(var, "python_number", False) \
            and np.dtype(var.dtype) != np.asarray(python_number_type(after)(0)).dtype:
        # a numpy value on entry, a Python number after an iteration: Python's
        # type depends on whether the loop ran (as for a branch, a number of
        # its default dtype, `i64` then `-1`, is let through as the numpy value)
        raise errors.StagingError(errors.loop_python_number_message(
            shown(name), location, loop, describe(var), describe(after),
            f"np.{np.dtype(var.dtype).name}({after!r})" if is_number(after) else None))
    if is_number(after):
        if np.result_type(var.dtype, after) != var.dtype:
            fail(errors.loop_dtype_message)
        return
    typed = array_type(after)
    if typed is None:
        fail(errors.loop_kind_message)
    if typed[0] != var.dtype:
        fail(errors.loop_dtype_message)
    shape, var_shape = typed[1], array_type(var)[1]
    if len(shape) != len(var_shape) or any(
            v is not None and v != s for v, s in zip(var_shape, shape)):
        fail(errors.loop_shape_message)


def invariants_by_leaf(entry, shape_invariants, location, loop):
    """{leaf index: shape} from set_loop_options(shape_invariants=[(var, shape)])."""
    found = {}
    for pair in shape_invariants or ():
        try:
            value, shape = pair
        except (TypeError, ValueError):
            raise errors.StagingError(errors.shape_invariant_message(
                repr(pair), location, loop)) from None
        for i, leaf in enumerate(entry.values):
            if leaf is value and _is_array(leaf):
                found[i] = None if shape is None else tuple(shape)
                break
        else:
            raise errors.StagingError(errors.shape_invariant_message(
                describe(value), location, loop))
    for i, shape in list(found.items()):
        if shape is None:
            found[i] = (None,) * _rank(entry.values[i])
    return found


def promoted(name, before, after, location, loop):
    """Python number `before` typed as numpy types it after one iteration."""
    dtype = _dtype(after) if not is_number(after) else np.asarray(after).dtype
    if dtype is None or np.result_type(dtype, before) != dtype:
        raise errors.StagingError(errors.loop_dtype_message(
            shown(name), location, loop, describe(before), describe(after)))
    if is_number(after) or getattr(after, "python_number", False):
        return _PYTHON_TYPES[dtype.kind](before)  # a Python number of the body's type
    with np.errstate(over="ignore"):  # (a start the dtype cannot hold is refused after)
        return np.asarray(before, dtype)


_PYTHON_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def python_type_of(dtype):
    """The Python number type a staged value of `dtype` stands for when it is
    a Python number (bool, int, float or complex), or None."""
    return _PYTHON_TYPES.get(np.dtype(dtype).kind)


def zip_strict_message(lengths):
    """Python's text for zip(..., strict=True) over iterables of `lengths`."""
    n = min(lengths)
    if lengths[0] == n:  # the first runs out: the first longer one is reported
        j = next(j for j, length in enumerate(lengths) if length > n)
        relation = "longer"
    else:
        j = next(j for j, length in enumerate(lengths) if length == n)
        relation = "shorter"
    others = "argument 1" if j == 1 else f"arguments 1-{j}"
    return f"zip() argument {j + 1} is {relation} than {others}"


# --- a staged loop's state -----------------------------------------------------------

class StagedEnumerate:
    """`enumerate(iterable, start)` over a staged iterable, for a backend's
    `for_each`.  Each backend subclasses it with its own (empty) type: the
    registry finds a value's backend by its type."""

    __slots__ = ("iterable", "start")

    def __init__(self, iterable, start):
        self.iterable, self.start = iterable, start

    def __iter__(self):
        # iterated by Python (a comprehension, list(...)), not by a `for`
        # statement: as Python iterates the staged iterable itself, which
        # refuses where its backend cannot (a graph tensor) and not otherwise
        return iter(enumerate(self.iterable, self.start))


class StagedZip:
    """`zip(*iterables, strict=strict)` over staged iterables; subclassed per
    backend like StagedEnumerate."""

    __slots__ = ("iterables", "strict")

    def __init__(self, iterables, strict=False):
        self.iterables, self.strict = iterables, strict

    def __iter__(self):  # (as StagedEnumerate's)
        return iter(zip(*self.iterables, strict=self.strict))


def _staging_list(empty_list, location, loop):
    """For structure.flatten: a staged list (`empty_list()`) in place of an
    empty Python list of the loop's state, refused if anything else holds
    that Python list (it would not see the loop's appends: runtime/aliases.py)."""
    seen = {}

    def stage(python_list, name):
        other = seen.get(id(python_list))
        holders = [(other, f"loop state at {location}")] if other is not None else []
        seen[id(python_list)] = name
        holders += aliases.other_holders(python_list, name.split("[")[0].split(".")[0],
                                         skip_depth=4)[0]
        if holders:
            path, at = holders[0]
            raise errors.StagingError(errors.staged_list_alias_message(
                name, path, at, location,
                f"the staged `{loop}` loop that starts there makes it a staged list", True))
        return empty_list()
    return stage


class LoopState:
    """A staged loop's state as leaves, for any backend.

    The state (one entry per name) is flattened; leaves that are arrays or
    numbers are `carried` (they become the backend's loop variables), the
    others must stay put (checked after the body). An empty Python list
    becomes `empty_list()` (a backend's staged list) if given. A state entry
    that enters as UndefinedReturnValue is a `return` value the body may set
    (`deferred`); the body's value for it is kept in `returns`, not carried,
    and the backend adds it as loop state once it knows its type. Python
    numbers (`weak`) take the dtype numpy gives them after one iteration
    (the backend decides how: `promoted`).

    A backend's loop calls the user's functions through `call` and hands the
    body's result to `body_outputs`; `result` rebuilds the state from the
    final carried leaves:

        st = LoopState(state, names, location, "while", opts)
        final = my_while(lambda *v: st.call(test_fn, v),
                         lambda *v: st.body_outputs(st.call(body_fn, v)), st.initial())
        return st.result(final)
    """

    def __init__(self, state, names, location, loop, opts=None, empty_list=None):
        self.state, self.location, self.loop = list(state), location, loop
        entry = self.entry = structure.flatten(
            self.state, names, empty_list and _staging_list(empty_list, location, loop))
        self.names = entry.names  # (the leaves')
        self.variables = list(names)
        self.values = list(entry.values)  # the leaves on entry (promotion updates them)
        self.invariants = invariants_by_leaf(entry, (opts or {}).get("shape_invariants"),
                                             location, loop)
        self.weak = {i for i, v in enumerate(self.values) if is_number(v)}
        self.deferred = [k for k, v in enumerate(self.state) if type(v) is UndefinedReturnValue]
        self.carried = [i for i, v in enumerate(self.values) if is_carried(v)]
        self.out = None      # the body's flattened outputs (after it ran)
        self.returns = {}    # state index -> what the body set its `return` value to

    def initial(self):
        """The carried leaves on entry: the backend's initial loop variables."""
        return [self.values[i] for i in self.carried]

    def carried_names(self):
        return [self.names[i] for i in self.carried]

    def carried_shapes(self):
        """Per carried leaf, its relaxed shape from shape_invariants, or None."""
        return [self.invariants.get(i) for i in self.carried]

    def call(self, fn, loop_vars, values=None, carried=None):
        """`fn(*state)` with the carried leaves set to `loop_vars`."""
        current = list(self.values if values is None else values)
        for i, v in zip(self.carried if carried is None else carried, loop_vars):
            current[i] = v
        return fn(*structure.unflatten(self.entry.structure, current))

    def flatten_outputs(self, raw):
        """The body's outputs as Leaves, `return` values set aside as UNDEFINED_RETURN."""
        raw = list(raw)
        for k in self.deferred:
            raw[k] = UNDEFINED_RETURN
        return structure.flatten(raw, self.variables)

    def body_outputs(self, raw):
        """Checks what the body returned (same structure; leaves not carried
        unchanged) and returns its carried leaves."""
        self.returns = {k: raw[k] for k in self.deferred}
        out = self.out = self.flatten_outputs(raw)
        check_same_structure(self.entry, out, self.location, self.loop, self.variables)
        carried = set(self.carried)
        for i, (before, after) in enumerate(zip(self.values, out.values)):
            if i not in carried:
                check_unchanged(self.names[i], before, after, self.location, self.loop)
        return tuple(out.values[i] for i in self.carried)

    def result(self, final, returned=(), returned_values=()):
        """The state after the loop: `final` carried leaves; `returned` holds
        (state index, Leaves, positions) for `return` values the backend
        carried, a position being the index of a leaf's final value in
        `returned_values` or a 1-tuple of a Python value that stayed put."""
        leaves = list(self.values)
        for j, i in enumerate(self.carried):
            leaves[i] = final[j]
        state = list(structure.unflatten(self.entry.structure, leaves))
        for k, value_leaves, positions in returned:
            items = [returned_values[p] if isinstance(p, int) else p[0] for p in positions]
            state[k] = structure.unflatten(value_leaves.structure, items)[0]
        return tuple(state)
