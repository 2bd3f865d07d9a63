"""Data-parallel training: the plain-Python training loop of
examples/jax_train.py, its batch sharded over several devices.

Run it:  pip install -e '.[jax]' && python examples/jax_data_parallel.py

On a CPU-only machine the script asks XLA for 8 host devices
(XLA_FLAGS=--xla_force_host_platform_device_count=8, set below before jax is
imported). The batch is split along its first axis over a 1-D device mesh
(`jax.sharding.Mesh`, `NamedSharding(mesh, P("data"))`), the parameters are
replicated; `jax.jit(ag.to_graph(train))` compiles the same Python loop --
`for step in range(steps)`, `jax.value_and_grad` inside, `if loss < target:
break` -- and XLA's partitioner adds the all-reduce of the gradient. The
script checks that the loss curve, and the step of the early stop, equal the
single-device run's.

On GPUs/TPUs nothing changes: `jax.devices()` are the accelerators (drop the
XLA_FLAGS line or leave it: it only affects the CPU platform). On several
hosts, call `jax.distributed.initialize()` first on every host (it reads the
coordinator address, process count and id from the cluster's environment,
or takes them as arguments) and build the mesh from all `jax.devices()`;
each host then passes its own part of the batch
(`jax.make_array_from_process_local_data(sharding, local_batch)`).
"""

import os

if __name__ == "__main__":  # before jax is imported (not when imported as a module)
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import autograph as ag  # noqa: E402

try:
    from examples.jax_train import MAX_STEPS, TARGET_LOSS, init_params, spirals, train
except ImportError:  # run as a script from examples/
    from jax_train import MAX_STEPS, TARGET_LOSS, init_params, spirals, train


def main():
    devices = jax.devices()
    x, y = spirals(n_per_class=128)  # 256 points: 32 per device on 8 devices
    params = init_params()
    compiled = jax.jit(ag.to_graph(train))

    mesh = Mesh(np.array(devices), ("data",))
    batch = NamedSharding(mesh, P("data"))
    replicated = NamedSharding(mesh, P())
    x_sharded, y_sharded = jax.device_put(x, batch), jax.device_put(y, batch)
    params_replicated = jax.device_put(params, replicated)
    print(f"{len(devices)} devices; x is sharded as {x_sharded.sharding.spec} "
          f"({x_sharded.addressable_shards[0].data.shape[0]} rows per device)")
    _, history = compiled(params_replicated, x_sharded, y_sharded, MAX_STEPS, TARGET_LOSS)
    jax.effects_barrier()

    one = devices[0]
    _, single = compiled(jax.device_put(params, one), jax.device_put(x, one),
                         jax.device_put(y, one), MAX_STEPS, TARGET_LOSS)
    jax.effects_barrier()

    history, single = np.asarray(history), np.asarray(single)
    ran, ran_single = int(np.sum(~np.isnan(history))), int(np.sum(~np.isnan(single)))
    assert ran == ran_single < MAX_STEPS, (ran, ran_single)
    # The sharded mean adds the per-device partial sums in another order:
    # equal up to float32 rounding.
    np.testing.assert_allclose(history, single, rtol=1e-5, equal_nan=True)
    print(f"sharded over {len(devices)} devices: {ran} steps, loss {history[0]:.4f} -> "
          f"{history[ran - 1]:.4f}; the loss curve equals the single-device run's "
          f"(largest relative difference {np.nanmax(np.abs(history - single) / single):.1e})")


if __name__ == "__main__":
    main()
