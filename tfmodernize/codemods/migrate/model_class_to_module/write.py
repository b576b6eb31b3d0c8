"""Writing a planned model class out as a ``tf.Module``: ``__init__`` keeping its variables and
plain values and making the Keras optimizer, one method per model expression, the
``tf.function``s the runs call, and the methods calling them where they ran the session."""

from __future__ import annotations

from functools import partial
from typing import Callable, Optional, Union

import libcst as cst

from tfmodernize.analysis.optimizers import keras_optimizer, optimizer_table
from tfmodernize.analysis.tape import tape_block
from tfmodernize.analysis.variables import VariableValues
from tfmodernize.analysis.variable_calls import arguments
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    Kind,
    Node,
    OptimizerUse,
    self_attribute,
)
from tfmodernize.codemods.migrate.model_class_to_module.plan import (
    ClassPlan,
    Expression,
    ForeignCall,
    Run,
)
from tfmodernize.codemods.migrate.model_class_to_module.sites import (
    Context,
    Fetched,
    Saver,
    Shape,
    Site,
)
from tfmodernize.layout import fitted, fitted_decorator, relaid
from tfmodernize.names import fresh_name, name_nodes, names_read
from tfmodernize.syntax import (
    argument,
    commas,
    no_space_equal,
    parenthesized,
    source,
    split_docstring,
)
from tfmodernize.treewalk import walk

Replacement = Union[cst.CSTNode, cst.RemovalSentinel, Callable[[cst.CSTNode], cst.CSTNode]]


class _Substitute(cst.CSTTransformer):
    """Replaces nodes of an original tree by identity (a node, or a function of the node as
    rebuilt with the replacements below it)."""

    def __init__(self, replacements: dict[int, Replacement]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        new = self.replacements.get(id(original_node))
        if new is None:
            return updated_node
        return new(updated_node) if callable(new) else new


def substituted(node: cst.CSTNode, replacements: dict[int, Replacement]) -> cst.CSTNode:
    return node.visit(_Substitute(replacements)) if replacements else node


def keras_call(use: OptimizerUse, tf_expr) -> tuple[cst.Call, Optional[str]]:
    """The Keras optimizer TF1's ``use.call`` becomes, and why its maths differ (None: they do
    not); declines an optimizer Keras cannot start as TF1 did."""
    keras, why = keras_optimizer(use.call, use.tf1_class)
    if keras is None:
        raise Decline(use.call, f"its {use.tf1_class} is not migrated: {why}")
    entry = optimizer_table()[use.tf1_class]
    if keras.slot_starts:
        raise Decline(use.call, f"its {use.tf1_class} starts its slots elsewhere than Keras does")
    rounded = set(entry.get("float32_arguments", ()))
    for position, arg in enumerate(use.call.args):
        parameter = arg.keyword.value if arg.keyword is not None else entry["positional"][position]
        if entry["arguments"].get(parameter) in rounded:
            raise Decline(use.call, f"its {use.tf1_class} is given `{parameter}`, which TF1 read as float32")
    call = cst.Call(tf_expr(f"keras.optimizers.{keras.keras}"), args=commas(list(keras.args)))
    return call, keras.different_maths


class Writer:
    """Writes one planned class (``class_def``); ``codemod`` gives the TF names (``tf_expr``)."""

    def __init__(self, plan: ClassPlan, codemod, values: VariableValues, width: int) -> None:
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
        self.taken = taken
        self.variables: dict[int, cst.BaseExpression] = {}
        for call in self.model.get_variables:
            self.variables[id(call)] = self._variable(call)
        self.optimizers: dict[int, cst.Call] = {}
        for train in self.model.of(Kind.TRAIN):
            use = train.optimizer
            if use.call is not None:
                new, different = keras_call(use, codemod.tf_expr)
                self.optimizers[id(use.call)] = new
                self.different = self.different or different

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
        return made.visit(_Names({name: value for name, value in sizes.items()}))

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
                body += [self._expression(e) for e in plan.expressions.values()]
                if model.graph_only:
                    body += [self._run(run) for run in plan.runs]
            elif isinstance(statement, cst.FunctionDef) and statement.name.value in model.helpers:
                body.append(self._helper(statement))
            elif isinstance(statement, cst.FunctionDef):
                body += [self._run(run) for run in first_use.get(id(statement), [])]
                body.append(self._method(statement))
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
        for statement in rest:
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

    # -- the model expressions ----------------------------------------------------------------

    def _expression(self, expression: Expression) -> cst.FunctionDef:
        node = expression.node
        members = [*expression.folded, node]
        replacements, bound = self._reads(expression, members)
        statements: list[cst.BaseStatement] = list(bound)
        for member in expression.folded:
            statements.append(substituted(member.statement, replacements))
        value = substituted(node.value, replacements)
        statements.append(cst.SimpleStatementLine([cst.Return(value)]))
        first = statements[0]
        kept = list(first.leading_lines)
        while kept and kept[0].comment is None:
            kept.pop(0)
        statements[0] = first.with_changes(leading_lines=kept)
        comments = [line for line in node.statement.leading_lines if line.comment is not None]
        definition = cst.FunctionDef(
            name=cst.Name(expression.method),
            params=self._params(expression.params),
            body=cst.IndentedBlock([fitted(s, self.width, 2) for s in statements]),
            decorators=[self._decorator(expression.params)] if expression.decorated else [],
            leading_lines=[cst.EmptyLine(indent=False), *comments],
        )
        return fitted_decorator(definition, self.width, 1)

    def _reads(
        self, expression: Expression, members: list[Node]
    ) -> tuple[dict[int, Replacement], list[cst.SimpleStatementLine]]:
        """How the statements of an expression's method read the graph: placeholders as its
        parameters, the expressions it reads as calls of their methods (bound to a name first
        when read twice), the ``__init__`` parameters the graph read as the attributes keeping
        them."""
        model = self.model
        expressions = self.plan.expressions
        folded = {n.key for n in expression.folded}
        reads: dict[str, list[cst.CSTNode]] = {}
        replacements: dict[int, Replacement] = {}
        for member in members:
            value = member.value
            plain = {id(n) for n in name_nodes(value)}
            for part in walk(value, code_only=True):
                key = None
                attribute = self_attribute(part)
                if attribute is not None and f"self.{attribute}" in model.nodes:
                    key = f"self.{attribute}"
                elif isinstance(part, cst.Name) and id(part) in plain and part.value in model.nodes:
                    key = part.value
                elif isinstance(part, cst.Name) and id(part) in plain and part.value in model.stored:
                    replacements[id(part)] = cst.parse_expression(f"self.{model.stored[part.value]}")
                    continue
                if key is None or key in folded:
                    continue
                kind = model.nodes[key].kind
                if kind is Kind.PLACEHOLDER or key in self.plan.fed:
                    replacements[id(part)] = cst.Name(self.names[key])
                elif kind is Kind.TENSOR:
                    reads.setdefault(key, []).append(part)
        bound: list[cst.SimpleStatementLine] = []
        for key, parts in reads.items():
            called = self._call(expressions[key], {p: cst.Name(self.names[p]) for p in expressions[key].params})
            if len(parts) == 1:
                replacements[id(parts[0])] = called
                continue
            bound.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(self.names[key]))], called)]))
            for part in parts:
                replacements[id(part)] = cst.Name(self.names[key])
        return replacements, bound

    def _call(self, expression: "Expression | Run | ForeignCall", values: dict[str, cst.BaseExpression]) -> cst.Call:
        """``self.<method>(<values of its parameters>)``: by position when ``values`` lists them
        in the parameters' order, else by keyword, in the order given."""
        if isinstance(expression, ForeignCall):
            fed = {key.split(".")[2]: value for key, value in values.items()}
            given = [name for name in fed if name in expression.params]
            if given == expression.params:
                args = [cst.Arg(fed[name]) for name in given]
            else:
                args = [cst.Arg(fed[name], keyword=cst.Name(name), equal=no_space_equal()) for name in given]
            method = cst.parse_expression(f"self.{expression.obj}.{expression.method}")
            return cst.Call(method, args=commas(args))
        name = expression.method if isinstance(expression, Expression) else expression.name
        params = list(expression.params)
        given = [key for key in values if key in params]
        if given == params:
            args = [cst.Arg(values[key]) for key in params]
        else:
            args = [cst.Arg(values[key], keyword=cst.Name(self.names[key]), equal=no_space_equal()) for key in given]
        return cst.Call(cst.Attribute(cst.Name("self"), cst.Name(name)), args=commas(args))

    def _params(self, keys: list[str]) -> cst.Parameters:
        return cst.Parameters(
            commas([cst.Param(cst.Name("self")), *(cst.Param(cst.Name(self.names[k])) for k in keys)])
        )

    def _decorator(self, keys: list[str]) -> cst.Decorator:
        specs = [cst.Element(self._spec(self.model.nodes[key])) for key in keys]
        function = cst.parse_expression(f"{self.tf}.function")
        return cst.Decorator(
            cst.Call(
                function,
                [
                    cst.Arg(
                        cst.List(commas(specs)),
                        keyword=cst.Name("input_signature"),
                        equal=no_space_equal(),
                    )
                ],
            )
        )

    def _spec(self, placeholder: Node) -> cst.Call:
        """The placeholder's ``tf.TensorSpec``: its dtype, its shape with the sizes a method
        cannot know where it is defined (``n_input``) left open; a fed tensor's: its dtype."""
        spec = cst.parse_expression(f"{self.tf}.TensorSpec")
        if placeholder.kind is Kind.TENSOR:
            dtype = cst.parse_expression(f"{self.tf}.{self.plan.dtypes[placeholder.key]}")
            return cst.Call(spec, commas([cst.Arg(cst.Name("None")), cst.Arg(dtype)]))
        shape = placeholder.shape
        if isinstance(shape, (cst.List, cst.Tuple)) and not any(
            isinstance(e, cst.StarredElement) for e in shape.elements
        ):
            sizes = [
                e.value if isinstance(e.value, cst.Integer) or source(e.value) == "None" else cst.Name("None")
                for e in shape.elements
            ]
            written: cst.BaseExpression = cst.List(commas([cst.Element(size) for size in sizes]))
        elif isinstance(shape, cst.Integer) or shape is None:
            written = shape if shape is not None else cst.Name("None")
        else:
            written = cst.Name("None")
        return cst.Call(spec, commas([cst.Arg(written), cst.Arg(placeholder.dtype)]))

    # -- the functions the runs call ----------------------------------------------------------

    def _run(self, run: Run) -> cst.FunctionDef:
        expressions = self.plan.expressions
        local_names = set(self.taken) | set(self.names.values())
        params = {key: cst.Name(self.names[key]) for key in run.params}

        def line(code: str) -> cst.BaseStatement:
            return fitted(cst.parse_statement(code), self.width, 2)

        targets: list[str] = []
        if run.train is not None:
            loss = run.train.reads[0]
            targets = [loss, *(key for key in run.returned if key != loss)]
        else:
            targets = list(run.returned)
        # Each target computed from the fed values, the fed tensors it reads first when not fed.
        computed: list[str] = []
        available = dict(params)

        def compute(key: str) -> None:
            for param in expressions[key].params:
                if param not in available:
                    compute(param)
            if key not in computed:
                computed.append(key)
                available[key] = cst.Name(self.names[key])

        for key in targets:
            compute(key)
        values = []
        for key in computed:
            call = self._call(expressions[key], {p: available[p] for p in expressions[key].params})
            values.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(self.names[key]))], call)]))
        body: list[cst.BaseStatement] = []
        if run.train is not None:
            train = run.train
            tape = fresh_name("tape", local_names)
            gradients = fresh_name("gradients", local_names)
            variables = source(train.var_list) if train.var_list is not None else "self.trainable_variables"
            optimizer = self.plan.optimizer_attributes[train.key]
            body.append(tape_block(cst.parse_expression(f"{self.tf}.GradientTape"), tape, values))
            body.append(line(f"{gradients} = {tape}.gradient({self.names[run.train.reads[0]]}, {variables})\n"))
            body.append(line(f"self.{optimizer}.apply_gradients(zip({gradients}, {variables}))\n"))
            if train.global_step is not None and source(train.global_step) != "None":
                body.append(line(f"{source(train.global_step)}.assign_add(1)\n"))
        else:
            body += values
        returned = [self.names[key] for key in run.returned]
        if len(returned) == 1 and (run.train is not None or run.shape is Shape.SINGLE):
            body.append(line(f"return {returned[0]}\n"))
        elif returned and run.shape is Shape.LIST and run.train is None:
            body.append(line(f"return [{', '.join(returned)}]\n"))
        elif returned:
            body.append(line(f"return {', '.join(returned)}{',' if len(returned) == 1 else ''}\n"))
        definition = cst.FunctionDef(
            name=cst.Name(run.name),
            params=self._params(run.params),
            body=cst.IndentedBlock(body),
            decorators=[self._decorator(run.params)],
            leading_lines=[cst.EmptyLine(indent=False)],
        )
        return fitted_decorator(definition, self.width, 1)

    # -- the methods running the session ------------------------------------------------------

    def _method(self, method: cst.FunctionDef) -> cst.FunctionDef:
        plan = self.plan
        replacements: dict[int, Replacement] = {}
        for site in plan.sites.runs:
            if site.method is not method:
                continue
            if site.context is Context.VALUE:
                replacements[id(site.call)] = self._value(site)
                written, depth = site.holder, site.depth
                if isinstance(written, cst.SimpleStatementLine):
                    replacements[id(written)] = lambda updated, written=written, depth=depth: relaid(
                        written, updated, self.width, depth
                    )
            else:
                replacements[id(site.statement)] = self._statement(site)
            for line, writer, step, depth in site.writes:
                written = "".join(
                    f"    {self.tf}.summary.{kind}({source(tag)}, {name}, step={source(step)})\n"
                    for kind, tag, name in site.summaries
                )
                block = cst.parse_statement(f"with {writer}.as_default():\n{written}")
                block = block.with_changes(leading_lines=line.leading_lines)
                replacements[id(line)] = fitted(block, self.width, depth)
        for line in walk(method.body):
            if id(line) in plan.sites.closes:
                replacements[id(line)] = cst.RemovalSentinel.REMOVE
            if id(line) in plan.sites.summary_lines:
                logdir = plan.sites.summary_lines[id(line)]
                replacements[id(line)] = self._summary_line(line, logdir)
        inside = {id(n) for n in walk(method.body)}
        for saver in plan.sites.savers:
            if id(saver.call) in inside:
                replacements.update(self._saver(saver))
        new = substituted(method, replacements)
        if not new.body.body:
            new = new.with_changes(body=new.body.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])]))
        return new

    def _summary_line(
        self,
        line: cst.SimpleStatementLine,
        logdir: Optional[cst.BaseExpression],
    ) -> Replacement:
        """``merged = tf.summary.merge_all()`` goes (its runs fetch what it merged);
        ``writer = tf.summary.FileWriter(logdir, ...)`` -> ``tf.summary.create_file_writer``."""
        if logdir is None:
            return cst.RemovalSentinel.REMOVE
        small = line.body[0]
        function = cst.parse_expression(f"{self.tf}.summary.create_file_writer")
        made = cst.Call(function, [cst.Arg(logdir)])
        return line.with_changes(body=[small.with_changes(value=made)])

    def _saver(self, saver: Saver) -> dict[int, Replacement]:
        """A saver of the session's variables -> a ``tf.train.Checkpoint`` of the objects holding
        them (this one, the graph objects it runs); a save at a step -> a save of a
        ``CheckpointManager`` keeping as many (TF1's files: ``path-step``, the state file); a
        restore -> a read of the checkpoint."""
        objects = [(attribute, f"self.{attribute}") for attribute in self.model.foreign]
        if self.model.has_graph():
            objects.insert(0, ("model", "self"))
        tf = self.tf
        held = ", ".join(f"{key}={value}" for key, value in objects)
        made = cst.parse_expression(f"{tf}.train.Checkpoint({held})")
        replacements: dict[int, Replacement] = {id(saver.call): made}
        keep = source(saver.max_to_keep) if saver.max_to_keep is not None else "5"
        name = source(saver.statement.body[0].targets[0].target)
        taken = names_read(self.model.cls) | {n.value for n in name_nodes(self.model.cls)}
        for call in saver.saves.values():
            path = source(argument(call, 1, "save_path"))
            step = source(argument(call, 2, "global_step"))
            manager = fresh_name("manager", taken)
            made_manager = fitted(
                cst.parse_statement(
                    f"{manager} = {tf}.train.CheckpointManager({name}, "
                    f"os.path.dirname({path}) or os.curdir, max_to_keep={keep}, "
                    f"checkpoint_name=os.path.basename({path}))\n"
                ),
                self.width,
                saver.holders[id(call)][1],
            )
            saved = f"{manager}.save(checkpoint_number={step})"
            replacements[id(call)] = cst.parse_expression(saved)
            self.codemod.add_import("os")
            holder, depth = saver.holders[id(call)]
            if not isinstance(holder, cst.SimpleStatementLine):
                raise Decline(call, f"`{name}.save` is not on a line of its own")
            replacements[id(holder)] = partial(_after, made_manager, holder)
        for call in saver.restores.values():
            path = source(argument(call, 1, "save_path"))
            read = f"{name}.read({path}).assert_existing_objects_matched()"
            replacements[id(call)] = cst.parse_expression(read)
        return replacements

    def _function_call(self, site: Site) -> cst.Call:
        called = self.plan.called[id(site.call)]
        return self._call(called, site.feeds)

    def _numpy(self, value: cst.BaseExpression) -> cst.Call:
        return cst.Call(cst.Attribute(parenthesized(value, before_attribute=True), cst.Name("numpy")))

    def _each_numpy(self, value: cst.BaseExpression, name: str = "t") -> cst.Call:
        return cst.parse_expression(f"{self.tf}.nest.map_structure(lambda {name}: {name}.numpy(), __value__)").visit(
            _Placeholder(value)
        )

    def _fetched_value(self, fetch) -> cst.BaseExpression:
        """A variable (or a structure of them) or an op built at the run, read eagerly."""
        if fetch.kind is Fetched.VARIABLE and fetch.key not in self.model.nodes:  # another object's
            direct = isinstance(fetch.expr, cst.Attribute)
            return self._numpy(fetch.expr) if direct else self._each_numpy(fetch.expr, "v")
        if fetch.kind is Fetched.VARIABLE:
            node = self.model.nodes[fetch.key]
            if node.variable and self_attribute(fetch.expr) is not None:
                return self._numpy(fetch.expr)
            expr = fetch.expr
            index = expr.slice[0].slice if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 else None
            if (
                self_attribute(getattr(expr, "value", None)) is not None
                and isinstance(index, cst.Index)
                and isinstance(index.value, cst.SimpleString)
                and index.value.evaluated_value in node.keys
            ):
                return self._numpy(expr)
            return self._each_numpy(expr, "v")
        return self._numpy(fetch.expr)

    def _value(self, site: Site) -> cst.BaseExpression:
        if site.train is None and all(f.kind in (Fetched.VARIABLE, Fetched.EAGER) for f in site.fetches):
            values = [self._fetched_value(f) for f in site.fetches]
            if site.shape is Shape.SINGLE:
                return values[0]
            elements = commas([cst.Element(v) for v in values])
            return cst.List(elements) if site.shape is Shape.LIST else cst.Tuple(elements)
        called = self._function_call(site)
        function = self.plan.called[id(site.call)]
        if isinstance(function, (Expression, ForeignCall)) or function.shape is Shape.SINGLE:
            return self._numpy(called)
        return self._each_numpy(called)

    def _statement(self, site: Site) -> cst.BaseStatement:
        statement = site.statement
        small = statement.body[0]
        if site.context is Context.DISCARDED and any(f.kind is Fetched.INIT for f in site.fetches):
            return cst.RemovalSentinel.REMOVE  # another object's variables are made initialised
        if site.context is Context.DISCARDED:
            if site.train is None and all(f.kind in (Fetched.VARIABLE, Fetched.EAGER) for f in site.fetches):
                raise Decline(site.call, "the session run fetches values it throws away")
            new_small: cst.BaseSmallStatement = small.with_changes(value=self._function_call(site))
            return fitted(statement.with_changes(body=[new_small]), self.width, site.depth)
        if site.train is None and all(f.kind in (Fetched.VARIABLE, Fetched.EAGER) for f in site.fetches):
            value = self._value(site)
            return fitted(
                statement.with_changes(body=[small.with_changes(value=value)]),
                self.width,
                site.depth,
            )
        run = self.plan.called[id(site.call)]
        called = self._function_call(site)
        if isinstance(run, ForeignCall):
            kept = [t for t, f in zip(site.targets, site.fetches) if f.kind is not Fetched.TRAIN]
            if not kept:
                written = statement.with_changes(body=[cst.Expr(called)])
            else:
                new = cst.Assign([cst.AssignTarget(kept[0])], self._numpy(called))
                written = fitted(statement.with_changes(body=[new]), self.width, site.depth)
            if not site.before:
                return written
            lines = [fitted(line, self.width, site.depth) for line in [*site.before, written]]
            first = lines[0].with_changes(leading_lines=statement.leading_lines)
            rest = [line.with_changes(leading_lines=[]) for line in lines[1:]]
            return cst.FlattenSentinel([first, *rest])
        if run.train is None:
            new_value = small.with_changes(value=self._each_numpy(called))
            return fitted(statement.with_changes(body=[new_value]), self.width, site.depth)
        kept = [t for t, f in zip(site.targets, site.fetches) if f.kind is not Fetched.TRAIN]
        if not kept:
            return statement.with_changes(body=[cst.Expr(called)])
        if len(kept) == 1:
            target: cst.BaseExpression = kept[0]
            value: cst.BaseExpression = self._numpy(called)
        else:
            target = cst.Tuple(commas([cst.Element(t) for t in kept]), lpar=[], rpar=[])
            value = self._each_numpy(called)
        new = cst.Assign([cst.AssignTarget(target)], value)
        return fitted(statement.with_changes(body=[new]), self.width, site.depth)


def _after(
    line: cst.SimpleStatementLine,
    holder: cst.SimpleStatementLine,
    updated: cst.SimpleStatementLine,
) -> cst.FlattenSentinel:
    """``line`` then the statement ``holder`` became, ``line`` taking its leading lines."""
    first = line.with_changes(leading_lines=holder.leading_lines)
    return cst.FlattenSentinel([first, updated.with_changes(leading_lines=[])])


class _Placeholder(cst.CSTTransformer):
    """Puts ``value`` where the name ``__value__`` stands."""

    def __init__(self, value: cst.BaseExpression) -> None:
        super().__init__()
        self.value = value

    def leave_Name(self, original_node, updated_node):
        return self.value if original_node.value == "__value__" else updated_node


class _Names(cst.CSTTransformer):
    """Puts each of ``values`` where its name stands."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.values = values

    def leave_Name(self, original_node, updated_node):
        return self.values.get(original_node.value, updated_node)
