"""TFM121 network-function-to-module.

What it does
    Turns a module function that makes ``tf.Variable`` s and applies ops to them in one call
    (``def add_layer(inputs, n_in, n_out): W = tf.Variable(...); return tf.matmul(inputs, W)``)
    into a ``tf.Module`` class: ``__init__`` makes the variables (with the statements their
    initial values need, and the parameters those read), ``__call__`` applies the ops (the other
    statements, the other parameters), the variables read as ``self.W``. Each call
    ``out = add_layer(x, 3, 4)`` becomes the object made right before it, where the variables
    were made, and the object called: ``add_layer = AddLayer(3, 4)`` then ``out = add_layer(x)``
    (several calls name each object after the scope name its call passes, ``name="hidden"`` ->
    ``hidden_layer``, else after what it binds first and what the function makes:
    ``hidden = add_layer(...)`` -> ``hidden_layer``, ``layer1 = new_conv_layer(...)`` ->
    ``layer1_module``; numbered, ``add_layer_1``, only when a call has neither or the names
    clash). A comment goes with its statement: above a variable it
    stays in ``__init__``, above an op it goes to ``__call__``, and above the call it heads the
    object made there. A section's heading (comments after a blank line, or opening the body)
    heads the section's first statement in the other method too, and so does the latest
    statement comment since (``# decoder`` above the first decoder weight), unless that
    statement has comments of its own. A function making its variables only by calling such
    functions on lines of its body (``def encoder(x): h = tf.nn.relu(dense(x, 784, 64)); return
    dense(h, 64, 8)``, ``dense`` making ``tf.Variable`` s, or ``tf.get_variable`` s that
    get-variable-to-variable made ones) becomes a module owning one sub-module per call:
    ``__init__`` makes them in the order of the calls (``self.h_dense = Dense(784, 64)``), with
    the parameters their arguments read, and ``__call__`` is the body calling them
    (``self.h_dense(x)``); such functions may call each other, also in the blocks of their name
    scopes or of variable scopes given a name alone (name scopes in ``__call__``). A network
    sharing its variables through ``reuse`` in the known shape (``def encoder(x, reuse=False):``
    opening with ``if reuse: tf.get_variable_scope().reuse_variables()``, called again with
    ``reuse=True`` in a ``with tf.variable_scope(tf.get_variable_scope()):`` block; or called
    twice in ``with tf.variable_scope("name") as scope:`` around ``scope.reuse_variables()``)
    loses that prologue, its ``reuse`` parameter and those blocks: each reusing call calls the
    object its first call made. It only rewrites a session
    program, and runs before session-to-function, which then makes each object once at top
    level and calls it in its functions.

Why it matters
    A TF2 function may create variables only while first traced: a network function called in
    a ``tf.function`` would make new variables at every trace, so session-to-function declines
    the graph (``variable `out` is initialised from `x`, which changes from run to run``). A
    module makes its variables once, where TF1 made them, and its call only applies the ops; its
    ``trainable_variables`` list them for a ``GradientTape``. A function calling a layer
    helper makes the helper's variables each time it runs just the same: it needs to be a
    module too, owning the helper's.

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

    (A function calling it on lines of its body, ``def net(x): h = add_layer(x, 3, 4); return
    add_layer(h, 4, 1)``, becomes ``class Net(tf.Module)`` whose ``__init__`` makes
    ``self.add_layer_1 = AddLayer(3, 4)`` and ``self.add_layer_2 = AddLayer(4, 1)`` and whose
    ``__call__`` calls them.)

Fix safety
    The same variables are made, in the same order, with the same names and initial values, at
    the same point of the program, and the same ops are applied to them: the rewrite changes no
    value under TF1 or TF2. Only the order of the ops inside one call changes (the variables
    first), which no value depends on: a call drawing random values before a variable is made is
    left as it is, and so is one whose line draws a random value before calling it. A
    composite's sub-modules are made in the order its calls made their variables, before its
    ops, so only when nothing random is drawn before the last one is made (by its ops, or by a
    sub-module's call). Each call of a composite made new variables for every call in it:
    ``tf.Variable`` reads no ``reuse`` (a file naming one keeps its ``tf.get_variable`` s, and a
    function making them is no network here), but in the known shape, where a reusing call
    looked up, by the same names, the variables its network's first call made (same arguments
    to the sub-modules, the same scopes): it calls that call's object, holding them.

Declines when
    the function takes ``*args``, keyword-only parameters or ``self``, is decorated, defines
    functions or lambdas, creates variables other ways (``tf.get_variable``, layers, a function
    that does), binds a variable's name twice, or names one like a ``tf.Module`` attribute; a
    parameter or local is read both by the variables' initial values and by the ops; a random
    value is drawn before a variable is made; the function is used other than called in a
    statement of its own line (passed as a value, called in a lambda or comprehension, by
    another file of the run), or a call passes ``*args``, computes what ``__init__`` takes by a
    call, or is on a line drawing a random value before it (``f(tf.nn.dropout(x, 0.5))``: the
    object, made before the line, would make its variables first). A function calling network
    functions stays a function (their objects made where it calls them, as in a program's
    function), with a finding, when one of those calls is in a block, a lambda or a
    comprehension of its body, or beside another in one statement, when what it passes to their
    ``__init__`` reads what the ops compute or is computed by a call, when it draws a random
    value before the last sub-module is made (or a sub-module but the last draws one when
    called), or when it makes variables other ways too. Networks sharing through ``reuse`` are
    all left (a finding) when one of them is no such module or a reusing call passes its
    sub-modules other arguments than the first call; sharing of another shape (``reuse=``
    given a runtime value, a reusing call outside such a block or before any call made the
    variables, variables asked for after the reuse in its block, ``AUTO_REUSE`` over two
    calls naming one scope, a scope
    reused by hand) is not read: the file keeps its ``tf.get_variable`` s.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.analysis.project_facts import foreign_imports
from tfmodernize.analysis.tf1_api import PLACEHOLDERS, RANDOM_OPS, SESSIONS
from tfmodernize.analysis.tf_objects import TF_MODULE_MEMBERS
from tfmodernize.analysis.variable_calls import creates_opaque_variables
from tfmodernize.analysis.variable_reuse import read_shared_networks, reusing_block
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.network_function_to_module import writing
from tfmodernize.codemods.migrate.network_function_to_module.composite import Composite, Maker, Reading, read_composite
from tfmodernize.codemods.migrate.network_function_to_module.plan import (
    REPEATING,
    Network,
    bind,
    named_args,
    plain_assignment,
    trains,
    transitively,
    variable_statement,
    without_own_comment,
)
from tfmodernize.layout import style_width
from tfmodernize.names import bound_names, fresh_name, name_nodes, names_bound_here, names_read, own_nodes, used_names
from tfmodernize.names import object_names, scope_label
from tfmodernize.syntax import ancestors, calls_in, parse_statement, split_docstring
from tfmodernize.tfsymbols import root_name
from tfmodernize.treewalk import walk


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
        self._functions = functions
        makers = transitively(functions, lambda call: creates_opaque_variables(call, self.tf))
        drawers = transitively(functions, self._draws)
        foreign = foreign_imports(module, self.state.project)
        parents = self.state.parents(module)
        self._shared = read_shared_networks(module, self.tf, parents)
        reading = Reading(self.tf, self._draws, drawers, makers, foreign, parents, self._shared)
        # The functions calling those making tf.Variables on lines of their own (or calling such
        # callers) may be composites: their calls of them are sub-modules. A caller that is no
        # composite leaves the calls in it to the network it calls: read again without it.
        own = {n for n, f in functions.items() if any(variable_statement(s, self.tf) for s in f.body.body)}
        hosts = transitively(
            {n: f for n, f in functions.items() if n not in own},
            lambda call: isinstance(call.func, cst.Name) and call.func.value in own,
        )
        not_composites = []  # (a caller found no composite stays so)
        while True:
            networks, composites, declines = self._read_all(module, functions, hosts, reading)
            not_composites += [(name, decline) for name, decline in declines if name in hosts]
            if set(composites) == hosts:
                break
            hosts = set(composites)
        for name, decline in [*not_composites, *(d for d in declines if d[0] not in hosts)]:
            self.declined(decline, f"`{name}` not made a tf.Module: ")
        if self._shared is not None and not self._reuse_followed(composites):
            return
        taken = used_names(module)
        class_names = {}
        for name in [n for n in functions if n in networks or n in composites]:
            # (A function named like a class, ``def RNN(x)``, keeps its name for the object.)
            class_names[name] = fresh_name(
                writing.camel_case(name) if writing.camel_case(name) != name else f"{name}Module", taken
            )
        for name, (network, calls) in networks.items():
            self._rewrite(network, calls, class_names[name], taken)
        for name, (composite, calls) in composites.items():
            self._rewrite_composite(composite, calls, class_names, taken)
        if self._shared is not None:
            for wrapper in self._shared.wrappers:
                self._unwrap(wrapper)
            for block in self._shared.blocks:
                self._unwrap(block, reusing_block(block, self.tf))
            self.discharge()  # get-variable-to-variable's helpers, made new at each call

    def _reuse_parameter(self, function: cst.FunctionDef) -> tuple[str, ...]:
        """``("reuse",)`` for a network sharing through it, whose calls and module drop it."""
        shared = self._shared
        _, body = split_docstring(list(function.body.body))
        return ("reuse",) if shared is not None and body and id(body[0]) in shared.prologues else ()

    def _reuse_followed(self, composites: dict) -> bool:
        """Whether every network sharing through ``reuse`` becomes a module whose reusing calls
        pass what its first call made the sub-modules with; else nothing is rewritten (a reusing
        call would make new variables), with a finding."""
        shared = self._shared
        for name in sorted(shared.networks):
            if name not in composites:
                return self._decline_reuse(name, "it is not made a tf.Module owning its layers")
            composite, calls = composites[name]
            for call, _ in calls:
                first = shared.reusing.get(id(call))
                if first is None:
                    continue
                given = bind(call, [p.name.value for p in composite.function.params.params])
                made = bind(first, [p.name.value for p in composite.function.params.params])
                for parameter in composite.init_params:
                    if (parameter in given) != (parameter in made) or (
                        parameter in given and not given[parameter].deep_equals(made[parameter])
                    ):
                        return self._decline_reuse(name, f"its `reuse=True` call passes another `{parameter}`")
        return True

    def _decline_reuse(self, name: str, why: str) -> bool:
        decline = Decline(self._functions[name], f"it shares its variables through `reuse`, and {why}")
        self.declined(decline, f"`{name}` not made a tf.Module: ")
        return False

    def _unwrap(self, wrapper: cst.With, reuse_line: Optional[cst.SimpleStatementLine] = None) -> None:
        """``with tf.variable_scope(tf.get_variable_scope()):`` goes, its lines kept: it only
        ended the reuse its block switched on, and the reusing calls call objects now; so does
        ``with tf.variable_scope("name") as scope:`` and its ``scope.reuse_variables()`` line
        (the variables' names lose the scope's prefix)."""

        def lines(updated: cst.With) -> cst.FlattenSentinel:
            statements = list(updated.body.body)
            at = next((i for i, s in enumerate(statements) if reuse_line and s.deep_equals(reuse_line)), None)
            if at is not None:  # (its own comment goes with it; what heads a section stays)
                dropped = statements.pop(at)
                if at < len(statements):
                    kept = without_own_comment(dropped.leading_lines)
                    leading = [*kept, *statements[at].leading_lines]
                    statements[at] = statements[at].with_changes(leading_lines=leading)
            first, *rest = statements
            leading = [*wrapper.leading_lines, *first.leading_lines]
            return cst.FlattenSentinel([first.with_changes(leading_lines=leading), *rest])

        self.replace(wrapper, lines)

    def _read_all(self, module: cst.Module, functions: dict, hosts: set[str], reading: Reading):
        """The networks and the composites (among ``hosts``, whose calls of networks are their
        sub-modules), each with its calls, and the declines, by function name."""
        networks, composites, declines = {}, {}, []
        for name, function in functions.items():
            if name in hosts:
                continue
            try:
                network = self._read(module, function, hosts, reading)
            except Decline as decline:
                declines.append((name, decline))
                continue
            if network is not None:
                networks[name] = network
        made = {
            name: Maker(n.function, tuple(n.init_params), self._draws_when_called(n.apply, reading))
            for name, (n, _) in networks.items()
        }
        waiting = [n for n in functions if n in hosts]
        while waiting:
            ready = [
                n
                for n in waiting
                if not any(
                    isinstance(c.func, cst.Name) and c.func.value in waiting for c in calls_in(functions[n].body)
                )
            ] or waiting  # (functions calling each other: read, and declined)
            for name in ready:
                waiting.remove(name)
                function = functions[name]
                try:
                    composite = read_composite(function, made, reading)
                    calls = self._calls(module, function, reading.parents, hosts) if composite else None
                    if composite is not None:
                        self._check_calls(function, composite.init_params, calls[0], reading)
                except Decline as decline:
                    declines.append((name, decline))
                    continue
                if composite is not None and (calls[0] or calls[1]):
                    composites[name] = (composite, calls[0])
                    body = [*composite.body]
                    draws = self._draws_when_called(body, reading) or any(
                        p.maker.draws_when_called for p in composite.parts
                    )
                    made[name] = Maker(function, tuple(composite.init_params), draws)
        return networks, composites, declines

    def _draws_when_called(self, statements: list[cst.BaseStatement], reading: Reading) -> bool:
        return any(
            reading.draws(call) or (isinstance(call.func, cst.Name) and call.func.value in reading.drawers)
            for statement in statements
            for call in calls_in(statement)
        )

    def _check_calls(self, function: cst.FunctionDef, init_params, calls, reading: Reading) -> None:
        """Declines a call passing ``*args``, computing an argument ``__init__`` takes by a call,
        or on a line drawing a random value other than after it (``f(tf.nn.dropout(x, 0.5))``):
        its object, made before the line, makes the variables before that value, not after."""
        parameters = [p.name.value for p in function.params.params]
        for call, line in calls:
            after = {id(n) for n in ancestors(call, reading.parents)} | {id(call)}
            for other in calls_in(line):
                if id(other) not in after and (
                    self._draws(other) or (isinstance(other.func, cst.Name) and other.func.value in reading.drawers)
                ):
                    raise Decline(call, "its line draws a random value before the call makes the variables")
            bound = bind(call, parameters)
            if bound is None:
                raise Decline(
                    call, f"the call passes `*args` or arguments `{function.name.value}` has no parameter for"
                )
            for parameter in init_params:
                if parameter in bound and any(isinstance(n, cst.Call) for n in walk(bound[parameter])):
                    raise Decline(
                        call, f"its argument `{parameter}` (made once, with the variables) is computed by a call"
                    )

    def _draws(self, call: cst.Call) -> bool:
        symbol = self.tf.tf_symbol(call.func)
        return symbol is not None and (symbol.path in RANDOM_OPS or symbol.path.startswith("random."))

    def _read(
        self,
        module: cst.Module,
        function: cst.FunctionDef,
        hosts: set[str],
        reading: Reading,
    ) -> Optional[tuple[Network, list]]:
        name = function.name.value
        makers, drawers, foreign, parents = reading.makers, reading.drawers, reading.foreign, reading.parents
        docstring, body = split_docstring(list(function.body.body))
        made = [variable_statement(statement, self.tf) for statement in body]
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
        if any(trains(call, self.tf) for call in calls_in(function.body)):
            return None  # a training step's builder (its global step, its optimizer): no network
        calls, hosted = self._calls(module, function, parents, hosts)
        if not calls and not hosted:
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
                if not plain_assignment(body[index]) or any(self._draws(c) for c in calls_in(body[index])):
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
        self._check_calls(function, init_params, calls, reading)
        return Network(function, docstring, init, apply, variables, init_params, sorted(kept)), calls

    def _calls(
        self, module: cst.Module, function: cst.FunctionDef, parents: dict, hosts: set[str]
    ) -> tuple[list[tuple[cst.Call, cst.SimpleStatementLine]], int]:
        """Each call of ``function`` and its statement line, but those in ``hosts`` (the
        composites calling it, whose sub-modules they are: counted); Decline for any other use."""
        name = function.name.value
        inside = {id(n) for n in walk(function)}
        uses = {id(n) for n in name_nodes(module) if n.value == name and id(n) not in inside}
        found, hosted = [], 0
        for node in walk(module, code_only=True):  # in source order
            if id(node) not in uses:
                continue
            call = parents.get(id(node))
            if not isinstance(call, cst.Call) or call.func is not node:
                raise Decline(node, f"`{name}` is used other than called")
            host = next((a for a in ancestors(call, parents) if isinstance(a, cst.FunctionDef)), None)
            if host is not None and host.name.value in hosts and parents.get(id(host)) is module:
                hosted += 1
                continue
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
        return found, hosted

    def _rewrite(self, network: Network, calls: list, class_name: str, taken: set[str]) -> None:
        function = network.function
        name = function.name.value
        if not self.fix(
            function, f"`{name}` makes variables and applies ops: a tf.Module made once where it is called"
        ):
            return
        variables = frozenset(network.variables)
        heads = writing.headed(network)
        # The body (of a module-level function) goes one block deeper, into a method's: kept to
        # the file's width there.
        limit = style_width(self.state.text)

        def moved_in(statement: cst.BaseStatement) -> cst.BaseStatement:
            return writing.laid_out(statement, limit, 2)

        kept = [parse_statement(f"self.{name} = {name}") for name in network.kept]
        init_params = [p for p in function.params.params if p.name.value in network.init_params]
        apply_params = [p for p in function.params.params if p.name.value not in network.init_params]
        init = [moved_in(writing.on_self(heads.get(id(s), s), variables)) for s in network.init]
        on_call = variables | set(network.kept)
        applied = [moved_in(writing.on_self(heads.get(id(s), s), on_call)) for s in network.apply]
        self.replace(
            function,
            self._module_class(
                class_name, function, network.docstring, init_params, [*init, *kept], apply_params, applied
            ),
        )
        self._make_objects(function, class_name, network.init_params, calls, taken)

    def _rewrite_composite(self, composite: Composite, calls: list, class_names: dict, taken: set[str]) -> None:
        function = composite.function
        name = function.name.value
        if not self.fix(
            function,
            f"`{name}` makes its variables by calling network functions: a tf.Module owning one per call, "
            "made once where it is called",
        ):
            return
        limit = style_width(self.state.text)
        made = [
            cst.SimpleStatementLine(
                [
                    cst.Assign(
                        [cst.AssignTarget(cst.Attribute(cst.Name("self"), cst.Name(part.attribute)))],
                        cst.Call(
                            cst.Name(class_names[part.maker.function.name.value]),
                            writing.commas([a.deep_clone() for a in part.init_args]),
                        ),
                    )
                ]
            )
            for part in composite.parts
        ]
        kept = [parse_statement(f"self.{name} = {name}") for name in composite.kept]
        parts = {id(part.call): part for part in composite.parts}
        reads = composite.kept_reads
        scopes = composite.variable_scopes
        name_scope = self.tf_expr("name_scope") if scopes else None

        class OnSelf(cst.CSTTransformer):
            def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
                if id(original) in reads:
                    return cst.Attribute(cst.Name("self"), cst.Name(original.value))
                return updated

            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                if id(original) in scopes:  # (the variables are the sub-modules', made in __init__)
                    return updated.with_changes(func=name_scope.deep_clone())
                part = parts.get(id(original))
                if part is None:
                    return updated
                return updated.with_changes(
                    func=cst.Attribute(cst.Name("self"), cst.Name(part.attribute)),
                    args=writing.commas([updated.args[i] for i in part.call_args]),
                )

        applied = [writing.laid_out(s.visit(OnSelf()), limit, 2) for s in composite.body]
        init_params = [p for p in function.params.params if p.name.value in composite.init_params]
        apply_params = [
            p
            for p in function.params.params
            if p.name.value not in composite.init_params and p.name.value not in self._reuse_parameter(function)
        ]
        self.replace(
            function,
            self._module_class(
                class_names[name], function, composite.docstring, init_params, [*made, *kept], apply_params, applied
            ),
        )
        self._make_objects(function, class_names[name], composite.init_params, calls, taken)

    def _module_class(
        self,
        class_name: str,
        function: cst.FunctionDef,
        docstring: list[cst.BaseStatement],
        init_params: list[cst.Param],
        init: list[cst.BaseStatement],
        apply_params: list[cst.Param],
        applied: list[cst.BaseStatement],
    ) -> cst.ClassDef:
        """``class <class_name>(tf.Module)``, in ``function``'s place, made of these methods."""
        init_method = cst.FunctionDef(
            cst.Name("__init__"),
            writing.parameters(init_params),
            cst.IndentedBlock([parse_statement("super().__init__()"), *writing.opening(init)]),
        )
        call_method = cst.FunctionDef(
            cst.Name("__call__"),
            writing.parameters(apply_params),
            cst.IndentedBlock(writing.opening(applied)),
            leading_lines=[cst.EmptyLine(indent=False)],
        )
        return cst.ClassDef(
            cst.Name(class_name),
            cst.IndentedBlock([*docstring, init_method, call_method]),
            bases=[cst.Arg(self.tf_expr("Module"))],
            leading_lines=function.leading_lines,
        )

    def _make_objects(
        self, function: cst.FunctionDef, class_name: str, init_params: list[str], calls: list, taken: set[str]
    ) -> None:
        """Each call ``out = f(x, 3, 4)``: the object made right before it, and called; a call
        reusing the variables (``reuse=True``) calls the object made by the call that made them."""
        reusing = self._shared.reusing if self._shared is not None else {}
        making = [(call, line) for call, line in calls if id(call) not in reusing]
        labels = [scope_label(call, function) for call, _ in making]
        names = dict(
            zip(
                (id(c) for c, _ in making),
                object_names(function.name.value, [held for _, held in making], taken, labels),
            )
        )
        dropped = self._reuse_parameter(function)
        for call, line in calls:
            named = named_args(call, function)
            keep = [i for i, (_, p) in enumerate(named) if p not in init_params and p not in dropped]
            if id(call) in reusing:
                obj = names[id(reusing[id(call)])]
                self.replace(
                    call,
                    lambda updated, obj=obj, keep=keep: updated.with_changes(
                        func=cst.Name(obj), args=writing.commas([updated.args[i] for i in keep])
                    ),
                )
                continue
            obj = names[id(call)]
            made = cst.Call(cst.Name(class_name), writing.commas([a for a, p in named if p in init_params]))
            # The object is made where the call was, under the comments that were above it.
            making = cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(obj))], made)], leading_lines=line.leading_lines
            )
            self.insert_before(line, [making])
            self.replace(line, lambda updated: updated.with_changes(leading_lines=()))
            self.replace(
                call,
                lambda updated, obj=obj, keep=keep: updated.with_changes(
                    func=cst.Name(obj), args=writing.commas([updated.args[i] for i in keep])
                ),
            )
