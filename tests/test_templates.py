"""templates.replace_as_expression builds only the expression (no statement
around it) and gives exactly what `replace` gives inside its statement;
misuse raises TemplateError as before."""

import ast

import gast
import pytest

from autograph import templates, trees


def _origin():
    return gast.parse("y = f(x)\n").body[0].value


def _name(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _dump(node):
    return ast.dump(trees.gast_to_ast(node), include_attributes=True)


CASES = [
    ("ag__.converted(func, fscope)", lambda: dict(func=_name("f"), fscope="fscope")),
    ("ag__.for_stmt(iterated, loop_body, state, names)",
     lambda: dict(iterated=_name("xs"), loop_body="loop_body", state=["a", "b"],
                  names=gast.Tuple(elts=[], ctx=gast.Load()))),
    ("ag__.if_exp(test, lambda: body, lambda: orelse, text)",
     lambda: dict(test=_name("c"), body=_name("a"), orelse=_name("b"),
                  text=gast.Constant(value="c", kind=None))),
    ("locals().get(text, ag__.Undefined(text))",
     lambda: dict(locals="locals", text=gast.Constant(value="v", kind=None))),
    ("not flag", lambda: dict(flag="do_return")),
    ("ag__.tracing", lambda: {}),
]


@pytest.mark.parametrize("template, replacements", CASES)
def test_expression_is_what_the_statement_holds(template, replacements):
    built = templates.replace_as_expression(template, origin=_origin(), **replacements())
    (statement,) = templates.replace(template, origin=_origin(), **replacements())
    assert isinstance(statement, gast.Expr)
    assert _dump(built) == _dump(statement.value)


def test_misuse_raises():
    with pytest.raises(templates.TemplateError, match="without replacement"):
        templates.replace_as_expression("ag__.converted(func, fscope)", func=_name("f"))
    with pytest.raises(templates.TemplateError, match="not used"):
        templates.replace_as_expression("ag__.tracing", extra="x")
    with pytest.raises(templates.TemplateError, match="single-expression"):
        templates.replace_as_expression("x = y", x="a", y="b")


def test_bare_placeholder_given_statements():
    (expr_stmt,) = templates.replace("f(x)", f="g", x="y")
    assert _dump(templates.replace_as_expression("call", call=[expr_stmt])) == \
        _dump(expr_stmt.value)
    with pytest.raises(templates.TemplateError, match="single-expression"):
        templates.replace_as_expression("call", call=templates.replace("a = b", a="c", b="d"))
