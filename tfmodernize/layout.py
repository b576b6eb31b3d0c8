"""The width of the code a migration writes: the file's own, and calls wrapped to keep to it.

A file's style is the longest line it already has, 88 when it has none longer, 100 at most
(``style_width``). A statement the migration writes wider than that has its outermost call's
arguments wrapped as a reviewer would write them by hand: first all on one line of their own,
then one per line with a trailing comma (``fitted``; with ``further``, also an argument still too
wide wrapped the same way inside, and a sole argument or a value that is a sum or a product one
operand a line, the operator leading); a list argument, or a tuple assigned or returned, still too
wide goes one element a line; the first line of a ``with`` statement has its item's call wrapped.
A decorator taking one list (``input_signature=[...]``) keeps the brackets on its line and puts one
element per line (``fitted_decorator``).

The comment lines above a statement the migration writes or moves deeper (``fitted``, ``moved``)
that are wider than the file's width there are wrapped at word boundaries, their words pushed
onto the next line of the same comment (``with_comments_fitted``). A comment already wider than
the width where its author wrote it is wrapped too when the migration moves or rewrites its
statement: the lines are the migration's to write then, and a reviewer reads them in its diff
(``black`` leaves comments alone, so a file formatted with it has no narrower rule to keep).
Code commented out, pragmas and a single word too long stay as they are.

A statement a rewrite changed in place (a renamed function, a renamed keyword) keeps its
author's layout (``relaid``): continuation lines aligned to an opening bracket (visual indent)
follow the bracket where the rewrite moved it, hanging indents stay, and the statement is
wrapped as above when it became wider than the file's width.
"""

from __future__ import annotations

import dataclasses
import difflib
import io
import tokenize
from typing import Optional, Union

import libcst as cst

from tfmodernize.syntax import commas, no_space_equal, source

#: Without longer lines in the file, what it is written to; the most it is ever written to.
DEFAULT_WIDTH, MOST_WIDTH = 88, 100
#: One level of continuation indentation.
STEP = "    "


def style_width(text: str) -> int:
    """The width a file's new code keeps to."""
    longest = max((len(line) for line in text.splitlines()), default=0)
    return min(MOST_WIDTH, max(DEFAULT_WIDTH, longest))


def width(node: cst.CSTNode, depth: int) -> int:
    """The longest line of ``node`` written ``depth`` blocks deep."""
    return max(len(line) for line in source(node).splitlines()) + len(STEP) * depth


def _break(extra: str) -> cst.ParenthesizedWhitespace:
    """A line break inside brackets, the next line indented ``extra`` past the block's indent."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(),
        empty_lines=[],
        indent=True,
        last_line=cst.SimpleWhitespace(extra),
    )


def _one_line(call: cst.Call, level: int) -> cst.Call:
    """``f(\\n    a, b, c\\n)``, its closing parenthesis ``level`` steps in."""
    args = list(call.args)
    closing = _break(STEP * level)
    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=closing)
    return call.with_changes(whitespace_before_args=_break(STEP * (level + 1)), args=args)


def _one_per_line(call: cst.Call, level: int) -> cst.Call:
    """``f(\\n    a,\\n    b,\\n)``, its closing parenthesis ``level`` steps in."""
    between = cst.Comma(whitespace_after=_break(STEP * (level + 1)))
    args = [arg.with_changes(comma=between) for arg in call.args]
    args[-1] = args[-1].with_changes(comma=cst.Comma(), whitespace_after_arg=_break(STEP * level))
    return call.with_changes(whitespace_before_args=_break(STEP * (level + 1)), args=args)


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``(\n    expr\n)``."""
    return expr.with_changes(
        lpar=[cst.LeftParen(whitespace_after=_break(STEP))], rpar=[cst.RightParen(whitespace_before=_break(""))]
    )


#: Operators of one priority: a sum or a product is split at its operators of the lowest.
_PRIORITIES = (
    (cst.Add, cst.Subtract),
    (cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.MatrixMultiply),
)


def _operands_per_line(expr: cst.BaseExpression, level: int) -> Optional[cst.BaseExpression]:
    """``a + b - c`` (not in parentheses of its own) with each operator starting a line
    ``level`` steps in; None for anything else. Only inside brackets."""
    if not isinstance(expr, cst.BinaryOperation) or expr.lpar:
        return None
    group = next((kinds for kinds in _PRIORITIES if isinstance(expr.operator, kinds)), None)
    if group is None:
        return None

    def split(node: cst.BaseExpression) -> cst.BaseExpression:
        if not (isinstance(node, cst.BinaryOperation) and not node.lpar and isinstance(node.operator, group)):
            return node
        operator = node.operator.with_changes(
            whitespace_before=_break(STEP * level), whitespace_after=cst.SimpleWhitespace(" ")
        )
        return node.with_changes(left=split(node.left), operator=operator)

    return split(expr)


def _outer_call(expr: cst.BaseExpression, further: bool = False) -> Optional[cst.Call]:
    """The call whose arguments a wrap splits: ``f(a, b)``, also of ``f(a, b).numpy()`` (and,
    ``further``, of ``-f(a, b)``)."""
    if further and isinstance(expr, cst.UnaryOperation) and not expr.lpar:
        return _outer_call(expr.expression, further)
    if not isinstance(expr, cst.Call):
        return None
    func = expr.func
    if not expr.args and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
        return _outer_call(expr.func.value, further)
    return expr if expr.args else None


def fitted(statement: cst.BaseStatement, limit: int, depth: int, *, further: bool = False) -> cst.BaseStatement:
    """``statement`` (``name = call(...)``, ``call(...)``, ``return call(...)``) with its
    outermost call's arguments wrapped when it is wider than ``limit``, ``depth`` blocks deep
    (another value assigned or returned: in parentheses, on a line of its own; a list or set
    comprehension: one clause a line, as ``black`` writes it).

    ``further``: when those ways do not fit, also the call under a unary minus wrapped, a sum
    (or product) one operand a line, an argument still too wide on its line wrapped inside, a
    list assigned one element a line."""
    statement = with_comments_fitted(statement, limit, depth)
    if isinstance(statement, cst.With):
        return _with_fitted(statement, limit, depth)
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return statement
    small = statement.body[0]
    if not isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Return)):
        return statement
    bare = statement.with_changes(leading_lines=[])
    if width(bare, depth) <= limit:
        return statement
    if "\n" in source(bare).rstrip("\n"):
        # laid out over several lines by its author (or wrapped for a shallower depth): joined
        # and wrapped again only where that is narrower (``relaid``)
        return _narrowed(statement, limit, depth)
    if small.value is None:
        return statement
    room = limit - len(STEP) * depth
    call = _outer_call(small.value)
    if call is not None:
        values = [_replaced(small.value, call, wrapped) for wrapped in _wraps(call, 0, room, further)]
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        if isinstance(receiver, cst.Call) and receiver.args:
            # ``make(a, b).save(step=i)``: when splitting ``save``'s arguments is not enough,
            # the call that made the object it is called on.
            values += [_replaced(small.value, receiver, wrapped) for wrapped in _wraps(receiver, 0, room, further)]
    elif isinstance(small.value, (cst.ListComp, cst.SetComp)) and not small.value.lpar:
        values = [_comprehension_split(small.value, 0)]
    elif not small.value.lpar and not isinstance(small, cst.Expr):
        # ``name = (\n    a * b\n)``: an operation, in parentheses of its own.
        values = [_parenthesized(small.value)]
        inner = _outer_call(small.value, further)
        split = _operands_per_line(small.value, 1) if further else None
        if inner is not None:  # ``name = -f(\n    a, b\n)`` first
            values[:0] = [_replaced(small.value, inner, wrapped) for wrapped in _wraps(inner, 0, room, further)]
        elif split is not None:  # ``name = (\n    a\n    + b\n)``
            values.append(_parenthesized(split))
        elif further and isinstance(small, cst.Assign) and isinstance(small.value, cst.List) and small.value.elements:
            values.append(_elements_per_line(small.value, room))  # ``name = [\n    a,\n    b,\n]``
        elif isinstance(small.value, cst.Tuple) and small.value.elements:
            values.append(_elements_per_line(small.value, room))  # ``return (\n    a,\n    b,\n)``
    else:
        return statement
    new = statement
    for value in values:
        new = statement.with_changes(body=[small.with_changes(value=value)])
        if width(new.with_changes(leading_lines=[]), depth) <= limit:
            break
    return new


def _header_width(block: cst.With, depth: int) -> int:
    """The longest line of ``block``'s first line(s), ``with ...:``, ``depth`` blocks deep."""
    empty = block.with_changes(leading_lines=[], body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])]))
    return max(len(line) for line in source(empty).splitlines()[:-1]) + len(STEP) * depth


def _with_fitted(block: cst.With, limit: int, depth: int) -> cst.With:
    """``with f(a, b):`` wider than ``limit`` ``depth`` blocks deep, of one item written on one
    line: the item's call wrapped as ``fitted`` wraps a statement's (``with f(\n    a, b\n):``),
    the first way that fits, else the narrowest when narrower."""
    if len(block.items) != 1 or isinstance(block.lpar, cst.LeftParen):
        return block
    widest = _header_width(block, depth)
    if widest <= limit:
        return block
    item = block.items[0]
    call = _outer_call(item.item, True)
    if call is None or "\n" in source(item.item):
        return block
    best, narrowest = block, widest
    for wrapped in _wraps(call, 0, limit - len(STEP) * depth, True):
        tried = block.with_changes(items=[item.with_changes(item=_replaced(item.item, call, wrapped))])
        now = _header_width(tried, depth)
        if now <= limit:
            return tried
        if now < narrowest:
            best, narrowest = tried, now
    return best


def _elements_per_line(listed: Union[cst.List, cst.Tuple], room: int, level: int = 0) -> Union[cst.List, cst.Tuple]:
    """``[\n    a,\n    b,\n]`` (a tuple: ``(\n    a,\n    b,\n)``), its closing bracket
    ``level`` steps in, an element too wide on its line with its call wrapped inside."""
    inside = _break(STEP * (level + 1))
    between = cst.Comma(whitespace_after=inside)
    elements = [element.with_changes(comma=between) for element in listed.elements]
    elements[-1] = elements[-1].with_changes(comma=cst.Comma())
    fitted_elements = []
    for element in elements:
        if isinstance(element, cst.StarredElement):
            fitted_elements.append(element)
            continue
        arg = _fitted_arg(cst.Arg(element.value, comma=element.comma), level + 1, room)
        fitted_elements.append(element.with_changes(value=arg.value))
    closing = _break(STEP * level)
    if isinstance(listed, cst.Tuple):
        return listed.with_changes(
            lpar=[cst.LeftParen(whitespace_after=inside)],
            rpar=[cst.RightParen(whitespace_before=closing)],
            elements=fitted_elements,
        )
    return listed.with_changes(
        lbracket=listed.lbracket.with_changes(whitespace_after=inside),
        rbracket=listed.rbracket.with_changes(whitespace_before=closing),
        elements=fitted_elements,
    )


def _listed(expr: Optional[cst.BaseExpression]) -> bool:
    """Whether ``expr`` is a list, or a tuple in parentheses, of elements (one a line in a wrap)."""
    if isinstance(expr, cst.List):
        return bool(expr.elements)
    return isinstance(expr, cst.Tuple) and bool(expr.elements) and len(expr.lpar) == 1


def _comprehension_split(comp: Union[cst.ListComp, cst.SetComp], level: int) -> cst.BaseExpression:
    """``[\n    elt\n    for x in xs\n    if x\n]`` (as ``black`` writes a comprehension too
    wide for its line), its closing bracket ``level`` steps in."""
    inside = _break(STEP * (level + 1))

    def split(clause: cst.CompFor) -> cst.CompFor:
        ifs = [test.with_changes(whitespace_before=inside) for test in clause.ifs]
        inner = split(clause.inner_for_in) if clause.inner_for_in is not None else None
        return clause.with_changes(whitespace_before=inside, ifs=ifs, inner_for_in=inner)

    opening, closing = ("lbracket", "rbracket") if isinstance(comp, cst.ListComp) else ("lbrace", "rbrace")
    return comp.with_changes(
        for_in=split(comp.for_in),
        **{
            opening: getattr(comp, opening).with_changes(whitespace_after=inside),
            closing: getattr(comp, closing).with_changes(whitespace_before=_break(STEP * level)),
        },
    )


def _wraps(call: cst.Call, level: int, room: int, further: bool) -> list[cst.Call]:
    """The ways to wrap ``call`` (its closing parenthesis ``level`` steps in, lines of at most
    ``room`` characters past the block's indent), the most compact first: its arguments on one
    line of their own; when it has one, a call, that call wrapped the same way inside; one per
    line. ``further``: a sole sum one operand a line, an argument still too wide on its line
    wrapped inside."""
    ways = [_one_line(call, level)]
    only = call.args[0].value if len(call.args) == 1 else None
    inner = _outer_call(only, further) if further and only is not None else None
    if not further and isinstance(only, cst.Call) and only.args:
        inner = only
    split = _operands_per_line(only, level + 1) if further and only is not None else None
    if inner is not None:
        ways += [
            _one_line(call.with_changes(args=[call.args[0].with_changes(value=_replaced(only, inner, wrapped))]), level)
            for wrapped in _wraps(inner, level + 1, room, further)
        ]
    elif split is not None:
        ways.append(_one_line(call.with_changes(args=[call.args[0].with_changes(value=split)]), level))
    elif _listed(only):  # ``f(\n    [\n        a,\n        b,\n    ]\n)``
        listed = _elements_per_line(only, room, level + 1)
        ways.append(_one_line(call.with_changes(args=[call.args[0].with_changes(value=listed)]), level))
    elif len(call.args) > 1:
        per_line = _one_per_line(call, level)
        if further:
            per_line = per_line.with_changes(args=[_fitted_arg(arg, level + 1, room) for arg in per_line.args])
        else:  # a list too wide on its line, one element a line
            args = [_fitted_arg(arg, level + 1, room) if _listed(arg.value) else arg for arg in per_line.args]
            per_line = per_line.with_changes(args=args)
        ways.append(per_line)
    return ways


def _fitted_arg(arg: cst.Arg, level: int, room: int) -> cst.Arg:
    """``arg`` on a line of its own ``level`` steps in, its call wrapped if it is too wide."""
    if _fits(arg, level, room):
        return arg
    if _listed(arg.value) and arg.keyword is None:  # ``[\n    a,\n    b,\n]``
        # (a keyword's list stays whole: a later rewrite may carry it into another call, as
        # ``minimize(loss, var_list=[...])`` becomes ``tape.gradient(loss, [...])``)
        return arg.with_changes(value=_elements_per_line(arg.value, room, level))
    inner = _outer_call(arg.value, True)
    if inner is None:
        return arg
    tried = arg
    for wrapped in _wraps(inner, level, room, True):
        tried = arg.with_changes(value=_replaced(arg.value, inner, wrapped))
        if _fits(tried, level, room):
            break
    return tried


def _fits(arg: cst.Arg, level: int, room: int) -> bool:
    """Whether ``arg`` and its comma, starting a line ``level`` steps in, keep to ``room``."""
    bare = arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace(""))
    lines = source(bare).split("\n")
    lines[0] = STEP * level + lines[0]
    return max(len(line) for line in lines) + 1 <= room


def _replaced(expr: cst.BaseExpression, old: cst.Call, new: cst.Call) -> cst.BaseExpression:
    if expr is old:
        return new
    if isinstance(expr, cst.UnaryOperation):
        return expr.with_changes(expression=_replaced(expr.expression, old, new))
    assert isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
    func = expr.func
    return expr.with_changes(func=func.with_changes(value=_replaced(func.value, old, new)))


def fitted_decorator(definition: cst.FunctionDef, limit: int, depth: int) -> cst.FunctionDef:
    """``@f(key=[a, b])`` wider than ``limit``: ``@f(key=[``, one element a line, ``])``."""
    decorators = []
    for decorator in definition.decorators:
        call = decorator.decorator
        listed = call.args[0].value if isinstance(call, cst.Call) and len(call.args) == 1 else None
        if isinstance(listed, cst.List) and listed.elements and width(decorator, depth) > limit:
            between = cst.Comma(whitespace_after=_break(STEP))
            elements = [e.with_changes(comma=between) for e in listed.elements]
            elements[-1] = elements[-1].with_changes(comma=cst.Comma())
            listed = listed.with_changes(
                lbracket=cst.LeftSquareBracket(whitespace_after=_break(STEP)),
                elements=elements,
                rbracket=cst.RightSquareBracket(whitespace_before=_break("")),
            )
            arg = call.args[0].with_changes(value=listed)
            decorator = decorator.with_changes(decorator=call.with_changes(args=[arg]))
        decorators.append(decorator)
    return definition.with_changes(decorators=decorators)


def autograph_off(definition: cst.FunctionDef, limit: int, depth: int) -> cst.FunctionDef:
    """``definition``, decorated with ``tf.function`` or a call of it alone, traced without
    AutoGraph: ``autograph=False`` after the decorator's arguments. A decorator wider than
    ``limit`` takes one argument a line, and a list argument still too wide one element a line
    (the layout ruff and black give it)."""
    decorator = definition.decorators[0]
    call = decorator.decorator
    off = cst.Arg(cst.Name("False"), keyword=cst.Name("autograph"), equal=no_space_equal())
    func, args = (call.func, [*call.args, off]) if isinstance(call, cst.Call) else (call, [off])
    written = decorator.with_changes(decorator=cst.Call(func, commas(args)))
    if width(written, depth) > limit:
        inner, outer = _break(STEP * 2), _break(STEP)
        for index, arg in enumerate(args):
            listed = arg.value
            if isinstance(listed, cst.List) and listed.elements and width(arg, depth + 1) + 1 > limit:
                elements = [e.with_changes(comma=cst.Comma(whitespace_after=inner)) for e in listed.elements]
                elements[-1] = elements[-1].with_changes(comma=cst.Comma(whitespace_after=outer))
                listed = listed.with_changes(lbracket=cst.LeftSquareBracket(whitespace_after=inner), elements=elements)
            args[index] = arg.with_changes(value=listed, comma=cst.Comma(whitespace_after=outer))
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=_break("")))
        written = decorator.with_changes(decorator=cst.Call(func, args, whitespace_before_args=outer))
    return definition.with_changes(decorators=[written])


def depth(node: cst.CSTNode, parents: dict) -> int:
    """How many blocks deep ``node`` stands (``parents``: a parent map of its tree)."""
    found = 0
    parent = parents.get(id(node))
    while parent is not None:
        found += isinstance(parent, cst.IndentedBlock)
        parent = parents.get(id(parent))
    return found


def moved(statement: cst.BaseStatement, limit: int, depth: int) -> cst.BaseStatement:
    """A statement a rewrite moved ``depth`` blocks deep (into a function it writes, a tape
    block), kept to the file's width: one its author spread over several lines joined and wrapped
    again where it is now wider (``relaid``), a one-line one wrapped as ``fitted`` does (its
    ``further`` ways included)."""
    statement = with_comments_fitted(statement, limit, depth)
    if isinstance(statement, cst.SimpleStatementLine) and "\n" in source(
        statement.with_changes(leading_lines=[])
    ).rstrip("\n"):
        return relaid(statement, statement, limit, depth)
    return fitted(statement, limit, depth, further=True)


#: Comments whose words are not prose to wrap: pragmas read by tools.
_PRAGMAS = ("# type:", "# noqa", "# pylint:", "# pragma", "# fmt:", "# -*-", "#!")


def with_comments_fitted(statement: cst.BaseStatement, limit: int, depth: int) -> cst.BaseStatement:
    """``statement`` with the comment lines above it that are wider than ``limit`` ``depth``
    blocks deep (a block a rewrite moved into a function) wrapped at word boundaries, keeping
    their ``#`` prefix: the words past the width start the next comment line of the same run
    (a paragraph reflowed), or a line of their own before a line that is not one to join
    (blank, another prefix or indentation, a list item). A comment that is commented-out code
    (``#x = f(y)``, no space after ``#``), a pragma, or a single word too long stays as is."""
    lines = list(getattr(statement, "leading_lines", ()))
    if not any(_too_wide(line, limit, depth) for line in lines):
        return statement
    new: list[cst.EmptyLine] = []
    carried: Optional[str] = None  # words pushed off the line above
    for index, line in enumerate(lines):
        if carried is not None:  # ``line`` joins the paragraph (``_joins``)
            line = line.with_changes(comment=cst.Comment(f"{_prefix(line)}{carried} {_words(line)}"))
            carried = None
        # a line made of carried words can be too wide again: split it as often as needed
        while _too_wide(line, limit, depth) and _wrappable(line):
            room = limit - len(STEP) * depth - len(line.whitespace.value)
            kept, rest = _split_words(line.comment.value, room, len(_prefix(line)))
            if not rest:
                break
            line = line.with_changes(comment=cst.Comment(kept))
            following = lines[index + 1] if index + 1 < len(lines) else None
            if following is not None and _joins(line, following):
                carried = rest
                break
            new.append(line)
            line = line.with_changes(comment=cst.Comment(f"{_prefix(line)}{rest}"))
        new.append(line)
    return statement.with_changes(leading_lines=new)


def _too_wide(line: cst.EmptyLine, limit: int, depth: int) -> bool:
    if line.comment is None:
        return False
    indent = len(STEP) * depth if line.indent else 0
    return indent + len(line.whitespace.value) + len(line.comment.value) > limit


def _wrappable(line: cst.EmptyLine) -> bool:
    """A comment of prose: ``# `` and words (not code commented out, not a pragma)."""
    text = line.comment.value if line.comment is not None else ""
    return text.startswith("# ") and not text.startswith(_PRAGMAS) and bool(_words(line))


def _prefix(line: cst.EmptyLine) -> str:
    """``# `` (and more ``#`` or spaces) before a comment's words."""
    text = line.comment.value
    return text[: len(text) - len(text.lstrip("# "))]


def _words(line: cst.EmptyLine) -> str:
    return line.comment.value[len(_prefix(line)) :]


def _joins(line: cst.EmptyLine, following: cst.EmptyLine) -> bool:
    """Whether ``following`` goes on the paragraph of comment ``line`` (words pushed off
    ``line`` start it): a prose comment with the same prefix and indentation, not a list item."""
    return (
        following.comment is not None
        and _wrappable(following)
        and following.indent == line.indent
        and following.whitespace.value == line.whitespace.value
        and _prefix(following) == _prefix(line)
        and _words(following)[:1] not in ("-", "*", "+")
        and not _words(following).split(" ", 1)[0].rstrip(".):").isdigit()
    )


def _split_words(text: str, room: int, start: int) -> tuple[str, str]:
    """``text`` (a comment) cut at the last space that keeps it within ``room`` (not inside
    its first ``start`` characters, its prefix): the part kept and the words after the cut;
    ``(text, "")`` when no space allows it."""
    cut = text.rfind(" ", start, room + 1)
    while cut > start and text[cut - 1] == " ":
        cut -= 1
    if cut <= start:
        return text, ""
    return text[:cut], text[cut:].lstrip(" ")


def relaid(written: cst.BaseStatement, updated: cst.BaseStatement, limit: int, depth: int) -> cst.BaseStatement:
    """``updated``, a statement a rewrite changed in place (``written``: as it read before), in
    its author's layout: a continuation line that was aligned to an opening bracket (visual
    indent) is aligned to it again where the rewrite moved it, and nested lines with it; hanging
    indents and lines placed otherwise stay. Wider than ``limit`` ``depth`` blocks deep, it is
    wrapped (``fitted``), its author's line breaks joined first when no comment or string
    stands in the way; a wrap is kept only when it is narrower. Only simple statement lines."""
    if isinstance(updated, cst.With):  # its first line wrapped where the rewrite made it wider
        return _with_fitted(updated, limit, depth)
    if not isinstance(updated, cst.SimpleStatementLine) or not isinstance(written, cst.SimpleStatementLine):
        return updated
    new = _code_text(updated)
    if "\n" in new.rstrip("\n"):
        old = _code_text(written)
        if "\n" in old.rstrip("\n"):
            realigned = _realigned(updated, old, new)
            if realigned is not updated:
                return _narrowed(realigned, limit, depth)
    return _narrowed(updated, limit, depth, _without_comment(new, updated.trailing_whitespace))


def _code_text(statement: cst.SimpleStatementLine) -> str:
    return source(statement.with_changes(leading_lines=()))


@dataclasses.dataclass
class _Token:
    """A token of one statement's text, its row counted from 0."""

    text: str
    kind: int
    row: int
    col: int
    end: tuple[int, int]
    #: The first token of a line inside brackets (the line before ended inside them).
    first: bool
    #: The index of the innermost opening bracket around it (for a closing one, the one it closes).
    bracket: Optional[int]
    #: For an opening bracket: code follows it on its line (what follows is aligned to it).
    visual: bool = False


def _tokens(text: str) -> Optional[list[_Token]]:
    """The tokens of a statement's ``text``; None when Python's tokenizer cannot read it alone."""
    found: list[_Token] = []
    open_brackets: list[int] = []
    after_break = False
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NL:
                after_break = bool(open_brackets)
                continue
            if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                continue
            if token.type == tokenize.ERRORTOKEN:
                return None
            opening = token.type == tokenize.OP and token.string in ("(", "[", "{")
            closing = token.type == tokenize.OP and token.string in (")", "]", "}")
            if closing and not open_brackets:
                return None
            bracket = open_brackets[-1] if open_brackets else None
            row, col = token.start
            found.append(_Token(token.string, token.type, row - 1, col, token.end, after_break, bracket))
            after_break = False
            if opening:
                open_brackets.append(len(found) - 1)
            elif closing:
                open_brackets.pop()
    except (tokenize.TokenError, SyntaxError):
        return None
    for index, token in enumerate(found[:-1]):
        if token.kind == tokenize.OP and token.text in ("(", "[", "{"):
            following = found[index + 1]
            token.visual = following.row == token.row and following.kind != tokenize.COMMENT
    return found


def _realigned(statement: cst.SimpleStatementLine, old: str, new: str) -> cst.SimpleStatementLine:
    """``statement`` (reading ``new``; ``old`` before the rewrite) with its continuation lines
    aligned again to the brackets they were aligned to, as far as its line breaks go."""
    before, after = _tokens(old), _tokens(new)
    if before is None or after is None:
        return statement
    matcher = difflib.SequenceMatcher(None, [t.text for t in before], [t.text for t in after], autojunk=False)
    was = {}  # the token of ``new`` -> the one of ``old`` it stands for (the same or rewritten)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "replace"):
            was.update((j1 + k, i1 + k) for k in range(min(i2 - i1, j2 - j1)))
    shifts: dict[int, int] = {}
    lines = new.split("\n")
    for index, token in enumerate(after):
        if not token.first or token.bracket is None or not after[token.bracket].visual:
            continue
        old_index, old_bracket = was.get(index), was.get(token.bracket)
        if old_index is None or old_bracket is None:
            continue  # written by the rewrite: laid out by it
        then, bracket = before[old_index], before[old_bracket]
        if not (
            then.first
            and then.bracket == old_bracket
            and bracket.text == after[token.bracket].text
            and bracket.visual
            and abs(then.col - bracket.col - 1) <= 1
        ):
            continue  # a hanging indent, or a line placed otherwise
        anchor = after[token.bracket]
        column = anchor.col + shifts.get(anchor.row, 0) + 1
        if column != token.col and lines[token.row][: token.col] == " " * token.col:
            shifts[token.row] = column - token.col
            lines[token.row] = " " * column + lines[token.row][token.col :]
    if not shifts:
        return statement
    return _with_breaks(statement, "\n".join(lines))


def _with_breaks(statement: cst.SimpleStatementLine, text: str) -> cst.SimpleStatementLine:
    """``statement`` with the indentation of its bracketed line breaks read off ``text`` (the
    same code, other indentation of those lines); ``statement`` when they do not match."""
    try:
        reread = cst.parse_statement(text)
    except cst.ParserSyntaxError:
        return statement
    mine, theirs = _line_breaks(statement), _line_breaks(reread)
    if len(mine) != len(theirs):
        return statement
    new_of: dict[int, cst.CSTNode] = {}
    for ours, read in zip(mine, theirs):
        if len(ours.empty_lines) != len(read.empty_lines) or not ours.indent:
            return statement
        lines = [
            line.with_changes(whitespace=other.whitespace) for line, other in zip(ours.empty_lines, read.empty_lines)
        ]
        new_of[id(ours)] = ours.with_changes(last_line=read.last_line, empty_lines=lines)
    rebuilt = _swapped(statement, new_of)
    return rebuilt if _code_text(rebuilt) == text else statement


def _line_breaks(node: cst.CSTNode) -> list[cst.ParenthesizedWhitespace]:
    """The line breaks inside brackets of ``node``, in one fixed order."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.ParenthesizedWhitespace):
            found.append(current)
            continue
        for field in reversed(dataclasses.fields(current)):
            value = getattr(current, field.name)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(item for item in reversed(value) if isinstance(item, cst.CSTNode))
    return found


def _swapped(node: cst.CSTNode, new_of: dict[int, cst.CSTNode]) -> cst.CSTNode:
    """``node`` with the nodes ``new_of`` names replaced, rebuilding only the paths to them."""
    new = new_of.get(id(node))
    if new is not None:
        return new
    changes = {}
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if isinstance(value, cst.CSTNode):
            swapped = _swapped(value, new_of)
            if swapped is not value:
                changes[field.name] = swapped
        elif isinstance(value, (list, tuple)) and any(isinstance(item, cst.CSTNode) for item in value):
            items = [_swapped(item, new_of) if isinstance(item, cst.CSTNode) else item for item in value]
            if any(a is not b for a, b in zip(items, value)):
                changes[field.name] = items
    return node.with_changes(**changes) if changes else node


def _without_comment(text: str, trailing: cst.TrailingWhitespace) -> Optional[str]:
    """``text``, a statement line's code, as it reads without its ``trailing`` whitespace and
    comment (with a plain newline): None when it does not end with them as written."""
    newline = trailing.newline.value if trailing.newline.value is not None else "\n"
    comment = trailing.comment.value if trailing.comment is not None else ""
    tail = trailing.whitespace.value + comment + newline
    return text[: -len(tail)] + "\n" if text.endswith(tail) else None


def _narrowed(
    statement: cst.SimpleStatementLine, limit: int, depth: int, text: Optional[str] = None
) -> cst.SimpleStatementLine:
    """``statement`` wrapped when its code (a trailing comment aside) is wider than ``limit``;
    ``text``: that code, when the caller has rendered it already."""
    code = statement.with_changes(leading_lines=(), trailing_whitespace=cst.TrailingWhitespace())
    if text is None:
        text = source(code)
    widest = max(len(line) for line in text.splitlines()) + len(STEP) * depth
    if widest <= limit:
        return statement
    if "\n" in text.rstrip("\n"):
        joined = _joined(text)
        if joined is None:
            return _arguments_fitted(statement, limit, depth, widest)
        try:
            code = _without_parentheses(cst.parse_statement(joined))
        except cst.ParserSyntaxError:
            return statement
    wrapped = fitted(code, limit, depth, further=True)
    if width(wrapped, depth) >= widest:
        return statement
    return wrapped.with_changes(
        leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace
    )


def _arguments_fitted(
    statement: cst.SimpleStatementLine, limit: int, depth: int, widest: int
) -> cst.SimpleStatementLine:
    """``statement`` whose outermost call its author laid one argument a line (a trailing
    comma), each argument still too wide on its line wrapped inside; as it was when that is
    not narrower."""
    small = statement.body[0] if len(statement.body) == 1 else None
    value = getattr(small, "value", None)
    call = _outer_call(value) if isinstance(value, cst.BaseExpression) else None
    if call is None or not isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return statement
    room = limit - len(STEP) * depth
    args = [_fitted_arg(arg, 1, room) for arg in call.args]
    wrapped = statement.with_changes(
        body=[small.with_changes(value=_replaced(value, call, call.with_changes(args=args)))]
    )
    return wrapped if width(wrapped.with_changes(leading_lines=[]), depth) < widest else statement


#: Values whose parentheses, around the whole value assigned or returned, say nothing.
_PLAIN_VALUES = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.BooleanOperation,
    cst.Comparison,
)


def _without_parentheses(statement: cst.BaseStatement) -> cst.BaseStatement:
    """``name = (a + b)`` as ``name = a + b``: parentheses a wrap put around a value go with
    the wrap (``fitted`` puts them back where they are needed)."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    value = getattr(small, "value", None)
    if not isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return)):
        return statement
    if not isinstance(value, _PLAIN_VALUES) or len(value.lpar) != 1:
        return statement
    return statement.with_changes(body=[small.with_changes(value=value.with_changes(lpar=[], rpar=[]))])


def _joined(text: str) -> Optional[str]:
    """A statement's ``text`` on one line; None when a comment, a string over several lines or
    strings side by side on two lines, or a trailing comma before a closing bracket on a line of
    its own (the author's one item a line) stand in the way."""
    tokens = _tokens(text)
    if tokens is None:
        return None
    lines = text.split("\n")
    pieces = []
    for previous, token in zip([None, *tokens], tokens):
        if token.kind == tokenize.COMMENT or token.end[0] - 1 != token.row:
            return None
        if previous is None:
            pieces.append(token.text)
            continue
        if previous.end[0] - 1 == token.row:
            pieces.append(lines[token.row][previous.end[1] : token.col] + token.text)
            continue
        if previous.kind == tokenize.STRING and token.kind == tokenize.STRING:
            return None
        if previous.text == "," and token.text in (")", "]", "}"):
            return None
        tight = previous.text in ("(", "[", "{") or token.text in (")", "]", "}", ",")
        pieces.append(("" if tight else " ") + token.text)
    return "".join(pieces) + "\n"
