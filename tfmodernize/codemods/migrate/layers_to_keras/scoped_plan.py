"""Layers-to-keras's plan for network functions making their variables with ``tf.get_variable``
under their variable scope (what is made is read by ``scoped_variables``): where the variables
are made (before the statement first calling the network, or before the definition of the
function the program calls once holding its calls) and what the function reads instead; or,
for a project module's function the other files of the run call, the ``tf.Module`` class it
becomes. A part of ``LayersToKeras`` (a mixin: it uses the codemod's edits, its file's
``NetworkFunctions`` and the statements already given variables)."""

from __future__ import annotations

import dataclasses
import re

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.analysis import training
from tfmodernize.analysis.variables import VariableValues, math_importable
from tfmodernize.codemods.migrate.layers_to_keras import modules
from tfmodernize.codemods.migrate.layers_to_keras.network import UNIT_BREAKS, Network, innermost_first
from tfmodernize.codemods.migrate.layers_to_keras.network import prefix as network_prefix
from tfmodernize.codemods.migrate.layers_to_keras.scoped_variables import scoped_variables, template_expression
from tfmodernize.codemods.migrate.layers_to_keras.shapes import StaticShapes, bound_shapes, result_widths, returned_variables
from tfmodernize.codemods.migrate.layers_to_keras.training_batch_norm import (
    TrainingNorm,
    always_training,
    read_norms,
    statistics_reader,
)
from tfmodernize.names import name_nodes, names_bound_here, parameter_names
from tfmodernize.syntax import ancestors, argument, source, statement_holding, statement_of
from tfmodernize.treewalk import walk


class ScopedVariablesPlan:
    """``LayersToKeras``'s handling of network functions' ``tf.get_variable`` calls."""

    def _network_variables(self, function: cst.FunctionDef, calls: list[cst.Call], variables: list[cst.Call],
                           taken: set[str]) -> None:
        """A network function making its variables with ``tf.get_variable`` under its variable
        scope (see ``scoped_variables``): each variable is made once, at module level, before the
        statement first calling the function, and read where TF1 asked for it; for a project
        module's function called by the other files of the run, by the ``tf.Module`` class the
        function becomes."""
        parents = self.state.parents(self._module)
        name = function.name.value
        split = None
        norm_calls = [n for n in walk(function.body, code_only=True) if isinstance(n, cst.Call)
                      and always_training(n, self.tf)]
        norms: list = []
        try:
            if any(not any(c is v for v in [*variables, *norm_calls]) for c in calls):
                raise Decline(variables[0], "the function makes variables both with tf.get_variable and with "
                                            "tf.layers or an RNN: where each set would be made is not proven in order")
            project = self._project_network(function, calls)
            # Called several times here without sharing: a class too, one object per call.
            local = not project and self._called_apart(function)
            network = self._networks.read(function, variables, split=project or local, units=not (project or local),
                                          separate=local)
            built_at, first = (None, None) if project or local else self._variables_built_at(function, network)
            attributes = set(parameter_names(function))
            values = VariableValues(self.tf, self.tf_expr)
            made = scoped_variables(function, network, innermost_first(variables), self._networks, values,
                                    lambda node: self._variable_scope(node, parents),
                                    attributes if project or local else taken, network_prefix(network.scopes, function),
                                    split=project or local, helpers=self._helpers)
            if project and network.reuse is not None:
                reason = modules.callers_share(function, self.state.callers.get(name, []), network.reuse,
                                               parameter_names(function).index(network.reuse))
                if reason is not None:
                    raise Decline(variables[0], reason)
            if values.uses_math and not math_importable(self._module):
                raise Decline(variables[0], "a Glorot range would be computed with `math`, a name the file binds to "
                                            "something else")
            if local:
                self._named_apart(function, made, variables[0])
            if norm_calls:
                norms = self._training_norms(function, norm_calls, made, attributes if project or local else taken,
                                             "" if project or local else f"{network_prefix(network.scopes, function)}_",
                                             split=project or local)
            summaries = self._variable_summaries(function, network, made, parents) if project or local else []
            if local and summaries:
                raise Decline(summaries[0][0], f"`{name}`, called several times here, summarizes its variables: the "
                                               "class it would become could not write them")
            inside = {id(n) for variable in made for n in walk(variable.call)}

            def reads_left(constant: str) -> bool:
                return any(id(n) not in inside for n in name_nodes(function.body) if n.value == constant
                           and not training.contains(network.constants[constant], n))

            # ``width = 6`` (or ``rows, cols = 3, 6``, ``in_dim = x.get_shape()[1]``) read by the variables only.
            removed = [line for line in {id(line): line for line in network.constants.values()}.values()
                       if self._networks.removable(network, line, reads_left)]
            gone = {bound for line in removed for bound in names_bound_here(line.body[0].targets[0])}
            if any(derived not in gone for derived in network.derived):
                raise Decline(variables[0], f"`{sorted(network.derived)[0]}`, a dimension of an input its variables "
                                            f"are made with, is read elsewhere in `{name}` too")
            if project or local:
                # The scope blocks' items go with the blocks: what they read is not kept.
                split = modules.split_of(function, [read for v in made for read in v.reads],
                                         [*(v.call for v in made), *removed,
                                          *(item for block in network.scopes for item in block.items)],
                                         taken, network.derived)
                split = dataclasses.replace(split, widths=result_widths(function, made, split.parameters, self.tf,
                                                                        parents, self._helpers),
                                            variables=returned_variables(function, made, parents))
                if norms:
                    split = dataclasses.replace(split, statistics=True)
                if network.reuse is not None:
                    split = dataclasses.replace(split, parameters=tuple(p for p in split.parameters if p != network.reuse),
                                                reuse=network.reuse,
                                                reuse_position=parameter_names(function).index(network.reuse))
            if local:
                self._local_calls(function, split.export())
        except Decline as decline:
            self.declined(decline, "tf.get_variable not migrated: ")
            return
        if split is not None:
            callers = "this file calls several times" if local else "the other files of the run call"
            if not self.fix(variables[0], f"tf.get_variable in `{name}`, a network function {callers} -> a tf.Module "
                                          f"class `{split.class_name}` making the variables once per object"):
                return
        elif not self.fix(variables[0], f"tf.get_variable in `{name}`, under its variable scope -> tf.Variable made "
                                        "once, where TF1 first created it, and read by the function"):
            return
        if values.uses_math:
            self.add_import("math")
        for block in network.scopes:
            self.replace(block, lambda updated: cst.FlattenSentinel(updated.body.body))
        for switch in network.switches:
            self.remove(switch)
        for line in removed:
            self.remove(line)
        for norm in norms:
            self.replace(norm.call, cst.parse_expression(norm.applied))
            # The moments line takes the statement's comments and blank lines.
            self.insert_before(norm.statement, [cst.parse_statement(norm.moments).with_changes(
                leading_lines=norm.statement.leading_lines)])
            self.replace(norm.statement, lambda updated: updated.with_changes(leading_lines=[]))
            self.drop_from_import_of(norm.call.func, self._from_imported)
        # What is made, in the order TF1 made it: the variables, and each batch normalisation's at its call.
        order = {id(n): i for i, n in enumerate(walk(function.body, code_only=True))}
        making = sorted([(order[id(v.call)], v.name, v.code, v.scope) for v in made]
                        + [(order[id(norm.call)], name, code, "") for norm in norms for name, code in norm.variables],
                        key=lambda item: item[0])
        if split is not None:
            for variable in made:
                self.replace(variable.call, cst.Attribute(cst.Name("self"), cst.Name(variable.name)))
            for read in modules.stored_reads(function, split, [v.call for v in made]):
                self.replace(read, lambda updated: cst.Attribute(cst.Name("self"), updated))
            created = [(name, cst.parse_expression(code)) for _, name, code, _ in making]
            # A helper names its variable without the scope TF1 made it under: made under that name scope.
            scoped = [None if not scope else cst.With(
                [cst.WithItem(cst.Call(self.tf_expr("name_scope"), [cst.Arg(template_expression(scope))]))],
                cst.IndentedBlock([])) for _, _, _, scope in making]
            base = self.tf_expr("Module")
            self.replace(function, lambda updated: modules.module_class(updated, split, created, base, "__call__", scoped))
            exported = split.export()
            if local:
                self._local_splits[name] = modules.ImportedSplit(None, exported)
                return
            if summaries:
                # The calling file writes them where TF1's merged summary was written (summary-v2).
                # A helper's summary lines serve every call of it: each goes once.
                for statement in {id(line): line for line, *_ in summaries}.values():
                    if id(statement) not in self._removed_summaries:
                        self._removed_summaries.add(id(statement))
                        self.remove(statement)
                exported["summaries"] = [list(rest) for _, *rest in summaries]
            self.state.exports.setdefault(self.code, {}).setdefault("classes", {})[split.function] = exported
            return
        self._variables_made_at[id(first)] = name
        if network.reuse is not None:
            self._stop_passing(function, network)
        for variable in made:
            self.replace(variable.call, cst.Name(variable.name))
        created = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], cst.parse_expression(code))])
                   for _, name, code, _ in making]
        self._hoisted_variables.append((built_at, self._networks.order[id(first)], created))

    def _training_norms(self, function: cst.FunctionDef, calls: list[cst.Call], made: list, taken: set[str],
                        prefix: str, *, split: bool) -> list[TrainingNorm]:
        """The batch normalisations of a network function always in training mode, written as
        TF2 ops over variables made with the function's (see ``training_batch_norm``); declines
        when something in this file reads the moving statistics TF1 made with them (a file
        calling the class checks itself: the split says so)."""
        reader = statistics_reader(self._module, self.tf)
        if reader is not None:
            raise Decline(calls[0], f"the file reads {reader}: it would read the moving mean and variance TF1 made for "
                                    "this batch normalisation, which its migration does not make (training mode never "
                                    "reads them)")
        wide = next((v for v in made if re.search(r"\b(b?float16|float64|double|half)\b", v.code)), None)
        if wide is not None:
            raise Decline(calls[0], f"the function's weights are not float32 (`{wide.name}`): its batch normalisation's "
                                    "variables would be made in another dtype than TF1 gave them")
        parents = self.state.parents(self._module)
        shapes = StaticShapes(self._module, self.tf, bound_shapes(made, self._helpers, self.tf, parents))
        taken |= {v.name for v in made}
        return read_norms(function, calls, self.tf, parents, shapes,
                          lambda node: self._variable_scope(node, parents), taken, prefix,
                          (lambda name: f"self.{name}") if split else (lambda name: name), self.tf_root())

    def _named_apart(self, function: cst.FunctionDef, made: list, at: cst.Call) -> None:
        """Each call of a network function this file calls several times without sharing asked
        TF1 for variables of other names (a name asked for twice fails): every variable's name
        reads a parameter (``{tag}/kernel``) that the calls give different strings written out.
        Declines what is not shown so."""
        parameters = parameter_names(function)
        calls = [n for n in walk(self._module, code_only=True) if isinstance(n, cst.Call)
                 and isinstance(n.func, cst.Name) and n.func.value == function.name.value]
        if len(calls) < 2:
            return  # called once (a class for the width of its input): one set of variables
        for variable in made:
            read = re.findall(r"\{(\w+)\}", variable.tf1 or "")
            if not any(self._distinct_strings([argument(c, parameters.index(p), p) for c in calls]) for p in read):
                raise Decline(at, f"it is applied in `{function.name.value}`, which the program calls {len(calls)} times "
                                  "without sharing its variables (`reuse`): TF1 made a network for each call, and "
                                  "that each call named its variables apart is not read here")

    @staticmethod
    def _distinct_strings(values: list) -> bool:
        """Whether ``values`` are string literals, all different."""
        strings = [v.evaluated_value for v in values if isinstance(v, cst.SimpleString)]
        return len(strings) == len(values) and len(set(strings)) == len(strings)

    def _variable_summaries(self, function: cst.FunctionDef, network: Network, made: list,
                            parents: dict) -> list[tuple[cst.SimpleStatementLine, str, str, str, str, bool]]:
        """The summaries a project module's network function makes of its own variables:
        ``tf.summary.histogram("w", w)`` lines in its scope, ``w`` bound to a variable it makes.
        Each: (its line, kind, the variable scope it is made in, its name, the variable's
        attribute, whether a variable made before it took its name); the calling files write
        them under TF1's tag (the scope, and in a call making the variables the name, made unique). Declines other summaries (what they summarize is computed by
        the call)."""
        attributes = {}
        made_before: list[tuple[int, str]] = []  # (position, "scope/name") of each variable TF1 made in the call
        order = {id(n): i for i, n in enumerate(walk(function.body, code_only=True))}
        for variable in made:
            bound = statement_of(variable.call, parents)
            if bound is not None and bound[0] is not None:
                attributes[bound[0]] = variable.name
            made_before.append((order[id(variable.call)], variable.tf1))
        found = []
        for call in (n for n in walk(function.body, code_only=True) if isinstance(n, cst.Call)):
            symbol = self.tf.tf_symbol(call.func)
            if symbol is None or not symbol.path.startswith("summary."):
                continue
            line = parents.get(id(parents.get(id(call))))
            tag, value = argument(call, 0, "name"), argument(call, 1, "values" if symbol.path.endswith("histogram") else "tensor")
            if symbol.path not in ("summary.histogram", "summary.scalar") or len(call.args) != 2 \
                    or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 \
                    or not isinstance(line.body[0], cst.Expr) or line.body[0].value is not call \
                    or not isinstance(tag, cst.SimpleString) or not isinstance(tag.evaluated_value, str) \
                    or not isinstance(value, cst.Name) or value.value not in attributes \
                    or len(network.scopes) != 1 or not any(block is network.scopes[0].body for block in ancestors(call, parents)) \
                    or sum(1 for n in walk(function.body, code_only=True) if value.value in names_bound_here(n)) != 1:
                raise Decline(call, f"`{source(call.func)}(...)` in `{function.name.value}` is not a summary of one of "
                                    "its variables on a line of its own under its scope, which the calling files "
                                    "could write")
            scope = self._variable_scope(call, parents)
            written = re.sub(r"[^-/\w.]", "_", tag.evaluated_value)
            # A name a variable made before it in the same scope took: TF1 named the summary ``<name>_1``
            # in the calls making the variables (not in those sharing them).
            earlier = [path for at, path in made_before if at < order[id(call)]]
            if any(path is None or (path != f"{scope}/{written}" and re.fullmatch(
                    "".join(".*" if part.startswith("{") else re.escape(part) for part in re.split(r"(\{\w+\})", path)),
                    f"{scope}/{written}")) for path in earlier):
                raise Decline(call, f"whether a variable made before `{source(call.func)}(...)` took its name "
                                    "(TF1 then added `_1` to it) depends on the arguments of the calls")
            taken = f"{scope}/{written}" in earlier
            found.append((line, symbol.path.split(".")[1], scope, tag.evaluated_value, attributes[value.value], taken))
        return found + self._helper_summaries(function, attributes, made_before, parents)

    def _helper_summaries(self, function: cst.FunctionDef, attributes: dict[str, str], made_before: list,
                          parents: dict) -> list[tuple[cst.SimpleStatementLine, str, str, str, str, bool]]:
        """The summaries this module's helpers make of the network function's variables passed to
        them (``conv(x, w1, b1)`` whose body makes ``tf.summary.histogram("weight", w)`` under
        ``variable_scope("conv")``), as ``_variable_summaries`` gives them: under the scope of the
        call, the helper's scopes and name, the first of them made unique per call as TF1 made
        it (``conv``, then ``conv_1``). The helper must be called only by such network functions,
        on lines run once per call."""
        helpers = {s.name.value: s for s in self._module.body if isinstance(s, cst.FunctionDef)
                   and s is not function and any(self._summary_symbol(n) for n in walk(s.body, code_only=True))}
        opened: dict[str, int] = {}
        found = []
        for call in (n for n in walk(function.body, code_only=True) if isinstance(n, cst.Call)):
            if not (isinstance(call.func, cst.Name) and call.func.value in helpers):
                continue
            helper = helpers[call.func.value]
            name = helper.name.value
            if any(isinstance(node, UNIT_BREAKS) for node in ancestors(call, parents) if training.contains(function.body, node)):
                raise Decline(call, f"`{name}` makes summaries and is called inside a loop, a condition or a comprehension "
                                    f"of `{function.name.value}`: which TF1 made unique is not read here")
            if self.state.callers.get(name):
                raise Decline(call, f"`{name}` makes summaries and other files of the run call it too")
            parameters = parameter_names(helper)
            scope = self._variable_scope(call, parents)
            for summary in (n for n in walk(helper.body, code_only=True) if self._summary_symbol(n)):
                path = self._helper_summary_path(helper, summary, parents)
                value = argument(summary, 1, "values" if self._summary_symbol(summary).endswith("histogram") else "tensor")
                given = (argument(call, parameters.index(value.value), value.value)
                         if isinstance(value, cst.Name) and value.value in parameters else None)
                if not (isinstance(given, cst.Name) and given.value in attributes):
                    raise Decline(summary, f"`{name}` summarizes `{source(value) if value is not None else '?'}`, which "
                                           f"`{function.name.value}` does not pass one of its variables as")
                first, *rest = path
                self._unique_in_module(first, helpers, summary)
                count = opened.get(first, 0)
                unique = "/".join([first if not count else f"{first}_{count}", *rest])
                if any(tf1 == f"{scope}/{unique}" for _, tf1 in made_before):
                    raise Decline(summary, f"a variable of `{function.name.value}` is named `{scope}/{unique}` too, the "
                                           "name TF1 gave the summary")
                *inner, written = unique.split("/")
                line = statement_holding(summary, parents)
                found.append((line, self._summary_symbol(summary).split(".")[1], "/".join([scope, *inner]),
                              written, attributes[given.value], False))
            for first in {self._helper_summary_path(helper, summary, parents)[0]
                          for summary in walk(helper.body, code_only=True) if self._summary_symbol(summary)}:
                opened[first] = opened.get(first, 0) + 1
        return found

    def _summary_symbol(self, node: cst.CSTNode) -> str:
        """``summary.histogram`` for such a call node, else an empty string."""
        symbol = self.tf.tf_symbol(node.func) if isinstance(node, cst.Call) else None
        return symbol.path if symbol is not None and symbol.path.startswith("summary.") else ""

    def _helper_summary_path(self, helper: cst.FunctionDef, summary: cst.Call, parents: dict) -> list[str]:
        """``["conv", "weight"]``: the literal scopes a helper's summary is made under and its
        name cleaned as TF1 cleaned it; declines other summaries."""
        line = statement_holding(summary, parents)
        tag = argument(summary, 0, "name")
        if self._summary_symbol(summary) not in ("summary.histogram", "summary.scalar") or len(summary.args) != 2 \
                or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 \
                or not isinstance(line.body[0], cst.Expr) or line.body[0].value is not summary \
                or not isinstance(tag, cst.SimpleString) or not isinstance(tag.evaluated_value, str):
            raise Decline(summary, f"`{source(summary.func)}(...)` in `{helper.name.value}` is not a summary of a "
                                   "parameter with a literal name, on a line of its own, which the calling files could write")
        path = [re.sub(r"[^-/\w.]", "_", tag.evaluated_value).lstrip("/")]
        for node in ancestors(summary, parents):
            if node is helper:
                return path
            if isinstance(node, UNIT_BREAKS):
                raise Decline(summary, f"`{source(summary.func)}(...)` in `{helper.name.value}` is made in a loop, a "
                                       "condition or a comprehension")
            if isinstance(node, cst.With):
                for item in reversed(node.items):
                    scope = item.item
                    if not (isinstance(scope, cst.Call) and self.tf.is_tf(scope.func, "variable_scope", "name_scope")):
                        raise Decline(summary, f"`{source(summary.func)}(...)` in `{helper.name.value}` is made under "
                                               f"`{source(scope)}`, whose prefix to its tag is not read here")
                    given = scope.args[0].value if len(scope.args) == 1 and scope.args[0].keyword is None else None
                    if not (isinstance(given, cst.SimpleString) and isinstance(given.evaluated_value, str)
                            and re.fullmatch(r"[\w.-]+", given.evaluated_value)):
                        raise Decline(summary, f"`{source(summary.func)}(...)` in `{helper.name.value}` is made under "
                                               f"`{source(scope)}`, whose prefix to its tag is not read here")
                    path.insert(0, given.evaluated_value)
        return path

    def _unique_in_module(self, name: str, helpers: dict[str, cst.FunctionDef], at: cst.Call) -> None:
        """Declines a helper summary's first scope (or name) that the module also writes other than as
        a summarizing helper's scope or summary name: an op named so would have taken it first."""
        inside = {id(item.item.args[0].value) for helper in helpers.values() for node in walk(helper.body, code_only=True)
                  if isinstance(node, cst.With) for item in node.items if isinstance(item.item, cst.Call) and item.item.args}
        inside |= {id(node.args[0].value) for helper in helpers.values() for node in walk(helper.body, code_only=True)
                   if self._summary_symbol(node) and node.args}
        if any(isinstance(n, cst.SimpleString) and n.evaluated_value == name and id(n) not in inside
               for n in walk(self._module, code_only=True)):
            raise Decline(at, f"the module also names something `{name}`: TF1 may have made the summary's scope unique "
                              "another way")

    def _make_hoisted_variables(self) -> None:
        """The network functions' variables, made before the top-level statement first calling
        each network (directly or through the function holding its calls), in the order TF1
        made them: networks first called earlier first."""
        for built_at in sorted({at for at, _, _ in self._hoisted_variables}):
            statement = self._module.body[built_at]
            self._make_before(statement, [line for at, _, lines in sorted(self._hoisted_variables, key=lambda made: made[1])
                                          if at == built_at for line in lines])

    def _variables_built_at(self, function: cst.FunctionDef, network: Network) -> tuple[int, cst.BaseStatement]:
        """The index of the module statement first calling ``function`` (or defining the
        function holding its calls: ``Network.unit``), before which its variables are made, and the
        statement holding its first call; declines calls under a variable scope not named by a
        literal, a statement first calling another such function too, and a unit making random
        values or variables before its first call (they would be made after the network's)."""
        parents = self.state.parents(self._module)
        for site in network.calls_of:
            if any(isinstance(node, cst.With) and any(
                    self.tf.is_tf(item.item.func, "variable_scope") and not (
                        item.item.args and isinstance(item.item.args[0].value, cst.SimpleString))
                    for item in node.items if isinstance(item.item, cst.Call)) for node in ancestors(site, parents)):
                raise Decline(site, f"`{function.name.value}` is called under a variable scope not named by a literal")
        first = statement_holding(network.calls_of[0], parents)
        if id(first) in self._variables_made_at:
            raise Decline(network.calls[0], f"`{function.name.value}` is first called in the statement that first calls "
                                            f"`{self._variables_made_at[id(first)]}`: which made its variables first is "
                                            "not read here")
        if network.unit is None:
            if any(isinstance(node, UNIT_BREAKS) for node in ancestors(network.calls_of[0], parents)):
                raise Decline(network.calls[0], f"`{function.name.value}` is first called inside a loop, a condition or "
                                                "a `try`: made before it, its variables would be made whether or not "
                                                "that call runs")
            return next(i for i, top in enumerate(self._module.body) if training.contains(top, first)), first
        return self._networks.before_unit(network.unit, first, function.name.value), first
