"""Layers-to-keras's plan for network functions making their variables with ``tf.get_variable``
under their variable scope (what is made is read by ``scoped_variables``): where the variables
are made (before the statement first calling the network, or before the definition of the
function the program calls once holding its calls) and what the function reads instead; or,
for a project module's function the other files of the run call, the ``tf.Module`` class it
becomes. ``ScopedVariables`` reads the file's ``FilePlan``, records its edits with the
``Editor`` it is given, and keeps where it has made variables so far."""

from __future__ import annotations

import dataclasses
import re

import libcst as cst

from tfmodernize.treewalk import contains
from tfmodernize.analysis.variables import VariableValues, math_importable
from tfmodernize.analysis.variable_reuse import helper_scope, read_shared_networks
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.layers_to_keras import modules
from tfmodernize.codemods.migrate.layers_to_keras.callers import local_calls, variable_maker, widths_known
from tfmodernize.codemods.migrate.layers_to_keras.network import (
    UNIT_BREAKS,
    Network,
    innermost_first,
)
from tfmodernize.codemods.migrate.layers_to_keras.network import (
    prefix as network_prefix,
)
from tfmodernize.codemods.migrate.layers_to_keras.plan import FilePlan
from tfmodernize.codemods.migrate.layers_to_keras.rewrites import (
    Editor,
    make_before,
    stop_passing,
)
from tfmodernize.codemods.migrate.layers_to_keras.scoped_variables import (
    scoped_variables,
    template_expression,
)
from tfmodernize.codemods.migrate.layers_to_keras.static_shapes import StaticShapes
from tfmodernize.codemods.migrate.layers_to_keras.shapes import (
    bound_shapes,
    result_widths,
    returned_variables,
)
from tfmodernize.codemods.migrate.layers_to_keras.summaries import variable_summaries
from tfmodernize.codemods.migrate.layers_to_keras.training_batch_norm import (
    TrainingNorm,
    always_training,
    read_norms,
    statistics_reader,
)
from tfmodernize.names import name_nodes, names_bound_here, parameter_names
from tfmodernize.syntax import ancestors, argument, source, split_docstring, statement_holding
from tfmodernize.treewalk import walk


class ScopedVariables:
    """Network functions' ``tf.get_variable`` calls in one file."""

    def __init__(self, plan: FilePlan, editor: Editor) -> None:
        self.plan, self.editor = plan, editor
        #: Statements first calling a network function whose variables are made before them -> the
        #: function.
        self._variables_made_at: dict[int, str] = {}
        #: (module statement index, order of the first call, the lines making the variables).
        self._hoisted_variables: list[tuple[int, int, list[cst.SimpleStatementLine]]] = []
        #: Summary lines of helpers already removed (each serves every network calling it).
        self._removed_summaries: set[int] = set()

    def network_variables(
        self,
        function: cst.FunctionDef,
        calls: list[cst.Call],
        variables: list[cst.Call],
        taken: set[str],
    ) -> None:
        """A network function making its variables with ``tf.get_variable`` under its variable
        scope (see ``scoped_variables``): each variable is made once, at module level, before the
        statement first calling the function, and read where TF1 asked for it; for a project
        module's function called by the other files of the run, by the ``tf.Module`` class the
        function becomes."""
        parents = self.plan.parents
        name = function.name.value
        if taken_by_get_variable_to_variable(function, self.plan.module, self.plan.tf, parents):
            return  # (it says why, when it declines)
        split = None
        norm_calls = [
            n
            for n in walk(function.body, code_only=True)
            if isinstance(n, cst.Call) and always_training(n, self.plan.tf)
        ]
        norms: list = []
        try:
            if any(not any(c is v for v in [*variables, *norm_calls]) for c in calls):
                raise Decline(
                    variables[0],
                    "the function makes variables both with tf.get_variable and with "
                    "tf.layers or an RNN: where each set would be made is not proven in order",
                )
            project = self.plan.project_network(function, calls)
            # Called several times here without sharing: a class too, one object per call.
            local = not project and self.plan.called_apart(function)
            network = self.plan.networks.read(
                function,
                variables,
                split=project or local,
                units=not (project or local),
                separate=local,
            )
            built_at, first = (None, None) if project or local else self._variables_built_at(function, network)
            attributes = set(parameter_names(function))
            values = VariableValues(self.plan.tf, self.editor.tf_expr)
            made = scoped_variables(
                function,
                network,
                innermost_first(variables),
                self.plan.hoisting,
                values,
                lambda node: self.plan.variable_scope(node),
                attributes if project or local else taken,
                network_prefix(network.scopes, function),
                split=project or local,
                helpers=self.plan.helpers,
            )
            if project and network.reuse is not None:
                reason = modules.callers_share(
                    function,
                    self.plan.callers.get(name, []),
                    network.reuse,
                    parameter_names(function).index(network.reuse),
                )
                if reason is not None:
                    raise Decline(variables[0], reason)
            if values.uses_math and not math_importable(self.plan.module):
                raise Decline(
                    variables[0],
                    "a Glorot range would be computed with `math`, a name the file binds to something else",
                )
            if local:
                self._named_apart(function, made, variables[0])
            if norm_calls:
                norms = self._training_norms(
                    function,
                    norm_calls,
                    made,
                    attributes if project or local else taken,
                    "" if project or local else f"{network_prefix(network.scopes, function)}_",
                    split=project or local,
                )
            summaries = variable_summaries(self.plan, function, network, made) if project or local else []
            if local and summaries:
                raise Decline(
                    summaries[0][0],
                    f"`{name}`, called several times here, summarizes its variables: the "
                    "class it would become could not write them",
                )
            inside = {id(n) for variable in made for n in walk(variable.call)}

            removed: list[cst.SimpleStatementLine] = []

            def reads_left(constant: str) -> bool:
                return any(
                    id(n) not in inside
                    for n in name_nodes(function.body)
                    if n.value == constant
                    and not any(contains(line, n) for line in [*removed, network.constants[constant]])
                )

            # ``width = 6`` (or ``rows, cols = 3, 6``, ``in_dim = x.get_shape()[1]``) read by the
            # variables only, or by such lines going too (``shape = [3, 3, in_dim, 8]``).
            constant_lines = list({id(line): line for line in network.constants.values()}.values())
            while True:
                going = {id(line) for line in removed}
                more = [
                    line
                    for line in constant_lines
                    if id(line) not in going and self.plan.hoisting.removable(network, line, reads_left)
                ]
                if not more:
                    break
                removed += more
            gone = {bound for line in removed for bound in names_bound_here(line.body[0].targets[0])}
            if any(derived not in gone for derived in network.derived):
                raise Decline(
                    variables[0],
                    f"`{sorted(network.derived)[0]}`, a dimension of an input its variables "
                    f"are made with, is read elsewhere in `{name}` too",
                )
            if project or local:
                # The scope blocks' items go with the blocks: what they read is not kept.
                def split_of(lazy: bool) -> modules.Split:
                    split = modules.split_of(
                        function,
                        [read for v in made for read in v.reads],
                        [
                            *(v.call for v in made),
                            *removed,
                            *(item for block in network.scopes for item in block.items),
                        ],
                        taken,
                        network.derived,
                        lazy,
                    )
                    split = dataclasses.replace(
                        split,
                        widths=result_widths(
                            function, made, split.parameters, self.plan.tf, parents, self.plan.helpers
                        ),
                        variables=returned_variables(function, made, parents),
                    )
                    if norms:
                        split = dataclasses.replace(split, statistics=True)
                    if network.reuse is not None:
                        split = dataclasses.replace(
                            split,
                            parameters=tuple(p for p in split.parameters if p != network.reuse),
                            reuse=network.reuse,
                            reuse_position=parameter_names(function).index(network.reuse),
                        )
                    return split

                split = split_of(lazy=False)
                if split.derived and (
                    not widths_known(self.plan, function, split.export())
                    if local
                    else not modules.callers_know_widths(
                        function, self.plan.callers.get(name, []), split.derived, self._networks()
                    )
                ):
                    # A call's input is as wide as only the graph says (after a pooling or a
                    # reshape): the object makes its variables on its first call, from that input.
                    split = lazy_split(self.plan, function, split_of(lazy=True), variables[0])
            if local:
                local_calls(self.plan, function, split.export())
        except Decline as decline:
            self.editor.declined(decline, "tf.get_variable not migrated: ")
            return
        if split is not None:
            callers = "this file calls several times" if local else "the other files of the run call"
            if not self.editor.fix(
                variables[0],
                f"tf.get_variable in `{name}`, a network function {callers} -> a tf.Module "
                f"class `{split.class_name}` making the variables once per object",
            ):
                return
        elif not self.editor.fix(
            variables[0],
            f"tf.get_variable in `{name}`, under its variable scope -> tf.Variable made "
            "once, where TF1 first created it, and read by the function",
        ):
            return
        if values.uses_math:
            self.editor.add_import("math")
        for block in network.scopes:
            self.editor.replace(block, lambda updated: cst.FlattenSentinel(updated.body.body))
        for switch in network.switches:
            self.editor.remove(switch)
        for line in removed:
            self.editor.remove(line)
        for norm in norms:
            self.editor.replace(norm.call, cst.parse_expression(norm.applied))
            # The moments line takes the statement's comments and blank lines.
            self.editor.insert_before(
                norm.statement,
                [cst.parse_statement(norm.moments).with_changes(leading_lines=norm.statement.leading_lines)],
            )
            self.editor.replace(norm.statement, lambda updated: updated.with_changes(leading_lines=[]))
            self.editor.drop_from_import_of(norm.call.func, self.plan.from_imported)
        # What is made, in the order TF1 made it: the variables, and each batch normalisation's at
        # its call.
        order = {id(n): i for i, n in enumerate(walk(function.body, code_only=True))}
        making = sorted(
            [(order[id(v.call)], v.name, v.code, v.scope) for v in made]
            + [(order[id(norm.call)], name, code, "") for norm in norms for name, code in norm.variables],
            key=lambda item: item[0],
        )
        if split is not None:
            for variable in made:
                self.editor.replace(variable.call, cst.Attribute(cst.Name("self"), cst.Name(variable.name)))
            # (Not in the lines going: a lazy object keeps every parameter ``build`` reads.)
            for read in modules.stored_reads(function, split, [*(v.call for v in made), *removed]):
                self.editor.replace(read, lambda updated: modules.on_the_object(updated, split))
            created = [(name, cst.parse_expression(code)) for _, name, code, _ in making]
            # A helper names its variable without the scope TF1 made it under: made under that name
            # scope.
            scoped = [
                None
                if not scope
                else cst.With(
                    [
                        cst.WithItem(
                            cst.Call(
                                self.editor.tf_expr("name_scope"),
                                [cst.Arg(template_expression(scope))],
                            )
                        )
                    ],
                    cst.IndentedBlock([]),
                )
                for _, _, _, scope in making
            ]
            base = self.editor.tf_expr("Module")
            self.editor.replace(
                function,
                lambda updated: modules.module_class(
                    updated, split, created, base, "__call__", scoped, width=self.plan.width
                ),
            )
            exported = split.export()
            if local:
                self.plan.local_splits[name] = modules.ImportedSplit(None, exported)
                return
            if summaries:
                # The calling file writes them where TF1's merged summary was written (summary-v2).
                # A helper's summary lines serve every call of it: each goes once.
                for statement in {id(line): line for line, *_ in summaries}.values():
                    if id(statement) not in self._removed_summaries:
                        self._removed_summaries.add(id(statement))
                        self.editor.remove(statement)
                exported["summaries"] = [list(rest) for _, *rest in summaries]
            self.plan.export_class(split.function, exported)
            return
        self._variables_made_at[id(first)] = name
        if network.reuse is not None:
            stop_passing(self.editor, function, network)
        for variable in made:
            self.editor.replace(variable.call, cst.Name(variable.name))
        created = [
            cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], cst.parse_expression(code))])
            for _, name, code, _ in making
        ]
        self._hoisted_variables.append((built_at, self.plan.networks.order[id(first)], created))

    def _networks(self) -> set[str]:
        """The functions of this file making variables (with ``tf.get_variable``, directly or
        through a variable helper): what one returns, its class exports the width of."""
        helpers = set(self.plan.helpers)
        return {
            definition.name.value
            for definition in self.plan.module.body
            if isinstance(definition, cst.FunctionDef)
            and definition.name.value not in helpers
            and any(
                isinstance(n, cst.Call)
                and (
                    (isinstance(n.func, cst.Name) and n.func.value in helpers)
                    or self.plan.tf.is_tf(n.func, "get_variable")
                )
                for n in walk(definition.body, code_only=True)
            )
        }

    def _training_norms(
        self,
        function: cst.FunctionDef,
        calls: list[cst.Call],
        made: list,
        taken: set[str],
        prefix: str,
        *,
        split: bool,
    ) -> list[TrainingNorm]:
        """The batch normalisations of a network function always in training mode, written as
        TF2 ops over variables made with the function's (see ``training_batch_norm``); declines
        when something in this file reads the moving statistics TF1 made with them (a file
        calling the class checks itself: the split says so)."""
        reader = statistics_reader(self.plan.module, self.plan.tf)
        if reader is not None:
            raise Decline(
                calls[0],
                f"the file reads {reader}: it would read the moving mean and variance TF1 made for "
                "this batch normalisation, which its migration does not make (training mode never "
                "reads them)",
            )
        wide = next((v for v in made if re.search(r"\b(b?float16|float64|double|half)\b", v.code)), None)
        if wide is not None:
            raise Decline(
                calls[0],
                f"the function's weights are not float32 (`{wide.name}`): its batch normalisation's "
                "variables would be made in another dtype than TF1 gave them",
            )
        parents = self.plan.parents
        shapes = StaticShapes(
            self.plan.module,
            self.plan.tf,
            bound_shapes(made, self.plan.helpers, self.plan.tf, parents),
        )
        taken |= {v.name for v in made}
        return read_norms(
            function,
            calls,
            self.plan.tf,
            parents,
            shapes,
            lambda node: self.plan.variable_scope(node),
            taken,
            prefix,
            (lambda name: f"self.{name}") if split else (lambda name: name),
            self.editor.tf_root(),
        )

    def _named_apart(self, function: cst.FunctionDef, made: list, at: cst.Call) -> None:
        """Each call of a network function this file calls several times without sharing asked
        TF1 for variables of other names (a name asked for twice fails): every variable's name
        reads a parameter (``{tag}/kernel``) that the calls give different strings written out.
        Declines what is not shown so."""
        parameters = parameter_names(function)
        calls = [
            n
            for n in walk(self.plan.module, code_only=True)
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == function.name.value
        ]
        if len(calls) < 2:
            return  # called once (a class for the width of its input): one set of variables
        for variable in made:
            read = re.findall(r"\{(\w+)\}", variable.tf1 or "")
            if not any(self._distinct_strings([argument(c, parameters.index(p), p) for c in calls]) for p in read):
                raise Decline(
                    at,
                    f"it is applied in `{function.name.value}`, which the program calls {len(calls)} times "
                    "without sharing its variables (`reuse`): TF1 made a network for each call, and "
                    "that each call named its variables apart is not read here",
                )

    @staticmethod
    def _distinct_strings(values: list) -> bool:
        """Whether ``values`` are string literals, all different."""
        strings = [v.evaluated_value for v in values if isinstance(v, cst.SimpleString)]
        return len(strings) == len(values) and len(set(strings)) == len(strings)

    def make_hoisted_variables(self) -> None:
        """The network functions' variables, made before the top-level statement first calling
        each network (directly or through the function holding its calls), in the order TF1
        made them: networks first called earlier first."""
        for built_at in sorted({at for at, _, _ in self._hoisted_variables}):
            statement = self.plan.module.body[built_at]
            make_before(
                self.editor,
                statement,
                [
                    line
                    for at, _, lines in sorted(self._hoisted_variables, key=lambda made: made[1])
                    if at == built_at
                    for line in lines
                ],
            )

    def _variables_built_at(self, function: cst.FunctionDef, network: Network) -> tuple[int, cst.BaseStatement]:
        """The index of the module statement first calling ``function`` (or defining the
        function holding its calls: ``Network.unit``), before which its variables are made, and the
        statement holding its first call; declines calls under a variable scope not named by a
        literal, a statement first calling another such function too, and a unit making random
        values or variables before its first call (they would be made after the network's)."""
        parents = self.plan.parents
        for site in network.calls_of:
            if any(
                isinstance(node, cst.With)
                and any(
                    self.plan.tf.is_tf(item.item.func, "variable_scope")
                    and not (item.item.args and isinstance(item.item.args[0].value, cst.SimpleString))
                    for item in node.items
                    if isinstance(item.item, cst.Call)
                )
                for node in ancestors(site, parents)
            ):
                raise Decline(
                    site,
                    f"`{function.name.value}` is called under a variable scope not named by a literal",
                )
        first = statement_holding(network.calls_of[0], parents)
        if id(first) in self._variables_made_at:
            raise Decline(
                network.calls[0],
                f"`{function.name.value}` is first called in the statement that first calls "
                f"`{self._variables_made_at[id(first)]}`: which made its variables first is "
                "not read here",
            )
        if network.unit is None:
            if any(isinstance(node, UNIT_BREAKS) for node in ancestors(network.calls_of[0], parents)):
                raise Decline(
                    network.calls[0],
                    f"`{function.name.value}` is first called inside a loop, a condition or "
                    "a `try`: made before it, its variables would be made whether or not "
                    "that call runs",
                )
            return next(i for i, top in enumerate(self.plan.module.body) if contains(top, first)), first
        return self.plan.networks.before_unit(network.unit, first, function.name.value), first


def taken_by_get_variable_to_variable(function: cst.FunctionDef, module: cst.Module, tf, parents: dict) -> bool:
    """Whether ``function`` is a layer helper whose whole body is ``with tf.variable_scope(name,
    reuse=None):`` in a file sharing its networks' variables in the known shape
    (``read_shared_networks``): get-variable-to-variable migrates its variables, with
    network-function-to-module making the networks modules."""
    _, body = split_docstring(list(function.body.body))
    return (
        len(body) == 1
        and helper_scope(body[0], tf)
        and body[0].items[0].item.args[0].value.value in {p.name.value for p in function.params.params}
        and read_shared_networks(module, tf, parents) is not None
    )


def lazy_split(
    plan: FilePlan,
    function: cst.FunctionDef,
    split: modules.Split,
    first: cst.Call,
) -> modules.Split:
    """``split`` making its variables on the first call (``Split.lazy``), in the trace of the
    function holding that call; declines where a dimension they are made from is of an input
    the object is made with, or where the file makes variables or layers elsewhere (made ahead
    of the trace, they would draw their initial values before this class's, not in TF1's order)."""
    for name, parameter, _ in split.derived:
        if parameter in split.init:
            raise Decline(
                first,
                f"`{name}`, a dimension its variables are made from, is of `{parameter}`, which "
                f"`{function.name.value}`'s layers are made with too: no caller knows it, and the "
                "first call cannot make them from it",
            )
    makers = {function.name.value} | {
        n.func.value for n in walk(function.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
    }
    inside = {
        id(n)
        for definition in plan.module.body
        if isinstance(definition, cst.FunctionDef) and definition.name.value in makers
        for n in walk(definition)
    }
    call = variable_maker(plan, inside)
    if call is not None:
        raise Decline(
            first,
            f"the file makes variables elsewhere too (`{source(call.func)}`); "
            f"`{function.name.value}`'s would be made on its first call, in a trace, after "
            "those: their initial values would be drawn in another order than TF1's",
        )
    return split
