"""Writing the methods of a planned class's model expressions and the ``tf.function``s its
session runs become (``FunctionWriter``)."""

from __future__ import annotations

import libcst as cst

from tfmodernize.analysis.tape import tape_block
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    Kind,
    Node,
    self_attribute,
)
from tfmodernize.codemods.migrate.model_class_to_module.plan import (
    Expression,
    ForeignCall,
    Run,
)
from tfmodernize.codemods.migrate.model_class_to_module.sites import (
    Shape,
)
from tfmodernize.codemods.migrate.model_class_to_module.writing import (
    Replacement,
    Writing,
    substituted,
)
from tfmodernize.layout import autograph_off, fitted
from tfmodernize.names import fresh_name, name_nodes
from tfmodernize.syntax import (
    commas,
    no_space_equal,
    source,
)
from tfmodernize.treewalk import walk


class FunctionWriter:
    """Writes a model expression's method (``expression``), a run's ``tf.function`` (``run``)
    and the calls of them (``call``)."""

    def __init__(self, writing: Writing) -> None:
        self.plan, self.model, self.tf = writing.plan, writing.plan.model, writing.tf
        self.width, self.names, self.taken = writing.width, writing.names, writing.taken

    # -- the model expressions ----------------------------------------------------------------

    def expression(self, expression: Expression) -> cst.FunctionDef:
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
        return self._fitted(definition) if expression.decorated else definition

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
            given = {p: cst.Name(self.names[p]) for p in expressions[key].params}
            called = self.call(expressions[key], given)
            if len(parts) == 1:
                replacements[id(parts[0])] = called
                continue
            bound.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(self.names[key]))], called)]))
            for part in parts:
                replacements[id(part)] = cst.Name(self.names[key])
        return replacements, bound

    def call(
        self,
        expression: "Expression | Run | ForeignCall",
        values: dict[str, cst.BaseExpression],
    ) -> cst.Call:
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

    def _fitted(self, definition: cst.FunctionDef) -> cst.FunctionDef:
        """A traced method, without AutoGraph: it holds the class's TF1 graph code and the tape
        step written around it, whose Python loops and branches ran once, while the graph was
        built, as they do in a trace without AutoGraph."""
        return autograph_off(definition, self.width, 1)

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

    def run(self, run: Run) -> cst.FunctionDef:
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
            call = self.call(expressions[key], {p: available[p] for p in expressions[key].params})
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
        return self._fitted(definition)
