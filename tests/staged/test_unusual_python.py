"""Unusual but valid Python under the converter and `ag.function`: each
program gives what plain Python gives, or a catalog error naming the user's
code (messages pinned with re.escape)."""

import contextlib
import json
import inspect
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def _where(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    found = [first + i for i, line in enumerate(lines) if line.strip() == marker]
    assert len(found) == 1
    return errors.where(fn.__code__.co_filename, found[0])


# --- zero-argument super() inside a staged `if`/loop body ---


class _Base:
    def step(self, x):
        return x + 1.0


class _Child(_Base):
    def step(self, x):
        if x > 0:  # staged: the body becomes a function of its own
            x = super().step(x)
        i = 0
        while i < 2:
            x = super().step(x) * 2.0
            i += 1
        y = super().step(x) if x > 10 else x - 1.0
        return y + len(__class__.__name__)


@pytest.mark.parametrize("value", [1.5, -3.0])
def test_zero_argument_super_in_a_staged_branch_means_the_method_s_super(value):
    expected = _Child().step(np.float64(value))
    assert ag.to_graph(_Child().step)(np.float64(value)) == expected
    assert ag.function(_Child().step)(np.float64(value)) == expected
    assert ag.function(lambda x: _Child().step(x))(np.float64(value)) == expected


def test_zero_argument_super_without_arguments_stays_python_s_error():
    class Child(_Base):
        def step(*args):
            if args[1] > 0:
                return super().step(args[1])
            return args[1]

    with pytest.raises(RuntimeError, match=re.escape("super(): no arguments")):
        Child().step(np.float64(1.0))
    with pytest.raises(RuntimeError, match=re.escape("super(): no arguments")):
        ag.function(Child().step)(np.float64(1.0))


# --- `y[i] += t`: an augmented store of a graph tensor into a numpy array ---


def _bump_item(x):
    y = np.zeros(3)
    y[1] += x * 2.0
    return y


def _bump_int_item(n):
    y = np.zeros(3, dtype=np.int64)
    y[0] -= n
    return y


@pytest.mark.parametrize("fn, arg, written, value", [
    (_bump_item, np.float64(1.5), "y[1] += x * 2.0", "y[1] + x * 2.0"),
    (_bump_int_item, np.int64(2), "y[0] -= n", "y[0] - n"),
])
def test_augmented_store_of_a_tensor_into_a_numpy_item_is_refused_by_name(
        fn, arg, written, value):
    fn(arg)  # plain Python runs it
    message = errors.tensor_into_array_message(
        written.split(" ")[0], value, _where(fn, written), written)
    with pytest.raises(errors.TensorIntoArrayError, match=re.escape(message)):
        ag.function(fn)(arg)


# --- a staged value formatted into an assert's or a raise's message ---


def _checked(x):
    assert x > 0, f"x must be positive, got {x}"
    return x


def _raising(x):
    if x < 0:
        raise ValueError(f"x must be positive, got {x:.2f}")
    return x


@pytest.mark.parametrize("fn, what, marker, fix_example", [
    (_checked, "f-string or format()", 'assert x > 0, f"x must be positive, got {x}"',
     "assert x > 0, 'x must be positive'"),
    (_raising, "format()", 'raise ValueError(f"x must be positive, got {x:.2f}")',
     "raise ValueError('x must be positive')"),
])
def test_a_staged_value_in_an_assert_or_raise_message_gets_a_hint_for_messages(
        fn, what, marker, fix_example):
    assert fn(np.float64(1.0)) == 1.0  # plain Python runs it
    message = errors.tensor_text_message(what, "x", _where(fn, marker), (
        f"The message of a staged `{marker.split()[0]}` is made once, while tracing, so it "
        "cannot hold a staged value's number. Write the message without the staged value "
        f"(`{fix_example}`), and print the value just before it"))
    with pytest.raises(errors.TensorTextError, match=re.escape(message)):
        ag.function(fn)(np.float64(1.0))


def test_a_staged_value_formatted_elsewhere_keeps_the_print_hint():
    def text(x):
        return f"{x:.2f}"

    assert text(np.float64(1.0)) == "1.00"
    with pytest.raises(errors.TensorTextError, match=re.escape(
            "Print it where it is made (print(x)")):
        ag.function(text)(np.float64(1.0))


# --- `raise ... from ...` and a `raise` its own `try` catches, in a staged branch ---


def _raise_from_none(x):
    if x < 0:
        raise ValueError("x must be positive") from None
    return x * 2.0


def _caught_in_branch(x):
    if x < 0:
        try:
            raise KeyError("k")
        except KeyError:
            x = -x
    return x * 2.0


def _caught_and_raised_from(x):
    if x < 0:
        try:
            raise KeyError("k")
        except (TypeError, KeyError) as e:
            raise ValueError("negative") from e
    return x * 2.0


def _not_caught_by_its_try(x):
    if x < 0:
        try:
            raise KeyError("k")
        except TypeError:
            x = -x
    return x * 2.0


def _outcome(fn, x):
    try:
        return ("value", fn(np.float64(x)))
    except Exception as e:  # noqa: BLE001 -- compared with Python's
        return (type(e), str(e))


@pytest.mark.parametrize("fn", [_raise_from_none, _caught_in_branch, _caught_and_raised_from,
                                _not_caught_by_its_try])
@pytest.mark.parametrize("x", [1.5, -1.5])
def test_raises_in_a_staged_branch_give_python_s_outcome(fn, x):
    expected = _outcome(fn, x)
    assert _outcome(ag.function(fn), x) == expected
    assert _outcome(ag.to_graph(fn), x) == expected


# --- a set or dict comprehension hashing a staged item names the item ---


def _set_of(x):
    return len({x * 2 for _ in range(2)})


def _dict_keyed_by(x):
    return len({x + k: k for k in range(2)})


@pytest.mark.parametrize("fn, item, marker", [
    (_set_of, "x * 2", "return len({x * 2 for _ in range(2)})"),
    (_dict_keyed_by, "x + k", "return len({x + k: k for k in range(2)})"),
])
def test_a_comprehension_hashing_a_staged_item_names_the_item(fn, item, marker):
    fn(np.float64(1.0))  # plain Python runs it
    message = errors.tensor_usage_message(
        "hash()", f"the value in `{item}`", _where(fn, marker), "Python hashes a value")
    with pytest.raises(errors.TensorUsageError, match=re.escape(message)):
        ag.function(fn)(np.float64(1.0))


# --- a staged raise/assert inside `with contextlib.suppress(...)` ---


def _suppressed_assert(x):
    with contextlib.suppress(AssertionError):
        assert x > 5, "small"
    return x * 2.0


def _positive(v):
    if v < 0:
        raise ValueError("negative")
    return v


def _suppressed_raise_in_a_helper(x):
    with contextlib.suppress(ValueError):
        x = _positive(x)
    return x * 2.0


@pytest.mark.parametrize("fn, statement, exception, marker", [
    (_suppressed_assert, "assert", "AssertionError", 'assert x > 5, "small"'),
    (_suppressed_raise_in_a_helper, "raise", "ValueError", 'raise ValueError("negative")'),
])
def test_a_staged_check_that_suppress_would_discard_is_refused(fn, statement, exception, marker):
    fn(np.float64(-1.0))  # plain Python: suppressed
    where = _where(_positive if statement == "raise" else fn, marker)
    with pytest.raises(errors.NotStageableError, match=re.escape(
            errors.staged_check_in_suppress_message(statement, exception, where))):
        ag.function(fn)(np.float64(-1.0))


def _other_exception_suppressed(x):
    with contextlib.suppress(KeyError):
        assert x > 0, "negative"
    with contextlib.nullcontext():
        x = x + 1.0
    return x


@pytest.mark.parametrize("x", [1.5, -1.5])
def test_a_staged_check_suppress_does_not_discard_is_staged(x):
    kind, result = _outcome(_other_exception_suppressed, x)
    if kind != "value":  # (pytest's assert rewriting adds its explanation to the text)
        result = result.partition("\n")[0]
    assert _outcome(ag.function(_other_exception_suppressed), x) == (kind, result)


# --- a staged raise/assert inside a user's manager that may suppress it ---


class _IgnoreValueErrors:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        return kind is not None and issubclass(kind, ValueError)


class _Closes:
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        if exc_info[0] is None:
            return None
        return False


@contextlib.contextmanager
def _catching_value_errors():
    try:
        yield
    except ValueError:
        pass


@contextlib.contextmanager
def _cleaning_up():
    try:
        yield
    finally:
        pass


@contextlib.contextmanager
def _setting_up():
    try:
        setting = int("3")
    except ValueError:  # (catches nothing the `yield` raises)
        setting = 0
    yield setting


@contextlib.contextmanager
def _catching_key_then_value_errors():
    try:
        try:
            yield
        except KeyError:
            pass
    except (json.JSONDecodeError, _Errors.Value):
        pass


@contextlib.contextmanager
def _catching_value_or_assertion_errors():
    try:
        yield
    except KeyError:
        pass
    except (ValueError, AssertionError):
        pass


class _Errors:
    Value = UnicodeError


def _swallow_all(*exc_info):
    return True


def _assert_in(manager):
    def fn(x):
        y = x * 2.0
        with manager():
            assert x < 0, "positive"
            y = y + 1.0
        return y
    return fn


def _raise_in(manager):
    def fn(x):
        y = x * 2.0
        with manager():
            if x > 0:
                raise ValueError("positive")
            y = y + 1.0
        return y
    return fn


def _assert_in_a_stack_holding(exit_):
    def fn(x):
        y = x * 2.0
        with contextlib.ExitStack() as stack:
            stack.push(exit_)
            assert x < 0, "positive"
            y = y + 1.0
        return y
    return fn


def _assert_in_a_stack_suppressing_another_type_first(x):
    y = x * 2.0
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.suppress(KeyError))
        stack.push(_swallow_all)
        assert x < 0, "positive"
        y = y + 1.0
    return y


def _assert_in_suppress_all(x):
    y = x
    with contextlib.suppress(Exception):
        assert x > 0
        y = x + 1.0
    return y


@pytest.mark.parametrize("fn, statement, exception, manager, decides, generator, marker", [
    (_raise_in(_IgnoreValueErrors), "raise", "ValueError", "_IgnoreValueErrors(...)",
     _IgnoreValueErrors.__exit__, False, 'raise ValueError("positive")'),
    (_raise_in(_catching_value_errors), "raise", "ValueError", "_catching_value_errors(...)",
     _catching_value_errors.__wrapped__, True, 'raise ValueError("positive")'),
    (_assert_in(_catching_value_or_assertion_errors), "assert", "AssertionError",
     "_catching_value_or_assertion_errors(...)", _catching_value_or_assertion_errors.__wrapped__,
     True, 'assert x < 0, "positive"'),
    (_assert_in_a_stack_holding(_swallow_all), "assert", "AssertionError",
     "ExitStack(...)` holding `_swallow_all", _swallow_all, False, 'assert x < 0, "positive"'),
    (_assert_in_a_stack_suppressing_another_type_first, "assert", "AssertionError",
     "ExitStack(...)` holding `_swallow_all", _swallow_all, False, 'assert x < 0, "positive"'),
])
def test_a_staged_check_a_user_manager_may_suppress_is_refused(
        fn, statement, exception, manager, decides, generator, marker):
    # Python's manager suppressed the exception and the function returned; the
    # graph raised it (not refused: only contextlib.suppress was)
    assert isinstance(fn(np.float64(1.0)), np.float64)
    code = decides.__code__
    message = errors.staged_check_in_suppressing_with_message(
        statement, exception, manager, errors.where(code.co_filename, code.co_firstlineno),
        generator, _where(fn, marker))
    with pytest.raises(errors.NotStageableError, match=re.escape(message)):
        ag.function(fn)(np.float64(1.0))


def test_a_refusal_inside_a_suppress_of_every_exception_is_not_suppressed():
    # suppress(Exception) swallowed autograph's own refusal: the trace went on
    # without the rest of the block, and the graph returned x for x > 0
    assert _assert_in_suppress_all(np.float64(1.0)) == 2.0
    message = errors.staged_check_in_suppress_message(
        "assert", "AssertionError", _where(_assert_in_suppress_all, "assert x > 0"))
    with pytest.raises(errors.NotStageableError, match=re.escape(message)):
        ag.function(_assert_in_suppress_all)(np.float64(1.0))


def _assert_in_ordinary_managers(x):
    with _Closes(), _cleaning_up(), contextlib.nullcontext(), np.errstate(all="ignore"):
        assert x > 0, "negative"
    with contextlib.ExitStack() as stack:
        stack.callback(len, ())
        stack.enter_context(_Closes())
        x = x + 1.0
    return x


@pytest.mark.parametrize("fn", [_raise_in(_Closes), _raise_in(_cleaning_up),
                                _raise_in(_setting_up), _assert_in_ordinary_managers,
                                _assert_in(_catching_value_errors),
                                _raise_in(_catching_key_then_value_errors),
                                _assert_in(_catching_key_then_value_errors)])
@pytest.mark.parametrize("x", [1.5, -1.5])
def test_a_staged_check_in_managers_that_never_suppress_is_staged(fn, x):
    """(Also a @contextmanager whose `except` clauses around its `yield`
    cannot catch the staged exception, `except ValueError:` around an
    `assert`: it was refused as one that may suppress it.)"""
    kind, result = _outcome(fn, x)
    if kind != "value":  # (pytest's assert rewriting adds its explanation to the text)
        result = result.partition("\n")[0]
    assert _outcome(ag.function(fn), x) == (kind, result)


# --- a staged `if` in a method Python calls by itself (unconverted) ---


class _Scaled:
    def __init__(self, s):
        if s > 0:
            s = s * 2.0
        self.s = s


def _make_scaled(x):
    return _Scaled(x).s


def test_a_staged_if_in_a_constructor_names_the_method_python_calls():
    _make_scaled(np.float64(1.0))  # plain Python runs it
    message = errors.tensor_usage_message(
        "bool()", "the value in `s > 0`", _where(_Scaled.__init__, "if s > 0:"),
        "It happened in _Scaled.__init__, which Python calls by itself (a constructor, an "
        "operator, an item access), not through a call the converted code names, so it runs "
        "as written (unconverted). Do the data-dependent part in a method the code calls by "
        "name (it is converted), or write it with np.where.")
    with pytest.raises(errors.TensorUsageError, match=re.escape(message)):
        ag.function(_make_scaled)(np.float64(1.0))


class _ExitOnly:
    def __exit__(self, *exc_info):
        return True


def _with_exit_only(x):
    with _ExitOnly():
        x = x + 1.0
    return x


def test_a_manager_without_enter_gives_pythons_error():
    kind, message = _outcome(_with_exit_only, 1.0)
    assert kind is TypeError
    assert _outcome(ag.function(_with_exit_only), 1.0) == (kind, message)
