"""TFM209 variable-in-function.

What it does
    Creates a ``tf.Variable`` that a ``tf.function`` makes in its body once, outside the
    traced path, and resets it to its initial value where it used to be created. In a
    method, ``v = tf.Variable(init)`` (or ``self.v = tf.Variable(init)``) becomes an
    attribute created on the first call (``if self._v is None: self._v = tf.Variable(init)
    else: self._v.assign(init)``, with ``self._v = None`` added at the end of ``__init__``)
    and later uses of ``v`` read ``self._v``. In a module-level function the variable is
    created at module level, right before the function, and the function starts with
    ``v.assign(init)`` in its place. Only a creation that is a statement of the function's
    own body (not in a loop or a branch) with a readable, non-random initial value that uses
    nothing from the function (no argument, no local) is moved; otherwise the codemod
    reports a finding. A creation already made once is left alone: under ``if self.v is
    None:``, or under ``if not self.built:`` in a block that sets ``self.built = True`` (the
    lazy creation TensorFlow's guides show).

Why it matters
    A ``tf.function`` may only create variables while it is first traced, and TensorFlow
    traces a function that creates variables twice on its first call: code that creates a
    variable unconditionally therefore raises ``ValueError: tf.function only supports
    singleton tf.Variables created on the first call`` (in TF 2.21 already on the first
    call). Creating the variable once makes the function legal; resetting it with
    ``assign`` keeps what the code means when run eagerly (each call starts from a fresh
    variable holding the initial value), so the traced function returns what
    ``f.python_function`` returns. If the variable was meant to keep its value across calls
    (a counter, an accumulator), delete the ``assign`` line / ``else`` branch by hand. When the
    initial value depends on the arguments there is no single value to create it with:
    create it from a known shape outside the function and ``assign`` the value inside.

Before
    @tf.function
    def accumulate(x):
        total = tf.Variable(0.0)
        total.assign_add(tf.reduce_sum(x))
        return total.read_value()

After
    total = tf.Variable(0.0)


    @tf.function
    def accumulate(x):
        total.assign(0.0)
        total.assign_add(tf.reduce_sum(x))
        return total.read_value()

Fixtures: ``fixtures/variable-in-function/``.

Fix safety
    The variable is created once, where the first trace created it, with the same initial value;
    later traces reuse it as TF2 requires.

Declines when
    the creation is in a loop, a branch or an expression, its initial value is random or uses the
    function's arguments or locals, or the name is bound elsewhere.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.tf_function import LooksInTFFunctions, INTERESTS, own_body, traced_functions
from tfmodernize.codemod import TFCodemod
from tfmodernize.names import local_names, name_nodes, parameter_names
from tfmodernize.syntax import source

_CONSTANTS = {"True", "False", "None"}


class VariableInFunction(LooksInTFFunctions, TFCodemod):
    __doc__ = __doc__
    code = "TFM209"
    name = "variable-in-function"
    summary = "tf.Variable created inside a tf.function -> created once, outside the traced path"
    needles = ("Variable",)
    interests = INTERESTS

    def visit_Module(self, node: cst.Module) -> bool:
        self._traced = traced_functions(node, self.tf)
        self._module_names = _module_bindings(node)
        self._module_imports = _module_imports(node)
        self._all_names = {n.value for n in name_nodes(node)}
        self._scopes: list[cst.CSTNode] = [node]
        self._pending_init: dict[cst.ClassDef, list[str]] = {}
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._scopes.append(node)
        self._pending_init[node] = []
        return True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._scopes.append(node)
        return True

    def leave_ClassDef(self, original: cst.ClassDef) -> None:
        self._scopes.pop()
        attributes = self._pending_init.pop(original)
        if not attributes:
            return
        for stmt in original.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
                self.insert_after(stmt.body.body[-1], [cst.parse_statement(f"self.{a} = None") for a in attributes])

    def leave_FunctionDef(self, original: cst.FunctionDef) -> None:
        self._scopes.pop()
        if original not in self._traced:
            return
        owner = self._scopes[-1]
        hoisted: list[cst.BaseStatement] = []
        for index, stmt in enumerate(original.body.body):
            creation = self._creation(stmt)
            if creation is None:
                continue
            target, call = creation
            problem = _initial_value_problem(call)
            if problem:
                self.report(call, _message(problem))
            elif isinstance(owner, cst.ClassDef):
                self._lazy_attribute(owner, original, index, target, call)
            elif isinstance(owner, cst.Module):
                statement = self._module_variable(original, index, target, call)
                if statement is not None:
                    hoisted.append(statement)
            else:
                self.report(
                    call,
                    _message(
                        "the function is nested in another function: create the variable where the outer one is set up"
                    ),
                )
        self._report_nested_creations(original)
        if not hoisted:
            return
        hoisted[0] = hoisted[0].with_changes(leading_lines=original.leading_lines)
        self.insert_before(original, hoisted)
        self.replace(original, lambda updated: updated.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]))

    # -- what is a creation -------------------------------------------------------------------

    def _is_variable_call(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and self.tf.is_tf(node.func, "Variable")

    def _creation(self, stmt: cst.CSTNode) -> Optional[tuple[cst.BaseAssignTargetExpression, cst.Call]]:
        """``(target, call)`` for a statement ``target = tf.Variable(...)``."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        if not isinstance(small, cst.Assign) or len(small.targets) != 1:
            return None
        if not self._is_variable_call(small.value):
            return None
        return small.targets[0].target, small.value

    def _report_nested_creations(self, function: cst.FunctionDef) -> None:
        """Creations in a loop, a branch or an expression: moving them is not provably safe."""
        top = {id(c[1]) for c in map(self._creation, function.body.body) if c is not None}
        for node in own_body(function.body):
            if self._is_variable_call(node) and id(node) not in top and not _guarded(function, node):
                self.report(
                    node,
                    _message(
                        "it is created inside a loop, a branch or an expression: create it once outside the function (e.g. in `__init__`) and `assign` to it inside"
                    ),
                )

    # -- method: lazily created attribute ---------------------------------------------------

    def _lazy_attribute(self, cls, original, index, target, call) -> None:
        params = parameter_names(original)
        if not params:
            self.report(call, _message("the method has no `self` to hold the variable"))
            return
        self_name = params[0]
        locals_ = (set(params[1:]) | local_names(original)) - {self_name}
        used = {n.value for n in name_nodes(call)}
        if used & locals_:
            self.report(
                call,
                _message(
                    f"its initial value depends on {', '.join(sorted(used & locals_))} (the function's arguments or locals): create it in `__init__`/`build` from a known shape and `assign` the value inside"
                ),
            )
            return
        init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
        if init is None:
            self.report(
                call,
                _message("the class has no `__init__` to declare the attribute in: create the variable in `__init__`"),
            )
            return
        class_text = cst.Module(body=[cls]).code
        if isinstance(target, cst.Name):
            attr = f"_{target.value}"
            if f".{attr}" in class_text:
                attr = f"_{original.name.value.strip('_')}_{target.value}"
            if f".{attr}" in class_text or _rebinds(original, target.value, index):
                self.report(
                    call,
                    _message(
                        f"`{target.value}` is bound elsewhere in the method or `self.{attr}` is taken: move the creation to `__init__` by hand"
                    ),
                )
                return
        elif _is_self_attribute(target, self_name):
            attr = target.attr.value
            if class_text.count(f"{self_name}.{attr} =") > 1 or f"{self_name}.{attr} is None" in class_text:
                self.report(
                    call,
                    _message(
                        f"`self.{attr}` is assigned elsewhere in the class: guard the creation with `if self.{attr} is None:` by hand"
                    ),
                )
                return
        else:
            self.report(call, _message("it is assigned to something other than a name or a `self` attribute"))
            return
        if not self.fix(call, _message(f"created once, on the first call, as `self.{attr}`")):
            return
        self._pending_init[cls].append(attr)
        holder = cst.Attribute(cst.Name(self_name), cst.Name(attr))
        stmt = original.body.body[index]
        guard = cst.If(
            test=cst.Comparison(holder, [cst.ComparisonTarget(cst.Is(), cst.Name("None"))]),
            body=cst.IndentedBlock(
                [
                    stmt.with_changes(
                        leading_lines=[], body=[stmt.body[0].with_changes(targets=[cst.AssignTarget(holder)])]
                    )
                ]
            ),
            orelse=cst.Else(cst.IndentedBlock([_reset(holder, call)])),
            leading_lines=stmt.leading_lines,
        )
        self.replace(stmt, guard)
        if isinstance(target, cst.Name):
            self._rename(original, index, target.value, holder)

    # -- module-level function: module-level variable -----------------------------------------

    def _module_variable(self, original, index, target, call) -> Optional[cst.BaseStatement]:
        """Plan the creation out of the function; the statement that creates it at module level."""
        if not isinstance(target, cst.Name):
            self.report(call, _message("it is assigned to something other than a name"))
            return None
        name = target.value
        foreign = (
            {n.value for n in name_nodes(call)}
            - _CONSTANTS
            - self._module_imports
            - self._module_names_before(original)
        )
        if foreign:
            self.report(
                call,
                _message(
                    f"its initial value depends on {', '.join(sorted(foreign))} (the function's arguments, locals or later module state): create it at module level from a known shape and `assign` the value inside"
                ),
            )
            return None
        if _rebinds(original, name, index) or _declared(original, name):
            self.report(call, _message(f"`{name}` is bound elsewhere in the function: move the creation out by hand"))
            return None
        new_name = name
        outside = [n for n in name_nodes(self.tf.module) if n.value == name]
        inside = [n for n in name_nodes(original) if n.value == name]
        if len(outside) > len(inside):
            new_name = f"{original.name.value}_{name}"
            if new_name in self._all_names:
                self.report(
                    call,
                    _message(
                        f"`{name}` and `{new_name}` are already used at module level: move the creation out by hand"
                    ),
                )
                return None
        if not self.fix(call, _message(f"created once, at module level, as `{new_name}`")):
            return None
        stmt = original.body.body[index]
        hoisted = stmt.with_changes(body=[stmt.body[0].with_changes(targets=[cst.AssignTarget(cst.Name(new_name))])])
        self.replace(stmt, _reset(cst.Name(new_name), call).with_changes(leading_lines=stmt.leading_lines))
        if new_name != name:
            self._rename(original, index, name, cst.Name(new_name))
        return hoisted

    def _rename(self, function: cst.FunctionDef, index: int, name: str, replacement: cst.BaseExpression) -> None:
        """Reads of ``name`` in the statements of ``function`` after the one at ``index`` read ``replacement``."""
        for stmt in function.body.body[index + 1 :]:
            for node in name_nodes(stmt):
                if node.value == name:
                    self.replace(node, replacement)

    def _module_names_before(self, function: cst.FunctionDef) -> set[str]:
        """Module names bound exactly once, before ``function``: safe to read at its place."""
        module = self.tf.module
        position = next((i for i, s in enumerate(module.body) if s is function), len(module.body))
        return {name for name, places in self._module_names.items() if len(places) == 1 and places[0] < position}


def _initial_value(call: cst.Call) -> Optional[cst.BaseExpression]:
    for index, arg in enumerate(call.args):
        if (arg.keyword is None and index == 0 and not arg.star) or (
            arg.keyword is not None and arg.keyword.value == "initial_value"
        ):
            return arg.value
    return None


def _initial_value_problem(call: cst.Call) -> Optional[str]:
    value = _initial_value(call)
    if value is None:
        return "it has no initial value the codemod can read: create it outside the function by hand"
    if "random" in source(value):
        return "its initial value is random, and one draw per call cannot be reproduced by a variable created once: create it outside the function and decide whether it keeps its value"
    return None


def _reset(holder: cst.BaseExpression, call: cst.Call) -> cst.SimpleStatementLine:
    """``holder.assign(<initial value>)``: each call starts from the initial value, as a
    variable created afresh on each eager call does."""
    value = _initial_value(call)
    assert value is not None
    assign = cst.Call(cst.Attribute(holder, cst.Name("assign")), [cst.Arg(value)])
    return cst.SimpleStatementLine([cst.Expr(assign)])


def _message(detail: str) -> str:
    return f"tf.Variable created inside a tf.function raises when the function is traced again; {detail}"


def _rebinds(function: cst.FunctionDef, name: str, index: int) -> bool:
    """Whether ``name`` is bound in ``function`` other than by its statement ``index``, or
    read before it."""
    creation = function.body.body[index]
    for stmt_index, stmt in enumerate(function.body.body):
        if stmt is creation:
            continue
        if stmt_index < index and any(n.value == name for n in name_nodes(stmt)):
            return True
        probe = cst.FunctionDef(name=cst.Name("probe"), params=cst.Parameters(), body=cst.IndentedBlock([stmt]))
        if name in local_names(probe):
            return True
        for node in own_body(stmt) if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else [stmt]:
            if isinstance(node, (cst.FunctionDef, cst.Lambda)) and name in parameter_names(node):
                return True
    return name in parameter_names(function)


def _declared(function: cst.FunctionDef, name: str) -> bool:
    for node in own_body(function.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in node.names):
            return True
    return False


def _is_self_attribute(target: cst.CSTNode, self_name: str) -> bool:
    return isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == self_name


def _guarded(function: cst.FunctionDef, call: cst.Call) -> bool:
    """Whether ``call`` sits in an ``if <x> is None:`` block (already created once), or in an
    ``if not self.built:`` block that sets ``self.built = True`` (created on the first trace
    only: the lazy creation TensorFlow's guides show)."""
    for node in own_body(function.body):
        if not isinstance(node, cst.If) or not any(inner is call for inner in own_body(node.body)):
            continue
        if isinstance(node.test, cst.Comparison):
            comparison = node.test.comparisons
            if len(comparison) == 1 and isinstance(comparison[0].operator, cst.Is):
                return True
        if _first_call_flag(node):
            return True
    return False


def _first_call_flag(branch: cst.If) -> bool:
    """``if not <obj>.<flag>:`` whose block sets ``<obj>.<flag> = True``."""
    test = branch.test
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    flag = test.expression
    if not (isinstance(flag, cst.Attribute) and isinstance(flag.value, cst.Name)):
        return False
    for node in own_body(branch.body):
        if (
            isinstance(node, cst.Assign)
            and isinstance(node.value, cst.Name)
            and node.value.value == "True"
            and any(flag.deep_equals(target.target) for target in node.targets)
        ):
            return True
    return False


def _module_bindings(module: cst.Module) -> dict[str, list[int]]:
    """Module-level name -> indices of the top-level statements binding it."""
    places: dict[str, list[int]] = {}
    for index, stmt in enumerate(module.body):
        names: set[str] = set()
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names.add(stmt.name.value)
        else:
            probe = cst.FunctionDef(name=cst.Name("probe"), params=cst.Parameters(), body=cst.IndentedBlock([stmt]))
            names = local_names(probe)
            for node in own_body(stmt):
                if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
                    for alias in node.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        while isinstance(bound, cst.Attribute):
                            bound = bound.value
                        if isinstance(bound, cst.Name):
                            names.add(bound.value)
        for name in names:
            places.setdefault(name, []).append(index)
    return places


def _module_imports(module: cst.Module) -> set[str]:
    imported: set[str] = set()
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    bound = alias.asname.name if alias.asname else alias.name
                    while isinstance(bound, cst.Attribute):
                        bound = bound.value
                    if isinstance(bound, cst.Name):
                        imported.add(bound.value)
    return imported
