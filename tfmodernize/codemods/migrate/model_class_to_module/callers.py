"""The code using a migrated model class, in its own module and in the files of the run that
import it: each object made gets a Keras optimizer where TF1 code passed a TF1 one
(``Model(optimizer=tf.train.AdamOptimizer(0.01))``), and nothing may read the graph values the
class no longer has (``model.cost``, ``model.sess``).

What a migrated class tells the files importing it (``Exported``) is the module's export
(``FileState.exports``) under the codemod's code: ``{"classes": {name: {"optimizers":
[[parameter, position]], "graph": [attribute, ...]}}}``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import libcst as cst

from tfmodernize.analysis.optimizers import optimizer_table
from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    GraphAPI,
    Kind,
    OptimizerUse,
    tf_path,
)
from tfmodernize.codemods.migrate.model_class_to_module.optimizers import Optimizers
from tfmodernize.names import own_nodes
from tfmodernize.syntax import argument, source
from tfmodernize.tfsymbols import dotted_name
from tfmodernize.treewalk import import_statements, walk

LOOPS = (cst.For, cst.While, cst.CompFor)


@dataclass(frozen=True)
class Exported:
    """What code calling a migrated class must know of it."""

    #: The ``__init__`` parameters taking an optimizer: (name, position after ``self``; None:
    #: keyword only).
    optimizers: tuple[tuple[str, Optional[int]], ...]
    #: The attributes that held graph values (placeholders, tensors, the session, variables).
    graph: tuple[str, ...]
    #: A graph class's methods (``GraphAPI``), for the code running its graph; None for a class
    #: running its graph itself.
    api: Optional[GraphAPI] = None
    #: Whether the class's objects make or merge summaries: TF1 gave a second object's summaries
    #: other tags (``loss_1``) and merged them all, so its code makes one object.
    summarizes: bool = False

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "optimizers": [list(pair) for pair in self.optimizers],
            "graph": list(self.graph),
            "summarizes": self.summarizes,
        }
        if self.api is not None:
            found["api"] = self.api.to_json()
        return found

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Exported":
        return cls(
            tuple((str(name), position) for name, position in data.get("optimizers", [])),
            tuple(data.get("graph", [])),
            GraphAPI.from_json(data["api"]) if data.get("api") is not None else None,
            bool(data.get("summarizes", False)),
        )


def exported(
    model: ClassModel,
    api: Optional[GraphAPI] = None,
    summarizes: bool = False,
) -> Exported:
    init = model.init
    positional = [p.name.value for p in [*init.params.posonly_params, *init.params.params]][1:]
    optimizers = []
    for train in model.of(Kind.TRAIN):
        name = train.optimizer.parameter
        if name is not None:
            optimizers.append((name, positional.index(name) if name in positional else None))
    return Exported(tuple(optimizers), tuple(sorted(model.graph_attributes())), api, summarizes)


def imported_classes(module: cst.Module, project: dict, code: str) -> dict[str, Exported]:
    """The migrated classes of project modules this module imports, by the dotted name that
    calls them here (``Model``, ``model.Model``)."""
    found: dict[str, Exported] = {}
    for statement in import_statements(module):
        if isinstance(statement, cst.ImportFrom) and statement.relative == () and statement.module is not None:
            name = source(statement.module)
            classes = _classes(project.get(name), code)
            if not classes or isinstance(statement.names, cst.ImportStar):
                found.update({cls: export for cls, export in classes.items()} if classes else {})
                continue
            for alias in statement.names:
                imported = source(alias.name)
                local = source(alias.asname.name) if alias.asname is not None else imported
                if imported in classes:
                    found[local] = classes[imported]
        elif isinstance(statement, cst.Import):
            for alias in statement.names:
                name = source(alias.name)
                classes = _classes(project.get(name), code)
                local = source(alias.asname.name) if alias.asname is not None else name
                found.update({f"{local}.{cls}": export for cls, export in classes.items()})
    return found


def _classes(summaries: Optional[dict], code: str) -> dict[str, Exported]:
    summary = (summaries or {}).get(code) or {}
    return {name: Exported.from_json(data) for name, data in (summary.get("classes") or {}).items()}


class Callers:
    """The uses of migrated classes in one module (``classes``: by the dotted name calling
    them); ``skip``: the migrated classes' own bodies. ``edits`` lists the arguments and lines to
    rewrite, or ``check`` raises the first ``Decline``."""

    def __init__(
        self,
        codemod,
        module: cst.Module,
        classes: dict[str, Exported],
        skip: list[cst.ClassDef],
        optimizers: Optimizers,
    ) -> None:
        self.codemod, self.module, self.classes = codemod, module, classes
        self.optimizers = optimizers
        self.tf = codemod.tf
        self.skip = {id(n) for cls in skip for n in walk(cls)}
        self.parents = codemod.state.parents(module)
        #: (node, replacement, message) for each rewrite.
        self.edits: list[tuple[cst.CSTNode, cst.CSTNode, str]] = []
        #: Why a Keras optimizer computes otherwise than TF1's (an unsafe fix), by the node.
        self.different: dict[int, str] = {}
        #: The TF1 optimizer whose class (``optimizers.FUSED``) a rewrite makes, by the node.
        self.fused: dict[int, str] = {}

    def check(self) -> None:
        graph = {attribute: name for name, export in self.classes.items() for attribute in export.graph}
        objects = self._objects()
        made: dict[str, int] = {}
        for node in walk(self.module, code_only=True):
            if id(node) in self.skip:
                continue
            if isinstance(node, cst.ClassDef) and any(dotted_name(b.value) in self.classes for b in node.bases):
                raise Decline(
                    node,
                    f"`{node.name.value}` subclasses a model class, and would not follow its rewrite",
                )
            if isinstance(node, cst.Call) and dotted_name(node.func) in self.classes:
                name = dotted_name(node.func)
                self._constructor(node, self.classes[name], name)
                made[name] = made.get(name, 0) + 1
                looped = any(isinstance(a, (*LOOPS, cst.Lambda)) for a in self._ancestors(node))
                if self.classes[name].summarizes and (made[name] > 1 or looped):
                    raise Decline(
                        node,
                        f"`{name}` makes or merges summaries and its objects are made more "
                        "than once: TF1 gave the later objects' summaries other tags and merged "
                        "them all",
                    )
            elif isinstance(node, cst.Attribute) and node.attr.value in graph and self._object(node.value, objects):
                raise Decline(
                    node,
                    f"`{source(node)}` reads `{node.attr.value}`, a graph value of `{graph[node.attr.value]}` "
                    "(a model class migrated to a tf.Module, which has none)",
                )

    def _objects(self) -> tuple[set[str], set[str], set[str]]:
        """Where the module keeps objects of the classes: the names bound to one (``model =
        Model()``, ``for model in models``), the attributes (``self.net = Model()``), the names of
        lists of them (``models = [Model(), Model(2)]``)."""
        names: set[str] = set()
        attributes: set[str] = set()
        lists: set[str] = set()
        for node in walk(self.module, code_only=True):
            if not isinstance(node, cst.Assign):
                continue
            value = node.value
            made = isinstance(value, cst.Call) and dotted_name(value.func) in self.classes
            listed = isinstance(value, (cst.List, cst.Tuple, cst.ListComp)) and any(
                isinstance(n, cst.Call) and dotted_name(n.func) in self.classes for n in walk(value)
            )
            for target in node.targets:
                if isinstance(target.target, cst.Attribute) and made:
                    attributes.add(target.target.attr.value)
                elif isinstance(target.target, cst.Name):
                    (names if made else lists if listed else set()).add(target.target.value)
        for node in walk(self.module, code_only=True):
            if isinstance(node, (cst.For, cst.CompFor)) and isinstance(node.target, cst.Name):
                if isinstance(node.iter, cst.Name) and node.iter.value in lists:
                    names.add(node.target.value)
        return names, attributes, lists

    def _object(self, node: cst.BaseExpression, objects: tuple[set[str], set[str], set[str]]) -> bool:
        """Whether ``node`` is an object of the classes, as far as the module shows (``_objects``)."""
        names, attributes, lists = objects
        if isinstance(node, cst.Name):
            return node.value in names
        if isinstance(node, cst.Attribute):
            return node.attr.value in attributes
        if isinstance(node, cst.Subscript):
            return isinstance(node.value, cst.Name) and node.value.value in lists
        return isinstance(node, cst.Call) and dotted_name(node.func) in self.classes

    def _constructor(self, call: cst.Call, export: Exported, name: str) -> None:
        if not export.optimizers:
            return
        if any(arg.star for arg in call.args):
            raise Decline(call, f"`{name}` is called with `*` or `**` arguments: its optimizer cannot be read")
        for parameter, position in export.optimizers:
            given = argument(call, position, parameter)
            if given is None or (isinstance(given, cst.Name) and given.value == "None"):
                continue
            if isinstance(given, cst.Call):
                self._convert(given, given, name)
            elif isinstance(given, cst.Name):
                self._convert(self._binding(given, call, name), given, name)
            else:
                raise Decline(given, f"the optimizer passed to `{name}` is not a TF1 optimizer made here")

    def _convert(self, made: cst.Call, at: cst.CSTNode, name: str) -> None:
        path = tf_path(made.func, self.tf) or ""
        tf1_class = path[len("train.") :]
        if not (path.startswith("train.") and tf1_class in optimizer_table()):
            raise Decline(at, f"the optimizer passed to `{name}` is not a TF1 optimizer made here")
        new, different, written = self.optimizers.call(OptimizerUse(tf1_class, made))
        if different is not None:
            self.different[id(made)] = different
        if written is not None:
            self.fused[id(made)] = written
            message = f"tf.train.{tf1_class} passed to `{name}` -> {new.func.value}, its fused update"
        else:
            message = f"tf.train.{tf1_class} passed to `{name}` -> the Keras optimizer"
        self.edits.append((made, new, message))

    def _binding(self, given: cst.Name, call: cst.Call, name: str) -> cst.Call:
        """The TF1 optimizer call bound to ``given`` once, in the scope of the call, and read only
        there (one optimizer per object: TF1 kept each object's slots in its own session)."""
        scope = next(
            (a for a in self._ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))),
            self.module,
        )
        uses = [n for n in own_nodes(scope) if isinstance(n, cst.Name) and n.value == given.value]
        targets = [
            n for n in uses if isinstance(self.parents.get(id(n)), cst.AssignTarget) and self.parents[id(n)].target is n
        ]
        reads = [n for n in uses if n not in targets]
        binding = self.parents.get(id(targets[0])) if len(targets) == 1 else None
        assign = self.parents.get(id(binding)) if binding is not None else None
        if not (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.value, cst.Call)
            and reads == [given]
        ):
            raise Decline(
                given,
                f"the optimizer `{given.value}` passed to `{name}` is not made once for it alone",
            )
        loops = [a for a in self._ancestors(call) if isinstance(a, LOOPS)]
        if any(not any(a is b for b in self._ancestors(assign)) for a in loops):
            raise Decline(given, f"the optimizer `{given.value}` is passed to every `{name}` made in a loop")
        return assign.value

    def _ancestors(self, node: cst.CSTNode):
        parent = self.parents.get(id(node))
        while parent is not None:
            yield parent
            parent = self.parents.get(id(parent))
