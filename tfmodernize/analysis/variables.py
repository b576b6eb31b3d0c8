"""``tf.get_variable`` written as ``tf.Variable``: the initial value TF1's initializer computed.

``VariableValues`` writes the initial value TF1's initializer computed as TF2 code (the random
op its ``__call__`` ran, so the same numbers in the same place of the random-op order). Used by
get-variable-to-variable (variables made at a program's top level or by helpers) and
layers-to-keras (variables made by network functions under their variable scopes). A
variable-making call itself is read by ``analysis/variable_calls.py`` (``made_variable``)."""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping, Optional, Sequence

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.analysis.project_facts import foreign_call, foreign_imports
from tfmodernize.analysis.variable_calls import arguments, creates_opaque_variables
from tfmodernize.syntax import ancestors, is_none, parenthesized, source
from tfmodernize.tfsymbols import TFNames, dotted_name, import_bindings
from tfmodernize.names import name_nodes
from tfmodernize.treewalk import import_statements, walk

#: get_variable's parameters that must be absent or None (``VariableValues`` carries none over).
NONE_ONLY = (
    "regularizer",
    "collections",
    "caching_device",
    "partitioner",
    "use_resource",
    "custom_getter",
    "constraint",
    "synchronization",
    "aggregation",
)
INTEGER = re.compile(r"u?int\d+|bool")
#: TF1 random initializers -> the TF2 random op their ``__call__`` runs (the same stateful op,
#: so the same numbers in the same place of the random-op order), and the parameters that op
#: takes from the initializer, in the initializer's order.
RANDOM_INITIALIZERS = {
    "random_normal_initializer": ("random.normal", ("mean", "stddev")),
    "initializers.random_normal": ("random.normal", ("mean", "stddev")),
    "truncated_normal_initializer": ("random.truncated_normal", ("mean", "stddev")),
    "initializers.truncated_normal": ("random.truncated_normal", ("mean", "stddev")),
    "random_uniform_initializer": ("random.uniform", ("minval", "maxval")),
    "initializers.random_uniform": ("random.uniform", ("minval", "maxval")),
    "glorot_uniform_initializer": ("random.uniform", ()),
}
#: TF ops an initializer's argument may be computed with: arithmetic on values, nothing drawn
#: and no variable made, so computing it where the variable is now made changes no number.
ARITHMETIC_OPS = frozenset(
    {
        "sqrt",
        "math.sqrt",
        "rsqrt",
        "math.rsqrt",
        "square",
        "math.square",
        "pow",
        "math.pow",
        "exp",
        "math.exp",
        "log",
        "math.log",
        "abs",
        "math.abs",
        "reciprocal",
        "math.reciprocal",
        "divide",
        "math.divide",
        "multiply",
        "math.multiply",
        "add",
        "math.add",
        "subtract",
        "math.subtract",
        "maximum",
        "math.maximum",
        "minimum",
        "math.minimum",
        "cast",
        "to_float",
        "constant",
    }
)
#: Python built-ins of the same kind.
ARITHMETIC_BUILTINS = frozenset({"abs", "float", "int", "len", "max", "min", "pow", "round"})
#: Modules whose functions compute values (``math.sqrt``, ``np.sqrt``), but for their random parts.
VALUE_MODULES = ("math", "numpy")


class VariableValues:
    """Writes ``tf.Variable`` calls for ``tf.get_variable`` calls of one file (``tf``: its TF
    names; ``tf_expr``: the codemod's writer of TF2 names through the file's alias)."""

    def __init__(self, tf: TFNames, tf_expr: Callable[[str], cst.BaseExpression]) -> None:
        self.tf, self.tf_expr = tf, tf_expr
        #: Whether code written so far reads ``math`` (a Glorot range computed from names): the
        #: codemod imports it.
        self.uses_math = False
        self._functions: Optional[dict[str, cst.FunctionDef]] = None
        self._imports: Optional[dict[str, str]] = None

    def variable(
        self,
        call: cst.Call,
        args: dict[str, cst.BaseExpression],
        *,
        initializer: Optional[cst.BaseExpression] = None,
        from_tensor: bool = False,
        name: Optional[cst.BaseExpression] = None,
    ) -> str:
        """The code of ``tf.Variable(<initial value>, name=..., ...)`` for the call whose
        arguments (by parameter, ``arguments``) are ``args``: ``initializer`` is the initializer
        read (default: the one passed), ``from_tensor`` the initializer is the initial tensor
        (no shape), ``name`` the name to give (default: the one passed); declines shapes not
        written out and options ``tf.Variable`` has no equivalent of."""
        shape = args.get("shape")
        initializer = initializer if initializer is not None else args.get("initializer")
        if not from_tensor and (is_none(shape) or computed(shape)):
            raise Decline(call, "its shape is not written out (computed by calls, or absent)")
        for option in NONE_ONLY:
            if option in args and not is_none(args[option]):
                raise Decline(call, f"it passes `{option}`, which tf.Variable has no equivalent of")
        dtype = args.get("dtype")
        dtype_path = self.tf.tf_symbol(dtype).path if dtype is not None and self.tf.tf_symbol(dtype) else None
        if dtype is not None and dtype_path is None:
            raise Decline(call, "its dtype is not a tf dtype written out")
        keywords = [("name", name if name is not None else args.get("name"))]  # the dtype is the initial value's
        if from_tensor:
            initial = source(args["initializer"])
            if dtype is not None:
                keywords.append(("dtype", dtype))
        else:
            initial = self._initial_value(call, initializer, shape, dtype_path or "float32")
        trainable = args.get("trainable")
        if trainable is not None and not (isinstance(trainable, cst.Name) and trainable.value == "True"):
            keywords.append(("trainable", trainable))
        text = ", ".join([initial, *(f"{key}={source(value)}" for key, value in keywords if value is not None)])
        return f"{source(self.tf_expr('Variable'))}({text})"

    def is_tensor(self, initializer: Optional[cst.BaseExpression]) -> bool:
        """A TF op call making a tensor (``tf.constant(0.0)``, ``tf.random_normal([2])``), not an
        initializer object (``tf.zeros_initializer()``, ``tf.initializers.ones()``)."""
        if not isinstance(initializer, cst.Call):
            return False
        symbol = self.tf.tf_symbol(initializer.func)
        if symbol is None:
            return False
        path = symbol.path
        return not (path.endswith("_initializer") or path.startswith(("initializers.", "keras.initializers.")))

    def _initial_value(
        self, call: cst.Call, initializer: Optional[cst.BaseExpression], shape: cst.BaseExpression, dtype: str
    ) -> str:
        """The code of the initial value TF1's initializer computed, without randomness."""
        tf = source(self.tf_expr("zeros")).rsplit(".", 1)[0]
        dtype_code = f"{tf}.{dtype}"
        if is_none(initializer):
            if INTEGER.fullmatch(dtype):
                return f"{tf}.zeros({source(shape)}, dtype={dtype_code})"
            return self._glorot(call, shape, tf, dtype_code)
        if not isinstance(initializer, cst.Call):
            raise Decline(call, "its initializer is not written as a call here")
        symbol = self.tf.tf_symbol(initializer.func)
        path = symbol.path if symbol is not None else ""
        if path in RANDOM_INITIALIZERS:
            op, parameters = RANDOM_INITIALIZERS[path]
            if path == "glorot_uniform_initializer":
                if initializer.args:
                    raise Decline(call, "its Glorot initializer is given a seed or dtype")
                return self._glorot(call, shape, tf, dtype_code)
            given = self._initializer_arguments(call, initializer, parameters)
            written = "".join(f", {key}={source(value)}" for key, value in given.items())
            return f"{source(self.tf_expr(op))}({source(shape)}{written}, dtype={dtype_code})"
        constant = path in ("constant_initializer", "initializers.constant")
        if (path in ("zeros_initializer", "initializers.zeros") or constant) and not initializer.args:
            return f"{tf}.zeros({source(shape)}, dtype={dtype_code})"  # constant_initializer's value is 0
        if path in ("ones_initializer", "initializers.ones") and not initializer.args:
            return f"{tf}.ones({source(shape)}, dtype={dtype_code})"
        if (
            constant
            and len(initializer.args) == 1
            and (initializer.args[0].keyword is None or initializer.args[0].keyword.value == "value")
            and isinstance(initializer.args[0].value, (cst.Integer, cst.Float, cst.UnaryOperation))
        ):
            value = source(initializer.args[0].value)
            return f"{tf}.fill({source(shape)}, {tf}.constant({value}, dtype={dtype_code}))"
        raise Decline(call, f"its initializer `{source(initializer.func)}` is not one this migration maps")

    def _initializer_arguments(
        self, call: cst.Call, initializer: cst.Call, parameters: tuple[str, ...]
    ) -> dict[str, cst.BaseExpression]:
        """The distribution's arguments given to a random initializer (``stddev=0.1``), by the
        random op's parameter names; declines a seed, a dtype or an argument computed by a call."""
        given = arguments(initializer, parameters, at=call, what="its initializer")
        for value in given.values():
            for node in walk(value, code_only=True):
                if isinstance(node, cst.Call) and not self.computes_only(node):
                    raise Decline(
                        call,
                        f"its initializer's argument calls `{source(node.func)}`, which may draw "
                        "random values or make variables (only arithmetic, and module functions "
                        "doing only arithmetic, are computed where the variable is made)",
                    )
        return given

    def computes_only(self, call: cst.Call, within: frozenset[str] = frozenset()) -> bool:
        """Whether ``call`` computes a value and does nothing else: a TF arithmetic op
        (``tf.sqrt``), a Python built-in of the kind (``float``), a ``math``/``numpy`` function
        other than ``numpy.random``'s, or a module function (``xavier_std(shape)``) whose body
        only binds names from such calls and returns (``within``: the functions being read)."""
        symbol = self.tf.tf_symbol(call.func)
        if symbol is not None:
            return symbol.path in ARITHMETIC_OPS
        functions = self._module_functions()
        if isinstance(call.func, cst.Name):
            name = call.func.value
            if name in functions:
                return name not in within and self._function_computes_only(functions[name], within | {name})
            return name in ARITHMETIC_BUILTINS and name not in self._module_bindings()
        dotted = dotted_name(call.func)
        if dotted is None:
            return False
        root, _, rest = dotted.partition(".")
        module = self._module_bindings().get(root)
        return module in VALUE_MODULES and not f"{module}.{rest}".startswith("numpy.random")

    def _function_computes_only(self, function: cst.FunctionDef, within: frozenset[str]) -> bool:
        if function.decorators:
            return False
        for index, statement in enumerate(function.body.body):
            if not isinstance(statement, cst.SimpleStatementLine):
                return False
            for small in statement.body:
                docstring = index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)
                binds_names = isinstance(small, cst.Assign) and all(
                    isinstance(t.target, cst.Name) for t in small.targets
                )
                if not (docstring or binds_names or isinstance(small, cst.Return)):
                    return False
        return all(
            self.computes_only(node, within)
            for node in walk(function.body, code_only=True)
            if isinstance(node, cst.Call)
        )

    def _module_functions(self) -> dict[str, cst.FunctionDef]:
        """The functions the module defines once at its top level, by name."""
        if self._functions is None:
            defined: dict[str, list[cst.FunctionDef]] = {}
            for statement in self.tf.module.body:
                if isinstance(statement, cst.FunctionDef):
                    defined.setdefault(statement.name.value, []).append(statement)
            self._functions = {name: defs[0] for name, defs in defined.items() if len(defs) == 1}
        return self._functions

    def _module_bindings(self) -> dict[str, str]:
        """What the module's top-level imports bind: local name -> module (``np`` -> ``numpy``)."""
        if self._imports is None:
            self._imports = {}
            for statement in self.tf.module.body:
                if isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        self._imports.update(import_bindings(small, tf_only=False))
        return self._imports

    def _glorot(self, call: cst.Call, shape: cst.BaseExpression, tf: str, dtype_code: str) -> str:
        """TF1's Glorot uniform draw (the default of a floating get_variable): uniform in
        [-limit, limit], limit = sqrt(3 / max(1, (fan_in + fan_out) / 2)), the fans read off the
        shape as TF1 reads them; the limit is computed here as TF1 computed it in Python, or,
        for a shape written out with names (``[in_dim, units]``), written out so that it is
        computed where the variable is made, by the same Python arithmetic TF1 ran."""
        dims = [e.value for e in shape.elements] if isinstance(shape, (cst.List, cst.Tuple)) else None
        if (
            dims is None
            or any(isinstance(e, cst.StarredElement) for e in shape.elements)
            or computed(shape)
            or any(
                isinstance(n, (cst.Float, cst.SimpleString, cst.Attribute, cst.Subscript))
                for n in walk(shape, code_only=True)
            )
        ):
            raise Decline(call, "its default initializer is Glorot uniform, whose range needs the shape written out")
        if not all(isinstance(d, cst.Integer) for d in dims):
            return self._glorot_written(dims, shape, tf, dtype_code)
        sizes = [int(d.value) for d in dims]
        if not sizes:
            fan_in = fan_out = 1
        elif len(sizes) == 1:
            fan_in = fan_out = sizes[0]
        else:
            receptive = math.prod(sizes[:-2])
            fan_in, fan_out = sizes[-2] * receptive, sizes[-1] * receptive
        limit = math.sqrt(3.0 * (1.0 / max(1.0, (fan_in + fan_out) / 2.0)))
        return f"{tf}.random.uniform({source(shape)}, -{limit!r}, {limit!r}, dtype={dtype_code})"

    def _glorot_written(
        self, dims: list[cst.BaseExpression], shape: cst.BaseExpression, tf: str, dtype_code: str
    ) -> str:
        """The Glorot draw over a shape of names: the fans as TF1's ``_compute_fans`` formed them
        (integers: any order of the products is exact), the limit by its formula."""
        sizes = [source(parenthesized(d)) for d in dims]
        if len(sizes) == 1:
            fan_in = fan_out = sizes[0]
        else:
            receptive = "".join(f" * {size}" for size in sizes[:-2])
            fan_in, fan_out = f"{sizes[-2]}{receptive}", f"{sizes[-1]}{receptive}"
        self.uses_math = True
        limit = f"math.sqrt(3.0 * (1.0 / max(1.0, ({fan_in} + {fan_out}) / 2.0)))"
        return f"{tf}.random.uniform({source(shape)}, -{limit}, {limit}, dtype={dtype_code})"


def computed(node: cst.BaseExpression) -> bool:
    """Whether an argument is computed by a call (``[n, 2]`` and ``"W_" + name`` are written out)."""
    return any(isinstance(n, cst.Call) for n in walk(node, code_only=True))


def written_string(node: Optional[cst.BaseExpression], parameters: Sequence[str]) -> bool:
    """Whether a variable's name is a string written out: a literal, or (in a helper) one of its
    ``parameters``, or those joined with ``+`` (``"W_" + name``)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.Name):
        return node.value in parameters
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return (
            written_string(node.left, parameters)
            and written_string(node.right, parameters)
            and (not isinstance(node.left, cst.Name) or not isinstance(node.right, cst.Name))
        )
    return False


def helper_variable(function: cst.FunctionDef, tf: TFNames) -> Optional[cst.Call]:
    """The ``tf.get_variable`` call of a variable helper, a module function whose last line is
    ``return tf.get_variable(...)`` (``def weight_variable(name, shape): ...``), undecorated,
    taking plain parameters only and making no other variable or layer; else None."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    last = body[-1] if body else None
    if function.decorators or not (
        isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Return)
    ):
        return None
    call = last.body[0].value
    if not (isinstance(call, cst.Call) and tf.is_tf(call.func, "get_variable")):
        return None
    made = [
        c for c in walk(function.body, code_only=True) if isinstance(c, cst.Call) and creates_opaque_variables(c, tf)
    ]
    return call if made == [call] else None


def shares_variables(function: cst.FunctionDef | cst.Module) -> bool:
    """Whether a function (or a whole module) may share variables through its scopes: it
    names ``reuse``, ``AUTO_REUSE`` or ``reuse_variables`` anywhere."""
    return any(
        isinstance(n, cst.Name) and n.value in ("reuse", "reuse_variables", "AUTO_REUSE")
        for n in walk(function.body if isinstance(function, cst.FunctionDef) else function, code_only=True)
    )


def math_importable(module: cst.Module) -> bool:
    """Whether ``import math`` can give the file ``math``: it imports it so already, or reads no
    name ``math``."""
    imported = any(
        isinstance(s, cst.Import) and any(source(a.name) == "math" and a.asname is None for a in s.names)
        for s in import_statements(module)
    )
    return imported or not any(n.value == "math" for n in name_nodes(module))


#: What a call may not be inside to run at most once when the code around it runs: a loop, a
#: ``with`` block (a variable scope may prefix or reuse), a comprehension or a nested
#: definition. (A condition or a ``try`` runs it once or not at all.)
REPEATING = (
    cst.For,
    cst.While,
    cst.With,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.Lambda,
    cst.ClassDef,
)


def runs_at_most_once(
    function: cst.FunctionDef,
    module: cst.Module,
    parents: dict,
    callers: Optional[dict] = None,
    tf: Optional[TFNames] = None,
) -> Optional[int]:
    """The index of the top-level statement of ``module`` whose run calls the module function
    ``function`` once at most (``train()`` in ``if __name__ == "__main__":``), else None. The
    run calls it in one place, by name, and uses it nowhere else (``callers``: the uses of this
    file's functions in the other files of the run, ``FileState.callers``): in the program's
    top-level code or in the body of a module function that itself runs once at most, outside
    loops, ``with`` blocks, comprehensions and nested definitions there (a condition may skip
    it); or ``app.run`` calls it (``tf.app.run(main)``, or ``tf.app.run()`` calling the
    program's ``main``: ``tf``, the file's TF names, reads TF's). What it makes, it makes once,
    as the program's top-level code does; ``parents``: a parent map of ``module``."""
    seen: set[int] = set()
    while True:
        if (
            id(function) in seen
            or function.decorators
            or function.asynchronous is not None
            or not any(function is s for s in module.body)
            or (callers or {}).get(function.name.value)
        ):
            return None
        seen.add(id(function))
        uses = [n for n in name_nodes(module) if n.value == function.name.value and n is not function.name]
        call = _call_of(function, uses, module, parents, tf)
        if call is None:
            return None
        holder: Optional[cst.CSTNode] = None
        for node in ancestors(call, parents):
            if isinstance(node, (cst.FunctionDef, cst.Module)):
                holder = node
                break
            if isinstance(node, REPEATING):
                return None
        if isinstance(holder, cst.Module):
            return next(i for i, s in enumerate(module.body) if s is call or _holds(s, call, parents))
        if not isinstance(holder, cst.FunctionDef):
            return None
        function = holder


def _call_of(
    function: cst.FunctionDef, uses: list[cst.Name], module: cst.Module, parents: dict, tf: Optional[TFNames]
) -> Optional[cst.Call]:
    """The one call running ``function``: ``function(...)``, its one use; ``app.run(function)``
    (or ``main=function``); or, for ``main`` used nowhere, the one ``app.run()`` calling it."""

    def runner(node: Optional[cst.CSTNode]) -> bool:
        return isinstance(node, cst.Call) and (
            dotted_name(node.func) in ("app.run", "absl.app.run") or tf is not None and tf.is_tf(node.func, "app.run")
        )

    if len(uses) == 1:
        parent = parents.get(id(uses[0]))
        if isinstance(parent, cst.Call) and parent.func is uses[0]:
            return parent
        run = parents.get(id(parent))
        if (
            isinstance(parent, cst.Arg)
            and not parent.star
            and runner(run)
            and (run.args[0] is parent if parent.keyword is None else parent.keyword.value == "main")
        ):
            return run
        return None
    if uses or function.name.value != "main":
        return None
    runs = [n for n in walk(module, code_only=True) if runner(n)]
    if len(runs) == 1 and not any(a.star or a.keyword is None or a.keyword.value == "main" for a in runs[0].args):
        return runs[0]
    return None


def _holds(statement: cst.CSTNode, node: cst.CSTNode, parents: dict) -> bool:
    return any(statement is n for n in ancestors(node, parents))


def may_make_variables(
    statements: Sequence[cst.CSTNode], module: cst.Module, tf: TFNames, project: Mapping[str, Any]
) -> Optional[str]:
    """What in ``statements`` may make variables when they run (``"`build_model`"``), else
    None: a variable maker, layer or Keras object (``creates_opaque_variables``), the global
    step, a call of a module function or class of ``module`` whose code may (read through the
    calls it makes in turn), or a call into imported code that may (``project``: the summaries
    of the project modules, ``FileState.project``; ``foreign_call``)."""
    defined = {s.name.value: s for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    foreign = foreign_imports(module, project)
    seen: set[str] = set()
    for statement in statements:
        pending: list[tuple[cst.CSTNode, Optional[cst.Call]]] = [(statement, None)]
        while pending:
            node, at = pending.pop(0)
            imported = foreign_call(node, foreign)
            if imported is not None:
                return f"`{source(at.func)}`, which calls {imported}" if at is not None else imported
            for call in (c for c in walk(node, code_only=True) if isinstance(c, cst.Call)):
                if creates_opaque_variables(call, tf) or tf.is_tf(
                    call.func, "train.get_or_create_global_step", "train.create_global_step"
                ):
                    return f"`{source((at or call).func)}`"
                if isinstance(call.func, cst.Name) and call.func.value in defined and call.func.value not in seen:
                    seen.add(call.func.value)
                    pending.append((defined[call.func.value], at or call))
    return None
