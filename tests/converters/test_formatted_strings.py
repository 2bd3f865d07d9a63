"""f-strings become `ag__.format_string(template, *values)`, which for Python
values is `template.format(*values)`: the same text as the f-string."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from autograph.converters import call_trees, formatted_strings
from test_return_harness import check, convert, dedent, run, to_source

PASSES = (call_trees, formatted_strings)


def logged(step, loss, width):
    print(f"step {step}: loss {loss:.4f}")
    print(f"{step!r:>{width}} {{literal}} {loss = } {'plain'}", f"{f'{step}':>{width}}", sep="")
    print(f"no fields", "plain", end=f"{step}\n")  # noqa: F541 - kept as a constant
    return f"{step}: not printed"


def test_golden_template_and_values():
    assert to_source(logged, PASSES) == dedent('''
        def logged(step, loss, width):
            ag__.print_(ag__.format_string('step {}: loss {:.4f}', step, loss))
            ag__.print_(ag__.format_string('{!r:>{}} {{literal}} loss = {!r} {}', step, width, loss, 'plain'), ag__.format_string('{:>{}}', f'{step}', width), sep='')
            ag__.print_(f'no fields', 'plain', end=f'{step}\\n')
            return f'{step}: not printed'
    ''')


def test_same_text_as_the_f_string():
    for args in ((3, 2.5, 6), (np.int64(3), np.float32(0.125), 2), ("s", 1e30, 0)):
        check(logged, *args, passes=PASSES)


def fields(v, spec, w):
    """Every kind of field, with a value, a spec and a width from hypothesis:
    each field's text, or the error it raises."""
    makers = [lambda: print(f"{v}"), lambda: print(f"{v!r}"), lambda: print(f"{v!s}"),
              lambda: print(f"{v!a}"), lambda: print(f"{v:{spec}}"),
              lambda: print(f"{v!r:{spec}}"), lambda: print(f"{{lit}} {v:>{w}} }}"),
              lambda: print(f"{v=}"), lambda: print(f"{v = !s:{spec}}"),
              lambda: print(f"{v:{w}.{w}}"), lambda: print(f"{v:{spec}}{v:{spec}}{{{v}}}"),
              lambda: print(f"a{v}b{w}c", f"{v:{spec}{w}}", sep=f"{w}"),
              lambda: print(f"{v!s:^{w}}|{spec!r:>{w}}")]
    for make in makers:
        try:
            make()
        except Exception as e:  # noqa: BLE001 - Python's own error is the expected text
            print(type(e).__name__, e)


CONVERTED_FIELDS = convert(fields, PASSES)

VALUES = st.one_of(
    st.integers(-10**20, 10**20), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
    st.text(max_size=5), st.complex_numbers(allow_nan=False, max_magnitude=1e10),
    st.integers(-1000, 1000).map(np.int64), st.floats(width=32).map(np.float32),
    st.lists(st.integers(-5, 5), max_size=3).map(np.array), st.none())
SPECS = st.sampled_from(["", ".4f", ">8", ",", "e", ".2%", "x", "<5d", "^+9.3g", "s", "#o",
                         "_", "08.3f", "*>6", "=+7", "!", "{"])


@settings(max_examples=300, deadline=None)
@given(VALUES, SPECS, st.integers(0, 12))
def test_any_value_spec_and_width_give_python_s_text_or_error(v, spec, w):
    expected = run(fields, v, spec, w)
    actual = run(CONVERTED_FIELDS, v, spec, w)
    assert repr(actual) == repr(expected)  # (repr: nan != nan inside the tuples)


def percent_logged(step, loss, fmt):
    print("step %d: loss %.4f" % (step, loss), "%s" % loss, end="\n")
    print(fmt % step, b"%d" % step)
    return "%d: not printed" % step


def test_golden_percent_formatting():
    assert to_source(percent_logged, PASSES) == dedent('''
        def percent_logged(step, loss, fmt):
            ag__.print_(ag__.percent_string('step %d: loss %.4f', (step, loss)), ag__.percent_string('%s', loss), end='\\n')
            ag__.print_(fmt % step, b'%d' % step)
            return ag__.percent_text('%d: not printed', step)
    ''')


def test_same_text_as_percent_formatting():
    for args in ((3, 2.5, "%r"), (np.int64(3), np.float32(0.125), "%5d"), (True, 1e30, "%x")):
        check(percent_logged, *args, passes=PASSES)


def format_method_logged(step, loss):
    print("step {}: loss {:.4f}".format(step, loss), "{0}".format(step),
          "{}{}".format(step), "{0}{1}".format(step),  # noqa: F524 - left to str.format
          "{s.real} {n}".format(s=step, n=loss))
    return "{}".format(step)


def test_golden_format_method():
    """A literal template whose fields are all `{}`, or all by position or
    keyword (short of values, or reading an attribute: left to str.format,
    which a staged value refuses)."""
    assert to_source(format_method_logged, PASSES) == dedent('''
        def format_method_logged(step, loss):
            ag__.print_(ag__.format_string('step {}: loss {:.4f}', step, loss), ag__.format_string('{0}', step), ag__.converted('{}{}'.format, fscope)(step), ag__.converted('{0}{1}'.format, fscope)(step), ag__.converted('{s.real} {n}'.format, fscope)(s=step, n=loss))
            return ag__.converted('{}'.format, fscope)(step)
    ''')


def concatenated_logged(step, loss, str_):
    print("step " + str(step) + ": " + repr(loss) + f" {loss:.2f}", str(step), "a" + "b")
    print(str_(step) + "x", "a" + str(step, "ascii"))
    return "step " + str(step)


def test_golden_concatenated_texts():
    assert to_source(concatenated_logged, PASSES) == dedent('''
        def concatenated_logged(step, loss, str_):
            ag__.print_(ag__.format_string('step {!s}: {!r} {:.2f}', step, loss, loss), ag__.format_string('{!s}', step), 'a' + 'b')
            ag__.print_(ag__.converted(str_, fscope)(step) + 'x', 'a' + ag__.str_(step, 'ascii'))
            return 'step ' + ag__.str_(step)
    ''')
