"""TFM121 network-function-to-module.

What it does
    Turns a module function that makes ``tf.Variable`` s and applies ops to them in one call
    (``def add_layer(inputs, n_in, n_out): W = tf.Variable(...); return tf.matmul(inputs, W)``)
    into a ``tf.Module`` class: ``__init__`` makes the variables (with the statements their
    initial values need, and the parameters those read), ``__call__`` applies the ops (the other
    statements, the other parameters), the variables read as ``self.W``. Each call
    ``out = add_layer(x, 3, 4)`` becomes the object made right before it, where the variables
    were made, and the object called: ``add_layer = AddLayer(3, 4)`` then ``out = add_layer(x)``
    (several calls name each object after what its call binds and what the function makes:
    ``hidden = add_layer(...)`` -> ``hidden_layer``, ``layer1 = new_conv_layer(...)`` ->
    ``layer1_module``; numbered, ``add_layer_1``, only when a call binds no name or the names
    clash). A comment goes with its statement: above a variable it
    stays in ``__init__``, above an op it goes to ``__call__``, and above the call it heads the
    object made there. A section's heading (comments after a blank line, or opening the body)
    heads the section's first statement in the other method too, and so does the latest
    statement comment since (``# decoder`` above the first decoder weight), unless that
    statement has comments of its own. It only rewrites a session program, and runs before
    session-to-function, which then makes each object once at top level and calls it in its
    functions.

Why it matters
    A TF2 function may create variables only while first traced: a network function called in
    a ``tf.function`` would make new variables at every trace, so session-to-function declines
    the graph (``variable `out` is initialised from `x`, which changes from run to run``). A
    module makes its variables once, where TF1 made them, and its call only applies the ops; its
    ``trainable_variables`` list them for a ``GradientTape``.

Before
    def add_layer(inputs, n_in, n_out):
        # An affine layer
        W = tf.Variable(tf.random_normal([n_in, n_out]))
        b = tf.Variable(tf.zeros([n_out]))
        return tf.matmul(inputs, W) + b


    hidden = add_layer(x, 3, 4)

After
    class AddLayer(tf.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            # An affine layer
            self.W = tf.Variable(tf.random_normal([n_in, n_out]))
            self.b = tf.Variable(tf.zeros([n_out]))

        def __call__(self, inputs):
            # An affine layer
            return tf.matmul(inputs, self.W) + self.b


    add_layer = AddLayer(3, 4)
    hidden = add_layer(x)

Fix safety
    The same variables are made, in the same order, with the same names and initial values, at
    the same point of the program, and the same ops are applied to them: the rewrite changes no
    value under TF1 or TF2. Only the order of the ops inside one call changes (the variables
    first), which no value depends on: a call drawing random values before a variable is made
    is left as it is.

Declines when
    the function takes ``*args``, keyword-only parameters or ``self``, is decorated, defines
    functions or lambdas, creates variables other ways (``tf.get_variable``, layers, a function
    that does), binds a variable's name twice, or names one like a ``tf.Module`` attribute; a
    parameter or local is read both by the variables' initial values and by the ops; a random
    value is drawn before a variable is made; the function is used other than called in a
    statement of its own line (passed as a value, called in a lambda or comprehension, by
    another file of the run), or a call passes ``*args`` or computes what ``__init__`` takes by
    a call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.analysis.project_facts import foreign_imports
from tfmodernize.analysis.tf1_api import PLACEHOLDERS, RANDOM_OPS, SESSIONS
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS
from tfmodernize.analysis.variable_calls import creates_opaque_variables, is_variable_maker
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.layout import moved, style_width
from tfmodernize.names import bound_names, fresh_name, name_nodes, names_bound_here, names_read, own_nodes, used_names
from tfmodernize.syntax import ancestors, calls_in, parse_statement, split_docstring
from tfmodernize.tfsymbols import root_name
from tfmodernize.treewalk import walk

#: Optimizer methods building a training step.
TRAINING_METHODS = frozenset({"minimize", "apply_gradients", "compute_gradients"})
#: Words a network function's name may start with before what it makes (``add_layer``).
VERBS = frozenset("add build make create get define compute construct new".split())
#: Nodes whose insides run another number of times than the statement holding them.
REPEATING = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.FunctionDef)


@dataclass
class Network:
    """A network function read: its parts and where it is called."""

    function: cst.FunctionDef
    docstring: list[cst.BaseStatement]
    init: list[cst.BaseStatement]  # the variables and what their initial values need
    apply: list[cst.BaseStatement]  # the rest, in order
    variables: list[str]
    init_params: list[str]
    kept: list[str]  # names both parts read: kept on the object
    calls: list[tuple[cst.Call, cst.SimpleStatementLine]]


class NetworkFunctionToModule(TFCodemod):
    __doc__ = __doc__
    code = "TFM121"
    name = "network-function-to-module"
    summary = "a function making tf.Variables and applying ops to them -> a tf.Module made where it was called"
    needles = ("Variable", "get_variable")  # get-variable-to-variable, run first, makes tf.Variables
    required_text = ("Session",)
    interests = (cst.Call,)
    detects = ("Variable",)
    requires_tf2 = True
    #: session-to-function reads the objects this makes once and calls in its functions.
    runs_before = ("TFM101",)

    def plan(self, module: cst.Module) -> None:
        if not any(self.tf.is_tf(call.func, *SESSIONS) for call in calls_in(module)):
            return
        functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
        makers = _transitively(functions, lambda call: creates_opaque_variables(call, self.tf))
        drawers = _transitively(functions, self._draws)
        foreign = foreign_imports(module, self.state.project)
        parents = self.state.parents(module)
        taken = used_names(module)
        for name, function in functions.items():
            try:
                network = self._read(module, function, makers, drawers, foreign, parents)
            except Decline as decline:
                self.declined(decline, f"`{name}` not made a tf.Module: ")
                continue
            if network is not None:
                self._rewrite(network, taken)

    def _draws(self, call: cst.Call) -> bool:
        symbol = self.tf.tf_symbol(call.func)
        return symbol is not None and (symbol.path in RANDOM_OPS or symbol.path.startswith("random."))

    def _read(
        self,
        module: cst.Module,
        function: cst.FunctionDef,
        makers: set[str],
        drawers: set[str],
        foreign: dict[str, str],
        parents: dict,
    ) -> Optional[Network]:
        name = function.name.value
        docstring, body = split_docstring(list(function.body.body))
        made = [_variable_statement(statement, self.tf) for statement in body]
        variables = [v for v in made if v is not None]
        applies_ops = any(
            self.tf.tf_symbol(call.func) is not None
            for statement, variable in zip(body, made)
            if variable is None
            for call in calls_in(statement)
        )
        if not variables or not applies_ops:
            return None  # no network: a variable factory, or ops only
        if any(self.tf.is_tf(call.func, *SESSIONS, *PLACEHOLDERS) for call in calls_in(function.body)):
            return None  # the program itself, run in a function
        if any(_trains(call, self.tf) for call in calls_in(function.body)):
            return None  # a training step's builder (its global step, its optimizer): no network
        calls = self._calls(module, function, parents)
        if not calls:
            return None
        params = function.params
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg:
            raise Decline(function, "it takes `*args`, `**kwargs` or keyword-only parameters")
        if params.posonly_params or function.decorators or function.asynchronous:
            raise Decline(function, "it is decorated, async or takes positional-only parameters")
        parameters = [p.name.value for p in params.params]
        if "self" in parameters:
            raise Decline(function, "it takes a parameter named `self`")
        inner = [n for n in walk(function.body, code_only=True) if isinstance(n, REPEATING[:1] + (cst.ClassDef,))]
        inner += [n for n in own_nodes(function.body) if isinstance(n, (cst.FunctionDef, cst.Yield, cst.Global))]
        inner += [n for n in own_nodes(function.body) if isinstance(n, cst.Nonlocal)]
        if inner:
            raise Decline(inner[0], "it defines a function, lambda or class, or yields")
        for variable in variables:
            if variable in TF_MODULE_MEMBERS:
                raise Decline(function, f"its variable `{variable}` would hide `tf.Module.{variable}`")
            binders = [n for n in own_nodes(function.body) if variable in names_bound_here(n)]
            if len(binders) != 1 or variable in parameters:
                raise Decline(function, f"it binds `{variable}` more than once")
        # The statements the variables' initial values need: simple assignments before them.
        init_indexes = {i for i, v in enumerate(made) if v is not None}
        needed: set[str] = set()  # read by the variables made after the statement looked at
        for index in reversed(range(len(body))):
            if index not in init_indexes:
                if not bound_names(body[index]) & needed:
                    continue
                if not _plain_assignment(body[index]) or any(self._draws(c) for c in calls_in(body[index])):
                    raise Decline(
                        body[index], "a variable's initial value needs a statement that is no plain assignment"
                    )
                if names_read(body[index]) & set(variables):
                    raise Decline(body[index], "a variable's initial value needs what the ops compute")
                init_indexes.add(index)
            needed |= names_read(body[index]) - set(variables)
        init = [body[i] for i in sorted(init_indexes)]
        apply = [body[i] for i in range(len(body)) if i not in init_indexes]
        locals_made = set().union(*(bound_names(s) for s in init)) - set(variables)
        init_reads = set().union(*(names_read(s) for s in init))
        # (``names_read`` counts the names a statement binds too.)
        apply_names = set().union(set(), *(names_read(s) for s in apply))
        # What both read (``size`` shaping a weight and a reshape) the object keeps: ``self.size``.
        kept = ((init_reads & set(parameters)) | locals_made) & apply_names
        apply_binds = set().union(set(), *(bound_names(s) for s in apply))
        for shared in sorted(kept):
            if shared in apply_binds or shared in TF_MODULE_MEMBERS or shared in variables:
                raise Decline(function, f"`{shared}`, read by the variables' initial values, is bound again by the ops")
        last_init = max(init_indexes)
        for index, statement in enumerate(body[:last_init]):
            if index in init_indexes:
                continue
            for call in calls_in(statement):
                if self._draws(call) or (isinstance(call.func, cst.Name) and call.func.value in drawers):
                    raise Decline(call, "it draws a random value before a variable is made")
        for statement in apply:
            for call in calls_in(statement):
                root = root_name(call.func)
                if creates_opaque_variables(call, self.tf) or (
                    root is not None and (root.value in makers or root.value in foreign)
                ):
                    raise Decline(call, "it creates variables other than by `tf.Variable` statements")
        if self.state.callers and self.state.callers.get(name):
            raise Decline(function, "another file of the run calls it")
        init_params = [p for p in parameters if p in init_reads]
        for call, _ in calls:
            bound = _bind(call, parameters)
            if bound is None:
                raise Decline(call, f"the call passes `*args` or arguments `{name}` has no parameter for")
            for parameter in init_params:
                if parameter in bound and any(isinstance(n, cst.Call) for n in walk(bound[parameter])):
                    raise Decline(
                        call, f"its argument `{parameter}` (made once, with the variables) is computed by a call"
                    )
        return Network(function, docstring, init, apply, variables, init_params, sorted(kept), calls)

    def _calls(
        self, module: cst.Module, function: cst.FunctionDef, parents: dict
    ) -> list[tuple[cst.Call, cst.SimpleStatementLine]]:
        """Each call of ``function`` and its statement line; Decline for any other use."""
        name = function.name.value
        inside = {id(n) for n in walk(function)}
        uses = {id(n) for n in name_nodes(module) if n.value == name and id(n) not in inside}
        found = []
        for node in walk(module, code_only=True):  # in source order
            if id(node) not in uses:
                continue
            call = parents.get(id(node))
            if not isinstance(call, cst.Call) or call.func is not node:
                raise Decline(node, f"`{name}` is used other than called")
            line = None
            for holder in ancestors(call, parents):
                if isinstance(holder, REPEATING):
                    raise Decline(call, "it is called in a lambda, a comprehension or a nested function")
                if isinstance(holder, cst.BaseStatement):
                    line = holder
                    break
            if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
                raise Decline(call, "it is called in a compound statement's header or a line of several statements")
            found.append((call, line))
        return found

    def _rewrite(self, network: Network, taken: set[str]) -> None:
        function = network.function
        name = function.name.value
        if not self.fix(
            function, f"`{name}` makes variables and applies ops: a tf.Module made once where it is called"
        ):
            return
        # (A function named like a class, ``def RNN(x)``, keeps its name for the object.)
        class_name = fresh_name(_camel(name) if _camel(name) != name else f"{name}Module", taken)
        variables = frozenset(network.variables)
        headed = _headed(network)
        # The body (of a module-level function) goes one block deeper, into a method's: kept to
        # the file's width there.
        limit = style_width(self.state.text)

        def moved_in(statement: cst.BaseStatement) -> cst.BaseStatement:
            return _laid_out(statement, limit, 2)

        kept = [parse_statement(f"self.{name} = {name}") for name in network.kept]
        init_params = [p for p in function.params.params if p.name.value in network.init_params]
        apply_params = [p for p in function.params.params if p.name.value not in network.init_params]
        init = cst.FunctionDef(
            cst.Name("__init__"),
            _parameters(init_params),
            cst.IndentedBlock(
                [
                    parse_statement("super().__init__()"),
                    *_opening(moved_in(_on_self(headed.get(id(s), s), variables)) for s in network.init),
                    *kept,
                ]
            ),
        )
        on_call, applied = variables | set(network.kept), network.apply
        apply = cst.FunctionDef(
            cst.Name("__call__"),
            _parameters(apply_params),
            cst.IndentedBlock(_opening(moved_in(_on_self(headed.get(id(s), s), on_call)) for s in applied)),
            leading_lines=[cst.EmptyLine(indent=False)],
        )
        new = cst.ClassDef(
            cst.Name(class_name),
            cst.IndentedBlock([*network.docstring, init, apply]),
            bases=[cst.Arg(self.tf_expr("Module"))],
            leading_lines=function.leading_lines,
        )
        self.replace(function, new)
        for obj, (call, line) in zip(_object_names(network, taken), network.calls):
            named = _named_args(call, function)
            made = cst.Call(cst.Name(class_name), _commas([a for a, p in named if p in network.init_params]))
            # The object is made where the call was, under the comments that were above it.
            making = cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(obj))], made)], leading_lines=line.leading_lines
            )
            self.insert_before(line, [making])
            self.replace(line, lambda updated: updated.with_changes(leading_lines=()))
            keep = [i for i, (_, parameter) in enumerate(named) if parameter not in network.init_params]
            self.replace(
                call,
                lambda updated, obj=obj, keep=keep: updated.with_changes(
                    func=cst.Name(obj), args=_commas([updated.args[i] for i in keep])
                ),
            )


def _object_names(network: Network, taken: set[str]) -> list[str]:
    """The object each call makes: the function's name for one call; for several, the name each
    call binds and what the function makes (``hidden = add_layer(...)`` -> ``hidden_layer``;
    ``layer1_module`` when the name says it already: ``layer1 = new_conv_layer(...)``), or
    numbered (``add_layer_1``) when a call binds no name or the names clash."""
    name = network.function.name.value
    if len(network.calls) == 1:
        return [name]
    parts = name.split("_")
    while len(parts) > 1 and parts[0].lower() in VERBS:
        parts = parts[1:]
    wanted = []
    for _, line in network.calls:
        bound = _first_target(line)
        if bound is None:
            wanted.append("")
        elif parts[-1].lower() in {w.rstrip("0123456789").lower() for w in bound.split("_")}:
            wanted.append(f"{bound}_module")  # not ``layer1_conv_layer``
        else:
            wanted.append(f"{bound}_{'_'.join(parts)}")
    if all(wanted) and len(set(wanted)) == len(wanted) and not set(wanted) & taken:
        taken.update(wanted)
        return wanted
    return [fresh_name(f"{name}_{n}", taken) for n in range(1, len(network.calls) + 1)]


def _first_target(line: cst.SimpleStatementLine) -> Optional[str]:
    """The first name ``line`` binds: ``hidden`` of ``hidden = ...`` or ``hidden, state = ...``."""
    assign = line.body[0]
    if not isinstance(assign, cst.Assign):
        return None
    target = assign.targets[0].target
    if isinstance(target, (cst.Tuple, cst.List)) and target.elements:
        target = target.elements[0].value
    return target.value if isinstance(target, cst.Name) else None


def _variable_statement(statement: cst.BaseStatement, tf) -> Optional[str]:
    """``name`` when ``statement`` is ``name = tf.Variable(...)``."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    assign = statement.body[0]
    if (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and isinstance(assign.value, cst.Call)
        and is_variable_maker(assign.value, tf)
        and tf.tf_symbol(assign.value.func).path == "Variable"
    ):
        return assign.targets[0].target.value
    return None


def _trains(call: cst.Call, tf) -> bool:
    """An optimizer made or applied: ``tf.train.AdamOptimizer(...)``, ``opt.minimize(loss)``."""
    symbol = tf.tf_symbol(call.func)
    if symbol is not None:
        return symbol.path.startswith("train.")
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in TRAINING_METHODS


def _plain_assignment(statement: cst.BaseStatement) -> bool:
    """``a = ...`` / ``a, b = ...`` on a line of its own."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Assign)
    )


def _transitively(functions: dict[str, cst.FunctionDef], test) -> set[str]:
    """The module functions calling (themselves, or through the others) what ``test`` accepts."""
    found = {name for name, f in functions.items() if any(test(call) for call in calls_in(f.body))}
    grown = True
    while grown:
        grown = False
        for name, function in functions.items():
            if name not in found and any(
                isinstance(c.func, cst.Name) and c.func.value in found for c in calls_in(function.body)
            ):
                found.add(name)
                grown = True
    return found


def _bind(call: cst.Call, parameters: list[str]) -> Optional[dict[str, cst.BaseExpression]]:
    """The call's arguments by parameter name; None for ``*args`` or an unknown parameter."""
    bound = {}
    for position, arg in enumerate(call.args):
        if arg.star or (arg.keyword is None and position >= len(parameters)):
            return None
        key = arg.keyword.value if arg.keyword is not None else parameters[position]
        if key not in parameters:
            return None
        bound[key] = arg.value
    return bound


def _named_args(call: cst.Call, function: cst.FunctionDef) -> list[tuple[cst.Arg, str]]:
    parameters = [p.name.value for p in function.params.params]
    return [
        (arg, arg.keyword.value if arg.keyword is not None else parameters[position])
        for position, arg in enumerate(call.args)
    ]


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """``args`` as a call's argument list: ``, `` between them, none after the last."""
    if not args:
        return []
    between = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [*(a.with_changes(comma=between) for a in args[:-1]), args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]


def _parameters(params: list[cst.Param]) -> cst.Parameters:
    every = [cst.Param(cst.Name("self")), *params]
    return cst.Parameters(
        [
            *[p.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for p in every[:-1]],
            every[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT),
        ]
    )


def _on_self(statement: cst.BaseStatement, variables: frozenset[str]) -> cst.BaseStatement:
    """``statement`` reading (and binding) each variable as ``self.<name>``."""
    targets = {id(n) for n in name_nodes(statement) if n.value in variables}

    class OnSelf(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            if id(original) in targets:
                return cst.Attribute(cst.Name("self"), cst.Name(original.value))
            return updated

    return statement.visit(OnSelf())


def _laid_out(statement: cst.BaseStatement, limit: int, depth: int) -> cst.BaseStatement:
    """``statement``, moved ``depth`` blocks deep, kept to ``limit``: its comments and its lines
    wrapped where wider (``layout.moved``), and so the statements of a block it opens."""
    statement = moved(statement, limit, depth)
    body = getattr(statement, "body", None)
    if not isinstance(body, cst.IndentedBlock):
        return statement
    inner = [_laid_out(stmt, limit, depth + 1) for stmt in body.body]
    if all(new is old for new, old in zip(inner, body.body)):
        return statement
    return statement.with_changes(body=body.with_changes(body=inner))


def _headed(network: Network) -> dict[int, cst.BaseStatement]:
    """The statements that get a copy of a heading the other method's statement has, by
    identity, with it above their own lines.

    A heading is the comments above a statement: a section's when a blank line is above them
    (or the statement opens the body), a statement's own otherwise. The first statement of
    the other method after a section's heading gets a copy of it (``# second layer`` heads the
    layer's weights in ``__init__`` and the op applying them in ``__call__``), and a copy of the
    latest statement's own heading since (``# decoder`` above the first decoder weight), unless
    it has its own comments: a comment above one statement goes with that statement only."""
    into_init = {id(s) for s in network.init}
    parts = into_init | {id(s) for s in network.apply}
    body = [s for s in network.function.body.body if id(s) in parts]
    # For each method (``True``: ``__init__``), the headings of the other method it did not show.
    sections: dict[bool, list[cst.EmptyLine]] = {True: [], False: []}
    owns: dict[bool, list[cst.EmptyLine]] = {True: [], False: []}
    headed: dict[int, cst.BaseStatement] = {}
    for position, statement in enumerate(body):
        mine = id(statement) in into_init
        other = not mine
        lines = list(statement.leading_lines)
        heading = any(line.comment is not None for line in lines)
        opens = position == 0 or any(line.comment is None for line in lines)  # a section
        shown = [] if opens else sections[mine] + ([] if heading else owns[mine])
        if opens:
            sections[other], owns[other] = (lines if heading else []), []
        elif heading:
            owns[other] = lines
        sections[mine], owns[mine] = [], []
        if any(line.comment is not None for line in shown):
            copies = [line.deep_clone() for line in shown]
            headed[id(statement)] = statement.with_changes(leading_lines=[*copies, *lines])
    return headed


def _opening(statements) -> list[cst.BaseStatement]:
    """A method body: its first statement without the blank lines above it."""
    body = list(statements)
    if body and not isinstance(body[0], cst.SimpleStatementLine) or not body:
        return body
    lines = list(body[0].leading_lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return [body[0].with_changes(leading_lines=lines), *body[1:]]


def _camel(name: str) -> str:
    """``build_ANN`` -> ``BuildANN``, ``add_layer`` -> ``AddLayer``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part) or "Network"
