"""TFM102 minimize-to-tape.

What it does
    Inside a function (typically the ``@tf.function`` train step session-to-function made),
    rewrites ``train_op = opt.minimize(loss, var_list=..., global_step=...)`` to a
    ``tf.GradientTape`` around the statements that compute ``loss``, ``tape.gradient`` and
    ``opt.apply_gradients``; ``opt.compute_gradients(loss)`` becomes the same list of
    ``(gradient, variable)`` pairs taken from a tape, so whatever the code does between it and
    ``apply_gradients`` (clipping, scaling) is kept. The ``tf.train.XOptimizer`` becomes the
    Keras optimizer with the same hyper-parameters, writing out every default that differs
    (table: ``tfmodernize/data/optimizers.json``). Without ``var_list`` the variables are
    written out: the module's trainable variables in creation order. ``global_step`` is
    incremented after the update, as TF1 did. A learning rate decayed by
    ``tf.train.exponential_decay`` (or inverse-time, polynomial, piecewise-constant, cosine
    decay) of that step becomes the Keras schedule, when the step starts at 0 and only this
    update increments it. ``with tf.control_dependencies(UPDATE_OPS)`` around ``minimize``
    goes when nothing in the file adds update ops.

Why it matters
    ``tf.compat.v1.train`` optimizers only work on graph tensors; TF2 code computes gradients
    with a tape and updates with a Keras optimizer. The Keras defaults differ from TF1's (Adam
    and Adadelta ``epsilon`` 1e-7 instead of 1e-8, Adagrad adds an epsilon TF1 does not), so a
    bare class swap changes the training numbers. TF1's RMSPropOptimizer starts its
    accumulators at 1 and Keras RMSprop at 0: the Keras optimizer is built on the variables it
    trains right after the training function and those slots are set to 1; where the variables
    cannot be named there, the rewrite is only an unsafe fix.
    The fixtures train each optimizer for several steps in TF1 and in TF2 and compare the
    losses and weights.

Before
    opt = tf.train.AdamOptimizer(0.01)

    @tf.function
    def train_step(x, y):
        pred = tf.matmul(x, W) + b
        cost = tf.reduce_mean(tf.square(pred - y))
        train_op = opt.minimize(cost)
        return cost

After
    opt = tf.keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-08)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            pred = tf.matmul(x, W) + b
            cost = tf.reduce_mean(tf.square(pred - y))
        gradients = tape.gradient(cost, [W, b])
        opt.apply_gradients(zip(gradients, [W, b]))
        return cost

Fixtures: ``fixtures/minimize-to-tape/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from codemods import _training as training
from codemods._tf_function import traced_functions
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.syntax import source

METHODS = ("minimize", "compute_gradients", "apply_gradients")
#: Arguments of ``minimize``/``compute_gradients`` that only steer graph scheduling or devices.
SCHEDULING = ("gate_gradients", "aggregation_method", "colocate_gradients_with_ops", "name")


@dataclass
class Site:
    """One ``opt.minimize/compute_gradients/apply_gradients`` statement in a function body."""

    function: cst.FunctionDef
    position: int  # index in the function body
    top: int  # index of the module-level statement holding the function
    method: str
    call: cst.Call
    line: cst.SimpleStatementLine
    target: Optional[str]
    receiver: cst.BaseExpression
    replacement: list[cst.BaseStatement] = field(default_factory=list)
    taped: bool = False  # the statements before it go into a tape
    keep_statement: bool = False  # only ``call`` is replaced, by ``call_replacement``
    #: ``with tf.control_dependencies(deps):`` holding the statement, if any, and whether the
    #: dependencies are provably empty (then the block goes).
    dependencies: Optional[cst.With] = None
    drop_dependencies: bool = False
    call_replacement: Optional[str] = None
    tape_name: str = "tape"
    #: the variables it differentiates, as code (minimize / compute_gradients)
    variables: Optional[str] = None


@dataclass
class Optimizer:
    """A ``tf.train.XOptimizer(...)`` and every statement that uses it."""

    tf1_class: str
    call: cst.Call
    name: Optional[str]  # module-level name; None for one made inside a function
    sites: list[Site] = field(default_factory=list)
    #: For ``opt = tf.train.X(...)`` inside a function: that function, the statement's index
    #: and the local name. The Keras optimizer moves to module level (it owns variables).
    function: Optional[cst.FunctionDef] = None
    position: Optional[int] = None
    local_name: Optional[str] = None
    planned_hoist: bool = False
    problem: Optional[tuple[cst.CSTNode, str]] = None
    hoisted_name: str = "optimizer"
    #: (name of the TF1 learning-rate tensor, the Keras schedule replacing it)
    schedule: Optional[tuple[str, cst.Call]] = None
    #: Statements (function, index) that go once the optimizer is migrated.
    removals: list[tuple[cst.FunctionDef, int]] = field(default_factory=list)


def _arguments(call: cst.Call, positions: tuple[str, ...]) -> Optional[dict[str, cst.BaseExpression]]:
    found: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is not None:
            found[arg.keyword.value] = arg.value
        elif index < len(positions):
            found[positions[index]] = arg.value
        else:
            return None
    return found


def _assignment(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


class _LatestBinding:
    """Module-level optimizer bindings by name; a use belongs to the latest binding before it."""

    def __init__(self, bindings: dict[str, list[tuple[int, Optimizer]]]) -> None:
        self._bindings = bindings

    def at(self, name: str, index: int) -> Optional[Optimizer]:
        """The optimizer ``name`` is bound to when module statement ``index`` runs."""
        before = [optimizer for bound, optimizer in self._bindings.get(name, ()) if bound < index]
        return before[-1] if before else None

    def named(self, name: str) -> list[Optimizer]:
        return [optimizer for _, optimizer in self._bindings.get(name, ())]

    def all(self) -> list[Optimizer]:
        return [optimizer for bound in self._bindings.values() for _, optimizer in bound]


class MinimizeToTape(TFCodemod):
    __doc__ = __doc__
    code = "TFM102"
    name = "minimize-to-tape"
    summary = "tf.train optimizer minimize/compute_gradients -> GradientTape + Keras optimizer"
    needles = METHODS
    interests = (cst.Call,)
    requires_tf2 = True

    @classmethod
    def detect(cls, node: cst.CSTNode, names) -> bool:
        assert isinstance(node, cst.Call)
        return isinstance(node.func, cst.Attribute) and node.func.attr.value in METHODS

    # -- analysis ---------------------------------------------------------------------------

    def _tf1_optimizer(self, node: cst.CSTNode) -> Optional[str]:
        if not isinstance(node, cst.Call):
            return None
        symbol = self.tf.tf_symbol(node.func)
        if symbol is None or not symbol.path.startswith("train."):
            return None
        tf1_class = symbol.path[len("train."):]
        return tf1_class if tf1_class in training.optimizer_table() else None

    def visit_Module(self, node: cst.Module) -> bool:
        self._module = node
        self._keras_calls: dict[cst.Call, cst.Call] = {}
        self._calls: dict[cst.Call, cst.BaseExpression] = {}
        self._bodies: dict[cst.FunctionDef, dict[int, Site]] = {}
        self._hoisted: dict[int, list[cst.BaseStatement]] = {}
        #: statements to put after the module statement of that index
        self._after: dict[int, list[cst.BaseStatement]] = {}
        self._removed: dict[cst.FunctionDef, set[int]] = {}
        all_calls = list(training.calls(node))
        # Every rewrite is planned here; with no plan the traversal is skipped (it would cost
        # about a parse and change nothing).
        if not any(self._tf1_optimizer(call) for call in all_calls):
            return False
        graph = training.graph_program(node, self.tf)
        if graph is not None:
            for call in all_calls:
                if isinstance(call.func, cst.Attribute) and call.func.attr.value in METHODS:
                    self.report(call, f"`{call.func.attr.value}` not migrated: the file is still a TF1 graph "
                                      f"program (it uses `{graph}`); session-to-function migrates it first")
            return False
        self._inventory = training.inventory(node, self.tf)
        self._taken = training.used_names(node)
        self._globals = training.module_bindings(node)
        self._traced = traced_functions(node, self.tf)
        optimizers = self._optimizers(node)
        taped: dict[cst.FunctionDef, int] = {}
        for site in (site for optimizer in optimizers for site in optimizer.sites if site.method != "apply_gradients"):
            taped[site.function] = taped.get(site.function, 0) + 1
        self._crowded = {function for function, count in taped.items() if count > 1}
        for optimizer in optimizers:
            self._plan(optimizer)
        return bool(self._keras_calls or self._calls or self._bodies or self._hoisted or self._after)

    def _optimizers(self, module: cst.Module) -> list[Optimizer]:
        # A module-level name may be bound to a new optimizer for each model a program builds
        # (one per graph): a function's sites belong to the binding made before the function.
        bindings: dict[str, list[tuple[int, Optimizer]]] = {}
        for index, statement in enumerate(module.body):
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (isinstance(small, cst.Assign) and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)):
                    tf1_class = self._tf1_optimizer(small.value)
                    if tf1_class is not None:
                        assert isinstance(small.value, cst.Call)
                        name = small.targets[0].target.value
                        bindings.setdefault(name, []).append((index, Optimizer(tf1_class, small.value, name)))
        by_name = _LatestBinding(bindings)
        inline: list[Optimizer] = []
        receivers: set[int] = set()
        for top, function in training.functions(module):
            if not isinstance(function.body, cst.IndentedBlock):
                continue
            local: dict[str, Optimizer] = {}
            for position, line in enumerate(function.body.body):
                constructor = self._local_constructor(line)
                if constructor is not None:
                    name, tf1_class, call = constructor
                    local[name] = Optimizer(tf1_class, call, None, function=function, position=position, local_name=name)
                    continue
                site = self._site(function, position, top, line)
                if site is None:
                    continue
                if isinstance(site.receiver, cst.Name) and site.receiver.value in local:
                    local[site.receiver.value].sites.append(site)
                    receivers.add(id(site.receiver))
                elif isinstance(site.receiver, cst.Name) and by_name.at(site.receiver.value, top) is not None:
                    by_name.at(site.receiver.value, top).sites.append(site)
                    receivers.add(id(site.receiver))
                elif site.method == "minimize" and self._tf1_optimizer(site.receiver):
                    assert isinstance(site.receiver, cst.Call)
                    optimizer = Optimizer(self._tf1_optimizer(site.receiver), site.receiver, None, [site])
                    inline.append(optimizer)
            for optimizer in local.values():
                self._other_local_uses(optimizer, receivers)
                inline.append(optimizer)
        self._other_uses(module, by_name, receivers)
        return [*by_name.all(), *inline]

    def _local_constructor(self, line: cst.BaseStatement) -> Optional[tuple[str, str, cst.Call]]:
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            return None
        small = line.body[0]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            return None
        tf1_class = self._tf1_optimizer(small.value)
        if tf1_class is None:
            return None
        assert isinstance(small.value, cst.Call)
        return small.targets[0].target.value, tf1_class, small.value

    def _other_local_uses(self, optimizer: Optimizer, receivers: set[int]) -> None:
        assert optimizer.function is not None and optimizer.position is not None
        for position, line in enumerate(optimizer.function.body.body):
            if position == optimizer.position:
                continue
            for node in training.walk(line):
                if isinstance(node, cst.Name) and node.value == optimizer.local_name and id(node) not in receivers:
                    optimizer.problem = (node, f"`{node.value}` is used here in a way minimize-to-tape does not rewrite")
                    return
        if not optimizer.sites:
            optimizer.problem = (optimizer.call, f"`{optimizer.local_name}` is not used by any statement minimize-to-tape rewrites")

    def _site(self, function: cst.FunctionDef, position: int, top: int, line: cst.BaseStatement) -> Optional[Site]:
        if (isinstance(line, cst.With) and len(line.items) == 1 and isinstance(line.items[0].item, cst.Call)
                and self.tf.is_tf(line.items[0].item.func, "control_dependencies")
                and isinstance(line.body, cst.IndentedBlock) and len(line.body.body) == 1):
            site = self._site(function, position, top, line.body.body[0])
            if site is not None and not site.keep_statement:
                site.dependencies = line
            return site
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        small = line.body[0]
        inner = [c for c in training.calls(small) if isinstance(c.func, cst.Attribute)
                 and c.func.attr.value == "compute_gradients"]
        if len(inner) == 1 and not (isinstance(small, (cst.Assign, cst.Expr)) and small.value is inner[0]):
            call = inner[0]
            return Site(function, position, top, "compute_gradients", call, line, None, call.func.value,
                        keep_statement=True)
        target = None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            target, value = small.targets[0].target.value, small.value
        elif isinstance(small, cst.Expr):
            value = small.value
        else:
            return None
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value in METHODS):
            return None
        return Site(function, position, top, value.func.attr.value, value, line, target, value.func.value)

    def _other_uses(self, module: cst.Module, by_name: "_LatestBinding", receivers: set[int]) -> None:
        """An optimizer used anywhere but its constructor and recognised sites stays TF1."""
        if not by_name.all():
            return
        constructors = {id(o.call) for o in by_name.all()}
        targets = {
            id(target.target)
            for node in training.walk(module) if isinstance(node, cst.Assign) and id(node.value) in constructors
            for target in node.targets
        }
        for node in training.walk(module):
            if not isinstance(node, cst.Name) or id(node) in receivers or id(node) in targets:
                continue
            for optimizer in by_name.named(node.value):
                if optimizer.problem is not None:
                    continue
                optimizer.problem = (node, f"`{node.value}` is used here in a way minimize-to-tape does not rewrite "
                                           "(only `minimize`, `compute_gradients` and `apply_gradients` statements "
                                           "in a function body)")

    def _plan(self, optimizer: Optimizer) -> None:
        keras, why = training.keras_optimizer(optimizer.call, optimizer.tf1_class)
        if keras is None:
            self.report(optimizer.call, f"{optimizer.tf1_class} not migrated: {why}")
            return
        if optimizer.problem is not None:
            node, why = optimizer.problem
            self.report(node, f"{optimizer.tf1_class} not migrated: {why}")
            return
        for site in optimizer.sites:
            try:
                self._build(site, optimizer)
                if site.method != "apply_gradients" and site.function in self._crowded:
                    raise Decline(site.call, "one function computes gradients for two losses; split it into one step per loss")
            except Decline as decline:
                self.declined(decline, f"`{site.method}` not migrated: ")
                return
        if self.suppressed(optimizer.call) or any(self.suppressed(site.line) for site in optimizer.sites):
            return
        for function, position in optimizer.removals:
            self._removed.setdefault(function, set()).add(position)
        keras_name = f"keras.optimizers.{keras.keras}"
        message = f"tf.train.{optimizer.tf1_class} -> tf.{keras_name} with TF1's hyper-parameters"
        starts = self._slot_starts(optimizer, keras) if keras.slot_starts else None
        if starts is not None:
            if not self.fix(optimizer.call, f"{message}; its slots start where TF1's did"):
                return
            self._after.setdefault(max(site.top for site in optimizer.sites), []).extend(starts)
        elif keras.different_maths is not None:
            if not self.fix(optimizer.call, f"{message}, but {keras.different_maths}", safe=False):
                return
        elif optimizer.name is not None:
            self.fix(optimizer.call, message)
        args = list(keras.args)
        hoisted: list[cst.BaseStatement] = []
        if optimizer.schedule is not None:
            name, schedule = optimizer.schedule
            module_name = name if name not in self._taken_globally(name) else training.fresh_name(name, self._taken)
            hoisted.append(_assignment(module_name, schedule))
            args = [arg.with_changes(value=cst.Name(module_name))
                    if isinstance(arg.value, cst.Name) and arg.value.value == name else arg for arg in args]
        new_call = cst.Call(self.tf_expr(keras_name), args=args)
        if optimizer.name is None:
            site = optimizer.sites[0]
            hoisted.append(_assignment(optimizer.hoisted_name, new_call))
            self._hoisted.setdefault(site.top, []).extend(hoisted)
        else:
            self._keras_calls[optimizer.call] = new_call
        for site in optimizer.sites:
            self.fix(site.line, f"`{site.method}` -> GradientTape and Keras `apply_gradients`")
            if site.method != "compute_gradients":
                # session-to-function obliges once per optimizer step (``minimize`` or
                # ``apply_gradients``) it moves into a function.
                self.discharge()
            site.replacement = [training.statement(code) for code in site.replacement]
            self._bodies.setdefault(site.function, {})[site.position] = site

    def _slot_starts(self, optimizer: Optimizer, keras: training.KerasOptimizer) -> Optional[list[cst.BaseStatement]]:
        """Statements that build the Keras optimizer on the variables it trains and set the
        slots TF1 started elsewhere than Keras (RMSProp's accumulators at 1.0), placed after
        the module statement holding its last step; None when the variables cannot be named
        there (then the maths differ, as the table says)."""
        listed = {site.variables for site in optimizer.sites if site.method != "apply_gradients"}
        if len(listed) != 1 or None in listed:
            return None
        variables = listed.pop()
        top = max(site.top for site in optimizer.sites)
        bound = {name for statement in self._module.body[:top] for name in training.assigned_names(statement)}
        if not training.names_read(cst.parse_expression(variables)) <= bound:
            return None
        name = optimizer.name or optimizer.hoisted_name
        slot = training.fresh_name("slot", self._taken)
        lines = [f"{name}.build({variables})"]
        for suffix, value in keras.slot_starts.items():
            fill = (f"{source(self.tf_expr('ones_like'))}({slot})" if value == 1.0
                    else f"{source(self.tf_expr('fill'))}({slot}.shape, {value!r})")
            lines.append(
                f"# TF1's {optimizer.tf1_class} started these slots at {value!r}; Keras starts them at 0.\n"
                f"for {slot} in {name}.variables:\n"
                f'    if {slot}.name.endswith("_{suffix}"):\n'
                f"        {slot}.assign({fill})\n"
            )
        return [cst.parse_statement(line) for line in lines]

    def _build(self, site: Site, optimizer: Optimizer) -> None:
        """Fill ``site.replacement`` (code lines); declines when the site cannot be rewritten."""
        body = list(site.function.body.body)
        local_taken = self._globals | training.names_read(site.function)
        later = body[site.position + 1:]
        is_op = site.method != "compute_gradients"
        if is_op and site.target is not None and any(site.target in training.names_read(s) for s in later):
            raise Decline(site.call, f"`{site.target}` (a TF1 op) is used after it")
        receiver = optimizer.name or ""
        if optimizer.name is None:
            global_step = None
            if site.method != "compute_gradients":
                global_step = (_arguments(site.call, ("loss", "global_step")) or {}).get("global_step")
                if site.method == "apply_gradients":
                    global_step = (_arguments(site.call, ("grads_and_vars", "global_step")) or {}).get("global_step")
            self._hoist(site, optimizer, global_step)
            receiver = optimizer.hoisted_name
        if site.method == "apply_gradients":
            args = _arguments(site.call, ("grads_and_vars", "global_step", "name"))
            if args is None or "grads_and_vars" not in args:
                raise Decline(site.call, "its arguments could not be read")
            if not self._plain_step(args):
                raise Decline(site.call, "its `global_step` is not a variable created once; create it with `tf.Variable(0, trainable=False)`")
            site.replacement = [f"{receiver}.apply_gradients({source(args['grads_and_vars'])})"]
            site.replacement += self._global_step(args)
            return None
        positions = ("loss", "var_list", "gate_gradients", "aggregation_method", "colocate_gradients_with_ops")
        if site.method == "minimize":
            positions = ("loss", "global_step", "var_list", *positions[2:], "name", "grad_loss")
        else:
            positions = (*positions, "grad_loss")
        args = _arguments(site.call, positions)
        if args is None or "loss" not in args:
            raise Decline(site.call, "its arguments could not be read")
        unknown = set(args) - {"loss", "var_list", "global_step", "grad_loss", *SCHEDULING}
        if unknown:
            raise Decline(site.call, f"`{sorted(unknown)[0]}` is not a TF1 argument")
        if not self._is_none(args.get("grad_loss")):
            raise Decline(site.call, "`grad_loss` has no tape equivalent here; pass it as `output_gradients`")
        if not self._plain_step(args):
            raise Decline(site.call, "its `global_step` is not a variable created once; create it with `tf.Variable(0, trainable=False)`")
        if site.dependencies is not None:
            self._dependencies(site)
        docstring, rest = training.split_docstring(body[: site.position])
        loss = args["loss"]
        if not (isinstance(loss, cst.Name) and training.binds(rest, loss.value)):
            raise Decline(site.call, "the loss is not a name computed earlier in the same function, so no tape can record it")
        frozen = training.frozen_value(rest, self._module, self._inventory, self.tf)
        if frozen is not None:
            raise Decline(site.call, (f"the loss uses `{frozen}`, computed once at module level from variables: TF2 does not "
                    "recompute it and the tape records no gradient through it; compute it in the function"))
        variables, bind = self._variables(args.get("var_list"), site, local_taken)
        site.taped = True
        site.variables = variables if bind is None else None
        lines = [] if bind is None else [bind]
        tape = training.fresh_name("tape", local_taken)
        if site.method == "minimize":
            gradients = training.fresh_name("gradients", local_taken)
            lines += [
                f"{gradients} = {tape}.gradient({loss.value}, {variables})",
                f"{receiver}.apply_gradients(zip({gradients}, {variables}))",
                *self._global_step(args),
            ]
        else:
            site.call_replacement = f"list(zip({tape}.gradient({loss.value}, {variables}), {variables}))"
            if site.keep_statement:
                self._calls[site.call] = cst.parse_expression(site.call_replacement)
            else:
                lines.append(f"{site.target} = {site.call_replacement}" if site.target else site.call_replacement)
        site.replacement = lines
        site.tape_name = tape
        return None

    def _hoist(self, site: Site, optimizer: Optimizer, global_step: Optional[cst.BaseExpression]) -> None:
        """Plan ``tf.train.X(...).minimize(...)``'s optimizer as a module-level Keras optimizer.

        Its arguments must not need the function's locals, except a learning rate computed by
        a TF1 decay function of ``global_step`` just for it, which becomes a Keras schedule.
        """
        if optimizer.planned_hoist:
            return None
        optimizer.planned_hoist = True
        body = list(site.function.body.body)
        params = {p.name.value for p in site.function.params.params}
        bound = params | {n for s in body for n in training.assigned_names(s)}
        if optimizer.local_name is not None:
            bound.discard(optimizer.local_name)
        clash = training.names_read(optimizer.call) & bound
        if len(clash) == 1:
            self._schedule(site, optimizer, clash.pop(), global_step, bound)
        elif clash:
            raise Decline(site.call, f"the optimizer's arguments use `{sorted(clash)[0]}`, which only exists inside the function")
        stateless = training.optimizer_table()[optimizer.tf1_class]["stateless"] and optimizer.schedule is None
        if site.function not in self._traced and not stateless:
            raise Decline(site.call, (f"`{site.function.name.value}` builds a new optimizer each time it runs (once in TF1 graph "
                    "code, every step when run eagerly), so its state cannot move to module level safely: "
                    "create the optimizer once outside the function or decorate the function with tf.function"))
        # ``optimizer = tf.train.X(...).minimize(cost)`` names the train op like an
        # optimizer; only then does the name read well on the Keras optimizer.
        if optimizer.local_name is not None:
            local = optimizer.local_name
            optimizer.hoisted_name = local if not self._taken_globally(local) else training.fresh_name(local, self._taken)
            optimizer.removals.append((site.function, optimizer.position))
            return None
        reusable = site.target is not None and "opt" in site.target.lower() and self._count(site.target) == 1
        optimizer.hoisted_name = site.target if reusable else training.fresh_name("optimizer", self._taken)
        return None

    def _schedule(self, site: Site, optimizer: Optimizer, name: str, global_step, bound: set[str]) -> None:
        """``lr = tf.train.exponential_decay(lr0, global_step, ...)`` -> a Keras schedule.

        A schedule reads the optimizer's ``iterations``; that equals TF1's ``global_step`` only
        when the step starts at 0 and this update is the only thing that increments it.
        """
        local = f"the optimizer's arguments use `{name}`, which only exists inside the function"
        body = list(site.function.body.body)
        definitions = [
            (position, line) for position, line in enumerate(body[: site.position])
            if name in set(training.assigned_names(line))
        ]
        if len(definitions) != 1:
            raise Decline(site.call, local)
        position, line = definitions[0]
        small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call)):
            raise Decline(site.call, local)
        symbol = self.tf.tf_symbol(small.value.func)
        table = training.schedule_table()
        if symbol is None or not symbol.path.startswith("train.") or symbol.path[6:] not in table:
            raise Decline(site.call, local)
        users = (position, site.position, optimizer.position)
        uses = [s for i, s in enumerate(body) if i not in users and name in training.names_read(s)]
        if uses or not any(arg.value is not None and isinstance(arg.value, cst.Name) and arg.value.value == name
                           for arg in optimizer.call.args):
            raise Decline(site.call, f"the learning rate `{name}` is used for more than the optimizer")
        differs = training.optimizer_table()[optimizer.tf1_class]["different_with_schedule"]
        if differs is not None:
            raise Decline(site.call, f"its learning rate `{name}` decays, and {differs}")
        schedule, step = training.keras_schedule(small.value, symbol.path[6:])
        if schedule is None:
            raise Decline(site.call, f"`{name}`: {step}")
        if not (isinstance(step, cst.Name) and isinstance(global_step, cst.Name) and step.value == global_step.value):
            raise Decline(site.call, f"the learning rate `{name}` decays with another step than this update's `global_step`")
        if training.names_read(small.value) & (bound - {step.value}):
            raise Decline(site.call, f"the learning rate `{name}` depends on values computed in the function")
        self._counts_only_here(step.value, site.call)
        keras_path = f"keras.optimizers.schedules.{schedule.keras}"
        optimizer.schedule = (name, cst.Call(self.tf_expr(keras_path), args=list(schedule.args)))
        optimizer.removals.append((site.function, position))
        return None

    def _counts_only_here(self, step: str, node: cst.CSTNode) -> None:
        """Declines (at ``node``) when ``step`` may differ from the optimizer's iteration count."""
        variable = self._inventory.variable(step)
        if variable is None or variable.trainable or not variable.zero_start:
            raise Decline(node, f"`{step}` is not a step counter created at 0, so a Keras schedule would read other steps")
        increments = 0
        for node in training.walk(self._module):
            if isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "global_step":
                increments += isinstance(node.value, cst.Name) and node.value.value == step
            elif (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == step
                  and node.attr.value.startswith(("assign", "scatter"))):
                increments += 2
            elif (isinstance(node, cst.Call) and self.tf.tf_symbol(node.func) is not None
                  and self.tf.tf_symbol(node.func).path.startswith("assign") and node.args
                  and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == step):
                increments += 2
        if increments != 1:
            raise Decline(node, f"`{step}` is also changed elsewhere, so a Keras schedule would read other steps")
        return None

    def _dependencies(self, site: Site) -> None:
        """Decide what becomes of ``with tf.control_dependencies(deps):`` around the site.

        TF1 code wraps ``minimize`` in the update ops of ``tf.layers`` batch normalisation
        (``UPDATE_OPS``). With nothing in the file that adds update ops the collection is
        empty and the block goes; other dependencies are kept around the update.
        """
        assert site.dependencies is not None
        deps = site.dependencies.items[0].item.args
        if len(deps) != 1:
            raise Decline(site.call, "its `control_dependencies` arguments could not be read")
        collection = training.update_ops_collection(deps[0].value, self._module, self.tf)
        if collection is None:
            return None
        if training.adds_update_ops(self._module, self.tf):
            raise Decline(site.call, ("it depends on UPDATE_OPS and the file has layers that add update ops (batch "
                    "normalisation): migrate them to Keras layers, which update themselves, first"))
        site.drop_dependencies = True
        return None

    def _variables(
        self, var_list: Optional[cst.BaseExpression], site: Site, taken: set[str]
    ) -> tuple[str, Optional[str]]:
        """(expression naming the variables, optional binding line); declines when they cannot be named."""
        if not self._is_none(var_list):
            assert var_list is not None
            collection = training.trainable_collection_read(var_list, self.tf) if isinstance(var_list, cst.Call) else None
            if collection is not None:
                # In a TF2 function the collection is empty: the list must be written out here.
                listed = training.listed_variables(self._inventory, site.top, True, collection[0])
                if isinstance(listed, str):
                    raise Decline(site.call, f"its var_list reads the trainable-variables collection and {listed}")
                if isinstance(listed, cst.List) and not listed.elements:
                    raise Decline(site.call, "its var_list is empty (TF1 raises 'No variables to optimize')")
                return source(listed), None
            if isinstance(var_list, cst.Name):
                self._collection_name(var_list.value, site.call)
            if isinstance(var_list, (cst.Name, cst.Attribute, cst.List, cst.Tuple)):
                return source(var_list), None
            name = training.fresh_name("variables", taken)
            return name, f"{name} = {source(var_list)}"
        if self._inventory.problem is not None:
            raise Decline(site.call, f"it trains every trainable variable and the file's variables cannot be listed ({self._inventory.problem}); pass `var_list`")
        variables = self._inventory.before(site.top, trainable_only=True)
        if not variables:
            raise Decline(site.call, "no trainable variable is created before it")
        return source(training.variable_list(variables)), None

    def _collection_name(self, name: str, node: cst.CSTNode) -> None:
        """Declines (at ``node``) when a var_list named ``name`` may go empty in TF2.

        ``params = tf.trainable_variables()`` at module level only keeps its TF1 meaning once
        collections-to-tracking writes the list out; that needs the same facts as here.
        """
        bound = training.module_assignment(self._module, name)
        if bound is None or not isinstance(bound[1], cst.Call):
            return None
        collection = training.trainable_collection_read(bound[1], self.tf)
        if collection is None:
            return None
        listed = training.listed_variables(self._inventory, bound[0], True, collection[0])
        if isinstance(listed, str):
            raise Decline(node, f"its var_list `{name}` reads the trainable-variables collection, which TF2 does not keep, and {listed}")
        return None

    def _plain_step(self, args: dict[str, cst.BaseExpression]) -> bool:
        """Whether ``global_step`` is absent or a name/attribute (a variable made elsewhere).

        ``tf.train.get_or_create_global_step()`` inside a step would look the variable up in
        graph collections, which TF2 functions do not share.
        """
        step = args.get("global_step")
        return self._is_none(step) or isinstance(step, (cst.Name, cst.Attribute))

    def _global_step(self, args: dict[str, cst.BaseExpression]) -> list[str]:
        step = args.get("global_step")
        return [] if self._is_none(step) else [f"{source(step)}.assign_add(1)"]

    @staticmethod
    def _is_none(node: Optional[cst.BaseExpression]) -> bool:
        return node is None or (isinstance(node, cst.Name) and node.value == "None")

    def _taken_globally(self, name: str) -> set[str]:
        """``{name}`` if moving ``name`` to module level could clash with another use of it."""
        uses = sum(1 for function in training.functions(self._module) if name in training.names_read(function[1]))
        return {name} if name in self._globals or uses > 1 else set()

    def _count(self, name: str) -> int:
        return sum(1 for n in training.walk(self._module) if isinstance(n, cst.Name) and n.value == name)

    # -- rewriting --------------------------------------------------------------------------

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self._keras_calls.get(original, self._calls.get(original, updated))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        sites = self._bodies.get(original)
        if not sites:
            return updated
        statements = list(updated.body.body)
        new_body: list[cst.BaseStatement] = []
        tape_site = next((s for s in sites.values() if s.taped), None)
        removed = self._removed.get(original, set())
        for position, statement in enumerate(statements):
            if position in removed:
                continue
            site = sites.get(position)
            if site is None:
                new_body.append(statement)
                continue
            replacement = list(site.replacement)
            if site.keep_statement:
                replacement.append(statement)
            else:
                line = statement.body.body[0] if isinstance(statement, cst.With) else statement
                replacement[-1] = replacement[-1].with_changes(trailing_whitespace=line.trailing_whitespace)
            if site.dependencies is not None and not site.drop_dependencies:
                assert isinstance(statement, cst.With)
                replacement = [statement.with_changes(body=statement.body.with_changes(body=replacement))]
            replacement[0] = replacement[0].with_changes(leading_lines=statement.leading_lines)
            if site.keep_statement and len(replacement) > 1:
                replacement[-1] = statement.with_changes(leading_lines=[])
            if site is tape_site:
                docstring, taped = training.split_docstring(new_body)
                gradient_tape = cst.parse_expression(source(self.tf_expr("GradientTape")))
                new_body = [*docstring, training.tape_block(gradient_tape, site.tape_name, taped)]
            new_body.extend(replacement)
        return updated.with_changes(body=updated.body.with_changes(body=new_body))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if not self._hoisted and not self._after:
            return updated
        body: list[cst.BaseStatement] = []
        for index, statement in enumerate(updated.body):
            hoisted = self._hoisted.get(index, [])
            if hoisted:
                spacing = [line for line in statement.leading_lines if line.comment is None]
                hoisted[0] = hoisted[0].with_changes(leading_lines=spacing)
            body.extend(hoisted)
            body.append(statement)
            after = self._after.get(index, [])
            if after and isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                # PEP 8's two blank lines after a top-level definition.
                blank = [cst.EmptyLine(indent=False)] * 2
                after[0] = after[0].with_changes(leading_lines=[*blank, *after[0].leading_lines])
            body.extend(after)
        return updated.with_changes(body=body)
