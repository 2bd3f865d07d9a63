"""Training loops under `jax.jit(ag.to_graph(train))` whose loss, given to
jax.grad / jax.value_and_grad inside the loop, has its own `if` or `for`
with `break` on traced values: the loss is converted as any function the
loop calls, so its control flow is staged, and the results are Python's."""

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import autograph as ag  # noqa: E402

RNG = np.random.default_rng(0)
X = jnp.asarray(RNG.normal(size=(8, 3)))


def loss_branches(w, x):
    y = x @ w
    if jnp.sum(y) > 0:
        loss = jnp.sum(y ** 2)
    else:
        loss = jnp.sum(jnp.abs(y))
    return loss


def loss_rows_break(w, x):
    total = 0.0
    for row in x:
        if jnp.sum(row) < -1:
            break
        total = total + jnp.sum(row * w) ** 2
    return total


def train_value_and_grad(w, x, steps):
    for _ in range(steps):
        loss, g = jax.value_and_grad(loss_branches)(w, x)
        w = w - 0.1 * g
    return w, loss


def train_grad(w, x, steps):
    for _ in range(steps):
        w = w - 0.01 * jax.grad(loss_rows_break)(w, x)
    return w


def train_newton(w, x, steps):
    for _ in range(steps):  # (damped Newton steps: jax.hessian's function is converted too)
        h = jax.hessian(loss_branches)(w, x)
        w = w - 0.5 * jnp.linalg.solve(h + jnp.eye(3), jax.jacrev(loss_branches)(w, x))
    return w


@pytest.mark.parametrize("train", [train_value_and_grad, train_grad, train_newton],
                         ids=lambda f: f.__name__)
def test_gradient_of_a_loss_with_control_flow_inside_a_jitted_loop(train):
    w = jnp.array([0.5, -0.3, 0.1])
    expected = jax.tree_util.tree_leaves(train(w, X, 3))
    got = jax.tree_util.tree_leaves(jax.jit(ag.to_graph(train))(w, X, 3))
    for g, e in zip(got, expected):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-12)
