"""Api-renames' rewrites of the calls that become a call of another function: the peer's call
transformers (``tf.to_float`` and kin -> ``tf.cast``, summary recording, ``tf.name_scope``'s
TF1 arguments) and its own departures (``tf.div``, the resizes, TF1's initializers). Functions
of the file's ``RenamesFile`` and the call, each returning a ``CallRewrite`` (or None) or
raising a ``Decline``; they edit nothing."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tables import has_star_args, tables, tf2_initializer
from tfmodernize.analysis.tf1_api import SHARED_INITIALIZERS
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.api_renames.call_plan import (
    CallRewrite,
    RenamesFile,
    arg_value,
    fix_commas,
    keyword,
)
from tfmodernize.codemods.migrate.api_renames.evidence import division_operand
from tfmodernize.codemods.migrate.api_renames.name_scope import NotProven, tf2_name_argument
from tfmodernize.codemods.migrate.api_renames.policy import (
    CAST_DTYPES,
    DIVISIONS,
    RAW_RESIZE,
    RESIZE_ARGUMENTS,
    RESIZE_IMAGES_ARGUMENTS,
)
from tfmodernize.syntax import argument
from tfmodernize.tfsymbols import TFSymbol


def recording(file: RenamesFile, call: cst.Call, path: str, condition: str) -> CallRewrite:
    """``tf.contrib.summary.always_record_summaries()`` -> ``tf.summary.record_if(True)``."""
    if call.args:
        raise Decline(call, f"tf.{path} takes no arguments: migrate this call by hand")
    target = tables().renames[path]

    def build(updated: cst.Call) -> cst.Call:
        return updated.with_changes(
            func=file.tf_expr(target, spell_v2=file.stays_tf1), args=[cst.Arg(cst.Name(condition))]
        )

    return CallRewrite(f"tf.{path}() is tf.{target}({condition}) in TF2", build)


def cast(file: RenamesFile, call: cst.Call, path: str) -> CallRewrite:
    """``tf.to_float(x)`` -> ``tf.cast(x, tf.float32)``, and its siblings."""
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
            cst.Arg(value=arg_value(updated, value, call), keyword=value.keyword, equal=value.equal),
            cst.Arg(value=file.tf_expr(dtype)),
        ]
        if name is not None:
            args.append(keyword("name", arg_value(updated, name, call)))
        if value.keyword is not None:
            args[1] = keyword("dtype", args[1].value, args[1])
        return updated.with_changes(func=file.tf_expr("cast"), args=fix_commas(args, call.args))

    return CallRewrite(f"tf.{path}(x) is tf.cast(x, tf.{dtype}) in TF2", build)


def initializer(file: RenamesFile, call: cst.Call, symbol: TFSymbol) -> Optional[CallRewrite]:
    """TF1's ``tf.random_normal_initializer(...)`` and the other initializers TF 2.x has a
    class for (``tf1_api.SHARED_INITIALIZERS``) -> TF2's class, drawing the same numbers: a
    ``dtype`` TF2 takes where it is called dropped, TF1's defaults TF2 changed written out
    (``tables.tf2_initializer``). In TF1 code only: in TF2 code the name is TF2's."""
    if not (symbol.v1 or (file.written_tf1 and not symbol.v2)):
        return None
    path = symbol.path
    shared = SHARED_INITIALIZERS[path]
    reading = tf2_initializer(path, call, file.tf, dtype_given=_passed_to_maker(file, call))
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
            name = arg.keyword.value if arg.keyword is not None else shared.parameters[index]
            if name not in reading.dropped:
                order = -1 if arg.keyword is None else shared.parameters.index(name)
                placed.append((order, arg))
        for name, code in reading.written:
            default = keyword(name, cst.parse_expression(code))
            placed.append((shared.parameters.index(name), default))
        args = [arg for _, arg in sorted(placed, key=lambda item: item[0])]
        updated = updated.with_changes(args=fix_commas(args, updated.args))
        if renamed or symbol.v1 or file.stays_tf1:
            tf2 = file.tf_expr(shared.tf2, spell_v2=file.stays_tf1)
            updated = updated.with_changes(func=tf2)
        return updated

    return CallRewrite(f"tf.{path} is TF2's tf.{shared.tf2}, drawing the same (TF1's arguments)", build)


def _passed_to_maker(file: RenamesFile, call: cst.Call) -> bool:
    """Whether ``call`` is passed as an ``...initializer=`` argument of a TF function (a
    variable or layer maker, which calls it with the variable's dtype)."""
    parent_of = file.parent_of()
    arg = parent_of.get(id(call))
    name = arg.keyword if isinstance(arg, cst.Arg) else None
    if name is None or not name.value.endswith("initializer"):
        return False
    maker = parent_of.get(id(arg))
    return isinstance(maker, cst.Call) and file.tf.tf_symbol(maker.func) is not None


def name_scope(file: RenamesFile, call: cst.Call, symbol: TFSymbol) -> Optional[CallRewrite]:
    """TF1's ``tf.name_scope(name, default_name, values)`` -> TF2's ``tf.name_scope`` of the
    name TF1 used (``name_scope.tf2_name_argument``). Not proven, the call is spelled
    ``tf.compat.v1.name_scope`` (which TF 2.x has, with TF1's arguments) in a file headed
    for TF2, with a finding; elsewhere it is left, with a finding."""
    try:
        name = tf2_name_argument(call)
    except NotProven as reason:
        return _name_scope_kept(file, call, symbol, str(reason))
    if name is None:
        return None

    def build(updated: cst.Call) -> cst.Call:
        updated = updated.with_changes(args=[cst.Arg(tf2_name_argument(updated))])
        if symbol.v1 or file.stays_tf1:
            v2 = file.tf_expr("name_scope", spell_v2=file.stays_tf1)
            updated = updated.with_changes(func=v2)
        return updated

    return CallRewrite("tf.name_scope(name, default_name, values) is tf.name_scope(TF1's name) in TF2", build)


def _name_scope_kept(file: RenamesFile, call: cst.Call, symbol: TFSymbol, reason: str) -> CallRewrite:
    """``tf.name_scope(name, default_name, values)`` whose TF2 form is not proven: in a file
    that reads as TF2 once migrated, through a plain ``import tensorflow``, the call moves to
    ``tf.compat.v1.name_scope`` (TF1's arguments and scope, on TF 2.x), so that the file
    does not fail where it stands, with a finding; otherwise it raises Decline (a finding)."""
    left = f"tf.name_scope: TF2's takes one name, and {reason}: pass it the name by hand"
    func = call.func
    plain = (
        isinstance(func, cst.Attribute)
        and func.attr.value == "name_scope"
        and file.tf.qualify(func.value) == "tensorflow"
    )
    if symbol.v1 or file.stays_tf1 or not plain:
        raise Decline(call, left)

    def build(updated: cst.Call) -> cst.Call:
        owner = updated.func.value
        compat = cst.Attribute(value=owner, attr=cst.Name("compat"))
        v1 = cst.Attribute(value=compat, attr=cst.Name("v1"))
        return updated.with_changes(func=updated.func.with_changes(value=v1))

    return CallRewrite(
        "tf.name_scope(name, default_name, values) is tf.compat.v1.name_scope in TF 2.x",
        build,
        left=left + " (until then it is TF1's, from tf.compat.v1)",
    )


def division(file: RenamesFile, call: cst.Call, path: str) -> CallRewrite:
    """``tf.div(3, 4)`` -> ``tf.math.floordiv(3, 4)``; ``tf.div(3.0, 4)`` -> ``tf.math.divide``:
    TF1 chose by the dtype of the first operand (the second is converted to it)."""
    operand = division_operand(call, file.operand_kinds) if file.operand_kinds is not None else None
    if operand is None:
        raise Decline(
            call,
            f"tf.{path} divides as Python 2 did (floor division for integer tensors, true "
            "division for floating ones) and the operands' dtype is not written here: use "
            "tf.math.floordiv or tf.math.divide, whichever your dtype asks for",
        )
    target = DIVISIONS[path][operand]

    def build(updated: cst.Call) -> cst.Call:
        return updated.with_changes(func=file.tf_expr(target, spell_v2=file.stays_tf1))

    return CallRewrite(f"tf.{path} of {operand} operands is tf.{target} in TF2", build)


def resize(file: RenamesFile, call: cst.Call, path: str) -> CallRewrite:
    """``tf.image.resize_bilinear(x, s)`` -> ``tf.raw_ops.ResizeBilinear(images=x, size=s,
    align_corners=False, half_pixel_centers=False)``: the op TF1 ran, with its corner and
    centre settings (TF2's ``tf.image.resize`` samples at half-pixel centres). The same for
    ``tf.image.resize_images(..., method=NEAREST_NEIGHBOR)`` of a batch of images."""
    names = RESIZE_ARGUMENTS.get(path)
    op = RAW_RESIZE.get(path)
    if path == "image.resize_images":
        op, names = _resize_images_op(file, call)
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
        args = [keyword(k, arg_value(updated, given[k], call)) for k in ("images", "size")]
        for setting in settings:
            value = given.get(setting)
            args.append(keyword(setting, arg_value(updated, value, call) if value is not None else cst.Name("False")))
        if "name" in given:
            args.append(keyword("name", arg_value(updated, given["name"], call)))
        return updated.with_changes(func=file.tf_expr(f"raw_ops.{op}"), args=fix_commas(args, ()))

    return CallRewrite(
        f"tf.{path} is tf.raw_ops.{op} with TF1's sampling (TF2's tf.image.resize samples elsewhere)", build
    )


def _resize_images_op(file: RenamesFile, call: cst.Call) -> tuple[Optional[str], Optional[tuple[str, ...]]]:
    """The raw op ``tf.image.resize_images`` ran, for the nearest-neighbour method of a batch
    of images (4-D as the code says): other methods returned the images unchanged, in their
    own dtype, when the size was theirs, where the op returns float32. (None, None) otherwise."""
    method = argument(call, 2, "method")
    keep = argument(call, 4, "preserve_aspect_ratio")
    symbol = file.tf.tf_symbol(method) if method is not None else None
    nearest = (isinstance(method, cst.Integer) and method.value == "1") or (
        symbol is not None and symbol.path == "image.ResizeMethod.NEAREST_NEIGHBOR"
    )
    if not nearest or not (keep is None or (isinstance(keep, cst.Name) and keep.value == "False")):
        return None, None
    if file.operand_kinds is None or not file.operand_kinds.image_batch(call, 0, "images"):
        return None, None
    return "ResizeNearestNeighbor", RESIZE_IMAGES_ARGUMENTS
