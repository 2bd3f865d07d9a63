"""Whole training loops staged in one ag.function (forward pass, ag.grad /
ag.value_and_grad of losses with staged control flow, optimizer state,
validation, early stop, logging): the values, dtypes and printed output of
the same loop run as Python."""

import contextlib
import copy
import io
import re

import numpy as np
import pytest

import autograph as ag

RNG = np.random.default_rng(0)
X, Y = RNG.normal(size=(8, 3)), RNG.normal(size=8)
XV, YV = RNG.normal(size=(4, 3)), RNG.normal(size=4)
ROWS = np.array([[1.0, 2.0, 0.5], [3.0, 4.0, -1.0], [-5.0, -6.0, 1.0], [1.0, 1.0, 1.0]])


def _run(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*copy.deepcopy(args))
    return result, out.getvalue()


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for key in value for leaf in _leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _assert_like_python(fn, *args):
    expected, expected_out = _run(fn, args)
    got, got_out = _run(ag.function(fn), args)
    assert got_out == expected_out
    assert len(_leaves(got)) == len(_leaves(expected))
    for g, e in zip(_leaves(got), _leaves(expected)):
        assert type(g) is type(e) and np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(g, e)


# --- losses with staged control flow, differentiated inside the loop --------------

def loss_branches(w, x):
    y = x @ w
    if np.sum(y) > 0:
        loss = np.sum(y ** 2)
    else:
        loss = np.sum(np.abs(y))
    return loss


def loss_rows_break(w, x):
    total = 0.0
    for row in x:
        if np.sum(row) < 0:
            break
        total = total + np.sum(row * w)
    return total


def loss_rows_continue(w, x):
    total = 0.0
    for row in x:
        if np.sum(row) < 0:
            continue
        total = total + np.sum(row * w) ** 2
    return total


def loss_rows_return(w, x):
    for row in x:
        if np.sum(row * w) > 1.0:
            return np.sum(row * w) ** 2
    return np.sum(w)


def loss_grows(w, x):
    k = 0
    while np.sum(w * w) < 10.0 and k < 20:
        w = w * 1.5
        k += 1
    return np.sum(x @ w)


def loss_prints(w, x):
    loss = np.sum((x @ w) ** 2)
    print("inner loss", loss)
    assert loss >= 0, "a negative loss"
    return loss


def descend(loss_fn):
    def train(w, x, steps):
        history = []
        for step in range(steps):
            loss, g = ag.value_and_grad(loss_fn)(w, x)
            w = w - 0.01 * g
            history.append(loss)
            if step % 2 == 0:
                print(f"step {step}: {loss:.6f}")
        return w, ag.stack(history)
    train.__name__ = f"descend_{loss_fn.__name__}"
    return train


@pytest.mark.parametrize("loss_fn", [loss_branches, loss_rows_break, loss_rows_continue,
                                     loss_rows_return, loss_grows, loss_prints],
                         ids=lambda f: f.__name__)
def test_gradient_of_a_loss_with_staged_control_flow_in_a_loop(loss_fn):
    _assert_like_python(descend(loss_fn), np.array([0.5, -0.3, 0.2]), ROWS, np.int64(3))


def mse(p, x, y):
    return np.mean((x @ p["w"] + p["b"] - y) ** 2)


def adam(p, x, y, steps, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    p = dict(p)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    for t in range(1, steps + 1):
        g = ag.grad(mse)(p, x, y)
        for k in p:
            m[k] = b1 * m[k] + (1 - b1) * g[k]
            v[k] = b2 * v[k] + (1 - b2) * g[k] ** 2
            p[k] = p[k] - lr * (m[k] / (1 - b1 ** t)) / (np.sqrt(v[k] / (1 - b2 ** t)) + eps)
    return p, m, v


def rmsprop_tuple_state(p, x, y, steps):
    s = (np.zeros_like(p["w"]), np.zeros_like(p["b"]))
    for _ in range(steps):
        g = ag.grad(mse)(p, x, y)
        s = (0.9 * s[0] + 0.1 * g["w"] ** 2, 0.9 * s[1] + 0.1 * g["b"] ** 2)
        p = {"w": p["w"] - 0.01 * g["w"] / np.sqrt(s[0] + 1e-8),
             "b": p["b"] - 0.01 * g["b"] / np.sqrt(s[1] + 1e-8)}
    return p, s


def adagrad_decay_ema(p, x, y, steps):
    p = dict(p)
    acc = {k: np.full_like(v, 0.1) for k, v in p.items()}
    ema = dict(p)
    for _ in range(steps):
        g = ag.grad(mse)(p, x, y)
        for k in p:
            g_k = g[k] + 1e-2 * p[k]
            acc[k] += g_k ** 2
            p[k] = p[k] - 0.1 * g_k / np.sqrt(acc[k])
            ema[k] = 0.9 * ema[k] + 0.1 * p[k]
    return p, ema


def validate_with_patience(p, x, y, xv, yv, steps, patience=2):
    best, best_p, bad, history = np.inf, p, 0, []
    for step in range(steps):
        loss, g = ag.value_and_grad(mse)(p, x, y)
        if np.isnan(loss):
            print("nan at", step)
            break
        p = {k: p[k] - 0.3 * g[k] for k in p}
        history.append(loss)
        if step % 2 == 0:
            val = mse(p, xv, yv)
            print(f"step {step}: train {loss:.4f} val {val:.4f}")
            if val < best:
                best, best_p, bad = val, p, 0
            else:
                bad += 1
                if bad >= patience:
                    print("early stop", step)
                    break
    return best_p, best, ag.stack(history), bad


@pytest.mark.parametrize("train", [adam, rmsprop_tuple_state, adagrad_decay_ema],
                         ids=lambda f: f.__name__)
def test_optimizer_state_in_dicts_and_tuples(train):
    _assert_like_python(train, {"w": np.zeros(3), "b": np.float64(0.0)}, X, Y, np.int64(4))


@pytest.mark.parametrize("scale", [1.0, 100.0])  # (100: the loss grows, patience stops it)
def test_validation_every_other_step_best_params_and_patience(scale):
    _assert_like_python(validate_with_patience, {"w": np.zeros(3), "b": np.float64(0.0)},
                        X * scale, Y, XV, YV, np.int64(10))


# --- ag.Variable optimizers called repeatedly ---------------------------------------

def variable_adam(staged):
    w, m, v = (ag.Variable(np.zeros(3)) for _ in range(3))
    t = ag.Variable(np.int64(0))

    def loss(x, y):
        return np.mean((x @ w - y) ** 2)

    def steps(x, y, n):
        for _ in range(n):
            value, (g,) = ag.value_and_grad(loss, wrt=[w])(x, y)
            t.assign_add(1)
            m.assign(0.9 * m + 0.1 * g)
            v.assign(0.999 * v + 0.001 * g * g)
            w.assign_sub(0.1 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8))
            print("step", t, "loss", value)
        return value

    run = ag.function(steps) if staged else steps
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        losses = [run(X, Y, np.int64(2)), run(X, Y, np.int64(3)), run(X[:3], Y[:3], np.int64(1))]
    # (the Variables' names differ between the two runs: print shows them)
    return losses, w.numpy(), t.numpy(), out.getvalue().replace(t.name, "t")


def test_variable_optimizer_state_persists_across_calls_and_prints_as_python():
    expected, got = variable_adam(staged=False), variable_adam(staged=True)
    assert got[3] == expected[3]  # print(t, ...) shows the Variable as print() does
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    assert got[2] == expected[2] == 6


# --- one staged training function called again ---------------------------------------

def sgd(w, x, steps):
    for _ in range(steps):
        w = w - 0.1 * ag.grad(lambda w: np.mean(np.sin(x @ w)))(w)
    return w


def test_calling_again_with_other_steps_shapes_and_dtypes():
    staged = ag.function(sgd)
    for args in [(np.ones(3), X, np.int64(2)), (np.ones(3), X, np.int64(5)),
                 (np.ones(3, np.float32), X.astype(np.float32), np.int64(2)),
                 (np.ones(2), X[:, :2], np.int64(0)), (np.ones(3), X, np.int64(2))]:
        expected, got = sgd(*args), staged(*args)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


COUNTER = ag.Variable(np.float64(1.5), name="counter")


def print_variable_with_a_tensor(x):
    print("counter", COUNTER, "x", x, sep="|")
    if x > 0:
        print(COUNTER)
    return x


def test_print_of_a_variable_next_to_a_tensor_is_its_repr_as_in_python():
    expected, got = _run(print_variable_with_a_tensor, (np.float64(2.0),)), \
        _run(ag.function(print_variable_with_a_tensor), (np.float64(2.0),))
    assert got[1] == expected[1] == (
        "counter|<ag.Variable 'counter' shape=() dtype=float64>|x|2.0\n"
        "<ag.Variable 'counter' shape=() dtype=float64>\n")


# --- argnums count the positional arguments of the call, traced or not ---------------

def penalized(w, b, y=None, reg=0.1):
    return np.mean((X @ w + b - y) ** 2) + reg * np.sum(w ** 2)


def descend_last_positional(w, b, y, steps):
    for _ in range(steps):
        gw, gb = ag.grad(penalized, argnums=(0, -1))(w, b, y=y)  # (-1 is b)
        w, b = w - 0.1 * gw, b - 0.1 * gb
    return w, b


def test_negative_argnums_with_keyword_arguments_name_the_same_argument_called_or_traced():
    # (called outside a trace, -1 named the keyword argument y: its gradient)
    _assert_like_python(descend_last_positional, np.zeros(3), np.float64(0.5), Y,
                        np.int64(3))
    gb = ag.grad(penalized, argnums=-1)(np.zeros(3), np.float64(0.5), y=Y, reg=0.0)
    np.testing.assert_array_equal(gb, ag.function(
        lambda w, b, y: ag.grad(penalized, argnums=-1)(w, b, y=y, reg=0.0))(
            np.zeros(3), np.float64(0.5), Y))
    assert np.shape(gb) == ()


def test_argnums_naming_a_keyword_argument_is_refused_called_or_traced():
    def called(w, b, y):
        return ag.grad(penalized, argnums=2)(w, b, y=y)

    message = "ag.grad(penalized) at {}: argnums 2 names argument 2, but the function was " \
              "called with 2 positional arguments. Pass the differentiated arguments " \
              "positionally, or change argnums."
    for run in (called, ag.function(called)):
        with pytest.raises(ag.AutoGraphError) as info:
            run(np.zeros(3), np.float64(0.5), Y)
        line = called.__code__.co_firstlineno + 1
        assert str(info.value) == message.format(f"{__file__}:{line}")


# --- a Variable's value read inside the trace is the run-time value ---------------------

STEP = ag.Variable(np.int64(0), name="step")


def decayed_step(w):
    STEP.assign_add(1)
    lr = 0.1 * 0.5 ** STEP.numpy()  # (while tracing: the value when the graph runs)
    print("step", STEP.numpy())
    return w - lr


def test_numpy_of_a_variable_in_a_staged_schedule_is_its_value_at_each_call():
    STEP.assign(0)
    expected = _run(lambda: [decayed_step(np.float64(1.0)) for _ in range(3)], ())
    STEP.assign(0)
    staged = ag.function(decayed_step)
    got = _run(lambda: [staged(np.float64(1.0)) for _ in range(3)], ())
    assert got[1] == expected[1]
    assert repr(got[0]) == repr(expected[0])


def scaled_by_the_step(w):
    STEP.assign_add(1)
    return w * np.asarray(STEP)


def test_numpy_conversion_of_a_variable_while_tracing_is_refused():
    STEP.assign(0)
    with pytest.raises(ag.AutoGraphError, match=re.escape(
            "ag.Variable 'step' is converted to a numpy array at "
            f"{__file__}:{scaled_by_the_step.__code__.co_firstlineno + 2} while tracing")):
        ag.function(scaled_by_the_step)(np.float64(1.0))
    assert STEP.numpy() == 0  # (the refused trace ran nothing)
    assert repr(scaled_by_the_step(np.float64(1.0))) == repr(np.float64(1.0))  # (Python's)
