"""Arrays and numbers inside other objects that a trace read from outside its
arguments (guards.py): `LAYERS[0].w`, `CONFIG.weights` of a dataclass,
namedtuple or SimpleNamespace, `MODEL.layers[1].b`, `BLOCKS["enc"].w`,
`params.inner.w` of an argument.  The graph holds them (or numpy work done on
them while tracing) as constants, so rebinding the attribute, replacing the
object on the way, or changing the array in place must make `ag.function`
trace again (and a ConcreteFunction refuse to run) -- never compute with the
old values.  The training-loop pattern: a model object in a global, its
weights updated between calls outside the graph."""

import collections
import dataclasses
import enum
import sys
import types

import numpy as np
import pytest

import autograph as ag
from autograph.graph import concrete as concrete_module


class Layer:
    def __init__(self, w, b):
        self.w = w
        self.b = b


class SlotLayer:
    __slots__ = ("w", "b")

    def __init__(self, w, b):
        self.w = w
        self.b = b


@dataclasses.dataclass
class Config:
    weights: np.ndarray
    lr: float


Frozen = collections.namedtuple("Frozen", ["weights", "lr"])


class Model:
    def __init__(self):
        self.layers = [Layer(np.full(2, 1.0), np.full(2, 0.5)),
                       Layer(np.full(2, 2.0), np.full(2, 0.25))]
        self.head = Layer(np.array([1.0, -1.0]), np.zeros(2))


class Params:
    def __init__(self):
        self.inner = Layer(np.array([2.0, 3.0]), np.array([0.5, 0.5]))
        self.w = np.array([1.0, 4.0])


helpers = types.ModuleType("guard_paths_helpers")  # a module holding a model object
sys.modules["guard_paths_helpers"] = helpers


def _fresh_state():
    """The globals the traced functions read, as each test starts."""
    global LAYERS, SLOTS, CONFIG, FROZEN, NS, MODEL, BLOCKS
    LAYERS = [Layer(np.array([1.0, 2.0]), np.array([0.5, 0.5])),
              Layer(np.array([3.0, 4.0]), np.array([1.0, -1.0]))]
    SLOTS = [SlotLayer(np.array([1.0, 2.0]), np.array([0.5, 0.5]))]
    CONFIG = Config(np.array([2.0, 3.0]), 0.1)
    FROZEN = Frozen(np.array([2.0, 3.0]), 0.1)
    NS = types.SimpleNamespace(weights=np.array([2.0, 3.0]), lr=0.1)
    MODEL = Model()
    BLOCKS = {"enc": Layer(np.array([1.0, 1.5]), np.zeros(2)),
              "dec": Layer(np.array([2.0, 2.5]), np.ones(2))}
    helpers.MODEL = Model()


_fresh_state()


def reads_list_of_objects(x):
    return x * LAYERS[0].w + LAYERS[1].b


def loops_over_objects(x):
    for layer in LAYERS:
        x = x * layer.w + layer.b
    return x


def numpy_work_at_tracing(x):
    return x + (LAYERS[0].w * 2).sum()  # no tensor involved: computed once, baked in


def reads_slots(x):
    return x * SLOTS[0].w + SLOTS[0].b


def reads_dataclass(x):
    return x * CONFIG.weights * CONFIG.lr


def reads_namedtuple(x):
    return x * FROZEN.weights * FROZEN.lr


def reads_namespace(x):
    return x * NS.weights - NS.lr


def reads_nested(x):
    return x * MODEL.layers[1].b + MODEL.head.w


def reads_dict_of_objects(x):
    return x * BLOCKS["enc"].w + BLOCKS["dec"].b


def reads_module_object(x):
    return x * helpers.MODEL.layers[0].w


def _other_model():
    model = Model()
    model.layers[0].w[:] = [4.0, 5.0]
    return model


def _scale(array, factor):
    array *= factor  # in place


CASES = {
    "list_item_attribute_rebound": (reads_list_of_objects,
                                    lambda: setattr(LAYERS[0], "w", np.array([5.0, 6.0]))),
    "list_item_attribute_in_place": (reads_list_of_objects, lambda: _scale(LAYERS[1].b, 3.0)),
    "list_item_replaced": (reads_list_of_objects,
                           lambda: LAYERS.__setitem__(0, Layer(np.array([7.0, 8.0]), 0))),
    "loop_attribute_rebound": (loops_over_objects,
                               lambda: setattr(LAYERS[1], "b", np.array([9.0, 9.0]))),
    "loop_attribute_in_place": (loops_over_objects, lambda: _scale(LAYERS[0].w, -1.0)),
    "loop_list_grown": (loops_over_objects,
                        lambda: LAYERS.append(Layer(np.ones(2), np.ones(2)))),
    "numpy_work_rebound": (numpy_work_at_tracing,
                           lambda: setattr(LAYERS[0], "w", np.array([10.0, 0.0]))),
    "numpy_work_in_place": (numpy_work_at_tracing, lambda: _scale(LAYERS[0].w, 3.0)),
    "slots_rebound": (reads_slots, lambda: setattr(SLOTS[0], "w", np.array([4.0, 4.0]))),
    "slots_in_place": (reads_slots, lambda: _scale(SLOTS[0].b, 2.0)),
    "dataclass_rebound": (reads_dataclass,
                          lambda: setattr(CONFIG, "weights", np.array([1.0, 1.0]))),
    "dataclass_in_place": (reads_dataclass, lambda: _scale(CONFIG.weights, 4.0)),
    "dataclass_number_rebound": (reads_dataclass, lambda: setattr(CONFIG, "lr", 0.5)),
    "namedtuple_in_place": (reads_namedtuple, lambda: _scale(FROZEN.weights, 4.0)),
    "namedtuple_replaced": (reads_namedtuple,
                            lambda: globals().__setitem__("FROZEN", FROZEN._replace(lr=0.7))),
    "namespace_rebound": (reads_namespace,
                          lambda: setattr(NS, "weights", np.array([0.0, 1.0]))),
    "namespace_in_place": (reads_namespace, lambda: _scale(NS.weights, 0.5)),
    "namespace_number_rebound": (reads_namespace, lambda: setattr(NS, "lr", 2)),
    "nested_rebound": (reads_nested,
                       lambda: setattr(MODEL.layers[1], "b", np.array([3.0, 3.0]))),
    "nested_in_place": (reads_nested, lambda: _scale(MODEL.head.w, 2.0)),
    "nested_object_replaced": (reads_nested,
                               lambda: setattr(MODEL, "head", Layer(np.ones(2), 0))),
    "nested_list_item_replaced": (reads_nested, lambda: MODEL.layers.__setitem__(
        1, Layer(np.ones(2), np.array([6.0, 6.0])))),
    "dict_of_objects_rebound": (reads_dict_of_objects,
                                lambda: setattr(BLOCKS["enc"], "w", np.array([0.0, 1.0]))),
    "dict_of_objects_in_place": (reads_dict_of_objects, lambda: _scale(BLOCKS["dec"].b, 5.0)),
    "dict_item_replaced": (reads_dict_of_objects, lambda: BLOCKS.__setitem__(
        "dec", Layer(0, np.array([2.0, 7.0])))),
    "module_object_in_place": (reads_module_object,
                               lambda: _scale(helpers.MODEL.layers[0].w, 3.0)),
    "module_object_replaced": (reads_module_object,
                               lambda: setattr(helpers, "MODEL", _other_model())),
}


@pytest.fixture(autouse=True)
def fresh_state():
    _fresh_state()
    yield
    _fresh_state()


@pytest.mark.parametrize("autograph", [False, True], ids=["traced", "converted"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_change_inside_a_held_object_is_seen(case, autograph):
    fn, change = CASES[case]
    staged = ag.function(fn, autograph=autograph)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x), fn(x))
    np.testing.assert_array_equal(staged(x), fn(x))  # (this call builds the fast call)
    change()
    expected = fn(x)
    np.testing.assert_array_equal(staged(x), expected)
    assert staged.experimental_get_tracing_count() == 2
    np.testing.assert_array_equal(staged(x), expected)  # the new values: fast again
    assert staged.experimental_get_tracing_count() == 2


def _fast_call_used(staged, *args):
    return staged._entries and staged._entries[0](args) is not concrete_module.MISS


@pytest.mark.parametrize("fn", [reads_list_of_objects, loops_over_objects, reads_slots,
                                reads_dataclass, reads_namedtuple, reads_nested,
                                reads_dict_of_objects, reads_module_object])
def test_unchanged_objects_keep_the_fast_call(fn):
    staged = ag.function(fn)
    x = np.array([1.0, 2.0])
    for _ in range(3):
        np.testing.assert_array_equal(staged(x), fn(x))
    assert staged.experimental_get_tracing_count() == 1
    assert _fast_call_used(staged, x)


def test_the_fast_call_misses_after_each_kind_of_change():
    """Each link of `MODEL.layers[1].b` is tested inline: the object holding
    the list, the list's item, the item's attribute, the array's bytes."""
    staged = ag.function(reads_nested)
    x = np.array([1.0, 2.0])
    staged(x)
    staged(x)
    entry = staged._entries[0]
    assert entry((x,)) is not concrete_module.MISS
    saved_b = MODEL.layers[1].b
    MODEL.layers[1].b = saved_b.copy()  # an equal array, but another object
    assert entry((x,)) is concrete_module.MISS
    MODEL.layers[1].b = saved_b
    assert entry((x,)) is not concrete_module.MISS
    saved_b[0] = 8.0
    assert entry((x,)) is concrete_module.MISS
    saved_b[0] = 0.25
    saved_layers = MODEL.layers
    MODEL.layers = list(saved_layers)
    assert entry((x,)) is concrete_module.MISS
    MODEL.layers = saved_layers
    assert entry((x,)) is not concrete_module.MISS
    del MODEL.layers  # a read that fails is a miss too
    assert entry((x,)) is concrete_module.MISS


def test_an_argument_object_holding_an_object():
    def step(x, params):
        return x * params.inner.w + params.w

    staged = ag.function(step)
    x = np.array([1.0, 2.0])
    params = Params()
    np.testing.assert_array_equal(staged(x, params), step(x, params))
    np.testing.assert_array_equal(staged(x, params), step(x, params))
    params.inner.w *= 2
    np.testing.assert_array_equal(staged(x, params), step(x, params))
    params.inner = Layer(np.array([-1.0, 1.0]), 0)
    np.testing.assert_array_equal(staged(x, params), step(x, params))
    params.w = np.array([0.0, 0.0])
    np.testing.assert_array_equal(staged(x, params), step(x, params))
    np.testing.assert_array_equal(staged(x, params), step(x, params))
    assert staged.experimental_get_tracing_count() == 4


def test_a_closure_cell_holding_an_object():
    model = Model()

    def forward(x):
        return x * model.layers[0].w

    staged = ag.function(forward)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x), forward(x))
    model.layers[0].w = np.array([3.0, 5.0])
    np.testing.assert_array_equal(staged(x), forward(x))
    assert staged.experimental_get_tracing_count() == 2


class Net:
    def __init__(self):
        self.model = Model()

    @ag.function
    def __call__(self, x):
        return x * self.model.layers[1].w


def test_an_attribute_path_of_self():
    net = Net()
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(net(x), x * 2.0)
    np.testing.assert_array_equal(net(x), x * 2.0)
    net.model.layers[1].w[:] = [3.0, 4.0]
    np.testing.assert_array_equal(net(x), x * [3.0, 4.0])


def test_a_training_loop_updating_a_global_model_between_calls():
    def predict(x):
        return x @ MODEL.head.w + MODEL.layers[0].b.sum()

    staged = ag.function(predict)
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    for step in range(4):
        np.testing.assert_array_equal(staged(x), predict(x))
        MODEL.head.w -= 0.1 * step  # in place, as an optimizer does
        MODEL.layers[0].b = MODEL.layers[0].b + 1.0  # rebound
    np.testing.assert_array_equal(staged(x), predict(x))


def test_a_concrete_function_refuses_a_changed_object_attribute():
    concrete = ag.function(reads_nested).get_concrete_function(np.array([1.0, 2.0]))
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(concrete(x), reads_nested(x))
    MODEL.head.w[0] = 9.0
    with pytest.raises(ag.errors.GraphError, match=r"MODEL\.head\.w"):
        concrete(x)
    MODEL.head.w[0] = 1.0
    np.testing.assert_array_equal(concrete(x), reads_nested(x))
    MODEL.layers[1].b = np.zeros(2)
    with pytest.raises(ag.errors.GraphError, match=r"MODEL\.layers\[1\]\.b"):
        concrete(x)


def test_retracing_names_the_path():
    staged = ag.function(reads_list_of_objects)
    x = np.array([1.0, 2.0])
    staged(x)
    LAYERS[0].w = np.array([0.0, 0.0])
    staged(x)
    assert "LAYERS[0].w" in staged._replaced


def test_objects_holding_nothing_read_add_no_guard():
    """A global object whose attributes the function does not read (or that
    hold nothing a graph bakes in) is not watched: no new per-call cost."""
    holder = types.SimpleNamespace(unread=np.ones(2), name=lambda: None)

    def reads_nothing_held(x):
        return x * 2.0 if holder is not None else x

    staged = ag.function(reads_nothing_held)
    x = np.ones(2)
    staged(x)
    watched = [g[3] for g in staged.get_concrete_function(x).guards]
    assert watched == [f"{reads_nothing_held.__qualname__}.__code__"]  # (its own code only)


class _Lazy:
    """An attribute computed by user code on each read: not watched (guards.py)."""

    def __init__(self):
        self._w = np.array([1.0, 2.0])

    @property
    def w(self):
        return self._w


def test_reading_a_property_runs_no_user_code_per_call():
    lazy = _Lazy()
    reads = []
    original = _Lazy.w.fget

    def counting(self):
        reads.append(1)
        return original(self)

    _Lazy.w = property(counting)
    try:
        staged = ag.function(lambda x: x * lazy.w)
        x = np.ones(2)
        for _ in range(4):
            staged(x)
        assert len(reads) == 1  # read while tracing only, never by a guard
    finally:
        _Lazy.w = property(original)


class Scaled:
    scale = 2.0  # read through the instance while the instance has none

    def __init__(self, w):
        self.w = w


def test_a_class_attribute_read_through_an_object_on_a_path():
    held = [Scaled(np.array([1.0, 2.0]))]

    def f(x):
        return x * held[0].w * held[0].scale

    staged = ag.function(f)
    x = np.array([1.0, 3.0])
    np.testing.assert_array_equal(staged(x), f(x))
    held[0].scale = 5.0  # the instance gains one: shadows the class's
    np.testing.assert_array_equal(staged(x), f(x))
    del held[0].scale
    Scaled.scale = 3.0  # the class's replaced
    try:
        np.testing.assert_array_equal(staged(x), f(x))
        assert staged.experimental_get_tracing_count() == 3
    finally:
        Scaled.scale = 2.0


def test_numbers_in_objects_are_baked_in_and_watched():
    """A Python number read from an object is a constant of the graph (no
    placeholder for it), so it is watched by value: an equal number does not
    trace again, another does."""
    staged = ag.function(reads_dataclass)
    x = np.array([1.0, 2.0])
    staged(x)
    concrete = staged.get_concrete_function(x)
    assert len(concrete.graph.inputs) == 1  # x only: lr and weights are constants
    CONFIG.lr = float("0.1")  # equal, another object
    np.testing.assert_array_equal(staged(x), reads_dataclass(x))
    assert staged.experimental_get_tracing_count() == 1
    CONFIG.lr = 0.2
    np.testing.assert_array_equal(staged(x), reads_dataclass(x))
    assert staged.experimental_get_tracing_count() == 2


def test_namedtuples_in_a_list_and_a_cycle_of_objects():
    first, second = Layer(np.array([1.0, 2.0]), 0.0), Layer(np.array([3.0, 1.0]), 0.0)
    first.peer, second.peer = second, first  # a cycle: walked a bounded number of links
    pairs = [Frozen(np.array([2.0, 2.0]), 0.5)]

    def f(x):
        return x * first.peer.w * pairs[0].weights + first.peer.peer.w

    staged = ag.function(f)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x), f(x))
    pairs[0].weights[1] = 7.0
    np.testing.assert_array_equal(staged(x), f(x))
    second.w = np.array([0.0, 1.0])
    np.testing.assert_array_equal(staged(x), f(x))
    first.w *= 3
    np.testing.assert_array_equal(staged(x), f(x))
    assert staged.experimental_get_tracing_count() == 4


def test_an_array_behind_a_property_is_watched_through_what_the_getter_reads():
    lazy = _Lazy()

    def f(x):
        return x * lazy.w

    staged = ag.function(f)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x), f(x))
    lazy._w *= 2  # in place, under the property
    np.testing.assert_array_equal(staged(x), f(x))
    lazy._w = np.array([5.0, 5.0])
    np.testing.assert_array_equal(staged(x), f(x))
    assert staged.experimental_get_tracing_count() == 3


def test_an_ordered_dict_of_arrays_and_a_deep_path():
    params = collections.OrderedDict(w=np.array([1.0, 2.0]))
    deep = types.SimpleNamespace(encoder=types.SimpleNamespace(
        blocks=[Model(), Model()]))

    def f(x):
        return x * params["w"] + deep.encoder.blocks[1].layers[0].w  # five links

    staged = ag.function(f)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x), f(x))
    params["w"][0] = 4.0
    np.testing.assert_array_equal(staged(x), f(x))
    deep.encoder.blocks[1].layers[0].w = np.array([9.0, 9.0])
    np.testing.assert_array_equal(staged(x), f(x))
    assert staged.experimental_get_tracing_count() == 3


class Settings:
    lr = 0.1
    W = np.array([1.0, -1.0])


class MoreSettings(Settings):
    pass


def test_a_class_used_as_a_namespace_of_settings():
    def f(x):
        return x * MoreSettings.W * MoreSettings.lr

    staged = ag.function(f)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x), f(x))
    try:
        Settings.W *= 2  # in place, on the base class
        np.testing.assert_array_equal(staged(x), f(x))
        MoreSettings.lr = 0.5  # the subclass gains its own
        np.testing.assert_array_equal(staged(x), f(x))
        Settings.lr = 0.25  # shadowed: no change to what f reads
        np.testing.assert_array_equal(staged(x), f(x))
        assert staged.experimental_get_tracing_count() == 3
    finally:
        Settings.W = np.array([1.0, -1.0])
        Settings.lr = 0.1
        del MoreSettings.lr


def test_an_object_reached_first_too_deep_is_walked_again_nearer_its_root():
    """The argument's path to SHARED is seven links, past the walk's bound;
    the global SHARED, walked after the arguments, reaches `inner.w` in two."""
    global SHARED
    SHARED = types.SimpleNamespace(inner=Layer(np.array([1.0, 2.0]), 0.0))
    deep = SHARED
    for name in "fedcba":
        deep = types.SimpleNamespace(**{name: deep})

    def f(x, p):
        return x * SHARED.inner.w + (p.a.b.c.d.e.f is SHARED)

    staged = ag.function(f)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x, deep), f(x, deep))
    SHARED.inner.w[1] = 5.0
    np.testing.assert_array_equal(staged(x, deep), f(x, deep))
    assert staged.experimental_get_tracing_count() == 2


def test_instances_of_one_class_share_its_class_attribute_guard():
    held = [Scaled(np.array([1.0, 2.0])), Scaled(np.array([3.0, 4.0]))]

    def f(x):
        return x * held[0].scale + held[1].w * held[1].scale

    staged = ag.function(f)
    x = np.array([1.0, 2.0])
    staged(x)
    labels = [guard[3] for guard in staged.get_concrete_function(x).guards]
    assert labels.count("class attribute 'Scaled.scale'") == 1


class Mode(enum.Enum):
    TRAIN = 1
    TEST = 2


class Norm:
    W = np.array([2.0, 3.0])

    @classmethod
    def apply(cls, x):
        return x * cls.W


def test_none_and_enum_settings_a_python_branch_read():
    settings = types.SimpleNamespace(mask=None, mode=Mode.TRAIN)

    def f(x):
        if settings.mask is not None:  # a Python branch: decided at tracing
            x = x * settings.mask
        return x * 2.0 if settings.mode is Mode.TRAIN else x

    staged = ag.function(f)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x), f(x))
    settings.mask = np.array([0.0, 1.0])
    np.testing.assert_array_equal(staged(x), f(x))
    settings.mode = Mode.TEST
    np.testing.assert_array_equal(staged(x), f(x))
    assert staged.experimental_get_tracing_count() == 3


def test_a_classmethod_reading_its_class():
    def f(x):
        return Norm.apply(x)

    staged = ag.function(f)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(staged(x), f(x))
    Norm.W[0] = 7.0
    try:
        np.testing.assert_array_equal(staged(x), f(x))
        assert staged.experimental_get_tracing_count() == 2
    finally:
        Norm.W[0] = 2.0


class _DictPropertyRaises:
    @property
    def __dict__(self):
        raise KeyError("no dict")


ODD_HOLDER = _DictPropertyRaises()
ODD_W = np.ones(3)


def reads_an_object_whose_dict_raises(x):
    holder = ODD_HOLDER  # the guards walk it: reading its __dict__ must not raise
    return x * ODD_W, holder is None


def test_an_object_whose_dict_property_raises_is_not_walked():
    got, _ = ag.function(reads_an_object_whose_dict_raises)(np.full(3, 2.0))
    np.testing.assert_array_equal(got, np.full(3, 2.0))
