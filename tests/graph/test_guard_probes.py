"""Names a traced function asks for by a literal string (guards.py
`_names_probed`): `getattr(CFG, "scale", 1.0)`, `hasattr(D, "scale")`,
`globals()["G"]`, `globals().get("G")`.  What they read is watched like a
name the code spells, and a name absent at tracing is watched for its
absence: an object, class, module or namespace gaining it later makes
`ag.function` trace again, where the old graph would compute with the
default it read (a silent wrong value)."""

import types

import numpy as np

import autograph as ag


class Settings:
    pass


class Slotted:
    __slots__ = ("scale",)


X = np.ones(2)
G = 2.0


def test_getattr_default_then_the_object_gains_the_attribute():
    cfg = Settings()

    @ag.function
    def f(x):
        return x * getattr(cfg, "scale", 1.0)

    np.testing.assert_allclose(f(X), [1.0, 1.0])
    cfg.scale = 3.0
    np.testing.assert_allclose(f(X), [3.0, 3.0])
    cfg.scale = 4.0  # (present now: watched by value, as a named attribute)
    np.testing.assert_allclose(f(X), [4.0, 4.0])
    del cfg.scale
    np.testing.assert_allclose(f(X), [1.0, 1.0])


def test_getattr_default_then_the_class_gains_the_attribute():
    class Local:
        pass
    cfg = Local()

    @ag.function
    def f(x):
        return x * getattr(cfg, "scale", 1.0)

    np.testing.assert_allclose(f(X), [1.0, 1.0])
    Local.scale = 5.0
    np.testing.assert_allclose(f(X), [5.0, 5.0])


def test_hasattr_branch_on_a_class_used_as_a_namespace():
    class Flags:
        pass

    @ag.function
    def f(x):
        if hasattr(Flags, "double"):
            return x * 2.0
        return x

    np.testing.assert_allclose(f(X), [1.0, 1.0])
    Flags.double = True
    np.testing.assert_allclose(f(X), [2.0, 2.0])


def test_hasattr_on_an_argument_object_and_an_unset_slot():
    slotted = Slotted()

    @ag.function
    def f(x, obj):
        return x * 3.0 if hasattr(obj, "scale") else x

    np.testing.assert_allclose(f(X, slotted), [1.0, 1.0])
    slotted.scale = 1.0
    np.testing.assert_allclose(f(X, slotted), [3.0, 3.0])


def test_getattr_default_of_a_module_attribute():
    module = types.ModuleType("probed_settings")

    @ag.function
    def f(x):
        return x * getattr(module, "scale", 1.0)

    np.testing.assert_allclose(f(X), [1.0, 1.0])
    module.scale = 7.0
    np.testing.assert_allclose(f(X), [7.0, 7.0])


def test_globals_read_by_a_literal_key():
    global G

    @ag.function
    def f(x):
        return x * globals()["G"]

    @ag.function
    def g(x):
        return x * globals().get("G")

    try:
        np.testing.assert_allclose(f(X), [2.0, 2.0])
        np.testing.assert_allclose(g(X), [2.0, 2.0])
        G = 5.0
        np.testing.assert_allclose(f(X), [5.0, 5.0])
        np.testing.assert_allclose(g(X), [5.0, 5.0])
    finally:
        G = 2.0


def test_globals_get_of_a_name_absent_at_tracing():
    @ag.function
    def f(x):
        return x * globals().get("PROBED_LATER", 1.0)

    try:
        np.testing.assert_allclose(f(X), [1.0, 1.0])
        globals()["PROBED_LATER"] = 6.0
        np.testing.assert_allclose(f(X), [6.0, 6.0])
    finally:
        globals().pop("PROBED_LATER", None)
    np.testing.assert_allclose(f(X), [1.0, 1.0])


def test_a_function_without_getattr_gets_no_absence_guards():
    cfg = Settings()
    cfg.w = np.ones(2)

    @ag.function
    def f(x):
        return x * cfg.w

    f(X)
    concrete = f.get_concrete_function(X)
    watched = [label for _, _, _, label, _ in concrete.guards]
    assert all("scale" not in label for label in watched), watched
    assert len(concrete.guards) == 3, watched  # (the cell holding cfg, cfg's `w`, f's __code__)


def test_only_the_strings_given_to_getattr_are_watched_for_absence():
    layers = [Settings(), Settings()]
    for layer in layers:
        layer.w = np.ones(2)

    @ag.function
    def f(x):
        for layer in layers:  # (the converted loop's code holds the string 'layer')
            bias = getattr(layer, "bias", None)
            x = x * layer.w if bias is None else x * layer.w + bias
        return x

    np.testing.assert_allclose(f(X), [1.0, 1.0])
    watched = [label for _, _, _, label, _ in f.get_concrete_function(X).guards]
    assert not any(label.endswith(("layer'", "x'")) for label in watched), watched
    layers[1].bias = 2.0
    np.testing.assert_allclose(f(X), [3.0, 3.0])


def test_vars_and_dict_reads_by_a_literal_key():
    cfg = Settings()
    cfg.scale = 2.0

    @ag.function
    def f(x):
        return x * vars(cfg)["scale"] + cfg.__dict__.get("shift", 0.0)

    np.testing.assert_allclose(f(X), [2.0, 2.0])
    cfg.scale = 3.0
    np.testing.assert_allclose(f(X), [3.0, 3.0])
    cfg.shift = 1.0  # (absent at tracing)
    np.testing.assert_allclose(f(X), [4.0, 4.0])


def test_membership_in_globals_vars_or_dict_of_a_name_absent_at_tracing():
    # (the string comes before the probe: `"G" in globals()`)
    cfg, other = Settings(), Settings()

    @ag.function
    def f(x):
        scale = 2.0 if "scale" in vars(cfg) else 1.0
        if "shift" not in other.__dict__:
            return x * scale
        return x * scale + 10.0

    @ag.function
    def g(x):
        if "LATE_FLAG" in globals():
            return x * 5.0
        return x

    np.testing.assert_allclose(f(X), [1.0, 1.0])
    np.testing.assert_allclose(g(X), [1.0, 1.0])
    cfg.scale = 0.0
    np.testing.assert_allclose(f(X), [2.0, 2.0])
    other.shift = 0.0
    np.testing.assert_allclose(f(X), [12.0, 12.0])
    globals()["LATE_FLAG"] = True
    try:
        np.testing.assert_allclose(g(X), [5.0, 5.0])
    finally:
        del globals()["LATE_FLAG"]
    np.testing.assert_allclose(g(X), [1.0, 1.0])
