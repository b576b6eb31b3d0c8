"""Api-renames' rewrites of calls: keyword renames and deletions, argument reorders and the
peer's call transformers (casts, dropout's rate, summary recording, divisions), planned on each
TF call. ``plan_call`` is a function of the file's ``RenamesFile`` and the call: it returns a
``CallRewrite`` (the fix message and the call as rebuilt) that the codemod applies, or None, or
raises a ``Decline``; the calls that become another function's are ``transformers``'."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tables import (
    has_star_args,
    is_stop_gradient,
    literal_text,
    positional_count,
    tables,
    v1_requirement,
)
from tfmodernize.analysis.tf1_api import SHARED_INITIALIZERS
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.api_renames import transformers
from tfmodernize.codemods.migrate.api_renames.call_plan import CallRewrite, RenamesFile, fix_commas, keyword
from tfmodernize.codemods.migrate.api_renames.policy import DIVISIONS, RESIZE, rename_for
from tfmodernize.syntax import parenthesized
from tfmodernize.tfsymbols import TFSymbol


def plan_call(file: RenamesFile, call: cst.Call, symbol: TFSymbol) -> Optional[CallRewrite]:
    """The rewrite of a TF call that needs rewriting, None if none; raises Decline."""
    t = tables()
    path = symbol.path
    transformer = t.transformers.get(path, {})
    kind = transformer.get("kind")
    if path in RESIZE:
        return transformers.resize(file, call, path)
    if kind == "name_scope_transformer":
        return transformers.name_scope(file, call, symbol)
    if kind == "cast_transformer":
        return transformers.cast(file, call, path)
    if path in DIVISIONS:
        return transformers.division(file, call, path)
    if kind == "add_summary_recording_cond_transformer":
        return transformers.recording(file, call, path, transformer["cond"])
    if path in SHARED_INITIALIZERS:
        return transformers.initializer(file, call, symbol)
    # Same name, other meaning in TF1 and TF2: only where the code is TF1 code.
    tf1 = symbol.v1 or (file.tf1_file and not symbol.v2)
    edits = []
    if has_star_args(call) and (path in t.reorders or path in t.keyword_renames or path in t.keyword_deletions or kind):
        raise Decline(
            call,
            f"tf.{path} is called with *args/**kwargs whose names or order TF2 changed: migrate this call by hand",
        )
    order = t.reorders.get(path) if tf1 or tables().tf1_only(path) else None
    if order is not None and positional_count(call) > order["positional"]:
        if positional_count(call) > order["positional"] + len(order["keywords"]):
            raise Decline(call, f"tf.{path} is called with more positional arguments than it takes")
        edits.append(("reorder", order))
    renames = t.keyword_renames.get(path, {})
    deletions = t.keyword_deletions.get(path, {})
    passed = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
    if order is not None and edits:
        start = order["positional"]
        for index, arg in enumerate(a for a in call.args if a.keyword is None):
            if index >= start:
                passed[order["keywords"][index - start]] = arg
    for old, entry in deletions.items():
        if old in passed and not _deletable(entry, passed[old].value):
            message = entry.get("message") or f"TF2 has no `{old}` argument"
            raise Decline(
                call,
                f"tf.{path}({old}=...): {message.replace('<function name>', f'tf.{path}')} "
                "This value is not the one TF2 behaves as: migrate by hand",
            )
    for old, new in renames.items():
        if old in passed and new in passed:
            raise Decline(call, f"tf.{path} is passed both {old}= and {new}=")
    if order is not None and edits:
        moved = order["keywords"][: positional_count(call) - order["positional"]]
        clash = [
            name for name in moved if name in renames and order["positional"] and renames[name] not in order["keywords"]
        ]
        if clash:
            # ``reduce_sum(x, None, False, 'n', 1)``: the TF2 name of the 5th argument is the
            # 2nd parameter, which the call already fills positionally.
            raise Decline(
                call,
                f"tf.{path}: positional {clash[0]} would become {renames[clash[0]]}=, which an "
                "earlier positional argument already fills: pass it by keyword",
            )
    if set(passed) & (set(renames) | set(deletions)):
        edits.append(("keywords", renames, deletions))
    # Numbers change with the meaning: TF1's wherever the file was written as TF1 code.
    tf1_numbers = symbol.v1 or (file.written_tf1 and not symbol.v2)
    if kind == "dropout_transformer" and tf1_numbers:
        if positional_count(call) >= 2 or "keep_prob" in passed:
            edits.append(("dropout",))
    elif kind == "softmax_cross_entropy_with_logits_transformer" and tf1_numbers:
        labels = passed.get("labels")
        if labels is None:
            raise Decline(call, f"tf.{path} without labels=: cannot tell which argument to stop gradients on")
        if not is_stop_gradient(labels.value, file.tf):
            edits.append(("stop_gradient",))
    elif kind == "rename_if_arg_found_transformer":
        arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == transformer["arg_name"]), None)
        if arg is not None:
            if not _arg_ok(transformer["ok"], arg.value):
                raise Decline(call, transformer["message"].replace("converted to compat.v1", "left unchanged"))
            if transformer["remove_if_ok"]:
                edits.append(("drop", transformer["arg_name"]))
    elif kind == "add_argument_transformer" and not path.startswith("keras."):
        # tf.nn.dilation2d/erosion2d: TF2 requires data_format; TF1 only knew NHWC.
        if positional_count(call) > 3:
            raise Decline(
                call,
                f"tf.{path}: positional arguments after strides changed order in TF2 "
                "(rates/dilations and padding swapped): pass them by keyword",
            )
        if transformer["arg_name"] not in passed:
            edits.append(("add", transformer["arg_name"], transformer["value"]))
    elif (
        kind not in (None, "dropout_transformer", "softmax_cross_entropy_with_logits_transformer")
        and not symbol.v1
        and not path.startswith("contrib.")
    ):
        reason = v1_requirement(path, call, file.tf)
        if reason is not None and t.rename_for(path) is None:
            raise Decline(call, f"tf.{path}: {reason}; tf_upgrade_v2 handles it with its {kind}: migrate by hand")
    if not edits:
        return None
    target = _target(path)

    def build(updated: cst.Call) -> cst.Call:
        for edit in edits:
            updated = _apply(file, edit, updated)
        if (symbol.v1 or file.stays_tf1) and target is not None:
            # v2 arguments in code read as v1: name the v2 function explicitly.
            updated = updated.with_changes(func=file.tf_expr(target, spell_v2=file.stays_tf1))
        return updated

    names = ", ".join(sorted({e[0] for e in edits}))
    return CallRewrite(f"tf.{path}: TF2 arguments ({names})", build)


def _target(path: str) -> Optional[str]:
    renamed = rename_for(path)
    if renamed is None:
        return path
    return None if renamed[1].startswith("compat.v1.") else renamed[1]


def _deletable(entry: dict, value: cst.BaseExpression) -> bool:
    text = literal_text(value)
    if text is None:
        return False
    behaves_as = entry.get("behaves_as")
    safe = set()
    if behaves_as is not None:
        safe.add(behaves_as)
    if "v1_default" in entry and (behaves_as is None or entry.get("level") == "info"):
        safe.add(entry["v1_default"])
    if entry.get("level") in ("warning", "error") and behaves_as is None:
        return False
    return text in safe


def _arg_ok(ok: str, value: cst.BaseExpression) -> bool:
    if ok == "str":
        return isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
    return isinstance(value, cst.Name) and value.value == ok


def _apply(file: RenamesFile, edit: tuple, call: cst.Call) -> cst.Call:
    kind = edit[0]
    if kind == "reorder":
        order = edit[1]
        args, index = [], 0
        for arg in call.args:
            if arg.keyword is None and not arg.star:
                if index >= order["positional"]:
                    arg = keyword(order["keywords"][index - order["positional"]], arg.value, arg)
                index += 1
            args.append(arg)
        return call.with_changes(args=fix_commas(args, call.args))
    if kind == "keywords":
        renames, deletions = edit[1], edit[2]
        args = []
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in deletions:
                continue
            if arg.keyword is not None and arg.keyword.value in renames:
                arg = arg.with_changes(keyword=cst.Name(renames[arg.keyword.value]))
            args.append(arg)
        return call.with_changes(args=fix_commas(args, call.args))
    if kind == "drop":
        args = [a for a in call.args if a.keyword is None or a.keyword.value != edit[1]]
        return call.with_changes(args=fix_commas(args, call.args))
    if kind == "stop_gradient":
        args = [
            a.with_changes(value=cst.Call(func=file.tf_expr("stop_gradient"), args=[cst.Arg(a.value)]))
            if a.keyword is not None and a.keyword.value == "labels"
            else a
            for a in call.args
        ]
        return call.with_changes(args=args)
    if kind == "dropout":
        return _dropout(call)
    if kind == "add":
        added = keyword(edit[1], cst.parse_expression(edit[2]))
        return call.with_changes(args=fix_commas([*call.args, added], call.args))
    raise AssertionError(kind)


def _dropout(call: cst.Call) -> cst.Call:
    """``keep_prob`` (2nd positional or keyword) -> ``rate=1 - keep_prob``; later positionals
    (noise_shape, seed, name: same order in TF2) become keywords so they can follow it."""
    later = ("noise_shape", "seed", "name")
    args, index = [], 0
    rate = None
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            if index == 1:
                rate = arg
            elif index >= 2:
                args.append(keyword(later[index - 2], arg.value, arg))
            else:
                args.append(arg)
            index += 1
        elif arg.keyword is not None and arg.keyword.value == "keep_prob":
            rate = arg
        else:
            args.append(arg)
    assert rate is not None
    value = cst.BinaryOperation(left=cst.Integer("1"), operator=cst.Subtract(), right=parenthesized(rate.value))
    position = 1 if rate.keyword is None else len(args)
    args.insert(position, keyword("rate", value, rate))
    return call.with_changes(args=fix_commas(args, call.args))
