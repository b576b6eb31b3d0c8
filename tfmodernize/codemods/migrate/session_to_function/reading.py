"""Visitors reading the statements of a unit that run the graph: session calls and their
context, leftover graph names, feed dicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import INITIALIZERS, SESSIONS
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.model import Value
from tfmodernize.codemods.migrate.session_to_function.statement_reads import names_used, op_call, tf_path
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import contains, visit
from tfmodernize.syntax import argument
from tfmodernize.names import target_name_nodes
from tfmodernize.codemods.migrate.session_to_function.plan import UnitPlan

if TYPE_CHECKING:
    from tfmodernize.codemods.migrate.session_to_function import SessionToFunction


@dataclass
class Site:
    call: cst.Call
    fetches: Optional[cst.BaseExpression]
    feed: Optional[cst.BaseExpression]
    context: str  # discard | assign | value
    small: Optional[cst.BaseSmallStatement] = None
    targets: Optional[cst.BaseExpression] = None
    close: bool = False
    statement: int = 0  # index of the unit statement holding the call
    #: ``sess.run([step, loss, w])[1:]``: the subscript taking part of the fetched values
    picked: Optional[cst.Subscript] = None


class SessionCalls(cst.CSTVisitor):
    """The session calls of one statement, with the context each value is used in."""

    def __init__(self, codemod: SessionToFunction, unit: GraphUnit, statement: int) -> None:
        self.codemod = codemod
        self.unit = unit
        self.statement = statement
        self.sites: list[Site] = []
        self.seen: set[int] = set()
        self.explained: set[int] = set()
        self.unexplained: Optional[cst.Name] = None
        #: subscripts of calls, by the id of the call (``sess.run([...])[1:]``)
        self.subscripts: dict[int, cst.Subscript] = {}
        #: the sessions this statement runs in: a session helper's own parameter too
        self.sessions = set(unit.sessions)
        #: the arguments handing a session helper its session (``test(sess)``), and the
        #: parameter taking it in a helper's definition: they go
        self.handed: list[cst.CSTNode] = []
        for helper in unit.session_helpers.values():
            if helper.index == statement:
                self.sessions.add(helper.param.name.value)
                self.explained.add(id(helper.param.name))
                self.handed.append(helper.param)

    def _site(self, call: cst.Call) -> Optional[Site]:
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        method, target = func.attr.value, func.value
        if isinstance(target, cst.Name) and target.value in self.sessions:
            if method == "run":
                self.explained.add(id(target))
                fetches = argument(call, 0, "fetches")
                if fetches is None:
                    raise Decline(call, "`run` without fetches")
                extra = [
                    a for a in call.args[2:] if a.keyword is None or a.keyword.value not in ("fetches", "feed_dict")
                ]
                extra += [
                    a
                    for a in call.args[:2]
                    if a.keyword is not None and a.keyword.value not in ("fetches", "feed_dict")
                ]
                if extra or any(a.star for a in call.args):
                    raise Decline(call, "`run` with options, run metadata or unpacked arguments")
                return Site(call, fetches, argument(call, 1, "feed_dict"), "value", statement=self.statement)
            if method == "close":
                self.explained.add(id(target))
                return Site(call, None, None, "value", close=True, statement=self.statement)
            return None
        if method in ("eval", "run"):
            kinds = {self.unit.kind(n, self.statement) for n in names_used(target)}
            is_init = isinstance(target, cst.Call) and tf_path(target.func, self.codemod.tf) in INITIALIZERS
            # ``tf.argmax(labels, 1).eval()``: an op made where it is evaluated.
            built = method == "eval" and op_call(target, self.codemod.tf)
            graph = kinds & {Value.STATIC, Value.DYNAMIC, Value.VARIABLE, Value.OP, Value.INIT}
            if graph or is_init or built:
                session = argument(call, 1, "session")
                if session is not None:
                    self.explained |= {id(n) for n in [session] if isinstance(n, cst.Name)}
                return Site(call, target, argument(call, 0, "feed_dict"), "value", statement=self.statement)
        return None

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        for small in node.body:
            value = getattr(small, "value", None)
            if not isinstance(value, cst.Call):
                continue
            site = self._site(value)
            if site is None:
                continue
            if isinstance(small, cst.Expr):
                site.context, site.small = "discard", small
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                site.context, site.small, site.targets = "assign", small, small.targets[0].target
            else:
                continue
            if site.close and site.context != "discard":
                raise Decline(value, "the value of `close()` is used")
            self.sites.append(site)
            self.seen.add(id(value))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Call):
            self.subscripts[id(node.value)] = node

    def visit_Call(self, node: cst.Call) -> None:
        helper = self.unit.session_helpers.get(node.func.value) if isinstance(node.func, cst.Name) else None
        if helper is not None and id(node) in helper.handed:
            self.explained.add(id(helper.handed[id(node)].value))
            self.handed.append(helper.handed[id(node)])
        if id(node) in self.seen:
            return
        site = self._site(node)
        if site is not None:
            if site.close:
                raise Decline(node, "the value of `close()` is used")
            site.picked = self.subscripts.get(id(node))
            self.sites.append(site)
            self.seen.add(id(node))
        for other in self.sites[:-1] if site is not None else ():
            if other.call is not node and contains(other.call, node):
                raise Decline(node, "a session call nested in another")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None and _session_opened(node.item, self.codemod.tf):
            self.explained.add(id(node.asname.name))

    def visit_Arg(self, node: cst.Arg) -> bool:
        # ``t.eval(session=...)``: a keyword is no use of a session named ``session``.
        visit(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.unit.sessions and id(node) not in self.explained and self.unexplained is None:
            self.unexplained = node


def _session_opened(expr: cst.BaseExpression, names: TFNames) -> bool:
    return isinstance(expr, cst.Call) and tf_path(expr.func, names) in SESSIONS


class Leftovers(cst.CSTVisitor):
    """Finds a graph name in a run statement outside the calls being replaced."""

    def __init__(self, gone: set[str], plan: UnitPlan) -> None:
        self.gone = gone
        self.replaced = {id(n) for n in [*plan.calls, *plan.smalls, *plan.replacements]} | plan.handed
        self.replaced |= {id(item) for block in plan.unit.nested_blocks for item in block.items}
        self.found: Optional[cst.Name] = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.replaced or self.found is not None:
            return False
        if isinstance(node, cst.Name) and node.value in self.gone:
            self.found = node
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "eval":
            # ``t.eval()`` of a tensor built where the graph runs: nothing to call it on in TF2.
            self.found = node.func.attr
        if isinstance(node, cst.Attribute):
            visit(node.value, self)
            return False
        if isinstance(node, cst.Arg):
            # ``"{cost}".format(cost=sess.run(cost))``: a keyword is not a use of the name.
            visit(node.value, self)
            return False
        if isinstance(node, cst.Assign):
            # ``X = sess.run(X)``: a name bound to the run's value is no use of the graph's.
            for target in node.targets:
                self._target(target.target)
            visit(node.value, self)
            return False
        return True

    def _target(self, target: cst.BaseExpression) -> None:
        """The uses in an assignment target: ``a[i]``, ``a.b`` read ``a``; a name bound is none."""
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value)
        elif not isinstance(target, cst.Name):
            visit(target, self)


class UseReader(cst.CSTVisitor):
    """Names read other than as a value fed to a session call: a fetched result bound to such
    a name is used as numpy (printed, formatted, computed with), so the rewrite takes
    ``.numpy()``; values only fed back into the graph can stay tensors."""

    def __init__(self) -> None:
        self.feed_values: set[int] = set()
        self.targets: set[int] = set()
        self.numpy_uses: set[str] = set()
        self.names: set[str] = set()
        #: names read anywhere (anything but an assignment's target)
        self.reads: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.targets |= {id(n) for n in target_name_nodes(target.target)}

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("run", "eval"):
            position = 0 if node.func.attr.value == "eval" else 1
            feed = argument(node, position, "feed_dict")
            if isinstance(feed, cst.Dict):
                self.feed_values |= {id(e.value) for e in feed.elements if isinstance(e, cst.DictElement)}

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        if id(node) not in self.targets:
            self.reads.add(node.value)
        if id(node) not in self.feed_values and id(node) not in self.targets:
            self.numpy_uses.add(node.value)


def calls_in_loops(node: cst.CSTNode) -> set[int]:
    """Ids of the calls inside ``for`` / ``while`` loops of ``node``."""
    found: set[int] = set()

    class Finder(cst.CSTVisitor):
        depth = 0

        def visit_For(self, loop: cst.For) -> None:
            self.depth += 1

        def leave_For(self, loop: cst.For) -> None:
            self.depth -= 1

        def visit_While(self, loop: cst.While) -> None:
            self.depth += 1

        def leave_While(self, loop: cst.While) -> None:
            self.depth -= 1

        def visit_Call(self, call: cst.Call) -> None:
            if self.depth:
                found.add(id(call))

    visit(node, Finder())
    return found


def assignments(node: cst.CSTNode) -> list[cst.Assign]:
    found: list[cst.Assign] = []

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, assign: cst.Assign) -> None:
            found.append(assign)

    visit(node, Finder())
    return found
