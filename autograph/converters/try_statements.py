"""A `try` with `except` clauses first checks that it runs on Python values.

    try:                                ag__.python_try((x,), ('x',))
        y = np.log(x)          ==>      try:
    except FloatingPointError:              y = np.log(x)
        y = 0.0                         except FloatingPointError:
                                            y = 0.0

`except` clauses catch what Python raises while the `try` body runs.  On a
staged value the body only records graph operations: an error the graph
raises when it runs later is out of their reach, so the handlers would
silently never run.  `ag__.python_try` raises NotStageableError, naming the
variable and the line, when a variable the body reads (and that is surely
bound before the `try`) holds a staged value; on Python values it does
nothing and the statement runs as written.  `try`/`finally` without handlers
is unaffected (a `finally` body runs either way).
"""

import gast

from autograph import anno, templates
from autograph.analysis import definedness
from autograph.converters.support import base, staging


class Transformer(base.Converter):

    HANDLES = (gast.Try,)
    # (its check, `ag__.python_try(...)`, is a call statement made without a
    # new name: only directives, which ran before, handles those)
    CREATES = (gast.Expr,)
    NAMES_WHAT_IT_CREATES = False
    STATEMENTS_ONLY = True
    NEEDS_ANALYSIS = True
    REQUIRES = (anno.Static.ANALYZED,)

    def visit_Try(self, node):
        self.generic_visit(node)
        if not node.handlers or anno.hasanno(node, anno.Basic.SKIP):
            return node
        scope = anno.getanno(node, anno.Static.BODY_SCOPE, None)
        if scope is None:
            return node
        surely = definedness.surely_defined(node)
        names = [n for n in staging.SourceOrder(node)(scope.read & surely)
                 if n not in self.ctx.namer.generated and n != "ag__"]
        if not names:
            return node
        check = templates.replace(
            "ag__.python_try(values, names)", origin=node,
            values=gast.Tuple(elts=[staging.load(n) for n in names], ctx=gast.Load()),
            names=staging.names_tuple(names))
        return check + [node]
