"""Api-renames' rewrites of calls: keyword renames and deletions, argument reorders and the
peer's call transformers (casts, dropout's rate, summary recording, divisions), planned on each
TF call and applied to the call as rebuilt. A part of ``ApiRenames`` (a mixin)."""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from tfmodernize.analysis.tables import (
    has_star_args,
    is_stop_gradient,
    literal_text,
    positional_count,
    tables,
    tf2_initializer,
    v1_requirement,
)
from tfmodernize.analysis.tf1_api import SHARED_INITIALIZERS
from tfmodernize.codemods.migrate.api_renames.policy import (
    CAST_DTYPES,
    DIVISIONS,
    RAW_RESIZE,
    RESIZE,
    RESIZE_ARGUMENTS,
    RESIZE_IMAGES_ARGUMENTS,
    rename_for,
)
from tfmodernize.codemods.migrate.api_renames.evidence import division_operand
from tfmodernize.codemods.migrate.api_renames.name_scope import NotProven, tf2_name_argument
from tfmodernize.codemod import Decline
from tfmodernize.syntax import argument, parenthesized
from tfmodernize.tfsymbols import TFSymbol


def _keyword(name: str, value: cst.BaseExpression, like: Optional[cst.Arg] = None) -> cst.Arg:
    arg = cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    if like is not None:
        arg = arg.with_changes(comma=like.comma, whitespace_after_arg=like.whitespace_after_arg)
    return arg


class CallRewrites:
    """``ApiRenames``' planning of call rewrites."""

    def leave_Call(self, original: cst.Call) -> None:
        if id(original.func) in self._initialized_values and not original.args:
            if self.fix(original, "a TF 2.x variable is initialised when made: its initialized_value is read_value"):
                self.replace(
                    original.func,
                    lambda updated: updated.with_changes(attr=updated.attr.with_changes(value="read_value")),
                )
            return
        if id(original.func) in self._frozen:
            return
        symbol = self.tf.tf_symbol(original.func)
        if symbol is None:
            return
        plan = self._plan(original, symbol)
        if plan is None:
            return
        message, build = plan
        if not self.fix(original, message):
            return
        self.replace(original, build)
        self.lay_out(original)
        self._drop_import(original.func)  # goes only if nothing reads the name any more
        left = self._left_for_you.get(id(original))
        if left is not None:
            self.report(original, left)

    def _plan(self, call: cst.Call, symbol: TFSymbol) -> Optional[tuple[str, Callable[[cst.Call], cst.Call]]]:
        """``(message, build)`` for a call that needs rewriting, None if none; raises Decline."""
        t = tables()
        path = symbol.path
        transformer = t.transformers.get(path, {})
        kind = transformer.get("kind")
        if path in RESIZE:
            return self._resize_plan(call, path)
        if kind == "name_scope_transformer":
            return self._name_scope_plan(call, symbol)
        if kind == "cast_transformer":
            return self._cast_plan(call, path)
        if path in DIVISIONS:
            return self._division_plan(call, path)
        if kind == "add_summary_recording_cond_transformer":
            return self._recording_plan(call, path, transformer["cond"])
        if path in SHARED_INITIALIZERS:
            return self._initializer_plan(call, symbol)
        # Same name, other meaning in TF1 and TF2: only where the code is TF1 code.
        tf1 = symbol.v1 or (self._tf1_file and not symbol.v2)
        edits = []
        if has_star_args(call) and (
            path in t.reorders or path in t.keyword_renames or path in t.keyword_deletions or kind
        ):
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
            if old in passed and not self._deletable(entry, passed[old].value):
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
                name
                for name in moved
                if name in renames and order["positional"] and renames[name] not in order["keywords"]
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
        tf1_numbers = symbol.v1 or (self._written_tf1 and not symbol.v2)
        if kind == "dropout_transformer" and tf1_numbers:
            if positional_count(call) >= 2 or "keep_prob" in passed:
                edits.append(("dropout",))
        elif kind == "softmax_cross_entropy_with_logits_transformer" and tf1_numbers:
            labels = passed.get("labels")
            if labels is None:
                raise Decline(call, f"tf.{path} without labels=: cannot tell which argument to stop gradients on")
            if not is_stop_gradient(labels.value, self.tf):
                edits.append(("stop_gradient",))
        elif kind == "rename_if_arg_found_transformer":
            arg = next(
                (a for a in call.args if a.keyword is not None and a.keyword.value == transformer["arg_name"]), None
            )
            if arg is not None:
                if not self._arg_ok(transformer["ok"], arg.value):
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
            reason = v1_requirement(path, call, self.tf)
            if reason is not None and t.rename_for(path) is None:
                raise Decline(call, f"tf.{path}: {reason}; tf_upgrade_v2 handles it with its {kind}: migrate by hand")
        if not edits:
            return None
        target = self._target(path)

        def build(updated: cst.Call) -> cst.Call:
            for edit in edits:
                updated = self._apply(edit, updated)
            if (symbol.v1 or self._stays_tf1) and target is not None:
                # v2 arguments in code read as v1: name the v2 function explicitly.
                updated = updated.with_changes(func=self.tf_expr(target, spell_v2=self._stays_tf1))
            return updated

        names = ", ".join(sorted({e[0] for e in edits}))
        return f"tf.{path}: TF2 arguments ({names})", build

    def _target(self, path: str) -> Optional[str]:
        renamed = rename_for(path)
        if renamed is None:
            return path
        return None if renamed[1].startswith("compat.v1.") else renamed[1]

    @staticmethod
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

    @staticmethod
    def _arg_ok(ok: str, value: cst.BaseExpression) -> bool:
        if ok == "str":
            return isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
        return isinstance(value, cst.Name) and value.value == ok

    def _apply(self, edit: tuple, call: cst.Call) -> cst.Call:
        kind = edit[0]
        if kind == "reorder":
            order = edit[1]
            args, index = [], 0
            for arg in call.args:
                if arg.keyword is None and not arg.star:
                    if index >= order["positional"]:
                        arg = _keyword(order["keywords"][index - order["positional"]], arg.value, arg)
                    index += 1
                args.append(arg)
            return call.with_changes(args=_fix_commas(args, call.args))
        if kind == "keywords":
            renames, deletions = edit[1], edit[2]
            args = []
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in deletions:
                    continue
                if arg.keyword is not None and arg.keyword.value in renames:
                    arg = arg.with_changes(keyword=cst.Name(renames[arg.keyword.value]))
                args.append(arg)
            return call.with_changes(args=_fix_commas(args, call.args))
        if kind == "drop":
            args = [a for a in call.args if a.keyword is None or a.keyword.value != edit[1]]
            return call.with_changes(args=_fix_commas(args, call.args))
        if kind == "stop_gradient":
            args = [
                a.with_changes(value=cst.Call(func=self.tf_expr("stop_gradient"), args=[cst.Arg(a.value)]))
                if a.keyword is not None and a.keyword.value == "labels"
                else a
                for a in call.args
            ]
            return call.with_changes(args=args)
        if kind == "dropout":
            return self._dropout(call)
        if kind == "add":
            added = _keyword(edit[1], cst.parse_expression(edit[2]))
            return call.with_changes(args=_fix_commas([*call.args, added], call.args))
        raise AssertionError(kind)

    def _dropout(self, call: cst.Call) -> cst.Call:
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
                    args.append(_keyword(later[index - 2], arg.value, arg))
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
        args.insert(position, _keyword("rate", value, rate))
        return call.with_changes(args=_fix_commas(args, call.args))

    def _recording_plan(self, call: cst.Call, path: str, condition: str) -> tuple[str, Callable[[cst.Call], cst.Call]]:
        """``tf.contrib.summary.always_record_summaries()`` -> ``tf.summary.record_if(True)``."""
        if call.args:
            raise Decline(call, f"tf.{path} takes no arguments: migrate this call by hand")
        target = tables().renames[path]

        def build(updated: cst.Call) -> cst.Call:
            return updated.with_changes(
                func=self.tf_expr(target, spell_v2=self._stays_tf1), args=[cst.Arg(cst.Name(condition))]
            )

        return f"tf.{path}() is tf.{target}({condition}) in TF2", build

    def _cast_plan(self, call: cst.Call, path: str) -> tuple[str, Callable[[cst.Call], cst.Call]]:
        dtype = path[len("to_") :]
        dtype = CAST_DTYPES.get(dtype, dtype)
        positional = [a for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        if has_star_args(call) or len(positional) > 2 or set(keywords) - {"x", "name"}:
            raise Decline(call, f"tf.{path}: unusual arguments; write tf.cast(x, tf.{dtype}) by hand")
        value = positional[0] if positional else keywords.get("x")
        if value is None:
            raise Decline(call, f"tf.{path} without an argument")
        name = positional[1] if len(positional) > 1 else keywords.get("name")

        def build(updated: cst.Call) -> cst.Call:
            args = [
                cst.Arg(value=_arg_value(updated, value, call), keyword=value.keyword, equal=value.equal),
                cst.Arg(value=self.tf_expr(dtype)),
            ]
            if name is not None:
                args.append(_keyword("name", _arg_value(updated, name, call)))
            if value.keyword is not None:
                args[1] = _keyword("dtype", args[1].value, args[1])
            return updated.with_changes(func=self.tf_expr("cast"), args=_fix_commas(args, call.args))

        return f"tf.{path}(x) is tf.cast(x, tf.{dtype}) in TF2", build

    def _initializer_plan(
        self, call: cst.Call, symbol: TFSymbol
    ) -> Optional[tuple[str, Callable[[cst.Call], cst.Call]]]:
        """TF1's ``tf.random_normal_initializer(...)`` and the other initializers TF 2.x has a
        class for (``tf1_api.SHARED_INITIALIZERS``) -> TF2's class, drawing the same numbers: a
        ``dtype`` TF2 takes where it is called dropped, TF1's defaults TF2 changed written out
        (``tables.tf2_initializer``). In TF1 code only: in TF2 code the name is TF2's."""
        if not (symbol.v1 or (self._written_tf1 and not symbol.v2)):
            return None
        path = symbol.path
        shared = SHARED_INITIALIZERS[path]
        reading = tf2_initializer(path, call, self.tf, dtype_given=self._passed_to_maker(call))
        if reading.differs is not None:
            raise Decline(call, reading.differs)
        renamed = shared.tf2 != path
        if not (reading.dropped or reading.written or renamed):
            return None  # TF2's class, as written

        def build(updated: cst.Call) -> cst.Call:
            # TF1's defaults TF2 changed go in their parameter's place among the keywords (the
            # arguments dropped are TF1's last: no positional argument follows one).
            placed = []
            for index, arg in enumerate(updated.args):
                keyword = arg.keyword.value if arg.keyword is not None else shared.parameters[index]
                if keyword not in reading.dropped:
                    order = -1 if arg.keyword is None else shared.parameters.index(keyword)
                    placed.append((order, arg))
            for keyword, code in reading.written:
                default = _keyword(keyword, cst.parse_expression(code))
                placed.append((shared.parameters.index(keyword), default))
            args = [arg for _, arg in sorted(placed, key=lambda item: item[0])]
            updated = updated.with_changes(args=_fix_commas(args, updated.args))
            if renamed or symbol.v1 or self._stays_tf1:
                tf2 = self.tf_expr(shared.tf2, spell_v2=self._stays_tf1)
                updated = updated.with_changes(func=tf2)
            return updated

        return f"tf.{path} is TF2's tf.{shared.tf2}, drawing the same (TF1's arguments)", build

    def _passed_to_maker(self, call: cst.Call) -> bool:
        """Whether ``call`` is passed as an ``...initializer=`` argument of a TF function (a
        variable or layer maker, which calls it with the variable's dtype)."""
        parent_of = self.state.parents(self._module)
        arg = parent_of.get(id(call))
        keyword = arg.keyword if isinstance(arg, cst.Arg) else None
        if keyword is None or not keyword.value.endswith("initializer"):
            return False
        maker = parent_of.get(id(arg))
        return isinstance(maker, cst.Call) and self.tf.tf_symbol(maker.func) is not None

    def _name_scope_plan(
        self, call: cst.Call, symbol: TFSymbol
    ) -> Optional[tuple[str, Callable[[cst.Call], cst.Call]]]:
        """TF1's ``tf.name_scope(name, default_name, values)`` -> TF2's ``tf.name_scope`` of the
        name TF1 used (``name_scope.tf2_name_argument``). Not proven, the call is spelled
        ``tf.compat.v1.name_scope`` (which TF 2.x has, with TF1's arguments) in a file headed
        for TF2, with a finding; elsewhere it is left, with a finding."""
        try:
            name = tf2_name_argument(call)
        except NotProven as reason:
            return self._name_scope_kept(call, symbol, str(reason))
        if name is None:
            return None

        def build(updated: cst.Call) -> cst.Call:
            updated = updated.with_changes(args=[cst.Arg(tf2_name_argument(updated))])
            if symbol.v1 or self._stays_tf1:
                v2 = self.tf_expr("name_scope", spell_v2=self._stays_tf1)
                updated = updated.with_changes(func=v2)
            return updated

        message = "tf.name_scope(name, default_name, values) is tf.name_scope(TF1's name) in TF2"
        return message, build

    def _name_scope_kept(
        self, call: cst.Call, symbol: TFSymbol, reason: str
    ) -> tuple[str, Callable[[cst.Call], cst.Call]]:
        """``tf.name_scope(name, default_name, values)`` whose TF2 form is not proven: in a file
        that reads as TF2 once migrated, through a plain ``import tensorflow``, the call moves to
        ``tf.compat.v1.name_scope`` (TF1's arguments and scope, on TF 2.x), so that the file
        does not fail where it stands; otherwise it raises Decline (a finding)."""
        left = f"tf.name_scope: TF2's takes one name, and {reason}: pass it the name by hand"
        func = call.func
        plain = (
            isinstance(func, cst.Attribute)
            and func.attr.value == "name_scope"
            and self.tf.qualify(func.value) == "tensorflow"
        )
        if symbol.v1 or self._stays_tf1 or not plain:
            raise Decline(call, left)
        self._left_for_you[id(call)] = left + " (until then it is TF1's, from tf.compat.v1)"

        def build(updated: cst.Call) -> cst.Call:
            owner = updated.func.value
            compat = cst.Attribute(value=owner, attr=cst.Name("compat"))
            v1 = cst.Attribute(value=compat, attr=cst.Name("v1"))
            return updated.with_changes(func=updated.func.with_changes(value=v1))

        message = "tf.name_scope(name, default_name, values) is tf.compat.v1.name_scope in TF 2.x"
        return message, build

    def _division_plan(self, call: cst.Call, path: str) -> tuple[str, Callable[[cst.Call], cst.Call]]:
        """``tf.div(3, 4)`` -> ``tf.math.floordiv(3, 4)``; ``tf.div(3.0, 4)`` -> ``tf.math.divide``:
        TF1 chose by the dtype of the first operand (the second is converted to it)."""
        operand = division_operand(call, self._operand_kinds) if self._operand_kinds is not None else None
        if operand is None:
            raise Decline(
                call,
                f"tf.{path} divides as Python 2 did (floor division for integer tensors, true "
                "division for floating ones) and the operands' dtype is not written here: use "
                "tf.math.floordiv or tf.math.divide, whichever your dtype asks for",
            )
        target = DIVISIONS[path][operand]

        def build(updated: cst.Call) -> cst.Call:
            return updated.with_changes(func=self.tf_expr(target, spell_v2=self._stays_tf1))

        return f"tf.{path} of {operand} operands is tf.{target} in TF2", build

    def _resize_plan(self, call: cst.Call, path: str) -> tuple[str, Callable[[cst.Call], cst.Call]]:
        """``tf.image.resize_bilinear(x, s)`` -> ``tf.raw_ops.ResizeBilinear(images=x, size=s,
        align_corners=False, half_pixel_centers=False)``: the op TF1 ran, with its corner and
        centre settings (TF2's ``tf.image.resize`` samples at half-pixel centres). The same for
        ``tf.image.resize_images(..., method=NEAREST_NEIGHBOR)`` of a batch of images."""
        names = RESIZE_ARGUMENTS.get(path)
        op = RAW_RESIZE.get(path)
        if path == "image.resize_images":
            op, names = self._resize_images_op(call)
        if op is None or names is None or has_star_args(call) or len(call.args) > len(names):
            raise Decline(
                call,
                f"tf.{path}: TF2's tf.image.resize samples at half-pixel centres and gives other "
                "numbers; resize with tf.raw_ops.ResizeBilinear (or the op of your method) with "
                "align_corners and half_pixel_centers=False, which TF1 ran, or with the new semantics by hand",
            )
        given = {a.keyword.value if a.keyword is not None else names[i]: a for i, a in enumerate(call.args)}
        if set(given) - set(names) or not {"images", "size"} <= set(given):
            raise Decline(call, f"tf.{path}: unusual arguments; resize with tf.raw_ops.{op} by hand")
        settings = ("align_corners",) if op == "ResizeArea" else ("align_corners", "half_pixel_centers")

        def build(updated: cst.Call) -> cst.Call:
            args = [_keyword(k, _arg_value(updated, given[k], call)) for k in ("images", "size")]
            for setting in settings:
                value = given.get(setting)
                args.append(
                    _keyword(setting, _arg_value(updated, value, call) if value is not None else cst.Name("False"))
                )
            if "name" in given:
                args.append(_keyword("name", _arg_value(updated, given["name"], call)))
            return updated.with_changes(func=self.tf_expr(f"raw_ops.{op}"), args=_fix_commas(args, ()))

        return f"tf.{path} is tf.raw_ops.{op} with TF1's sampling (TF2's tf.image.resize samples elsewhere)", build

    def _resize_images_op(self, call: cst.Call) -> tuple[Optional[str], Optional[tuple[str, ...]]]:
        """The raw op ``tf.image.resize_images`` ran, for the nearest-neighbour method of a batch
        of images (4-D as the code says): other methods returned the images unchanged, in their
        own dtype, when the size was theirs, where the op returns float32. (None, None) otherwise."""
        method = argument(call, 2, "method")
        keep = argument(call, 4, "preserve_aspect_ratio")
        symbol = self.tf.tf_symbol(method) if method is not None else None
        nearest = (isinstance(method, cst.Integer) and method.value == "1") or (
            symbol is not None and symbol.path == "image.ResizeMethod.NEAREST_NEIGHBOR"
        )
        if not nearest or not (keep is None or (isinstance(keep, cst.Name) and keep.value == "False")):
            return None, None
        if self._operand_kinds is None or not self._operand_kinds.image_batch(call, 0, "images"):
            return None, None
        return "ResizeNearestNeighbor", RESIZE_IMAGES_ARGUMENTS


def _arg_value(updated: cst.Call, original_arg: cst.Arg, original: cst.Call) -> cst.BaseExpression:
    """The (already transformed) value of ``original_arg`` in ``updated``."""
    return updated.args[list(original.args).index(original_arg)].value


def _fix_commas(args: list[cst.Arg], before: tuple[cst.Arg, ...]) -> list[cst.Arg]:
    """Separate ``args`` with commas, keeping the call's trailing-comma style."""
    fixed = []
    for index, arg in enumerate(args):
        if index == len(args) - 1:
            arg = arg.with_changes(comma=before[-1].comma if before else cst.MaybeSentinel.DEFAULT)
        elif not isinstance(arg.comma, cst.Comma):
            arg = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        fixed.append(arg)
    return fixed
