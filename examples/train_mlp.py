"""A whole training loop in one graph: an MLP learns two interleaved spirals.

Run it:  python examples/train_mlp.py [steps]

`train` is plain Python over numpy: a staged `for step in range(steps)`
(steps is an array, so the loop is one while_loop op), the forward pass, the
loss and its gradient (`ag.value_and_grad`), an Adam update, a `print` of the
loss every 100 steps, and a `break` once the loss is small.  `ag.function`
traces it once; the call runs the compiled graph.  The same loop then runs
eagerly with hand-written gradients, and the two loss curves must agree.
"""

import itertools
import sys
import time

import numpy as np

import autograph as ag

LEARNING_RATE = 0.02
BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8
STOP_BELOW = 0.01
PRINT_EVERY = 100


def spirals(points_per_class=150, seed=0):
    """Two interleaved spirals in the plane: points (n, 2), labels (n,) in {0, 1}."""
    rng = np.random.default_rng(seed)
    t = np.sqrt(rng.uniform(0.05, 1.0, points_per_class)) * 3.0 * np.pi
    arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / (3.0 * np.pi)
    points = np.concatenate([arm, -arm]) + rng.normal(0.0, 0.02, (2 * points_per_class, 2))
    labels = np.concatenate([np.zeros(points_per_class), np.ones(points_per_class)])
    return points, labels


def init_params(sizes=(2, 32, 32, 1), seed=1):
    rng = np.random.default_rng(seed)
    return {f"{name}{i}": value for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes))
            for name, value in (("w", rng.normal(0.0, 1.0 / np.sqrt(n_in), (n_in, n_out))),
                                ("b", np.zeros(n_out)))}


def logits(params, x):
    h = np.tanh(x @ params["w0"] + params["b0"])
    h = np.tanh(h @ params["w1"] + params["b1"])
    return (h @ params["w2"] + params["b2"])[:, 0]


def loss_fn(params, x, y):
    """Binary cross-entropy of the logits, written stably: log(1 + e^z) - y z."""
    z = logits(params, x)
    return np.mean(np.logaddexp(0.0, z) - y * z)


def adam(params, grads, m, v, t):
    """One Adam step: new (params, first moments, second moments), as new dicts
    (a staged loop carries the variables it assigns, not a dict it mutates)."""
    new_params, new_m, new_v = {}, {}, {}
    for k in params:  # a Python loop over the dict's keys: unrolled while tracing
        new_m[k] = BETA1 * m[k] + (1 - BETA1) * grads[k]
        new_v[k] = BETA2 * v[k] + (1 - BETA2) * grads[k] ** 2
        m_hat = new_m[k] / (1 - BETA1 ** t)
        v_hat = new_v[k] / (1 - BETA2 ** t)
        new_params[k] = params[k] - LEARNING_RATE * m_hat / (np.sqrt(v_hat) + EPSILON)
    return new_params, new_m, new_v


@ag.function
def train(params, x, y, steps):
    """Adam on loss_fn for up to `steps` steps; returns the params and the losses."""
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    losses = []
    for step in range(steps):
        loss, grads = ag.value_and_grad(loss_fn)(params, x, y)
        losses.append(loss)
        params, m, v = adam(params, grads, m, v, step + 1)
        if step % PRINT_EVERY == 0:
            print(f"step {step}: loss {loss:.5f}")
        if loss < STOP_BELOW:
            break
    return params, losses


def one_layer_loss(params, x, y):
    """loss_fn of a smaller sibling of the model: one hidden layer."""
    h = np.tanh(x @ params["w0"] + params["b0"])
    z = (h @ params["w1"] + params["b1"])[:, 0]
    return np.mean(np.logaddexp(0.0, z) - y * z)


def one_layer_step(w0, b0, w1, b1, x, y):
    """One gradient-descent step of the one-hidden-layer model, on its arrays:
    forward, loss, value_and_grad, update.  The README draws its graph (the
    two-layer model's step has twice the nodes, too many to read)."""
    params = {"w0": w0, "b0": b0, "w1": w1, "b1": b1}
    loss, grads = ag.value_and_grad(one_layer_loss)(params, x, y)
    return loss, {k: params[k] - LEARNING_RATE * grads[k] for k in params}


# --- the same loop, eagerly, with hand-written gradients -------------------------------


def loss_and_grads_by_hand(params, x, y):
    h0 = np.tanh(x @ params["w0"] + params["b0"])
    h1 = np.tanh(h0 @ params["w1"] + params["b1"])
    z = (h1 @ params["w2"] + params["b2"])[:, 0]
    loss = np.mean(np.logaddexp(0.0, z) - y * z)
    dz = (1.0 / (1.0 + np.exp(-z)) - y) / len(y)  # d loss / d z: sigmoid(z) - y
    grads = {"w2": h1.T @ dz[:, None], "b2": np.sum(dz, keepdims=True)}
    d1 = (dz[:, None] @ params["w2"].T) * (1.0 - h1 ** 2)
    grads["w1"], grads["b1"] = h0.T @ d1, np.sum(d1, axis=0)
    d0 = (d1 @ params["w1"].T) * (1.0 - h0 ** 2)
    grads["w0"], grads["b0"] = x.T @ d0, np.sum(d0, axis=0)
    return loss, grads


def train_eagerly(params, x, y, steps):
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    losses = []
    for step in range(steps):
        loss, grads = loss_and_grads_by_hand(params, x, y)
        losses.append(loss)
        params, m, v = adam(params, grads, m, v, step + 1)
        if loss < STOP_BELOW:
            break
    return params, losses


def accuracy(params, x, y):
    return float(np.mean((logits(params, x) > 0) == (y > 0.5)))


def main(steps=3000):
    x, y = spirals()
    params = init_params()
    start = time.perf_counter()
    trained, losses = train(params, x, y, np.int64(steps))
    seconds = time.perf_counter() - start
    print(f"graph: {len(losses)} steps in {seconds:.2f} s (tracing included), "
          f"final loss {losses[-1]:.5f}")
    start = time.perf_counter()
    _, eager_losses = train_eagerly(params, x, y, steps)
    print(f"eager numpy, hand-written gradients: {len(eager_losses)} steps in "
          f"{time.perf_counter() - start:.2f} s")
    difference = np.max(np.abs(np.array(losses) - np.array(eager_losses)))
    print(f"largest difference between the loss curves: {difference:.2e}")
    assert len(losses) == len(eager_losses) and difference < 1e-6, difference
    score = accuracy(trained, x, y)
    print(f"training accuracy: {score:.3f}")
    return score, losses


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
