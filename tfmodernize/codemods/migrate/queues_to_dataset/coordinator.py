"""The queue runners' plumbing, which goes with the queues: the coordinator, starting the
runners, ``request_stop``, ``join`` and ``should_stop``."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.edits import Replacement
from tfmodernize.names import name_nodes
from tfmodernize.syntax import source
from tfmodernize.tfsymbols import TFNames

COORDINATION = ("train.Coordinator", "train.start_queue_runners", "train.add_queue_runner")


def coordination_edits(
    module: cst.Module, calls: list[cst.Call], runners: set[str], tf: TFNames, parents: dict
) -> list[tuple[cst.CSTNode, Optional[Replacement]]]:
    """What becomes of the queue-runner plumbing: its lines removed (the coordinator, starting
    the runners or ``runner.create_threads``, ``request_stop``, ``join``),
    ``coord.should_stop()`` -> ``False``, ``coord.request_stop(error)`` in an ``except``
    -> ``raise`` (``join`` re-raised it). Declines when the coordinator or the threads are
    used any other way."""
    lines: list[cst.SimpleStatementLine] = []
    names: set[str] = set()
    raised: list[cst.SimpleStatementLine] = []
    for call in calls:
        starts = (
            isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value in runners
            and call.func.attr.value == "create_threads"
        )
        if tf.is_tf(call.func, *COORDINATION) or starts:
            small, line = parents.get(id(call)), parents.get(id(parents.get(id(call))))
            if not (
                _own_line(small, line, call)
                and (isinstance(small, cst.Expr) or isinstance(small.targets[0].target, cst.Name))
            ):
                raise Decline(call, f"`{source(call.func)}` is not on a line of its own")
            if isinstance(small, cst.Assign):
                names.add(small.targets[0].target.value)
            lines.append(line)
    stops: list[cst.Call] = []
    for call in calls:
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in names:
            small, line = parents.get(id(call)), parents.get(id(parents.get(id(call))))
            handler = parents.get(id(parents.get(id(line))))
            if (
                func.attr.value == "request_stop"
                and len(call.args) == 1
                and isinstance(handler, cst.ExceptHandler)
                and handler.name is not None
                and source(call.args[0].value) == source(handler.name.name)
                and _own_line(small, line, call)
            ):
                raised.append(line)  # ``join`` would have re-raised the error it was given
            elif (
                func.attr.value in ("request_stop", "join")
                and not (func.attr.value == "request_stop" and call.args)
                and isinstance(small, cst.Expr)
                and _own_line(small, line, call)
            ):
                lines.append(line)
            elif func.attr.value == "should_stop" and not call.args:
                stops.append(call)
            else:
                raise Decline(call, f"`{source(func)}` has no counterpart without queue runners")
    covered = {id(n) for line in [*lines, *raised] for n in name_nodes(line)} | {id(c.func.value) for c in stops}
    for node in name_nodes(module):
        if node.value in names | runners and id(node) not in covered:
            if node.value in runners and _runner_definition(node, parents):
                continue
            raise Decline(
                node,
                f"`{node.value}` (the queue runners' coordinator or threads) is used other than "
                "to start, stop or join them",
            )
    edits = _without_lines(lines, parents)
    edits += [(line, cst.SimpleStatementLine([cst.Raise()], leading_lines=line.leading_lines)) for line in raised]
    return edits + [_without_stop(call, parents) for call in stops]


def _runner_definition(node: cst.Name, parents: dict) -> bool:
    """``runner = tf.train.QueueRunner(...)``: the runner's own binding (removed with it)."""
    target = parents.get(id(node))
    return isinstance(target, cst.AssignTarget)


def _without_lines(
    lines: list[cst.SimpleStatementLine], parents: dict
) -> list[tuple[cst.CSTNode, Optional[Replacement]]]:
    """Remove ``lines``; a ``finally:`` left empty goes with them (``try: ... finally:
    coord.request_stop()`` keeps its body, and its handlers if it has any)."""
    gone = {id(line) for line in lines}
    edits: list[tuple[cst.CSTNode, Optional[Replacement]]] = []
    dropped: set[int] = set()
    for line in lines:
        block = parents.get(id(line))
        final = parents.get(id(block))
        statement = parents.get(id(final))
        if isinstance(final, cst.Finally) and isinstance(statement, cst.Try) and all(id(s) in gone for s in block.body):
            if id(statement) not in dropped:
                dropped.add(id(statement))
                edits.append(
                    (
                        statement,
                        (lambda updated: updated.with_changes(finalbody=None))
                        if statement.handlers
                        else (lambda updated: cst.FlattenSentinel(updated.body.body)),
                    )
                )
            continue
        edits.append((line, None))
    return edits


def _without_stop(call: cst.Call, parents: dict) -> tuple[cst.CSTNode, Optional[Replacement]]:
    """``coord.should_stop()`` is always False now: ``if coord.should_stop(): break`` goes,
    ``while not coord.should_stop():`` is ``while True:``, anything else reads ``False``."""
    parent = parents.get(id(call))
    if isinstance(parent, cst.If) and parent.test is call and parent.orelse is None:
        return parent, None
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        return parent, cst.Name("True")
    return call, cst.Name("False")


def _own_line(small: Optional[cst.CSTNode], line: Optional[cst.CSTNode], call: cst.Call) -> bool:
    """``call(...)`` or ``name = call(...)`` alone on its line."""
    return (
        isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and (isinstance(small, cst.Expr) or isinstance(small, cst.Assign) and len(small.targets) == 1)
        and small.value is call
    )
