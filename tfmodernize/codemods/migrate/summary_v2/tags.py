"""Summary-v2's reading of one summary statement and the tag TF1 wrote for it: its name scopes,
invalid characters replaced, ``_1`` where an op of the scope took the name first. Functions of
the ``ProgramPlan`` the codemod reads."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.names import fresh_name
from tfmodernize.codemods.migrate.summary_v2.model import SUMMARY_OPS, Summary
from tfmodernize.codemods.migrate.summary_v2.plan import ProgramPlan
from tfmodernize.codemod import Decline
from tfmodernize.names import own_nodes
from tfmodernize.syntax import ancestors, argument, source, statement_holding, statement_of
from tfmodernize.treewalk import walk


def definition(plan: ProgramPlan, call: cst.Call) -> tuple[cst.SimpleStatementLine, Optional[str]]:
    """The statement ``[name =] <call>`` the call makes on its own, and the name it binds."""
    found = statement_of(call, plan.parents)
    if found is None:
        raise Decline(
            call, f"`{source(call.func)}(...)` is not a statement of its own (`x = {source(call.func)}(...)`)"
        )
    name, statement = found
    if id(statement) not in plan.owners:
        raise Decline(
            call,
            "it is made inside a class, a nested function or a lambda; only a program's top-level "
            "code or a module function's own lines are migrated",
        )
    owner = plan.owners[id(statement)]
    if plan.owner is not None and plan.owner[0] is not owner:
        first, other = (f"`{f.name.value}`" if f is not None else "the top-level code" for f in (plan.owner[0], owner))
        raise Decline(
            call,
            f"the program's summaries are made both in {first} and in {other}: a merge of them is "
            "not read across functions",
        )
    plan.owner = (owner,)
    return statement, name


def named(call: cst.Call, name: Optional[str]) -> str:
    if name is None:
        raise Decline(call, "its result is not kept in a name")
    return name


def read_summary(
    plan: ProgramPlan,
    statement: cst.SimpleStatementLine,
    call: cst.Call,
    kind: str,
    name: Optional[str],
    taken: set[str],
    parameters: tuple[str, ...] = (),
) -> Summary:
    """``parameters``: those of the summary helper making it, whose value may name its scope."""
    tag = argument(call, 0, "name")
    value = argument(call, 1, "tensor" if kind in ("scalar", "image", "text") else "values")
    if not isinstance(tag, cst.SimpleString) or not isinstance(tag.evaluated_value, str) or value is None:
        raise Decline(call, "its tag is not a literal string")
    listed = argument(call, None, "collections")
    collections = ("summaries",) if listed is None else collection_names(plan, call, listed)
    others = [a for a in call.args[2:] if a.value is not listed]
    extra = [a.keyword.value if a.keyword else "positional" for a in others]
    allowed = ("max_outputs", "positional") if kind == "image" else ()
    if any(word not in allowed for word in extra) or len(extra) > 1:
        raise Decline(
            call,
            f"it passes {', '.join(w for w in extra if w not in allowed) or 'more arguments'}, "
            "which this migration does not map",
        )
    # TF1's tag: the summary's name scope, its name cleaned as ``summary_scope`` cleans it.
    cleaned = re.sub(r"[^-/\w.]", "_", tag.evaluated_value).lstrip("/")
    written = scope_prefix(plan, call, parameters) + cleaned + suffix(plan, call, cleaned)
    literal = (
        tag if written == tag.evaluated_value else cst.SimpleString(f"{tag.prefix}{tag.quote}{written}{tag.quote}")
    )
    expression = None
    if not isinstance(value, cst.Name):
        expression = value
        # Named after the name given (``max``), not the one TF1 made unique (``max_1``).
        stem = re.sub(r"[^0-9a-zA-Z_]", "_", cleaned.rsplit("/", 1)[-1])
        value = cst.Name(fresh_name(f"{stem}_summarized", taken))
    max_outputs = argument(call, 2, "max_outputs")
    made = Summary(statement, call, kind, written, literal, value, name, max_outputs, expression)
    made.collections = collections
    return made


def collection_names(
    plan: ProgramPlan,
    call: cst.Call,
    listed: cst.BaseExpression,
) -> tuple[str, ...]:
    """The collections a literal ``collections=["train", tf.GraphKeys.SUMMARIES]`` names."""
    if not isinstance(listed, (cst.List, cst.Tuple)):
        raise Decline(call, "its `collections` are not a literal list")
    return tuple(collection_name(plan, call, element.value) for element in listed.elements)


def collection_name(plan: ProgramPlan, call: cst.Call, key: cst.BaseExpression) -> str:
    """The collection a literal string or ``tf.GraphKeys.SUMMARIES`` names."""
    if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
        return key.evaluated_value
    symbol = plan.tf.tf_symbol(key)
    if symbol is not None and symbol.path == "GraphKeys.SUMMARIES":
        return "summaries"
    raise Decline(call, f"the collection `{source(key)}` is not named by a literal")


def scope_prefix(plan: ProgramPlan, call: cst.Call, parameters: tuple[str, ...] = ()) -> str:
    """``"a/b/"`` for a summary made under ``name_scope("a")`` / ``variable_scope("b")``
    blocks, each named by a literal and opened once in the file (a scope opened again, or
    whose name the file writes elsewhere, may have been made unique by TF1: ``a_1``). A scope
    named by one of ``parameters`` (a summary helper's) is ``{name}/``: each call gives it."""
    parents = plan.parents
    names: list[str] = []
    given_by_call = ""
    for node in ancestors(call, parents):
        if not isinstance(node, cst.With):
            continue
        for item in node.items:
            if not (isinstance(item.item, cst.Call) and plan.tf.is_tf(item.item.func, "name_scope", "variable_scope")):
                continue
            scope = item.item
            given = argument(scope, 0, "name") or argument(scope, None, "name_or_scope")
            if given_by_call:
                # Each call makes the given name unique among the caller's scopes only when
                # the helper opens no scope around it.
                raise Decline(call, f"it is made under `{given_by_call}` inside another scope of the helper")
            if len(scope.args) == 1 and isinstance(given, cst.Name) and given.value in parameters:
                given_by_call = source(scope)
                names.insert(0, "{" + given.value + "}")
                continue
            if (
                len(scope.args) != 1
                or not isinstance(given, cst.SimpleString)
                or not isinstance(given.evaluated_value, str)
                or not re.fullmatch(r"[\w.-]+", given.evaluated_value)
            ):
                raise Decline(call, f"it is made under `{source(scope)}`, whose prefix to its tag is not read here")
            # Names written inside the block are under the scope (``loss/loss``), and the scopes
            # holding it are its parents (``accuracy/accuracy``): only the others may clash.
            inside = {id(n) for n in walk(node.body, code_only=True)}
            inside |= {
                id(n)
                for outer in ancestors(node, parents)
                if isinstance(outer, cst.With)
                for held in outer.items
                for n in walk(held)
            }
            others = [
                literal
                for literal in plan.strings()
                if literal.evaluated_value == given.evaluated_value and id(literal) not in inside
            ]
            openings = [_opening(plan, literal) for literal in others]
            parent = openings[0][1] if openings[0] is not None else None
            if len(others) != 1 and not all(o is not None and o[1] == parent for o in openings):
                raise Decline(
                    call,
                    f"it is made under the scope `{given.evaluated_value}`, a name the file writes "
                    f"again outside it (TF1 may have made the scope `{given.evaluated_value}_1`)",
                )
            # The same scope opened again by the top-level code, in the same parent scope: TF1
            # made each later opening unique, in order (``a``, ``a_1``).
            index = next((i for i, o in enumerate(openings) if o is not None and o[0] is node), 0)
            names.insert(0, given.evaluated_value + (f"_{index}" if index else ""))
    return "".join(f"{name}/" for name in names)


def _opening(
    plan: ProgramPlan,
    literal: cst.SimpleString,
) -> Optional[tuple[cst.With, tuple[str, ...]]]:
    """``(the with block, its parent scopes)`` when ``literal`` names a scope the top-level code
    opens once (``with tf.name_scope("a"):`` in the module's code, under literal scopes only)."""
    parents = plan.parents
    arg = parents.get(id(literal))
    call = parents.get(id(arg))
    item = parents.get(id(call))
    block = parents.get(id(item))
    if not (
        isinstance(arg, cst.Arg)
        and isinstance(call, cst.Call)
        and len(call.args) == 1
        and plan.tf.is_tf(call.func, *SCOPES)
        and isinstance(item, cst.WithItem)
        and isinstance(block, cst.With)
    ):
        return None
    path: list[str] = []
    for node in ancestors(block, parents):
        if isinstance(node, cst.With):
            scope = node.items[0].item if len(node.items) == 1 else None
            given = argument(scope, 0, "name") if isinstance(scope, cst.Call) else None
            if not (
                isinstance(scope, cst.Call)
                and plan.tf.is_tf(scope.func, *SCOPES)
                and isinstance(given, cst.SimpleString)
                and isinstance(given.evaluated_value, str)
            ):
                return None
            path.insert(0, given.evaluated_value)
        elif not isinstance(node, (cst.IndentedBlock, cst.Module)):
            return None
    return block, tuple(path)


def suffix(plan: ProgramPlan, call: cst.Call, name: str) -> str:
    """``_1`` when the name was taken first in the same scope block: TF1 made the summary's name
    unique (``loss_1``), comparing names without case. Taken are the names given to ops
    (``name="loss"``), the names TF gives the ops of its table (``tf.reduce_mean`` makes
    ``Mean``: a summary ``"mean"`` after it is ``mean_1``; the ops computing the summarized
    value come first too), the scopes opened in the block and the summaries made there."""
    parents = plan.parents
    block = next((n for n in ancestors(call, parents) if isinstance(n, (cst.With, cst.FunctionDef))), plan.module)
    line = statement_holding(call, parents)
    nodes = list(own_nodes(block))
    before = nodes[: next((i for i, n in enumerate(nodes) if n is line), len(nodes))]
    # Blocks opened inside this one are other scopes: their names do not clash.
    inner = {id(node) for with_ in before if isinstance(with_, cst.With) for node in walk(with_.body, code_only=True)}
    # The block's own scope names its parent (``loss/loss``).
    inner |= {id(node) for item in getattr(block, "items", ()) for node in walk(item)}
    computed = [node for arg in call.args[1:] for node in walk(arg.value, code_only=True)]
    key = name.lower()
    taken = sum(1 for n in [*before, *computed] if id(n) not in inner and _takes(plan, n, key))
    return f"_{taken}" if taken else ""


#: The names TF1 gives the ops these make when given none (lowercased: TF1 compares names so).
DEFAULT_OP_NAMES = {
    "reduce_mean": "mean",
    "math.reduce_mean": "mean",
    "reduce_max": "max",
    "math.reduce_max": "max",
    "reduce_min": "min",
    "math.reduce_min": "min",
    "reduce_sum": "sum",
    "math.reduce_sum": "sum",
    "reduce_prod": "prod",
    "math.reduce_prod": "prod",
    "sqrt": "sqrt",
    "math.sqrt": "sqrt",
    "square": "square",
    "math.square": "square",
    "abs": "abs",
    "math.abs": "abs",
    "exp": "exp",
    "math.exp": "exp",
    "log": "log",
    "math.log": "log",
    "matmul": "matmul",
    "linalg.matmul": "matmul",
    "cast": "cast",
    "argmax": "argmax",
    "math.argmax": "argmax",
    "equal": "equal",
    "math.equal": "equal",
    "reshape": "reshape",
    "identity": "identity",
    "sigmoid": "sigmoid",
    "nn.sigmoid": "sigmoid",
    "math.sigmoid": "sigmoid",
    "tanh": "tanh",
    "nn.tanh": "tanh",
    "math.tanh": "tanh",
    "nn.relu": "relu",
    "nn.softmax": "softmax",
    "nn.l2_loss": "l2loss",
    "add_n": "addn",
    "math.add_n": "addn",
}
#: The names of the ops Python's operators make on tensors.
OPERATOR_NAMES = {cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "truediv"}
SCOPES = ("name_scope", "variable_scope")


def _takes(plan: ProgramPlan, node: cst.CSTNode, key: str) -> bool:
    """Whether ``node``, made in the block before a summary named ``key``, takes that name."""
    if isinstance(node, cst.Arg):
        return (
            node.keyword is not None
            and node.keyword.value == "name"
            and isinstance(node.value, cst.SimpleString)
            and str(node.value.evaluated_value).lower() == key
        )
    if isinstance(node, cst.BinaryOperation):
        return OPERATOR_NAMES.get(type(node.operator)) == key
    if not isinstance(node, cst.Call):
        return False
    symbol = plan.tf.tf_symbol(node.func)
    if symbol is None:
        return False
    if any(a.keyword is not None and a.keyword.value == "name" for a in node.args):
        return False
    if symbol.path in SCOPES or symbol.path in SUMMARY_OPS:
        given = argument(node, 0, "name") or argument(node, None, "name_or_scope")
        return (
            isinstance(given, cst.SimpleString)
            and isinstance(given.evaluated_value, str)
            and re.sub(r"[^-/\w.]", "_", given.evaluated_value).lower() == key
        )
    return DEFAULT_OP_NAMES.get(symbol.path) == key
