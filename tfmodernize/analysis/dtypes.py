"""What the code says of a tensor expression: the kind of number it holds (``int`` or
``float``: its dtype, written, implied by the op making it or kept by the ops it goes through),
and whether it is a batch of images (a 4-D tensor). Api-renames reads ``tf.div``'s operands and
``tf.image.resize_images``'s input with it. The tables say which ops keep, imply or take a
dtype; list-append-in-function reads with them the dtype its TensorArray holds, and with
``number_dtype`` what ``tf.constant`` makes of a Python number."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from tfmodernize.analysis.tables import has_star_args
from tfmodernize.names import names_bound_here
from tfmodernize.syntax import argument, name_assignment, source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import children, walk

#: TF ops whose result has their first operand's dtype (a literal operand takes the other's).
SAME_DTYPE = frozenset(
    {
        *("add", "subtract", "multiply", "matmul", "maximum", "minimum", "pow", "mod", "floormod"),
        *("exp", "log", "sqrt", "square", "abs", "negative", "sigmoid", "tanh", "identity"),
        *("reduce_mean", "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "transpose", "reshape"),
        *("nn.relu", "nn.sigmoid", "nn.tanh", "nn.softmax", "nn.bias_add", "stop_gradient"),
        *("math.add", "math.subtract", "math.multiply", "math.exp", "math.log", "math.sqrt", "math.square"),
        *("math.abs", "math.negative", "math.sigmoid", "math.tanh", "math.reduce_mean", "math.reduce_sum"),
        *("math.maximum", "math.minimum", "math.pow", "math.floormod", "linalg.matmul", "linalg.transpose"),
        *("squeeze", "expand_dims", "clip_by_value", "gather", "tile", "linspace"),
        *("math.reduce_max", "math.reduce_min", "math.reduce_prod"),
    }
)
#: TF ops whose output is 4-D in TF1 (it required 4-D input, or made it): a batch of images.
RANK4_MAKERS = frozenset(
    {
        *("layers.conv2d", "layers.max_pooling2d", "layers.average_pooling2d", "layers.conv2d_transpose"),
        *("nn.conv2d", "nn.max_pool", "nn.avg_pool", "nn.conv2d_transpose", "nn.depthwise_conv2d"),
        *("image.resize_nearest_neighbor", "image.resize_bilinear", "image.resize_bicubic", "image.resize_area"),
    }
)
#: TF ops whose output has their input's rank: path -> the input's keyword.
SAME_RANK = {
    **dict.fromkeys(("nn.relu", "nn.relu6", "nn.elu"), "features"),
    **dict.fromkeys(("nn.sigmoid", "nn.tanh", "sigmoid", "tanh"), "x"),
    **{"identity": "input", "nn.bias_add": "value", "nn.dropout": "x", "image.resize_images": "images"},
    **{"layers.batch_normalization": "inputs", "layers.dropout": "inputs"},
}
#: TF ops that make float32 tensors unless given a dtype: path -> the dtype's position.
FLOAT_MAKERS = {
    **dict.fromkeys(("random_normal", "truncated_normal", "random_uniform"), 3),
    **dict.fromkeys(("random.normal", "random.truncated_normal", "random.uniform"), 3),
    **dict.fromkeys(("zeros", "ones"), 1),
}
#: Where a TF op that makes a tensor of a given dtype takes the dtype: path -> position.
DTYPE_ARGUMENT = {
    **{"cast": 1, "placeholder": 0, "constant": 1, "Variable": None, "convert_to_tensor": 1},
    **FLOAT_MAKERS,
}

#: TF1's cast shorthands (``tf.to_float(x)`` is ``tf.cast(x, tf.float32)``): path -> the kind made.
CAST_SHORTHANDS = {
    **dict.fromkeys(("to_float", "to_double", "to_bfloat16"), "float"),
    **dict.fromkeys(("to_int32", "to_int64"), "int"),
}


class OperandKinds:
    """What kind of number (``int`` or ``float``) an expression of the file holds, where the
    code says: Python numbers, and tensors whose dtype is written (``tf.placeholder(tf.float32)``,
    ``tf.cast(x, tf.float32)``, ``dtype=``), implied (``tf.random_normal`` makes float32,
    ``tf.constant(2)`` int32) or kept by the ops they go through (``tf.matmul``, ``tf.add``).
    A name read by module-level code holds the value of the last module-level ``name = value``
    before it; one read inside a function, the value every binding of the name in the file
    gives it.

    ``moved``: the calls (by the text of what they call) that an earlier codemod may have moved
    and whose operands are asked about: they are read by their text in ``written``, the file as
    written."""

    def __init__(
        self,
        module: cst.Module,
        names: TFNames,
        written: Optional[cst.Module] = None,
        moved: Optional[re.Pattern[str]] = None,
    ) -> None:
        self._names = names
        #: The file as written, when an earlier codemod rewrote it: a ``tf.div`` call it moved
        #: (into a function, say) is read where the program had it, whose values it computes.
        self._written = (
            None
            if written is None or written is module
            else OperandKinds(written, TFNames.for_module(written), moved=moved)
        )
        self._body = list(module.body)
        #: Module-level statement index and whether inside a def, class or lambda, by call id.
        self._where: dict[int, tuple[int, bool]] = {}
        #: The calls ``moved`` names, by their source text.
        self.calls: dict[str, list[cst.Call]] = {}
        self._bound: list[set[str]] = []  # names bound anywhere in each module-level statement
        self._everywhere: dict[str, list[Optional[cst.BaseExpression]]] = {}
        for index, statement in enumerate(self._body):
            self._bound.append(set())
            stack: list[tuple[cst.CSTNode, bool]] = [(statement, False)]
            values: dict[int, cst.BaseExpression] = {}  # the value of each ``name = value`` target
            while stack:
                node, nested = stack.pop()
                if type(node) is cst.Call:
                    self._where[id(node)] = (index, nested)
                    if moved is not None and moved.search(source(node.func)):
                        self.calls.setdefault(_text_key(node), []).append(node)
                if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
                    values[id(node.targets[0])] = node.value
                bound = names_bound_here(node) | ({node.name.value} if isinstance(node, cst.Param) else set())
                if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                    bound.add(node.name.value)
                for name in bound:
                    self._everywhere.setdefault(name, []).append(values.get(id(node)))
                self._bound[index] |= bound
                inner = nested or isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))
                stack.extend((child, inner) for child in children(node, code_only=True))

    def operand(self, call: cst.Call, position: int, keyword: str) -> Optional[str]:
        """The kind of ``call``'s argument at ``position`` (or passed as ``keyword``)."""
        if self._written is not None:
            # An earlier codemod that moved the call wrote it anew: it stands for the calls of
            # the file as written with its text, and computes what they computed.
            kinds = {self._written.operand(c, position, keyword) for c in self._written.calls.get(_text_key(call), ())}
            if len(kinds) == 1:
                return kinds.pop()
        value = argument(call, position, keyword)
        return None if value is None else self._kind(value, self._where.get(id(call)), 0)

    def _kind(
        self,
        expr: cst.BaseExpression,
        at: Optional[tuple[int, bool]],
        depth: int,
    ) -> Optional[str]:
        literal = literal_kind(expr)
        if literal is not None or depth > 20:
            return literal
        if isinstance(expr, cst.Name):
            return self._name_kind(expr.value, at, depth)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self._kind(expr.expression, at, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.operator, cst.Divide):  # TF divides integer tensors into floats
                sides = [self._kind(side, at, depth + 1) for side in (expr.left, expr.right)]
                return "float" if None not in sides else None
            if isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply)):
                return self._joint(self._kind, [expr.left, expr.right], at, depth)
            return None
        if not isinstance(expr, cst.Call) or has_star_args(expr):
            return None
        symbol = self._names.tf_symbol(expr.func)
        if symbol is None:
            return None
        path = symbol.path
        if path in CAST_SHORTHANDS:
            return CAST_SHORTHANDS[path]
        if path in DTYPE_ARGUMENT:
            dtype = argument(expr, DTYPE_ARGUMENT[path], "dtype")
            if dtype is not None:
                return _dtype_kind(self._names, dtype)
            if path in FLOAT_MAKERS:
                return "float"
            value = argument(expr, 0, {"constant": "value", "Variable": "initial_value"}.get(path, "value"))
            return None if value is None or path in ("cast", "placeholder") else self._kind(value, at, depth + 1)
        if argument(expr, None, "dtype") is not None:
            return None
        if path in SAME_DTYPE:
            operands = [a.value for a in expr.args[:2] if a.keyword is None] or [a.value for a in expr.args[:1]]
            if path not in ("add", "subtract", "multiply", "maximum", "minimum", "pow", "mod", "floormod") and not (
                path.startswith("math.") and path.split(".")[1] in ("add", "subtract", "multiply", "pow")
            ):
                operands = operands[:1]
            return self._joint(self._kind, operands, at, depth)
        return None

    def _joint(
        self,
        kind,
        operands: list,
        at: Optional[tuple[int, bool]],
        depth: int,
    ) -> Optional[str]:
        """The one kind of operands TF converts to one dtype: the tensors' (literals follow)."""
        tensors = [o for o in operands if literal_kind(o) is None]
        kinds = {kind(o, at, depth + 1) for o in (tensors or operands)}
        return kinds.pop() if len(kinds) == 1 else None

    def _name_kind(self, name: str, at: Optional[tuple[int, bool]], depth: int) -> Optional[str]:
        return self._through_name(name, at, depth, self._kind)

    def _through_name(self, name: str, at: Optional[tuple[int, bool]], depth: int, read):
        """What ``read`` says of the value ``name`` holds where it is read (at ``at``)."""
        if at is not None and not at[1]:
            index, _ = at
            if name in self._bound[index] and not isinstance(self._body[index], cst.SimpleStatementLine):
                return None  # a loop or block binding the name it reads: the value may be its own
            for earlier in range(index - 1, -1, -1):
                assignment = name_assignment(self._body[earlier])
                if assignment is not None and assignment[0] == name:
                    return read(assignment[1], (earlier, False), depth + 1)
                if name in self._bound[earlier]:
                    return None
            return None
        values = self._everywhere.get(name, [])
        found = {None if value is None else read(value, None, depth + 1) for value in values}
        return found.pop() if len(found) == 1 else None

    def image_batch(self, call: cst.Call, position: int, keyword: str) -> bool:
        """Whether ``call``'s argument at ``position`` (or ``keyword``) is a batch of images, a
        4-D tensor, as the code says: made by an op whose TF1 output is 4-D (``tf.layers.conv2d``,
        ``tf.nn.max_pool``, a 4-D ``tf.placeholder`` or ``tf.reshape``), or by an op keeping the
        rank of such a tensor (``tf.nn.relu``)."""
        if self._written is not None:
            found = {
                self._written.image_batch(c, position, keyword) for c in self._written.calls.get(_text_key(call), ())
            }
            if found == {True}:
                return True
        value = argument(call, position, keyword)
        return value is not None and self._rank4(value, self._where.get(id(call)), 0) is True

    def _rank4(
        self,
        expr: cst.BaseExpression,
        at: Optional[tuple[int, bool]],
        depth: int,
    ) -> Optional[bool]:
        if depth > 20:
            return None
        if isinstance(expr, cst.Name):
            return self._through_name(expr.value, at, depth, self._rank4)
        if not isinstance(expr, cst.Call) or has_star_args(expr):
            return None
        symbol = self._names.tf_symbol(expr.func)
        path = symbol.path if symbol is not None else None
        if path in RANK4_MAKERS:
            return True
        if path in ("placeholder", "reshape"):
            shape = argument(expr, 1, "shape")
            return isinstance(shape, (cst.List, cst.Tuple)) and len(shape.elements) == 4 or None
        if path in SAME_RANK:
            first = argument(expr, 0, SAME_RANK[path])
            return None if first is None else self._rank4(first, at, depth + 1)
        return None


def _text_key(call: cst.Call) -> str:
    """``call``'s code without its layout (spaces, line breaks, a trailing comma): a codemod
    moving a call may lay it out anew."""
    return "".join(source(call).split()).replace(",)", ")")


def _dtype_kind(names: TFNames, dtype: cst.BaseExpression) -> Optional[str]:
    symbol = names.tf_symbol(dtype)
    if symbol is None:
        return None
    if re.fullmatch(r"b?float\d+", symbol.path):
        return "float"
    return "int" if re.fullmatch(r"u?int\d+", symbol.path) else None


def literal_kind(expr: Optional[cst.BaseExpression]) -> Optional[str]:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    if isinstance(expr, cst.Integer):
        return "int"
    if isinstance(expr, cst.Float):
        return "float"
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements:
        kinds = {literal_kind(e.value) if isinstance(e, cst.Element) else None for e in expr.elements}
        return kinds.pop() if len(kinds) == 1 else None
    return None


def number_dtype(value: cst.BaseExpression) -> Optional[str]:
    """``float32``/``int32`` for a Python number or arithmetic of numbers alone (what
    ``tf.constant`` makes of it), else None."""
    kinds = set()
    for node in walk(value):
        if isinstance(node, cst.Float):
            kinds.add("float32")
        elif isinstance(node, cst.Integer):
            kinds.add("int32")
        elif isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Divide):
                kinds.add("float32")
            elif not isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply)):
                return None
        elif isinstance(node, cst.UnaryOperation):
            if not isinstance(node.operator, (cst.Minus, cst.Plus)):
                return None
        elif not isinstance(node, NUMBER_LAYOUT):
            return None
    if not kinds:
        return None
    return "float32" if "float32" in kinds else "int32"


#: What arithmetic of numbers is written with besides them (``number_dtype``).
NUMBER_LAYOUT = (
    cst.BaseBinaryOp,
    cst.BaseUnaryOp,
    cst.LeftParen,
    cst.RightParen,
    cst.SimpleWhitespace,
    cst.ParenthesizedWhitespace,
    cst.Newline,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Comment,
)
