"""Imports a rewrite needs or no longer needs, made as edits (``tfmodernize.edits``).

A codemod asks for ``import sys`` or ``from absl import flags`` (``TFCodemod.add_import``), or
for an import to go once nothing reads it (``TFCodemod.remove_import``); after its other edits
are made, ``plan`` turns those requests into edits of the module's import statements only:

- a needed import already bound by an import of the module is not repeated; a ``from M import``
  name joins an existing top-level ``from M import ...`` statement, otherwise new statements
  (plain imports first, then one ``from`` import per module, each sorted) go after the module's leading block
  of imports (after its docstring and ``__future__`` imports when it has none), with a blank
  line before the code that follows;
- an import to remove goes only if no name it binds is read anywhere outside import statements
  (by name, whatever the scope: an import that might be used stays).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from tfmodernize.edits import Edits
from tfmodernize.tfsymbols import dotted_name
from tfmodernize.names import name_nodes
from tfmodernize.treewalk import import_statements


@dataclass(frozen=True)
class ImportRequest:
    """``import module [as asname]`` (``obj`` None) or ``from module import obj [as asname]``."""

    module: str
    obj: Optional[str] = None
    asname: Optional[str] = None

    @property
    def bound(self) -> str:
        """The name the import binds."""
        if self.asname:
            return self.asname
        return self.obj if self.obj else self.module.split(".", 1)[0]

    def matches(self, statement: cst.CSTNode, alias: cst.ImportAlias) -> bool:
        asname = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None
        if isinstance(statement, cst.Import):
            return self.obj is None and dotted_name(alias.name) == self.module and asname == self.asname
        if not isinstance(statement, cst.ImportFrom) or statement.relative or statement.module is None:
            return False
        return (
            self.obj is not None
            and dotted_name(statement.module) == self.module
            and dotted_name(alias.name) == self.obj
            and asname == self.asname
        )


def _small_imports(module: cst.Module):
    """(top-level line, import) for each import statement at the module's top level."""
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    yield statement, small


def _aliases(small: cst.CSTNode) -> tuple[cst.ImportAlias, ...]:
    names = getattr(small, "names", ())
    return names if isinstance(names, (list, tuple)) else ()


def _imports_only(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _alias(request: ImportRequest, comma=cst.MaybeSentinel.DEFAULT) -> cst.ImportAlias:
    asname = cst.AsName(cst.Name(request.asname)) if request.asname else None
    name = cst.Name(request.obj) if request.obj else cst.parse_expression(request.module)
    return cst.ImportAlias(name, asname=asname, comma=comma)


def _plan_additions(module: cst.Module, wanted: list[ImportRequest], edits: Edits) -> None:
    present = [small for _, small in _small_imports(module)]
    missing = [
        request
        for request in dict.fromkeys(wanted)
        if not any(request.matches(small, alias) for small in present for alias in _aliases(small))
    ]
    hosts: dict[int, tuple[cst.ImportFrom, list[ImportRequest]]] = {}
    for request in [r for r in missing if r.obj is not None]:
        host = next(
            (
                small
                for small in present
                if isinstance(small, cst.ImportFrom)
                and not small.relative
                and small.module is not None
                and dotted_name(small.module) == request.module
                and isinstance(small.names, (list, tuple))
            ),
            None,
        )
        if host is not None:
            hosts.setdefault(id(host), (host, []))[1].append(request)
            missing.remove(request)
    for host, more in hosts.values():
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        edits.replace(
            host,
            lambda node, more=more: node.with_changes(
                names=[_alias(request, comma) for request in more] + list(node.names)
            ),
        )
    if not missing:
        return
    ordered = sorted((r for r in missing if r.obj is None), key=lambda r: (r.module, r.asname or "")) + sorted(
        (r for r in missing if r.obj is not None), key=lambda r: (r.module, r.obj or "", r.asname or "")
    )
    statements = [cst.SimpleStatementLine([cst.Import([_alias(r)])]) for r in ordered if r.obj is None]
    modules: dict[str, list[ImportRequest]] = {}
    for request in ordered:
        if request.obj is not None:
            modules.setdefault(request.module, []).append(request)
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    for name, requests in modules.items():
        aliases = [_alias(r, comma) for r in requests[:-1]] + [_alias(requests[-1])]
        statements.append(cst.SimpleStatementLine([cst.ImportFrom(module=cst.parse_expression(name), names=aliases)]))
    body = list(module.body)
    index = 1 if body and _is_docstring(body[0]) else 0
    while index < len(body) and _imports_only(body[index]):
        index += 1
    if index < len(body):
        following = body[index]
        if not following.leading_lines:
            edits.replace(
                following, lambda node: node.with_changes(leading_lines=[cst.EmptyLine(), *node.leading_lines])
            )
        edits.insert_before(following, statements)
    elif body:
        edits.insert_after(body[-1], statements)
    else:
        edits.replace(module, lambda node: node.with_changes(body=statements))


def _plan_removals(module: cst.Module, unwanted: list[ImportRequest], edits: Edits) -> None:
    reads: dict[str, int] = {request.bound: 0 for request in unwanted}
    for name in name_nodes(module, imports=False):  # ``tf.math.log`` reads ``tf``, not ``log``
        if name.value in reads:
            reads[name.value] += 1
    imports = list(import_statements(module))
    for small in imports:
        drop_aliases(
            edits,
            small,
            lambda alias, small=small: any(
                request.matches(small, alias) and reads[request.bound] == 0 for request in unwanted
            ),
        )


def drop_aliases(edits: Edits, statement: cst.CSTNode, gone: Callable[[cst.ImportAlias], bool]) -> None:
    """Plan ``statement`` (an import) without the aliases ``gone`` picks: without the statement
    when none is left (and without its line when it was alone there)."""
    aliases = _aliases(statement)
    kept = [alias for alias in aliases if not gone(alias)]
    if len(kept) == len(aliases):
        return
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        edits.replace(statement, lambda node: node.with_changes(names=kept))
    else:
        edits.remove(statement)


def plan(module: cst.Module, added: list[ImportRequest], removed: list[ImportRequest]) -> Edits:
    """The edits that add ``added`` and drop the unread imports among ``removed``."""
    edits = Edits()
    if added:
        _plan_additions(module, added, edits)
    if removed:
        _plan_removals(module, removed, edits)
    return edits
