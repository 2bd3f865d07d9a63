"""`del cfg.attr` on a dataclass instance passed to an ag.function.  Python
deletes the attribute from the caller's instance; the trace runs on a copy and
later calls run only the graph, so the staged function refuses, naming the
attribute, the `del`'s line and a fix, and leaves the caller's instance as it
was.  (It crashed with a bare StopIteration inside runtime/aliases.py: the
check for a changed field looked for the deleted one among those still there.)"""

import dataclasses
import inspect
import re

import numpy as np
import pytest

import autograph as ag
from autograph.errors import ArgumentChangeError

X = np.arange(3.0)


def _where(fn, text):
    """'file.py:12', the line of `fn` holding `text`."""
    lines, start = inspect.getsourcelines(fn)
    line = start + next(i for i, source in enumerate(lines) if text in source)
    return f"{inspect.getsourcefile(fn)}:{line}"


def _defined_at(fn):
    return f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}"


@dataclasses.dataclass
class Config:
    w: np.ndarray
    scale: float


@dataclasses.dataclass
class WithDefault:
    w: np.ndarray
    scale: float = 2.0


@dataclasses.dataclass(slots=True)
class Slotted:
    w: np.ndarray
    scale: float


@dataclasses.dataclass
class Derived:
    w: np.ndarray

    def __post_init__(self):
        self.extra = 3.0


@dataclasses.dataclass
class Outer:
    inner: Config


def drops_its_scale(cfg, x):
    y = x * cfg.scale
    del cfg.scale
    return y + cfg.w


def drops_a_derived_attribute(cfg, x):
    y = x * cfg.extra
    del cfg.extra
    return y + cfg.w


def drops_an_inner_scale(outer, x):
    y = x * outer.inner.scale
    del outer.inner.scale
    return y


def _drop(c):
    del c.scale


def drops_it_in_a_helper(cfg, x):
    y = x * cfg.scale
    _drop(cfg)
    return y


def _deleted_message(fn, path, field, where):
    return (f"`{path}.{field}` is deleted {where}, but `{path}` is a dataclass instance the "
            f"caller passed in to the ag.function '{fn.__name__}' ({_defined_at(fn)}): the "
            f"trace runs on a copy of it (ag.function flattens it into its fields), and later "
            f"calls run only the graph, so the caller's `{path}` would keep `{field}`, which "
            f"Python deletes. Leave `{path}` as it is (keep what the function needs in local "
            f"names), or return a new instance (`{path} = dataclasses.replace({path}, ...)`, "
            f"then `return {path}`), or call the function without ag.function.")


def _own_names(instance, path):
    """The attributes that the instance at `path` (`cfg`, `outer.inner`) holds itself."""
    for part in path.split(".")[1:]:
        instance = getattr(instance, part)
    if hasattr(instance, "__dict__"):
        return set(vars(instance))
    return {name for name in instance.__slots__ if hasattr(instance, name)}


@pytest.mark.parametrize("fn, make, path, field", [
    (drops_its_scale, lambda: Config(np.ones(3), 2.0), "cfg", "scale"),
    (drops_its_scale, lambda: WithDefault(np.ones(3)), "cfg", "scale"),
    (drops_its_scale, lambda: Slotted(np.ones(3), 2.0), "cfg", "scale"),
    (drops_a_derived_attribute, lambda: Derived(np.ones(3)), "cfg", "extra"),
    (drops_an_inner_scale, lambda: Outer(Config(np.ones(3), 2.0)), "outer.inner", "scale"),
])
def test_deleting_an_attribute_of_a_dataclass_argument_is_refused(fn, make, path, field):
    plain_instance = make()
    fn(plain_instance, X)
    assert _own_names(plain_instance, path) == _own_names(make(), path) - {field}
    instance = make()
    where = f"by `del {path}.{field}` at {_where(fn, f'del {path}.{field}')}"
    with pytest.raises(ArgumentChangeError, match=re.escape(
            _deleted_message(fn, path, field, where))):
        ag.function(fn)(instance, X)
    assert _own_names(instance, path) == _own_names(make(), path)  # (refused: as it was)


def test_a_delete_made_by_a_helper_is_refused_without_its_line():
    plain_instance = Config(np.ones(3), 2.0)
    drops_it_in_a_helper(plain_instance, X)
    assert not hasattr(plain_instance, "scale")
    where = "(seen when the trace ended, so its line is not known)"
    with pytest.raises(ArgumentChangeError, match=re.escape(
            _deleted_message(drops_it_in_a_helper, "cfg", "scale", where))):
        ag.function(drops_it_in_a_helper)(Config(np.ones(3), 2.0), X)


def reads_it_after_deleting_it(cfg, x):
    del cfg.scale
    return x * cfg.scale


def test_a_delete_before_python_raises_is_refused_from_pythons_error():
    with pytest.raises(AttributeError) as plain:
        reads_it_after_deleting_it(Config(np.ones(3), 2.0), X)
    with pytest.raises(ArgumentChangeError) as staged:
        ag.function(reads_it_after_deleting_it)(Config(np.ones(3), 2.0), X)
    assert type(staged.value.__cause__) is type(plain.value)
    assert str(staged.value.__cause__) == str(plain.value)


# --- a set attribute: the message gives the assignment's line where it is known ---

def sets_its_scale(cfg, x):
    cfg.scale = cfg.scale * 2
    return x * cfg.scale


def test_setting_a_field_names_the_assignments_line():
    plain_instance = Config(np.ones(3), 2.0)
    sets_its_scale(plain_instance, X)
    assert plain_instance.scale == 4.0
    with pytest.raises(ArgumentChangeError, match=re.escape(
            f"the caller's `cfg` would not change as Python changes it (by `cfg.scale = ...` "
            f"at {_where(sets_its_scale, 'cfg.scale = ')})")):
        ag.function(sets_its_scale)(Config(np.ones(3), 2.0), X)
