"""f-strings become one call of `ag__.format_string`, so a staged value can be printed.

    print(f"step {step}: loss {loss:.4f}")
==>
    print(ag__.format_string('step {}: loss {:.4f}', step, loss))

The template is the f-string as a `str.format` template: its literal text
with braces doubled, a `{}` field for each value with its conversion (`!r`,
`!s`, `!a`) and format spec, and a `{}` for each field nested in a spec:

    f"{x!r:>{width}} {{braces}}"   ==>   ag__.format_string('{!r:>{}} {{braces}}', x, width)

`str.format` numbers the fields in the order they appear, the outer field
before the ones nested in its spec, which is the order the f-string
evaluates them in; `f"{x=}"` is already `'x=' + {x!r}` when parsed.  For
Python values `format_string(template, *values)` is `template.format(*values)`:
the same text as the f-string, from the same `format(value, spec)` calls.
With a staged value it is a staged text that print() formats at run time.

Only the converted body holds these calls: when nothing is traced the
original body runs, f-strings and all (transpiler._guarded).
"""

import gast

from autograph import templates
from autograph.converters.support import base

_CONVERSIONS = {-1: "", ord("s"): "!s", ord("r"): "!r", ord("a"): "!a"}


def _literal(text):
    return text.replace("{", "{{").replace("}", "}}")


class Transformer(base.Converter):
    HANDLES = (gast.JoinedStr,)


    def visit_JoinedStr(self, node):
        if not any(isinstance(part, gast.FormattedValue) for part in node.values):
            return node  # no field: a plain constant
        values = []
        template = self._template(node, values)
        call = templates.replace_as_expression("ag__.format_string(text)", origin=node,
                                               text=gast.Constant(value=template, kind=None))
        call.args += values
        return base.copy_location(call, node)

    def _template(self, joined, values):
        """`joined`'s parts as a format template; appends the values of its
        fields (converted themselves) to `values`, in evaluation order."""
        pieces = []
        for part in joined.values:
            if isinstance(part, gast.Constant):
                pieces.append(_literal(part.value))
                continue
            values.append(self.visit(part.value))
            spec = "" if part.format_spec is None else ":" + self._template(part.format_spec, values)
            pieces.append("{" + _CONVERSIONS[part.conversion] + spec + "}")
        return "".join(pieces)
