"""Writing a planned model class out as a ``tf.Module`` (``Writer``): the class, ``__init__``
keeping its variables and plain values and making the Keras optimizer, its variable helpers; the
methods of its model expressions and runs (``functions``) and the methods that ran its session
(``methods``) are written by the collaborators it makes."""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.analysis.variables import VariableValues
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.functions import FunctionWriter
from tfmodernize.codemods.migrate.model_class_to_module.methods import MethodWriter
from tfmodernize.codemods.migrate.model_class_to_module.optimizers import Optimizers
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    Kind,
    Node,
    self_attribute,
)
from tfmodernize.codemods.migrate.model_class_to_module.plan import (
    ClassPlan,
    Expression,
    Run,
)
from tfmodernize.codemods.migrate.model_class_to_module.writing import (
    PutNames,
    Replacement,
    Writing,
    substituted,
)
from tfmodernize.layout import fitted
from tfmodernize.names import fresh_name, names_read
from tfmodernize.syntax import (
    argument,
    split_docstring,
)
from tfmodernize.treewalk import walk


class Writer:
    """Writes one planned class (``class_def``); ``codemod`` gives the TF names (``tf_expr``)."""

    def __init__(self, plan: ClassPlan, codemod, values: VariableValues, width: int, optimizers: Optimizers) -> None:
        self.plan, self.codemod, self.values, self.width = plan, codemod, values, width
        self.model = plan.model
        self.tf = codemod.tf_root()
        #: Why the Keras optimizers compute otherwise than TF1's (an unsafe fix), if they do.
        self.different: Optional[str] = None
        init_names = names_read(self.model.init.body)
        locals_ = {n.name for n in self.model.nodes.values() if not n.attribute}
        taken = init_names | locals_
        #: The name each graph value has in the new methods (``self.x`` -> ``x``).
        self.names: dict[str, str] = {}
        for node in self.model.nodes.values():
            self.names[node.key] = node.name if not node.attribute else fresh_name(node.name, taken)
        self.variables: dict[int, cst.BaseExpression] = {}
        for call in self.model.get_variables:
            self.variables[id(call)] = self._variable(call)
        self.optimizers: dict[int, cst.Call] = {}
        #: The TF1 optimizers whose class (``optimizers.FUSED``) the file must hold.
        self.fused: set[str] = set()
        for train in self.model.of(Kind.TRAIN):
            use = train.optimizer
            if use.call is not None:
                new, different, written = optimizers.call(use)
                self.optimizers[id(use.call)] = new
                self.different = self.different or different
                self.fused |= {written} if written is not None else set()
        writing = Writing(plan, self.tf, width, dict(self.names), frozenset(taken))
        self.functions = FunctionWriter(writing)
        self.methods = MethodWriter(writing, self.functions, codemod.add_import)

    def _variable(self, call: cst.Call) -> cst.BaseExpression:
        """The ``tf.Variable`` a ``tf.get_variable`` call makes (``VariableValues``), its sizes
        read off the object (``[self.n_input, 10]``) written as names there and read back."""
        sizes: dict[str, cst.Attribute] = {}
        args = arguments(call)
        shape = args.get("shape")
        if isinstance(shape, (cst.List, cst.Tuple)):
            taken = names_read(self.model.cls)
            replacements: dict[int, Replacement] = {}
            for element in shape.elements:
                attribute = self_attribute(element.value)
                if attribute is not None:
                    name = fresh_name(f"self_{attribute}", taken)
                    sizes[name] = element.value
                    replacements[id(element.value)] = cst.Name(name)
            args["shape"] = substituted(shape, replacements)
        made = cst.parse_expression(self.values.variable(call, args))
        if not sizes:
            return made
        return made.visit(PutNames({name: value for name, value in sizes.items()}))

    # -- the class ----------------------------------------------------------------------------

    def class_def(self) -> cst.ClassDef:
        model, plan = self.model, self.plan
        first_use: dict[int, list[Union[Run, Expression]]] = {}
        written: set[int] = set()
        for site in plan.sites.runs:
            called = plan.called.get(id(site.call))
            if isinstance(called, Run) and id(called) not in written:
                written.add(id(called))
                first_use.setdefault(id(site.method), []).append(called)
        body: list[cst.BaseStatement] = []
        for statement in model.cls.body.body:
            if statement is model.init:
                body.append(self._init())
                body += [self.functions.expression(e) for e in plan.expressions.values()]
                if model.graph_only:
                    body += [self.functions.run(run) for run in plan.runs]
            elif isinstance(statement, cst.FunctionDef) and statement.name.value in model.helpers:
                body.append(self._helper(statement))
            elif isinstance(statement, cst.FunctionDef):
                body += [self.functions.run(run) for run in first_use.get(id(statement), [])]
                body.append(self.methods.method(statement))
            else:
                body.append(statement)
        if not model.has_graph():
            # It only runs another object's graph: a plain class still.
            return model.cls.with_changes(body=model.cls.body.with_changes(body=body))
        return model.cls.with_changes(
            bases=[cst.Arg(cst.parse_expression(f"{self.tf}.Module"))],
            lpar=cst.LeftParen(),
            rpar=cst.RightParen(),
            body=model.cls.body.with_changes(body=body),
        )

    # -- __init__ -----------------------------------------------------------------------------

    def _init(self) -> cst.FunctionDef:
        model = self.model
        init = model.init
        docstring, rest = split_docstring(init.body.body)
        statements: list[cst.BaseStatement] = list(docstring)
        if model.has_graph():
            statements.append(cst.parse_statement("super().__init__()\n"))
        bindings = {id(t.optimizer.binding.statement): t for t in model.of(Kind.TRAIN) if t.optimizer.binding}
        trains = {id(t.statement): t for t in model.of(Kind.TRAIN)}
        optimizers = {id(n.statement): n for n in model.of(Kind.OPTIMIZER)}
        variables = {id(n.statement) for n in model.of(Kind.VARIABLE)}
        writers = {id(n.statement): n for n in model.of(Kind.WRITER)}
        # A value drawn apart: its function traced where TF1 made the random op.
        drawn: dict[int, list[str]] = {}
        for key, method in self.plan.drawn.items():
            made = model.drawn_in.get(key, model.nodes[key].statement)
            drawn.setdefault(id(made), []).append(method)
        for statement in rest:
            for number, method in enumerate(drawn.get(id(statement), [])):
                traced = cst.parse_statement(f"self.{method}.get_concrete_function()\n")
                blank = [line for line in statement.leading_lines if line.comment is None]  # comments: the method's
                statements.append(traced.with_changes(leading_lines=blank) if not number else traced)
            if id(statement) in drawn and id(statement) in model.removed:
                continue
            if id(statement) in writers:
                statements.append(self._writer(writers[id(statement)], statement))
                continue
            if id(statement) in trains:
                statements += self._optimizer_lines(trains[id(statement)], statement)
                continue
            if id(statement) in model.removed:
                continue
            if id(statement) in optimizers:
                node = optimizers[id(statement)]
                if id(statement) not in bindings:
                    raise Decline(statement, f"the optimizer `{node.key}` minimizes nothing")
                new = statement.with_changes(
                    body=[statement.body[0].with_changes(value=self.optimizers[id(node.optimizer.call)])]
                )
                statements.append(fitted(new, self.width, 2))
                continue
            if id(statement) in variables:
                new = substituted(statement, dict(self.variables))
                statements.append(fitted(new, self.width, 2, further=True) if new is not statement else statement)
                continue
            statements.append(statement)
        params = init.params
        parameters = {t.optimizer.parameter: t.optimizer for t in model.of(Kind.TRAIN) if t.optimizer.parameter}

        def none_default(param: cst.Param) -> cst.Param:
            use = parameters.get(param.name.value)
            if use is None or use.call is None:
                return param
            return param.with_changes(default=cst.Name("None"))

        params = params.with_changes(
            params=[none_default(p) for p in params.params],
            kwonly_params=[none_default(p) for p in params.kwonly_params],
        )
        return init.with_changes(params=params, body=init.body.with_changes(body=statements))

    def _writer(self, node: Node, statement: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        """``self.writer = tf.summary.FileWriter(logdir[, graph])`` -> ``create_file_writer``."""
        logdir = argument(node.value, 0, "logdir")
        function = cst.parse_expression(f"{self.tf}.summary.create_file_writer")
        made = cst.Call(function, [cst.Arg(logdir)])
        new = statement.with_changes(body=[statement.body[0].with_changes(value=made)])
        return fitted(new, self.width, 2)

    def _helper(self, helper: cst.FunctionDef) -> cst.FunctionDef:
        """A variable helper, its ``tf.get_variable`` calls written as ``tf.Variable`` ones."""
        replacements: dict[int, Replacement] = dict(self.variables)
        pending: list[tuple[cst.CSTNode, int]] = [(helper.body, 1)]
        while pending:
            node, depth = pending.pop()
            for child in getattr(node, "body", ()):
                if isinstance(child, cst.SimpleStatementLine):
                    if any(id(n) in self.variables for n in walk(child)):
                        replacements[id(child)] = lambda updated, d=depth + 1: fitted(
                            updated, self.width, d, further=True
                        )
                elif isinstance(child, cst.BaseCompoundStatement):
                    pending.append((child.body, depth + 1))
        return substituted(helper, replacements)

    def _optimizer_lines(self, train: Node, statement: cst.SimpleStatementLine) -> list[cst.BaseStatement]:
        """What a ``self.train = optimizer.minimize(cost)`` line becomes: the Keras optimizer
        kept on the object (made there when TF1's was, or when the parameter gives none)."""
        use = train.optimizer
        attribute = self.plan.optimizer_attributes[train.key]
        lead = statement.leading_lines
        if use.binding is not None and use.binding.attribute:
            return []
        if use.binding is not None:
            value: cst.BaseExpression = cst.Name(use.binding.name)
        elif use.parameter is not None:
            value = cst.Name(use.parameter)
        else:
            value = self.optimizers[id(use.call)]
        line = fitted(
            cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.parse_expression(f"self.{attribute}"))], value)],
                leading_lines=lead,
            ),
            self.width,
            2,
        )
        if use.parameter is None or use.call is None:
            return [line]
        made = fitted(
            cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(use.parameter))], self.optimizers[id(use.call)])]
            ),
            self.width,
            3,
        )
        default = cst.If(
            test=cst.parse_expression(f"{use.parameter} is None"),
            body=cst.IndentedBlock([made]),
            leading_lines=lead,
        )
        return [default, line.with_changes(leading_lines=[])]
