"""TFM103 gradients-to-tape.

What it does
    Inside a function (typically the ``@tf.function`` session-to-function made), rewrites
    ``grads = tf.gradients(loss, [W, b])`` to a ``tf.GradientTape`` around the statements that
    compute ``loss`` and ``grads = tape.gradient(loss, [W, b])``; a function argument among
    the sources is watched. A ``tf.gradients`` call inside a larger statement
    (``tf.clip_by_global_norm(tf.gradients(loss, params), 5.0)``) becomes the ``tape.gradient``
    call in place. The sources may be a module-level list read from the trainable-variables
    collection (``params = tf.trainable_variables()``) whose variables can be listed. Anywhere, ``tf.assign(v, x)``, ``tf.assign_add(v, x)`` and
    ``tf.assign_sub(v, x)`` become ``v.assign(x)``, ``v.assign_add(x)``, ``v.assign_sub(x)``.

Why it matters
    ``tf.gradients`` only works while building a graph and ``tf.assign`` only exists in
    ``tf.compat.v1``. TF2 records gradients on a tape and updates variables through their own
    methods. ``tf.gradients`` always returns a list, so a single source variable becomes
    ``[tape.gradient(loss, W)]``. ``tf.stop_gradient`` in the loss is kept as is.

Before
    @tf.function
    def train_step(x, y):
        cost = tf.reduce_mean(tf.square(tf.matmul(x, W) - y))
        grad_W = tf.gradients(cost, W)
        tf.assign_sub(W, 0.1 * grad_W[0])
        return cost

After
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            cost = tf.reduce_mean(tf.square(tf.matmul(x, W) - y))
        grad_W = [tape.gradient(cost, W)]
        W.assign_sub(0.1 * grad_W[0])
        return cost

Fixtures: ``fixtures/gradients-to-tape/``.

Fix safety
    The gradient of the same target with respect to the same sources: the tape records exactly the
    statements that computed the target; ``tf.assign(v, x)`` and ``v.assign(x)`` are the same op.

Declines when
    a function takes gradients twice (or a statement calls ``tf.gradients`` twice, or in a
    lambda or comprehension), the arguments are unpacked or include ``stop_gradients``, the
    target is not a name computed earlier in the function, or a source is neither a trainable
    variable nor an argument the tape can watch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

import libcst as cst

from tfmodernize.analysis import graph_collections
from tfmodernize.analysis import module_variables
from tfmodernize.analysis.program import graph_program
from tfmodernize.syntax import function_definitions
from tfmodernize.syntax import parse_statement
from tfmodernize.analysis.tape import tape_block
from tfmodernize.names import binds, fresh_name, module_bindings
from tfmodernize.syntax import calls_in, split_docstring
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.syntax import is_none, source
from tfmodernize.names import names_read
from tfmodernize.treewalk import walk

ASSIGNS = {
    "assign": ("ref", "value", "validate_shape", "use_locking", "name"),
    "assign_add": ("ref", "value", "use_locking", "name"),
    "assign_sub": ("ref", "value", "use_locking", "name"),
}
GRADIENT_ARGUMENTS = ("ys", "xs", "grad_ys")
#: ``tf.gradients`` arguments that only steer graph scheduling, devices or op names.
SCHEDULING = ("name", "colocate_gradients_with_ops", "gate_gradients", "aggregation_method")


@dataclass
class Site:
    function: cst.FunctionDef
    position: int
    #: The statement replacing ``name = tf.gradients(...)``; None when the call is inside a
    #: larger statement (``clip(tf.gradients(...))``): the call alone is replaced (``calls``).
    replacement: Optional[cst.SimpleStatementLine]
    tape: str
    watched: list[str]
    #: The ``tape.gradient`` expression replacing the call (when ``replacement`` is None), or
    #: ``replaced``: the ``call[0]`` it stands in.
    call_value: Optional[cst.BaseExpression] = None
    replaced: Optional[cst.BaseExpression] = None


class GradientsToTape(TFCodemod):
    __doc__ = __doc__
    code = "TFM103"
    name = "gradients-to-tape"
    summary = "tf.gradients -> GradientTape; tf.assign(v, x) -> v.assign(x)"
    needles = ("gradients", "assign")
    interests = (cst.Call,)
    detects = ("gradients", *ASSIGNS)
    requires_tf2 = True

    def visit_Module(self, node: cst.Module) -> bool:
        self._sites: dict[cst.FunctionDef, Site] = {}
        #: ``tf.gradients`` calls inside larger statements -> their ``tape.gradient`` call.
        self._calls: dict[cst.Call, cst.BaseExpression] = {}
        self._seen: set[cst.Call] = set()
        if not any(self.tf.is_tf(call.func, "gradients") for call in calls_in(node)):
            return True
        graph = graph_program(node, self.tf)
        if graph is None:
            self._module = node
            self._inventory = module_variables.inventory(node, self.tf, self.state.project)
            self._globals = module_bindings(node)
            for top, function in function_definitions(node):
                if isinstance(function.body, cst.IndentedBlock):
                    self._plan(function, top)
        for call in calls_in(node):
            if call not in self._seen and self.tf.is_tf(call.func, "gradients"):
                where = (
                    "the file is still a TF1 graph program (it uses `" + graph + "`)"
                    if graph
                    else "it is not a `name = tf.gradients(...)` statement directly in a function body"
                )
                self.report(
                    call,
                    f"`tf.gradients` not migrated: {where}; session-to-function moves graph code into functions first",
                )
        return True

    def _gradients_call(self, line: cst.BaseStatement) -> Optional[tuple[Optional[str], cst.Call]]:
        """``(target, call)`` of ``target = tf.gradients(...)``, or ``(None, call)`` for the one
        ``tf.gradients`` call of a larger simple statement (``g, n = clip(tf.gradients(...))``)
        that runs once when the statement does (not in a lambda or comprehension)."""
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            return None
        small = line.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.value, cst.Call)
            and self.tf.is_tf(small.value.func, "gradients")
        ):
            return source(small.targets[0].target), small.value
        calls = [call for call in calls_in(small) if self.tf.is_tf(call.func, "gradients")]
        deferred = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
        if len(calls) == 1 and not any(isinstance(node, deferred) for node in walk(small, code_only=True)):
            return None, calls[0]
        return None

    def _plan(self, function: cst.FunctionDef, top: int) -> None:
        body = list(function.body.body)
        found = [(position, *hit) for position, line in enumerate(body) if (hit := self._gradients_call(line))]
        self._seen.update(call for _, _, call in found)
        if len(found) > 1:
            for _, _, call in found:
                self.report(
                    call,
                    "`tf.gradients` not migrated: this function takes gradients twice; "
                    "split it or use one persistent tape",
                )
            return
        if not found:
            return
        position, target, call = found[0]
        try:
            site = self._site(function, top, body, position, target, call)
        except Decline as decline:
            self.declined(decline, "`tf.gradients` not migrated: ")
            return
        if self.fix(call, "`tf.gradients` -> `tf.GradientTape`"):
            self.discharge()
            self._sites[function] = site
            if site.call_value is not None:
                self._calls[site.replaced or call] = site.call_value

    def _site(
        self, function: cst.FunctionDef, top: int, body: list, position: int, target: Optional[str], call: cst.Call
    ) -> "Site":
        """The tape to write for ``call``; raises Decline saying why not."""
        args: dict[str, cst.BaseExpression] = {}
        for index, arg in enumerate(call.args):
            if arg.star:
                raise Decline(call, "its arguments are unpacked")
            if arg.keyword is None and index >= len(GRADIENT_ARGUMENTS):
                raise Decline(call, "pass the arguments after `grad_ys` by keyword")
            args[arg.keyword.value if arg.keyword else GRADIENT_ARGUMENTS[index]] = arg.value
        unknown = set(args) - {*GRADIENT_ARGUMENTS, "stop_gradients", "unconnected_gradients", *SCHEDULING}
        if unknown or "ys" not in args or "xs" not in args:
            raise Decline(
                call, f"its arguments could not be read ({', '.join(sorted(unknown)) or 'ys and xs are needed'})"
            )
        if "stop_gradients" in args and not is_none(args["stop_gradients"]):
            raise Decline(call, "`stop_gradients` has no tape equivalent; wrap those tensors in `tf.stop_gradient`")
        docstring, preceding = split_docstring(body[:position])
        ys = args["ys"]
        targets = [e.value for e in ys.elements] if isinstance(ys, (cst.List, cst.Tuple)) else [ys]
        if not all(isinstance(t, cst.Name) and binds(preceding, t.value) for t in targets):
            raise Decline(call, "the differentiated value is not a name computed earlier in the same function")
        frozen = module_variables.frozen_value(preceding, self._module, self._inventory, self.tf)
        if frozen is not None:
            raise Decline(
                call,
                f"the differentiated value uses `{frozen}`, computed once at module level from variables: "
                "TF2 does not recompute it and the tape records no gradient through it",
            )
        params = {p.name.value for p in function.params.params}
        xs = args["xs"]
        single = not isinstance(xs, (cst.List, cst.Tuple))
        sources = [xs] if single else [e.value for e in xs.elements]
        if isinstance(xs, cst.Call) and self.tf.is_tf(xs.func, "trainable_variables") and not xs.args:
            problem = self._inventory.problem_before(top)
            if problem is not None:
                raise Decline(call, f"the file's variables cannot be listed ({problem})")
            sources = []
            xs, single = module_variables.variable_list(self._inventory.before(top, trainable_only=True)), False
        elif isinstance(xs, cst.Name) and xs.value not in params and not binds(preceding, xs.value):
            listed = self._collection_list(xs.value)
            if isinstance(listed, str):
                raise Decline(call, f"`{xs.value}` reads the trainable-variables collection, and {listed}")
            if listed is not None:
                # The module's trainable variables (collections-to-tracking writes the list out):
                # a tape watches each of them.
                sources, single = [], False
        watched = []
        for differentiated in sources:
            if not isinstance(differentiated, cst.Name):
                raise Decline(call, f"`{source(differentiated)}` is not a variable or argument the tape can watch")
            variable = self._inventory.variable(differentiated.value)
            if variable is not None and variable.trainable and differentiated.value not in params:
                continue
            if differentiated.value in params and not binds(preceding, differentiated.value):
                watched.append(differentiated.value)
                continue
            raise Decline(
                call,
                f"`{differentiated.value}` is neither a trainable variable nor a function argument, so no tape watches it",
            )
        taken = self._globals | names_read(function)
        tape = fresh_name("tape", taken)
        if isinstance(xs, cst.Tuple):
            xs = cst.List([e.with_changes(comma=cst.MaybeSentinel.DEFAULT) for e in xs.elements])
        sources_code = source(xs)
        extra = ""
        if "grad_ys" in args and not is_none(args["grad_ys"]):
            extra += f", output_gradients={source(args['grad_ys'])}"
        if "unconnected_gradients" in args:
            extra += f", unconnected_gradients={source(args['unconnected_gradients'])}"
        gradient = f"{tape}.gradient({source(ys)}, {sources_code}{extra})"
        value = f"[{gradient}]" if single else gradient
        if target is None:
            first = self._first_of(call) if single else None
            if first is not None:
                # ``tf.gradients(loss, x)[0]``: the one gradient, as the tape gives it.
                return Site(function, position, None, tape, watched, cst.parse_expression(gradient), first)
            return Site(function, position, None, tape, watched, cst.parse_expression(value))
        replacement = parse_statement(f"{target} = {value}")
        return Site(function, position, replacement, tape, watched)

    def _first_of(self, call: cst.Call) -> Optional[cst.Subscript]:
        """``call[0]``, the subscript holding ``call``, if that is its parent."""
        parent = self.state.parents(self._module).get(id(call))
        if not (isinstance(parent, cst.Subscript) and parent.value is call and len(parent.slice) == 1):
            return None
        index = parent.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0":
            return parent
        return None

    def _collection_list(self, name: str) -> Optional[Union[cst.BaseExpression, str]]:
        """What module-level ``name = tf.trainable_variables()`` holds (the variables, or why
        they cannot be listed); None when ``name`` is not bound to a trainable-collection read."""
        bound = module_variables.module_assignment(self._module, name)
        if bound is None or not isinstance(bound[1], cst.Call):
            return None
        collection = graph_collections.trainable_collection_read(bound[1], self.tf)
        if collection is None:
            return None
        return module_variables.listed_variables(self._inventory, bound[0], True, collection[0], eager=True)

    # -- rewriting --------------------------------------------------------------------------

    def leave_FunctionDef(self, original: cst.FunctionDef) -> None:
        site = self._sites.get(original)
        if site is not None:
            gradient_tape = cst.parse_expression(source(self.tf_expr("GradientTape")))
            self.replace(original, lambda updated: self._taped(updated, site, gradient_tape))

    @staticmethod
    def _taped(updated: cst.FunctionDef, site, gradient_tape: cst.BaseExpression) -> cst.FunctionDef:
        statements = list(updated.body.body)
        docstring, preceding = split_docstring(statements[: site.position])
        line = statements[site.position]
        watch = [parse_statement(f"{site.tape}.watch({name})") for name in site.watched]
        if site.replacement is None:
            replacement = line  # its call was replaced in place (``leave_Call``)
        else:
            replacement = site.replacement.with_changes(
                leading_lines=line.leading_lines, trailing_whitespace=line.trailing_whitespace
            )
        new_body = [
            *docstring,
            tape_block(gradient_tape, site.tape, [*watch, *preceding]),
            replacement,
            *statements[site.position + 1 :],
        ]
        return updated.with_changes(body=updated.body.with_changes(body=new_body))

    def leave_Subscript(self, original: cst.Subscript) -> None:
        if original in self._calls:
            self.replace(original, self._calls[original])

    def leave_Call(self, original: cst.Call) -> None:
        if original in self._calls:
            self.replace(original, self._calls[original])
            return
        symbol = self.tf.tf_symbol(original.func)
        if symbol is None or symbol.path not in ASSIGNS:
            return
        positions = ASSIGNS[symbol.path]
        args: dict[str, cst.Arg] = {}
        for index, arg in enumerate(original.args):
            if arg.star or (arg.keyword is None and index >= len(positions)):
                self.report(original, f"`tf.{symbol.path}` not migrated: its arguments could not be read")
                return
            args[arg.keyword.value if arg.keyword else positions[index]] = arg
        if "ref" not in args or "value" not in args:
            return
        if "validate_shape" in args:
            self.report(original, f"`tf.{symbol.path}` not migrated: variables' `assign` has no `validate_shape`")
            return
        ref = args["ref"].value
        if not isinstance(ref, (cst.Name, cst.Attribute)):
            self.report(original, f"`tf.{symbol.path}` not migrated: `{source(ref)}` is not a plain variable name")
            return
        if not self.fix(original, f"`tf.{symbol.path}(v, x)` -> `v.{symbol.path}(x)`"):
            return
        self.replace(original, lambda updated: _method_call(updated, symbol.path, positions))


def _method_call(call: cst.Call, method: str, positions: Sequence[str]) -> cst.Call:
    """``tf.assign(v, x, ...)`` (arguments already checked) as ``v.assign(x, ...)``."""
    args = {arg.keyword.value if arg.keyword else positions[index]: arg for index, arg in enumerate(call.args)}
    rest = [args["value"].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)]
    rest += [args[k] for k in positions[2:] if k in args]
    rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return cst.Call(cst.Attribute(args["ref"].value, cst.Name(method)), args=rest)
