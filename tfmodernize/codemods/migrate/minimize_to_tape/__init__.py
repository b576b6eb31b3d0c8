"""TFM102 minimize-to-tape.

What it does
    Inside a function (typically the ``@tf.function`` train step session-to-function made),
    rewrites ``train_op = opt.minimize(loss, var_list=..., global_step=...)`` to a
    ``tf.GradientTape`` around the statements that compute ``loss``, ``tape.gradient`` and
    ``opt.apply_gradients``; ``opt.compute_gradients(loss)`` becomes the same list of
    ``(gradient, variable)`` pairs taken from a tape, so whatever the code does between it and
    ``apply_gradients`` (clipping, scaling) is kept. The ``tf.train.XOptimizer`` becomes the
    Keras optimizer with the same hyper-parameters, writing out every default that differs
    (table: ``tfmodernize/data/optimizers.json``); ``AdamOptimizer`` and ``RMSPropOptimizer``
    become a small class written once into the file after its imports (``FusedAdam``,
    ``FusedRMSProp``: ``fused.py``) that updates through the fused kernels TF1 ran
    (``tf.raw_ops.ResourceApplyAdam``...) with TF1's slots, so training keeps TF1's numbers to
    the bit; Keras Adam and RMSprop stay where the learning rate is a schedule, fed or read from
    a variable, and RMSprop in a file looking rows up. A ``GradientDescentOptimizer`` with a
    constant learning rate (a number, or a module name bound once to one) used only for
    ``minimize`` becomes no optimizer at all: the step subtracts the rate times its gradient
    from each variable (``variable.assign_sub(0.5 * gradient)``), TF1's update, as a TF2
    engineer writes plain gradient descent by hand. Without ``var_list`` the variables are
    written out: the module's trainable variables in creation order; where the file's
    variables cannot be listed (made in functions, by imported code) ``minimize`` trains the
    ones the tape watched (``tape.watched_variables()``): the trainable variables the loss
    read. The optimizer of a step defined in a function is made before the step there when its
    arguments read that function's names. ``global_step`` is incremented after the update, as
    TF1 did. A learning rate decayed by ``tf.train.exponential_decay`` (or inverse-time,
    polynomial, piecewise-constant, cosine decay) of that step becomes the Keras schedule, when
    the step (a module variable, or one the function defining the step makes) starts at 0 and
    only this update increments it; the same decay read elsewhere (a function returning the
    rate for the program to print) becomes the schedule called at the step. A learning rate
    held in a module variable the program assigns is read at each update
    (``learning_rate=lambda: lr``: Keras takes no variable there). One train op that
    session-to-function copied into several functions (one per ``sess.run`` fetching it)
    keeps one Keras optimizer, shared by them, as TF1 ran one. A Keras optimizer keeping slots
    (Adam's moments, Momentum's velocity...) is built on the variables it trains after the
    step's definition when they exist there (``opt.build([W, b])``): it otherwise makes its
    slots in its first ``apply_gradients``, inside the ``tf.function`` step, which is then
    traced twice.
    ``with tf.control_dependencies(UPDATE_OPS)`` around ``minimize`` goes when nothing in the
    file adds update ops.

Why it matters
    ``tf.compat.v1.train`` optimizers only work on graph tensors; TF2 code computes gradients
    with a tape and updates with a Keras optimizer. The Keras defaults differ from TF1's (Adam
    and Adadelta ``epsilon`` 1e-7 instead of 1e-8, Adagrad adds an epsilon TF1 does not, Adam's
    betas are float32 in TF1), so a bare class swap changes the training numbers. Even with
    TF1's hyper-parameters Keras Adam and RMSprop round differently from TF1's fused kernels
    (``pow(beta, t)`` against TF1's float32 running product; RMSProp's mean square updated as
    ``rho * ms + (1 - rho) * g * g`` against ``ms + (g * g - ms) * (1 - rho)``), and the
    difference compounds over training: three corpus programs printed other losses or
    accuracies after 3 to 31 epochs; the fused classes print TF1's. TF1's
    RMSPropOptimizer starts its accumulators at 1 and Keras RMSprop at 0: the Keras optimizer is
    built on the variables it trains right after the training function and those slots are set
    to 1 (the variables of ``tf.Module`` objects that make them when constructed, made before
    it, included); where the variables cannot be named there, the rewrite is only an unsafe fix.
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
    class FusedAdam(tf.Module):
        # Adam computed as TF1's AdamOptimizer did (docstring, 40 lines): its slots,
        # build(variables), apply_gradients() calling tf.raw_ops.ResourceApplyAdam

    opt = FusedAdam(learning_rate=0.01)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            pred = tf.matmul(x, W) + b
            cost = tf.reduce_mean(tf.square(pred - y))
        gradients = tape.gradient(cost, [W, b])
        opt.apply_gradients(zip(gradients, [W, b]))
        return cost


    opt.build([W, b])

Fixtures: ``fixtures/minimize-to-tape/``.

Fix safety
    TF1's hyper-parameters are written out where Keras defaults differ (optimizers.json, checked by
    training in both libraries); slots that start elsewhere in Keras are set to TF1's start; the
    loss is the one before the update, as in TF1. The tape's watched variables are TF1's
    trainable collection less the variables the loss does not read, which got no gradient
    there and no update (Keras skips a missing gradient likewise, with a warning); a file
    adding to collections by hand declines.
    ``FusedAdam`` and ``FusedRMSProp`` (plain, momentum, centered) were bit-identical to TF1 for
    1500 steps of a small MLP and in the fixtures (compared with rtol 0); they convert a sparse
    gradient to a dense one, which for Adam is TF1's sparse update up to rounding and for
    RMSProp is not (TF1 updated the looked-up rows only): a file calling ``gather`` or
    ``embedding_lookup`` keeps Keras RMSprop. Where Keras Adam stays (a schedule, a fed or
    variable learning rate), it matches TF1 to rounding, not bit for bit, and over long runs the
    rounding compounds.
    Plain gradient descent computes TF1's kernel (``var -= grad * lr``, the rate a float32
    tensor) to the bit for float32 variables; a file naming another float dtype (TF1 cast the
    float32 rate to it) or looking rows up (TF1 scattered a sparse gradient into the rows)
    keeps Keras SGD, which does the same. With the variables taken implicitly (no
    ``var_list``), a variable the loss does not reach has no gradient and is skipped, as TF1
    skipped it (``if gradient is not None``). A Keras SGD step ran a few more ops per step (its
    iteration counter, the learning-rate variable read and cast).
    TF1 computes ``1 - beta`` in float32 from its float32 betas, Keras in Python floats: the betas
    are written float32-rounded (0.9 as 0.8999999761581421, 0.999 as 0.9990000128746033; a
    literal beta is rounded the same way, one given as an expression is kept as written). TF1 also
    keeps ``beta ** t`` as a float32 running product where Keras computes ``pow(beta, t)``; they
    differ in the last bit from the third update on, and no Keras argument changes that (a
    subclass of Keras Adam keeping TF1's running products was bit-identical for 2000 steps in
    every case we measured; the migration does not write one). Measured on TF 2.21 with a small
    GAN (two Adam optimizers, a ring of 8 Gaussians, per-step losses): with beta 0.9/0.999 and
    learning rate 1e-3 the losses stay within rtol 1e-5 of TF1's for 841 steps (246 with
    unrounded betas) and part by up to 0.5% by step 2000; at learning rate 1e-2 within 1e-5 for
    695 steps (18 unrounded), then apart by tens of percent as the chaotic run follows another
    path; with betas 0.5/0.999 and learning rate 2e-4 within 3e-7 for all 2000 steps (335
    unrounded). Converging training absorbs this; a program printing raw losses every step shows
    it as a slow drift, which ``tfmodernize verify`` reports as "equal to rounding for N printed
    lines, then drifting". RMSprop likewise: TF1's fused kernel updates the accumulator as
    ``ms + (g * g - ms) * (1 - rho)``, Keras as ``rho * ms + (1 - rho) * g * g``; a sigmoid
    autoencoder (RMSprop at 0.02, 50 epochs of mini-batches) printed per-epoch losses within
    rtol 1e-4 of TF1's for 28 epochs, then apart by about 1e-3 (TF1's kernel called from TF2,
    the fused class, matched it throughout).

Declines when
    the loss is not a name computed in the same function, the trained variables cannot be listed
    (``compute_gradients`` without ``var_list``, or a file editing the variable collections), a
    learning rate depends on values the function computes (other than a TF1 decay of its own
    step or a fed rate), a step's optimizer reads a name its defining function binds again after
    it, or an optimizer's maths differ in Keras (then only with --unsafe-fixes).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional, Sequence

import libcst as cst

from tfmodernize.analysis import module_variables
from tfmodernize.analysis.program import graph_program
from tfmodernize.analysis.optimizers import keras_optimizer, optimizer_table
from tfmodernize.analysis.tape import tape_block
from tfmodernize.names import fresh_name, module_bindings, used_names
from tfmodernize.syntax import calls_in, function_definitions, split_docstring
from tfmodernize.analysis.tf_function import traced_functions
from tfmodernize.codemods.migrate.minimize_to_tape import fused, steps, updates
from tfmodernize.codemods.migrate.minimize_to_tape.discovery import find_optimizers
from tfmodernize.codemods.migrate.minimize_to_tape.model import (
    METHODS,
    Optimizer,
    assignment,
    tf1_optimizer,
)
from tfmodernize.codemods.migrate.minimize_to_tape.plan import TapePlan
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.layout import depth, fitted, moved, style_width
from tfmodernize.written_code import after_imports, imports_only
from tfmodernize.syntax import source, statement_of


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

    def visit_Module(self, node: cst.Module) -> bool:
        """Reads the file into a ``TapePlan`` and plans every rewrite on it (the steps by
        ``steps``, recording into the plan); the hooks below make the planned edits."""
        #: The file's plan (None: nothing to rewrite).
        self._tape: Optional[TapePlan] = None
        all_calls = list(calls_in(node))
        # Every rewrite is planned here; with no plan the traversal is skipped (it would cost
        # about a parse and change nothing).
        if not any(tf1_optimizer(self.tf, call) for call in all_calls):
            return False
        graph = graph_program(node, self.tf)
        if graph is not None:
            for call in all_calls:
                if isinstance(call.func, cst.Attribute) and call.func.attr.value in METHODS:
                    self.report(
                        call,
                        f"`{call.func.attr.value}` not migrated: the file is still a TF1 graph "
                        f"program (it uses `{graph}`); session-to-function migrates it first",
                    )
            return False
        plan = TapePlan(
            module=node,
            tf=self.tf,
            inventory=module_variables.inventory(node, self.tf, self.state.project),
            taken=used_names(node),
            width=style_width(self.state.text),
            globals=module_bindings(node),
            traced=traced_functions(node, self.tf),
        )
        self._tape = plan
        plan.enclosing = _enclosing_functions(node)
        optimizers = find_optimizers(self.tf, node)
        taped: dict[cst.FunctionDef, int] = {}
        for site in (site for optimizer in optimizers for site in optimizer.sites if site.method != "apply_gradients"):
            taped[site.function] = taped.get(site.function, 0) + 1
        plan.crowded = {function for function, count in taped.items() if count > 1}
        for optimizer in optimizers:
            self._plan(plan, optimizer)
        return plan.planned()

    def _plan(self, plan: TapePlan, optimizer: Optimizer) -> None:
        keras, why = keras_optimizer(optimizer.call, optimizer.tf1_class)
        if keras is None:
            self.report(optimizer.call, f"{optimizer.tf1_class} not migrated: {why}")
            return
        given = keras.args
        keras = updates.float32_literals(keras, optimizer.tf1_class)
        if optimizer.problem is None:
            keras, why = updates.variable_rate(plan, keras, optimizer)
            if keras is None:
                optimizer.problem = (optimizer.call, why)
        if optimizer.problem is not None:
            node, why = optimizer.problem
            self.report(node, f"{optimizer.tf1_class} not migrated: {why}")
            return
        optimizer.plain_rate = updates.plain_rate(plan, optimizer, self.state.text)
        for site in optimizer.sites:
            try:
                steps.build(plan, self, site, optimizer)
                if site.method != "apply_gradients" and site.function in plan.crowded:
                    raise Decline(
                        site.call, "one function computes gradients for two losses; split it into one step per loss"
                    )
            except Decline as decline:
                self.declined(decline, f"`{site.method}` not migrated: ")
                return
        if self.suppressed(optimizer.call) or any(self.suppressed(site.line) for site in optimizer.sites):
            return
        for function, position in optimizer.removals:
            plan.removed.setdefault(function, set()).add(position)
        if optimizer.plain_rate is not None:
            self._plain_descent(plan, optimizer)
            return
        keras_name = f"keras.optimizers.{keras.keras}"
        message = f"tf.train.{optimizer.tf1_class} -> tf.{keras_name} with TF1's hyper-parameters"
        fused_args = updates.fused_arguments(plan, optimizer, keras, given)
        if fused_args is not None:
            class_name = self._fused_class(plan, optimizer)
            keras = dataclasses.replace(keras, args=fused_args, slot_starts={}, different_maths=None)
            message = f"tf.train.{optimizer.tf1_class} -> {class_name}, its fused update, written in the file"
        slots = not optimizer_table()[optimizer.tf1_class]["stateless"]
        build = steps.built(plan, self, optimizer, keras) if slots or keras.slot_starts else None
        if build is not None and keras.slot_starts:
            if not self.fix(optimizer.call, f"{message}; its slots start where TF1's did"):
                return
        elif keras.different_maths is not None:
            if not self.fix(optimizer.call, f"{message}, but {keras.different_maths}", safe=False):
                return
        elif optimizer.name is not None:
            self.fix(optimizer.call, message)
        if build is not None:
            plan.after.setdefault(max(site.top for site in optimizer.sites), []).extend(build)
        args = list(keras.args)
        hoisted: list[cst.BaseStatement] = []
        if optimizer.schedule is not None:
            name, schedule = optimizer.schedule
            if optimizer.schedule_reads:
                # A function reading the schedule may bind ``name`` itself: another name then.
                module_name = fresh_name(f"{name}_schedule", plan.taken)
            elif name in plan.taken_globally(name):
                module_name = fresh_name(name, plan.taken)
            else:
                module_name = name
            for read in optimizer.schedule_reads:
                self.fix(read, "the TF1 decay of the step -> the Keras schedule the optimizer uses, at that step")
                plan.calls[read] = cst.Call(cst.Name(module_name), [cst.Arg(cst.Name(optimizer.schedule_step))])
            hoisted.append(fitted(assignment(module_name, schedule), plan.width, 0))
            args = [
                arg.with_changes(value=cst.Name(module_name))
                if isinstance(arg.value, cst.Name) and arg.value.value == name
                else arg
                for arg in args
            ]
        if optimizer.fed_rate is not None:
            # Each step assigns the fed value before it applies the gradients.
            args = [
                arg.with_changes(value=cst.Float("0.0"))
                if isinstance(arg.value, cst.Name) and arg.value.value == optimizer.fed_rate
                else arg
                for arg in args
            ]
        constructor = cst.Name(class_name) if fused_args is not None else self.tf_expr(keras_name)
        new_call = cst.Call(constructor, args=args)
        if optimizer.name is None:
            site = optimizer.sites[0]
            hoisted.append(fitted(assignment(optimizer.hoisted_name, new_call), plan.width, 0))
            if optimizer.enclosed:
                # A step defined in a function: its optimizer is made where the step is defined.
                deep = depth(site.function, self.state.parents(plan.module))
                spacing = [line for line in site.function.leading_lines if line.comment is None][:1]
                hoisted[0] = hoisted[0].with_changes(leading_lines=spacing)
                self.insert_before(site.function, [fitted(statement, plan.width, deep) for statement in hoisted])
            else:
                plan.hoisted.setdefault(site.top, []).extend(hoisted)
        else:
            plan.keras_calls[optimizer.call] = new_call
            parents = self.state.parents(plan.module)
            line = statement_of(optimizer.call, parents)
            if line is not None:
                deep = depth(line[1], parents)
                self.replace(line[1], lambda updated: fitted(updated, plan.width, deep))
        for site in optimizer.sites:
            self.fix(site.line, f"`{site.method}` -> GradientTape and Keras `apply_gradients`")
            if site.method != "compute_gradients":
                # session-to-function obliges once per optimizer step (``minimize`` or
                # ``apply_gradients``) it moves into a function.
                self.discharge()
            site.replacement = [cst.parse_statement(code) for code in site.replacement]
            plan.bodies.setdefault(site.function, {})[site.position] = site

    def _plain_descent(self, plan: TapePlan, optimizer: Optimizer) -> None:
        """Plan ``optimizer``'s steps as each variable's ``assign_sub`` of the learning rate
        times its gradient (``steps``); its module-level assignment, if named, goes."""
        if optimizer.name is not None:
            parents = self.state.parents(plan.module)
            line = statement_of(optimizer.call, parents)
            assert line is not None
            self.remove(line[1])
        message = (
            f"tf.train.{optimizer.tf1_class} -> each variable's `assign_sub` of the learning rate times its gradient"
        )
        self.fix(optimizer.call, message)
        for site in optimizer.sites:
            self.discharge()  # session-to-function's obligation for the step it moved
            site.replacement = [cst.parse_statement(code) for code in site.replacement]
            plan.bodies.setdefault(site.function, {})[site.position] = site

    def _fused_class(self, plan: TapePlan, optimizer: Optimizer) -> str:
        """The name of the class updating as ``optimizer`` did in TF1 (``fused``), written once
        per file after the imports before the optimizer's first step."""
        name = plan.fused.get(optimizer.tf1_class)
        if name is None:
            base = fused.fused_class(optimizer.tf1_class)
            assert base is not None
            name = fresh_name(base, plan.taken)
            plan.taken.add(name)
            plan.fused[optimizer.tf1_class] = name
            definition = fused.class_definition(self, optimizer.tf1_class, name, plan.module.default_indent)
            # After every import ahead of its first use: one further down may bind what it reads.
            first_use = min(site.top for site in optimizer.sites)
            imported = set().union(
                *(module_bindings(cst.Module(body=[s])) for s in plan.module.body[:first_use] if imports_only(s))
            )
            index = after_imports(plan.module, imported, before=first_use)
            plan.classes.setdefault(index, []).append(definition)
        return name

    def leave_Call(self, original: cst.Call) -> None:
        if self._tape is None:
            return
        new = self._tape.keras_calls.get(original, self._tape.calls.get(original))
        if new is not None:
            self.replace(original, new)

    def leave_FunctionDef(self, original: cst.FunctionDef) -> None:
        sites = self._tape.bodies.get(original) if self._tape is not None else None
        if sites:
            self.replace(original, lambda updated: self._with_steps(original, updated, sites))

    def _with_steps(self, original: cst.FunctionDef, updated: cst.FunctionDef, sites: dict) -> cst.FunctionDef:
        statements = list(updated.body.body)
        new_body: list[cst.BaseStatement] = []
        tape_site = next((s for s in sites.values() if s.taped), None)
        plan = self._tape
        assert plan is not None
        deep = depth(original, self.state.parents(plan.module)) + 1
        removed = plan.removed.get(original, set())
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
                last = replacement[-1]
                if isinstance(last, cst.SimpleStatementLine):
                    replacement[-1] = last.with_changes(trailing_whitespace=line.trailing_whitespace)
                else:  # a loop: the comment goes after its colon
                    replacement[-1] = last.with_changes(body=last.body.with_changes(header=line.trailing_whitespace))
            if site.dependencies is not None and not site.drop_dependencies:
                assert isinstance(statement, cst.With)
                replacement = [statement.with_changes(body=statement.body.with_changes(body=replacement))]
            leading = _still_true(statement.leading_lines, site.method)
            replacement[0] = replacement[0].with_changes(leading_lines=leading)
            if site.keep_statement and len(replacement) > 1:
                replacement[-1] = statement.with_changes(leading_lines=[])
            if site is tape_site:
                docstring, taped = split_docstring(new_body)
                gradient_tape = cst.parse_expression(source(self.tf_expr("GradientTape")))
                taped = [moved(stmt, plan.width, deep + 1) for stmt in taped]
                new_body = [*docstring, tape_block(gradient_tape, site.tape_name, taped)]
            new_body.extend(fitted(stmt, plan.width, deep) for stmt in replacement)
        return updated.with_changes(body=updated.body.with_changes(body=new_body))

    def leave_Module(self, original: cst.Module) -> None:
        if self._tape is not None and (self._tape.hoisted or self._tape.after or self._tape.classes):
            self.replace(original, self._with_hoisted)

    def _with_hoisted(self, updated: cst.Module) -> cst.Module:
        plan = self._tape
        assert plan is not None
        body: list[cst.BaseStatement] = []
        blank = [cst.EmptyLine(indent=False)] * 2
        for index, statement in enumerate(updated.body):
            hoisted = plan.hoisted.get(index, [])
            if hoisted:
                spacing = [line for line in statement.leading_lines if line.comment is None]
                if body and not isinstance(body[-1], (cst.FunctionDef, cst.ClassDef)):
                    spacing = spacing[:1]  # code after code: one blank line at most, as a paragraph
                hoisted[0] = hoisted[0].with_changes(leading_lines=spacing)
            classes = plan.classes.get(index, [])
            if classes:
                # PEP 8's two blank lines around a top-level class.
                body.extend(definition.with_changes(leading_lines=blank) for definition in classes)
                if hoisted:
                    kept = [line for line in hoisted[0].leading_lines if line.comment is not None]
                    hoisted[0] = hoisted[0].with_changes(leading_lines=[*blank, *kept])
                else:
                    kept = [line for line in statement.leading_lines if line.comment is not None]
                    statement = statement.with_changes(leading_lines=[*blank, *kept])
            body.extend(hoisted)
            body.append(statement)
            after = plan.after.get(index, [])
            if after and isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                # PEP 8's two blank lines after a top-level definition.
                blank = [cst.EmptyLine(indent=False)] * 2
                after[0] = after[0].with_changes(leading_lines=[*blank, *after[0].leading_lines])
            body.extend(after)
        return updated.with_changes(body=body)


def _enclosing_functions(module: cst.Module) -> dict[cst.FunctionDef, cst.FunctionDef]:
    """Each function defined by a statement of another function's body -> that function."""
    found: dict[cst.FunctionDef, cst.FunctionDef] = {}
    for _, function in function_definitions(module):
        if not isinstance(function.body, cst.IndentedBlock):
            continue
        for statement in function.body.body:
            if isinstance(statement, cst.FunctionDef):
                found[statement] = function
    return found


def _still_true(lines: Sequence[cst.EmptyLine], method: str) -> list[cst.EmptyLine]:
    """The leading lines of a ``minimize`` statement without the comment lines naming the call
    the rewrite removed (``# Note, minimize() knows which variables to update``): what they say
    is no longer what the code does."""
    if method == "apply_gradients":
        return list(lines)
    named = re.compile(rf"\b{method}\(")
    return [line for line in lines if line.comment is None or not named.search(line.comment.value)]
