"""TFM104 collections-to-tracking.

What it does
    Replaces reads of TF1 graph collections with the explicit lists they hold:
    ``tf.trainable_variables()``, ``tf.global_variables()`` and
    ``tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES | GLOBAL_VARIABLES, scope=...)``
    become the list of the module's variables created before that point, in creation order
    and filtered by scope prefix as TF1 does (a read inside the function the program's top-level
    code runs once, ``main()`` under the main guard, lists the variables made before that call,
    then those the function's own lines make before the read, ``w = tf.Variable(...)``, even
    where other functions of the file make variables; ``sess.run`` of such a read, written
    ``tf.trainable_variables().numpy()`` by session-to-function, becomes ``[w.numpy(), ...]``);
    ``UPDATE_OPS`` and ``REGULARIZATION_LOSSES`` become
    ``[]`` when nothing in the file can have added to them; a collection the program fills
    itself (``tf.add_to_collection("losses", x)`` ... ``tf.get_collection("losses")``) becomes a
    plain list. Only where the whole program that can reach the read is known: the file is a
    program (an ``if __name__ == "__main__":`` block, session code or app.run at module level, a
    module-level call of its own function, or a notebook) and no other file of the run reaches
    the read (a function of the file they use, or one those call). Works on TF1 code and on
    session-to-function's output alike. Each rewritten read discharges one obligation placed on
    TFM104, so a codemod that leaves collection reads where TF2 would silently find them empty
    can oblige it per read.

Why it matters
    TF2 has no graph collections: ``tf.compat.v1.trainable_variables()`` returns ``[]`` in
    eager code and in a ``tf.function`` it only sees variables created inside that function,
    so code that trains "whatever is in the collection" silently trains nothing. Explicit
    lists say what is trained. Where the list cannot be read off the code the codemod declines
    with a finding and writes nothing: a read inside a function while variables are created
    after that function (what it holds depends on when it is called), variables made by layers, helper functions or imported code (a call into any
    module but TensorFlow and a known set of variable-free packages), a read that would come
    out empty, slot variables of optimizers in ``global_variables``, ``UPDATE_OPS`` /
    ``REGULARIZATION_LOSSES`` in a file whose layers or imported code may fill them, and any read
    in library code: a module with no entry point, or what other files of the run call, whose
    callers, other modules and layers made later may fill the collection before the read.

Before
    W = tf.Variable(tf.zeros([3, 1]), name="W")
    b = tf.Variable(tf.zeros([1]), name="b")
    step = tf.Variable(0, trainable=False)
    params = tf.trainable_variables()

    if __name__ == "__main__":
        train(params)

After
    W = tf.Variable(tf.zeros([3, 1]), name="W")
    b = tf.Variable(tf.zeros([1]), name="b")
    step = tf.Variable(0, trainable=False)
    params = [W, b]

    if __name__ == "__main__":
        train(params)

Fixtures: ``fixtures/collections-to-tracking/``.

Fix safety
    The list holds what TF1's collection held at that point: the variables created before it, in
    creation order, filtered by scope as TF1 filters; an empty collection becomes ``[]`` only when
    nothing in the file can add to it. Both only in a program whose code reaching the read is all
    in the file: nothing the file cannot see runs before it.

Declines when
    the variables cannot be read off the code (layers, helpers, imported code), the read is inside a
    function while variables are created later (unless the program runs that function once from
    its top-level code and nothing but ``w = tf.Variable(...)`` lines makes variables before the
    read), it would come out empty, it is read at module
    level over Keras layers (they make their variables on their first call, later in TF2: the
    list would be empty; layers-to-keras writes such lists where an optimizer uses them), or
    optimizer slots would be listed; a program collection is used across functions or read
    before anything is added; the read is library code (the module has no entry point, or
    another file of the run calls the function holding it, uses its class or imports the module
    whose top-level code reads it): pass the list in explicitly (``model.losses``,
    ``model.trainable_variables``) or run the codemod on the whole program.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional

import libcst as cst

from tfmodernize.analysis.program import entry_point, main_guard
from tfmodernize.analysis import graph_collections
from tfmodernize.analysis import module_variables
from tfmodernize.analysis.variables import may_make_variables, runs_at_most_once
from tfmodernize.syntax import calls_in
from tfmodernize.syntax import parse_statement
from tfmodernize.analysis.project_facts import foreign_call, foreign_imports
from tfmodernize.names import fresh_name, used_names
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.names import local_names, name_nodes, names_read
from tfmodernize.syntax import ancestors, argument, source, statement_of
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.tfsymbols import TFNames

#: ``tf.GraphKeys`` attributes this codemod knows, with the collection names they stand for.
GRAPH_KEYS = {
    "TRAINABLE_VARIABLES": "trainable_variables",
    "GLOBAL_VARIABLES": "variables",
    "UPDATE_OPS": "update_ops",
    "REGULARIZATION_LOSSES": "regularization_losses",
    "LOSSES": "losses",
}
VARIABLE_READS = {
    "trainable_variables": "trainable_variables",
    "global_variables": "variables",
    "all_variables": "variables",
}
#: Collection names TF fills by itself; a program's own list must not have one of these names.
BUILTIN_KEYS = frozenset(
    {
        *GRAPH_KEYS.values(),
        "summaries",
        "local_variables",
        "model_variables",
        "moving_average_variables",
        "queue_runners",
        "savers",
        "cond_context",
        "while_context",
        "metric_variables",
        "init_op",
        "train_op",
        "global_step",
    }
)
REGULARIZER_ARGUMENTS = (
    "regularizer",
    "kernel_regularizer",
    "bias_regularizer",
    "activity_regularizer",
    "weights_regularizer",
    "biases_regularizer",
)
#: What a finding tells the user to pass in instead of a collection read it leaves, by collection.
PASS_INSTEAD = {
    "regularization_losses": "pass the regularization losses in explicitly (a Keras model's `model.losses`, or the "
    "penalties of the weights that have them)",
    "update_ops": "pass the update ops in explicitly (Keras layers run their updates themselves)",
    "trainable_variables": "pass the variables in explicitly (a Keras model's `model.trainable_variables`)",
    "variables": "pass the variables in explicitly (a Keras model's `model.variables`)",
}


class CollectionsToTracking(TFCodemod):
    __doc__ = __doc__
    code = "TFM104"
    name = "collections-to-tracking"
    summary = "tf.trainable_variables()/get_collection/add_to_collection -> explicit lists"
    needles = ("_variables", "collection")
    interests = (cst.Call,)
    detects = (*VARIABLE_READS, "get_collection", "add_to_collection")

    # -- analysis ---------------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        self._module = node
        self._variables: Optional[module_variables.VariableInventory] = None
        self._names: Optional[set[str]] = None
        self._all_calls = list(calls_in(node))
        self._replacements: dict[cst.Call, cst.BaseExpression] = {}
        self._inserts: dict[cst.CSTNode, cst.SimpleStatementLine] = {}
        self._program: Optional[bool] = None
        self._reached: Optional[dict[str, tuple[str, str, Optional[dict]]]] = None
        self._plan_program_collections(node)
        return True

    @property
    def _inventory(self) -> module_variables.VariableInventory:
        if self._variables is None:
            self._variables = self.state.reading(self._module, module_variables.inventory)
        return self._variables

    @property
    def _taken(self) -> set[str]:
        if self._names is None:
            self._names = used_names(self._module)
        return self._names

    def _key(self, node: Optional[cst.BaseExpression]) -> Optional[str]:
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        symbol = self.tf.tf_symbol(node) if node is not None else None
        if symbol is not None and symbol.path.startswith("GraphKeys."):
            return GRAPH_KEYS.get(symbol.path[len("GraphKeys.") :])
        return None

    def _owner(self, call: cst.Call) -> tuple[Optional[cst.CSTNode], Optional[cst.CSTNode]]:
        """(innermost function holding ``call`` or the module, the statement of that body holding it)."""
        parents = self.state.parents(self._module)
        chain = [call]
        while (parent := parents.get(id(chain[-1]))) is not None:
            chain.append(parent)
        if chain[-1] is not self._module:
            return None, None
        for index, node in enumerate(chain):
            if isinstance(node, cst.FunctionDef):
                # ``def f(): <body>``: the statement is the child of its indented block.
                in_body = index >= 2 and isinstance(chain[index - 1], cst.IndentedBlock)
                return node, chain[index - 2] if in_body else None
        return self._module, chain[-2]

    def _top_level_index(self, node: cst.CSTNode) -> Optional[int]:
        """Index of the module-level statement holding ``node`` (``syntax.top_level_index``),
        read up the parent map rather than searched for in every statement."""
        chain = [node, *ancestors(node, self.state.parents(self._module))]
        if len(chain) < 2 or chain[-1] is not self._module:
            return None
        return next(index for index, statement in enumerate(self._module.body) if statement is chain[-2])

    def _plan_program_collections(self, module: cst.Module) -> None:
        """``add_to_collection(name, x)`` + ``get_collection(name)`` -> one Python list."""
        uses: dict[str, list[tuple[str, cst.Call]]] = {}
        for call in self._all_calls:
            if self.tf.is_tf(call.func, "add_to_collection"):
                kind = "add"
            elif self.tf.is_tf(call.func, "get_collection"):
                kind = "get"
            else:
                continue
            key = self._key(argument(call, 0, "name" if kind == "add" else "key"))
            if key is not None and key not in BUILTIN_KEYS:
                uses.setdefault(key, []).append((kind, call))
        for key, found in uses.items():
            try:
                self._program_collection(key, found)
            except Decline as decline:
                for _, call in found:
                    self.report(call, f"collection {key!r} not migrated: {decline.reason}")

    def _program_collection(self, key: str, found: list[tuple[str, cst.Call]]) -> None:
        """Plan one program collection as a Python list; raises Decline saying why it cannot."""
        owners = {id(self._owner(call)[0]) for _, call in found}
        if len(owners) != 1:
            raise Decline(found[0][1], "it is used in more than one function (or in a function and at module level)")
        owner = self._owner(found[0][1])[0]
        body = list(owner.body if isinstance(owner, cst.Module) else owner.body.body)
        first_add = None
        for kind, call in found:
            _, statement = self._owner(call)
            position = body.index(statement) if statement in body else None
            if kind == "add":
                if not (
                    isinstance(statement, cst.SimpleStatementLine)
                    and len(statement.body) == 1
                    and isinstance(statement.body[0], cst.Expr)
                    and statement.body[0].value is call
                ):
                    raise Decline(found[0][1], "`add_to_collection` is not a statement of its own")
                if len(call.args) != 2 or any(a.star for a in call.args):
                    raise Decline(found[0][1], "`add_to_collection` has unexpected arguments")
                if first_add is None or position < body.index(first_add):
                    first_add = statement
            elif len(call.args) != 1:
                raise Decline(found[0][1], "`get_collection` filters by scope")
        if first_add is None:
            raise Decline(found[0][1], "nothing is added to it")
        first = body.index(first_add)
        for kind, call in found:
            _, statement = self._owner(call)
            if kind == "get" and (statement not in body or body.index(statement) < first):
                raise Decline(found[0][1], "it is read before anything is added")
        self._known_program(
            next((call for kind, call in found if kind == "get"), found[0][1]), "pass the list in explicitly"
        )
        calls = [call for _, call in found]
        if any(self.suppressed(call) for call in calls):
            return
        name = fresh_name(re.sub(r"\W", "_", key).strip("_") + "_collection", self._taken)
        if not name.isidentifier() or name[0].isdigit():
            raise Decline(found[0][1], "its name does not make a Python identifier")
        for kind, call in found:
            self.fix(call, f"collection {key!r} -> the list `{name}`")
            self.discharge()
            if kind == "add":
                self._replacements[call] = cst.parse_expression(f"{name}.append({source(call.args[1].value)})")
            else:
                self._replacements[call] = cst.parse_expression(f"list({name})")
        self._inserts[first_add] = parse_statement(f"{name} = []")

    # -- rewriting --------------------------------------------------------------------------

    def leave_Call(self, original: cst.Call) -> None:
        if original in self._replacements:
            self.replace(original, self._replacements[original])
            return
        symbol = self.tf.tf_symbol(original.func)
        if symbol is None:
            return
        if symbol.path in VARIABLE_READS:
            key, scope = VARIABLE_READS[symbol.path], argument(original, 0, "scope")
        elif symbol.path == "get_collection":
            key, scope = self._key(argument(original, 0, "key")), argument(original, 1, "scope")
            if key is None or key not in GRAPH_KEYS.values():
                if argument(original, 0, "key") is not None and key is None:
                    self.report(
                        original, "`get_collection` not migrated: its key is not a literal or a known GraphKeys name"
                    )
                return
        else:
            return
        try:
            result = self._collection(original, key, scope)
            self._known_program(original, PASS_INSTEAD.get(key, "pass it in explicitly"))
        except Decline as decline:
            self.declined(decline, f"`{source(original.func)}` not migrated: ")
            return
        if not self.fix(original, f"collection {key!r} -> an explicit list"):
            return
        self.discharge()
        parents = self.state.parents(self._module)
        attribute = parents.get(id(original))
        read = parents.get(id(attribute))
        if (
            isinstance(attribute, cst.Attribute)
            and attribute.attr.value == "numpy"
            and isinstance(read, cst.Call)
            and read.func is attribute
            and not read.args
        ):
            # ``tf.trainable_variables().numpy()`` (a session's fetch of the list, as
            # session-to-function writes it): each variable's value, as ``sess.run`` gave them.
            original, result = read, _values(result)
        self.replace(original, result)
        line = statement_of(original, parents)
        if line is not None:  # a written list wider than the file's lines: one element a line
            deep, width = depth(line[1], parents), style_width(self.state.text)
            self.replace(line[1], lambda updated: fitted(updated, width, deep, further=True))

    def _collection(self, call: cst.Call, key: str, scope: Optional[cst.BaseExpression]) -> cst.BaseExpression:
        """What the collection read becomes; raises Decline saying why it cannot."""
        if key in ("update_ops", "regularization_losses"):
            imported = foreign_call(self._module, foreign_imports(self._module, self.state.project))
            if imported is not None:
                raise Decline(call, f"the file calls {imported}, which may add to it; collect those ops explicitly")
        if key == "update_ops":
            if graph_collections.adds_update_ops(self._module, self.tf):
                raise Decline(
                    call, "the file has layers that add update ops (batch normalisation); run their updates explicitly"
                )
            return cst.List([])
        if key == "regularization_losses":
            regularized = any(
                arg.keyword is not None and arg.keyword.value in REGULARIZER_ARGUMENTS
                for c in self._all_calls
                for arg in c.args
            )
            if regularized or self._added(key):
                raise Decline(call, "variables or layers in the file have regularizers; sum their losses explicitly")
            return cst.List([])
        if key == "losses":
            raise Decline(call, "`tf.losses` functions add to this collection implicitly; sum the losses explicitly")
        if key == "variables" and any(
            (s := self.tf.tf_symbol(c.func)) is not None
            and s.path.startswith("train.")
            and s.path.endswith("Optimizer")
            or self.tf.keras_path(c.func) is not None
            and self.tf.keras_path(c.func).startswith("optimizers.")
            for c in self._all_calls
        ):
            raise Decline(call, "an optimizer's slot variables are global variables too; list the variables you mean")
        top = self._top_level_index(call)
        assert top is not None
        owner, line = self._owner(call)
        if isinstance(owner, cst.FunctionDef) and (
            self._inventory.problem_before(top) is not None
            or self._inventory.before(top, trainable_only=False) != self._inventory.variables
        ):
            local = self._function_list(call, owner, line, key == "trainable_variables", scope)
            if local is not None:
                return local
        if owner is not self._module and self._inventory.before(top, trainable_only=False) != self._inventory.variables:
            # Run later, a function sees every variable made before the call; the read's position
            # says nothing about which those are unless they all come before the function.
            raise Decline(
                call,
                "it is read inside a function and variables are created after that function; "
                "pass the list in explicitly",
            )
        listed = module_variables.listed_variables(
            self._inventory, top, key == "trainable_variables", scope, eager=self._owner(call)[0] is self._module
        )
        if isinstance(listed, cst.List) and not listed.elements:
            raise Decline(
                call,
                "no variable is created in this file's module-level code before it (variables made by "
                "functions, layers or imported code are not tracked); list the variables you mean",
            )
        if isinstance(listed, str):
            raise Decline(call, listed)
        return listed

    def _function_list(
        self,
        call: cst.Call,
        function: cst.FunctionDef,
        line: Optional[cst.CSTNode],
        trainable_only: bool,
        scope: Optional[cst.BaseExpression],
    ) -> Optional[cst.BaseExpression]:
        """The list a collection read inside ``function`` holds when the program runs that
        function once at most, by a call in its own top-level code (``main()`` under the main
        guard: ``runs_at_most_once``), and what runs before the read is known: the variables the
        top-level code made before that statement, then those the function's lines before the
        read make (``w = tf.Variable(...)``: read as the inventory reads module lines), nothing
        else making any. None when that does not hold (the caller then declines as before);
        Decline when it holds but the list cannot be written (a name bound twice, a scope)."""
        module = self._module
        parents = self.state.parents(module)
        if line is None or not isinstance(function.body, cst.IndentedBlock):
            return None
        index = runs_at_most_once(function, module, parents, self.state.callers, self.tf)
        if index is None:
            return None
        runner = module.body[index]
        uses = [n for n in name_nodes(runner) if n.value == function.name.value]
        calls = [parents.get(id(n)) for n in uses]
        if len(uses) != 1 or not isinstance(calls[0], cst.Call) or calls[0].func is not uses[0]:
            return None  # run through another function or app.run: what runs first is not read here
        project = self.state.project
        # What that statement calls before (or to pass the arguments of) its call of the function.
        ordered = list(calls_in(runner))
        others = ordered[: ordered.index(calls[0])] + list(calls_in(calls[0]))[1:]
        if any(may_make_variables([c], module, self.tf, project) is not None for c in others):
            return None
        lines = list(function.body.body)
        if may_make_variables([line], module, self.tf, project) is not None:
            return None
        top_level = [s for s in module.body[:index] if not isinstance(s, cst.FunctionDef)]
        made_before, own = self._lines_variables(top_level), self._lines_variables(lines[: lines.index(line)])
        if made_before is None or own is None:
            return None
        if scope is not None and made_before.variables and own.variables:
            return None  # each part numbers its graph names (``Variable_1``) on its own
        local = local_names(function)
        if made_before.rebound or own.rebound or any(v.binding in local for v in made_before.variables):
            raise Decline(call, "a variable's name is bound again before the read; pass the list in explicitly")
        merged = module_variables.VariableInventory(
            variables=[dataclasses.replace(v, index=0) for v in made_before.variables]
            + [dataclasses.replace(v, index=1) for v in own.variables]
        )
        listed = module_variables.listed_variables(merged, 2, trainable_only, scope, eager=True)
        if isinstance(listed, str):
            raise Decline(call, listed)
        if isinstance(listed, cst.List) and not listed.elements:
            return None
        return listed

    def _lines_variables(self, lines: list[cst.BaseStatement]) -> Optional[module_variables.VariableInventory]:
        """The variables ``lines``, run in order, make, read as the inventory reads module lines,
        or None when a line may make others (a helper, a loop, imported code) or resets the graph."""
        module, project = self._module, self.state.project
        made = module_variables.inventory(cst.Module(body=lines), self.tf, project)
        if made.problem is not None or made.resets:
            return None
        recorded = {v.index for v in made.variables}
        for position, statement in enumerate(lines):
            if position in recorded:  # ``w = tf.Variable(...)``: what its arguments call, too
                checked: list[cst.CSTNode] = [a.value for c in calls_in(statement) for a in c.args]
            else:
                checked = [statement]
            if may_make_variables(checked, module, self.tf, project) is not None:
                return None
        return made

    # -- who can reach a read ---------------------------------------------------------------

    def _known_program(self, call: cst.Call, instead: str) -> None:
        """Raise Decline unless the whole program that can reach the read ``call`` is known: the
        file is a program's entry (as written or as the earlier codemods left it), and no other
        file of the run reaches the read (``_reached_from_other_files``), so nothing the file
        cannot see adds to the collection before the read."""
        advice = f"{instead}, or run tfmodernize on the whole program (its entry script with this module)"
        callers = self.state.callers  # None: no other file of the run imports this one
        if callers is not None:
            holder = self._module.body[self._top_level_index(call)]
            if isinstance(holder, (cst.FunctionDef, cst.ClassDef)):
                reached = self._reached_from_other_files(callers).get(holder.name.value)
                name = holder.name.value
            else:  # module-level code: run when they import the module, unless under the main guard
                reached = None if main_guard(holder) else ("import", "", None)
                name = None
            if reached is not None:
                how, used, use = reached
                through = f", which reaches `{name}`" if name is not None and used != name else ""
                if how == "use":
                    raise Decline(
                        call,
                        f"{use['file']} {'calls' if use.get('call') else 'uses'} `{used}` (line "
                        f"{use['line']}){through}: code there may add to the collection before "
                        f"this read; {advice}",
                    )
                if how == "class":
                    raise Decline(
                        call,
                        f"other files of the run import this module and may use `{used}`{through}: "
                        f"their code may add to the collection before this read; {advice}",
                    )
                reaches = f" and reaches `{name}`" if name is not None else ""
                raise Decline(
                    call,
                    f"other files of the run import this module: its module-level code runs then"
                    f"{reaches}, after whatever they added to the collection; {advice}",
                )
        if not self._is_program():
            raise Decline(
                call,
                'this module has no entry point (no `if __name__ == "__main__":`, session code or '
                "app.run at module level, no module-level call of its own functions): it is library "
                "code, and the program using it (its callers, other modules, layers made later) may "
                f"add to the collection before this read; {advice}",
            )

    def _is_program(self) -> bool:
        """Whether the file is a program's entry (``entry_point``), as written or as now."""
        if self._program is None:
            parsed = self.state.parsed
            self._program = (
                parsed is not None and entry_point(parsed, TFNames.for_module(parsed)) is not None
            ) or entry_point(self._module, self.tf) is not None
        return self._program

    def _reached_from_other_files(self, callers: dict) -> dict[str, tuple[str, str, Optional[dict]]]:
        """Each function and class of this module (imported by other files of the run) they can
        reach -> how: ``("use", function, its first use)`` from a function they use (``callers``),
        ``("class", name, None)`` from a class (their uses of classes are not recorded: any may be
        used), ``("import", "", None)`` from the module-level code importing it runs (outside
        ``if __name__ == "__main__":``); and from there, what each names of the module's
        functions and classes."""
        if self._reached is None:
            definitions = {s.name.value: s for s in self._module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
            top_level = set().union(
                *(
                    names_read(s)
                    for s in self._module.body
                    if not isinstance(s, (cst.FunctionDef, cst.ClassDef)) and not main_guard(s)
                )
            )
            pending = [(name, ("import", "", None)) for name in sorted(top_level & definitions.keys())]
            pending += [
                (name, ("class", name, None))
                for name in sorted(definitions)
                if isinstance(definitions[name], cst.ClassDef)
            ]
            pending += [
                (name, ("use", name, uses[0])) for name, uses in sorted(callers.items()) if uses and name in definitions
            ]
            reached: dict[str, tuple[str, str, Optional[dict]]] = {}
            while pending:
                name, origin = pending.pop()
                if name in reached:
                    continue
                reached[name] = origin
                pending.extend(
                    (other, origin)
                    for other in sorted(names_read(definitions[name]) & definitions.keys())
                    if other not in reached
                )
            self._reached = reached
        return self._reached

    def _added(self, key: str) -> bool:
        return any(
            self.tf.is_tf(c.func, "add_to_collection", "add_to_collections")
            and c.args
            and self._key(c.args[0].value) == key
            for c in self._all_calls
        )

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine) -> None:
        insert = self._inserts.get(original)
        if insert is not None:
            self.replace(
                original,
                lambda updated: cst.FlattenSentinel(
                    [insert.with_changes(leading_lines=updated.leading_lines), updated.with_changes(leading_lines=[])]
                ),
            )


def _values(listed: cst.BaseExpression) -> cst.BaseExpression:
    """The numpy values of the variables of ``listed``: ``[w.numpy(), b.numpy()]``."""
    if isinstance(listed, cst.List) and all(type(e) is cst.Element for e in listed.elements):
        return listed.with_changes(
            elements=[
                e.with_changes(value=cst.Call(cst.Attribute(e.value, cst.Name("numpy")))) for e in listed.elements
            ]
        )
    return cst.parse_expression(f"[variable.numpy() for variable in {source(listed)}]")
