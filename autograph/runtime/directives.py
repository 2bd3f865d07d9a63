"""Directives: calls that tell autograph how to stage, and do nothing else.

`set_loop_options` is consumed by the directives pass (its keywords go onto
the loop as options); the call left for unconverted code does nothing.
`set_element_type` and `stack` live in `runtime/lists.py`.
"""

LOOP_OPTIONS = ("maximum_iterations", "shape_invariants")


def set_loop_options(*, maximum_iterations=None, shape_invariants=None):
    """Python meaning: nothing (returns None).

    Written as a statement in a loop body, e.g.
    `ag.set_loop_options(maximum_iterations=10)`, it sets the staged loop's
    options: maximum_iterations (an upper bound on iterations) and
    shape_invariants (a list of (variable, shape) pairs whose shape may change
    across iterations; None for a dimension that varies).
    """
    return None
