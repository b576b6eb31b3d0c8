"""``op = ema.apply([w])``: the averages' variables made once where TF1 built them, by the same
call made eagerly there; the functions running ``op`` update them."""

from __future__ import annotations

import libcst as cst

from tfmodernize.tfsymbols import TFNames

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.statement_reads import tf_calls
from tfmodernize.codemods.migrate.session_to_function.plan import UnitPlan
from tfmodernize.syntax import source


#: TF1 calls listing (or saving) every variable of the program: the averages ``ema.apply``
#: makes are among them, and no inventory of the migrated program lists them.
VARIABLE_LISTS = (
    "global_variables",
    "all_variables",
    "moving_average_variables",
    "get_collection",
    "get_collection_ref",
    "train.Saver",
    "saved_model.simple_save",
    "saved_model.builder.SavedModelBuilder",
    "saved_model.Builder",
)

#: The comment above the call making the averages once.
AVERAGES_MADE = "# Creates the averages; this first update leaves them at the variables' values."


def plan_averages(tf_names: TFNames, module: cst.Module, plan: UnitPlan) -> None:
    """``op = ema.apply([w])`` (``Statement.averages``): the averages are made once where
    TF1 built them, by the same call made eagerly there; the functions running ``op`` update
    them."""
    averaging = [call for stmt in plan.unit.statements for call in stmt.averages]
    if not averaging:
        return
    calls, methods = tf_calls(module, tf_names)
    listing = next((call for path, call in calls if path in VARIABLE_LISTS), None)
    restoring = (call for method, call in methods if method == "variables_to_restore")
    listing = listing or next(restoring, None)
    if listing is not None:
        raise Decline(
            averaging[0],
            f"`{source(averaging[0].func)}` creates the averages' variables, and "
            f"`{source(listing.func)}` lists or saves the program's variables: the lists the "
            "migration writes would leave the averages out; not migrated",
        )
    for stmt in plan.unit.statements:
        for position, call in enumerate(stmt.averages):
            lines = [cst.EmptyLine(comment=cst.Comment(AVERAGES_MADE))] if position == 0 else []
            made = cst.SimpleStatementLine([cst.Expr(call.deep_clone())], leading_lines=lines)
            plan.prefix.setdefault(stmt.index, []).append(made)
            message = f"`{source(call.func)}` makes the averages once, where TF1 built it"
            plan.fixes.append((call, message))
