"""A training loop in plain Python, compiled whole by `jax.jit`.

Run it:  pip install -e '.[jax]' && python examples/jax_train.py

`train` below is what one would write without JAX: a `for` loop over the
steps, the gradient of the loss taken inside it with `jax.value_and_grad`, an
`if ... : break` that stops early once the loss is small enough, a `print`
of the step. `jax.jit(ag.to_graph(train))` compiles all of it into one XLA
program: the loop becomes `lax.while_loop` (its trip count `steps` is an
argument), the `if`/`break` a `lax.cond` and a flag in the loop's test, the
`print` a `jax.debug.callback` that runs when the program runs. The script
checks the compiled run against the same Python run eagerly, step by step.
"""

import time

import jax
import jax.numpy as jnp
import numpy as np

import autograph as ag

MAX_STEPS = 400
TARGET_LOSS = 0.52  # reached after about 250 steps: the loop stops early
LEARNING_RATE = 0.2


def spirals(n_per_class=100, seed=0):
    """Two interleaved spirals in the plane, labels 0 and 1."""
    rng = np.random.default_rng(seed)
    t = np.sqrt(rng.uniform(0.05, 1.0, n_per_class)) * 3 * np.pi
    arms = []
    for label in (0, 1):
        angle = t + label * np.pi
        points = np.stack([t * np.cos(angle), t * np.sin(angle)], axis=1) / (3 * np.pi)
        arms.append((points + rng.normal(0, 0.02, points.shape), np.full(n_per_class, label)))
    x = np.concatenate([a for a, _ in arms]).astype(np.float32)
    y = np.concatenate([b for _, b in arms]).astype(np.float32)
    return x, y


def init_params(sizes=(2, 32, 32, 1), seed=1):
    rng = np.random.default_rng(seed)
    return [{"w": jnp.asarray(rng.normal(0, 1 / np.sqrt(m), (m, n)), jnp.float32),
             "b": jnp.zeros(n, jnp.float32)} for m, n in zip(sizes[:-1], sizes[1:])]


def loss_fn(params, x, y):
    """Mean logistic loss of an MLP with tanh hidden layers."""
    h = x
    for layer in params[:-1]:  # a Python list of layers: unrolled
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    logits = (h @ params[-1]["w"] + params[-1]["b"])[:, 0]
    return jnp.mean(jnp.logaddexp(0.0, logits) - y * logits)


def train(params, x, y, steps, target_loss):
    """Gradient descent for `steps` steps, stopping early at `target_loss`."""
    history = jnp.full(MAX_STEPS, jnp.nan)
    for step in range(steps):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        history = history.at[step].set(loss)
        if loss < target_loss:
            print("early stop at step", step, "with loss", loss)
            break
        params = jax.tree_util.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads)
    return params, history


def main():
    x, y = spirals()
    params = init_params()
    compiled = jax.jit(ag.to_graph(train))

    start = time.perf_counter()
    _, history = compiled(params, x, y, MAX_STEPS, TARGET_LOSS)
    history.block_until_ready()
    jax.effects_barrier()
    first = time.perf_counter() - start
    start = time.perf_counter()
    _, history = compiled(params, x, y, MAX_STEPS, TARGET_LOSS)
    history.block_until_ready()
    jax.effects_barrier()
    again = time.perf_counter() - start
    ran = int(np.sum(~np.isnan(np.asarray(history))))
    assert ran < MAX_STEPS, "the loop should have stopped early"
    print(f"jax.jit(ag.to_graph(train)): {ran} losses recorded, loss {history[0]:.4f} -> "
          f"{history[ran - 1]:.4f}; first call (trace + compile + run) {first:.2f} s, "
          f"second call {again * 1e3:.1f} ms")

    start = time.perf_counter()
    _, eager_history = train(params, jnp.asarray(x), jnp.asarray(y), MAX_STEPS, TARGET_LOSS)
    eager = time.perf_counter() - start
    np.testing.assert_allclose(np.asarray(history), np.asarray(eager_history), rtol=2e-4,
                               equal_nan=True)
    print(f"the same Python run eagerly ({eager:.2f} s) gives the same loss curve")


if __name__ == "__main__":
    main()
