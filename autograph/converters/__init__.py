"""The converter pipeline: one pass per module, run in PIPELINE order.

Order matters and is asserted, not just described here:
  - jump lowering (return, break, continue) runs before control flow, so loops
    carry their flags as ordinary state;
  - lists runs before control flow, so `lst.append(x)` rebinds `lst` and the
    analysis sees it as modified;
  - expression passes (conditional/logical expressions, calls) run before
    control flow, which moves expressions into the functions it generates;
  - control flow needs fresh static analysis (NEEDS_ANALYSIS) and asserts the
    annotations it reads (REQUIRES);
  - formatted strings runs after calls: it rewrites the f-strings that are
    arguments of the builtin print, which the calls pass names `ag__.print_`;
  - tracebacks runs last: it looks for the functions control flow generated.

Modules that are not passes (the base class, jump lowering, the pieces of
the functional forms) live in converters/support/.
"""

import importlib

_PASS_MODULES = (
    "function_scope",
    "with_statements",
    "directives",
    "return_statements",
    "break_statements",
    "continue_statements",
    "lists",
    "conditional_expressions",
    "logical_expressions",
    "asserts",
    "call_trees",
    "formatted_strings",
    "try_statements",
    "if_statements",
    "while_statements",
    "for_statements",
    "cell_variables",
    "raise_statements",
    "variables",
    "tracebacks",
)


PIPELINE = [importlib.import_module(f"autograph.converters.{name}").Transformer
            for name in _PASS_MODULES]

# (formatted_strings finds the builtin print by the name call_trees gives it)
assert _PASS_MODULES.index("call_trees") < _PASS_MODULES.index("formatted_strings")
