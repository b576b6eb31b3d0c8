"""TFM100 summary-v2.

What it does
    Moves TF1 TensorBoard summaries to ``tf.summary`` v2 in a program that runs its graph in
    sessions: ``tf.summary.FileWriter(logdir, graph)`` becomes
    ``tf.summary.create_file_writer(logdir)``; the summarized tensors are fetched by the run
    that fetched the merged summary (``merge_all``, ``merge([...])`` or one summary), in its
    place; and ``writer.add_summary(summary, step)`` becomes ``with writer.as_default():``
    and one ``tf.summary.scalar/histogram/image/text(tag, value, step=step)`` per summary,
    under the tag TF1 wrote: the summary's name scopes (``name_scope``/``variable_scope``
    blocks named by literals) before its name, whose characters TF1 does not allow in a tag
    written as ``_`` (``"raw image"`` under ``name_scope("inputs")`` is
    ``"inputs/raw_image"``). A value written as an expression (``tf.reshape(x, [-1, 28, 28,
    1])``) is bound to a name where the summary was, and that name fetched; a placeholder's
    summary is written from the name the run feeds it (TF1 summarized the fed value). A name an
    op of the same scope took first (``name="loss"``) is written as TF1 made it unique
    (``loss_1``). ``merge_all`` also writes the summaries objects of a project module's classes
    make of their own variables when called (a network function's ``tf.summary.histogram("w",
    w)``, exported by layers-to-keras with the class): from ``<object>.<variable>``, under each
    call's scope (``gan/judge``, then ``gan/judge_1`` for the call sharing its variables).
    ``add_graph`` goes. Summaries no run ever fetches are removed: the TF1 program wrote
    nothing for them.
    The program may be written at the top level of the file or in one module function
    (``def train(): ...``): summaries, merges, writers and the runs fetching them in its own
    lines. It runs before session-to-function, which then migrates the runs as usual.

Why it matters
    ``tf.summary.FileWriter``, ``merge_all`` and summary ops that return serialized protos
    are TF1-only: a program using them stays on ``tf.compat.v1``. TF2 writes summaries
    eagerly, from values, through a default writer and an explicit step.

Before
    tf.summary.scalar("loss", loss)
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(logdir, sess.graph)
    _, summary = sess.run([train, merged], {x: batch})
    writer.add_summary(summary, step)

After
    writer = tf.summary.create_file_writer(logdir)
    _, summary_loss = sess.run([train, loss], {x: batch})
    with writer.as_default():
        tf.summary.scalar("loss", summary_loss, step=step)

Fix safety
    Same tags, steps and scalar values in the events file: a value fetched in the same run as
    the summary was is the value TF1 summarized (an expression bound to a name there computes
    what the summary op computed, in the same run). Histograms and images are written from the
    same values in TF2's format (TensorBoard reads both). The graph TF1 wrote beside them is not
    written (a TF2 program has no session graph; ``tf.summary.trace_on``/``trace_export``
    around a ``tf.function`` call records one): the fix says so.

Declines when
    a summary is made inside a class or a nested function, or in a module function that does
    not fetch its summaries itself (a caller merging all summaries may), or both at top level
    and in a function (or in two functions); under a scope not named by a literal, reentered
    (``reuse=``), or named by a string the file writes again (TF1 may have made it unique:
    ``loss_1``); with a tag that is not a literal, with ``collections=``/``family=``; a merged
    summary is fetched in a way that cannot be unpacked into names, or its result is used other
    than by ``add_summary``; a writer is used other than by ``add_summary``, ``flush`` and
    ``close``; a ``merge_all`` is in a file that imports a function or class of a project
    module of the run which makes summaries when called (TF1 merged those too) and does not
    export them, or an object exporting them is called elsewhere than in the program's code
    or used other than called. The program's
    summaries are then left as they are (and the program on ``tf.compat.v1``), with a finding
    saying which.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.codemods import _training as training
from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.names import name_nodes, names_bound_here, own_nodes, target_name_nodes
from tfmodernize.syntax import ancestors, argument, no_space_equal, source, statement_holding, statement_of
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import import_statements, walk

#: TF1 summary ops this migrates -> whether TF2's function of the same name takes the value as is.
SUMMARY_OPS = ("summary.scalar", "summary.histogram", "summary.image", "summary.text")
#: Summary ops this does not migrate: made anywhere, they keep a ``merge_all`` from being read.
OTHER_SUMMARY_OPS = ("summary.audio", "summary.tensor_summary")
MERGES = ("summary.merge_all", "summary.merge")
WRITERS = ("summary.FileWriter",)
#: FileWriter keywords create_file_writer has too (flush_secs is converted).
WRITER_KEYWORDS = ("logdir", "max_queue", "filename_suffix", "flush_secs", "graph")
SUMMARY_KEY = ("summaries", "GraphKeys.SUMMARIES")


@dataclass
class Summary:
    """``[name =] tf.summary.<kind>(tag, value)`` in the program's code (its top level, or one
    module function's own lines)."""

    statement: cst.SimpleStatementLine
    call: cst.Call
    kind: str
    #: The tag TF1 wrote: its name scopes, then the name given with TF1's invalid characters
    #: replaced (``"train/raw_image"`` for ``"raw image"`` under ``name_scope("train")``).
    tag: str
    literal: cst.SimpleString
    value: cst.Name
    name: Optional[str]
    max_outputs: Optional[cst.BaseExpression] = None
    #: A value written as an expression (``tf.reshape(x, ...)``): it is bound to ``value`` where
    #: the summary was, so the run that fetched the summary fetches it.
    expression: Optional[cst.BaseExpression] = None
    #: A summary a project class's object makes of its own variable when called (its module
    #: exports it): written from ``<object>.<attribute>``, read where the merged summary is written.
    direct: Optional[str] = None


@dataclass
class Fetch:
    """A run that fetches summaries: ``target = <x>.run(fetches, ...)``."""

    statement: cst.SimpleStatementLine
    call: cst.Call
    #: (fetch element index or None for a single fetch, what it names, the result's name)
    summaries: list[tuple[Optional[int], str, str]] = field(default_factory=list)


class SummaryV2(TFCodemod):
    __doc__ = __doc__
    code = "TFM100"
    name = "summary-v2"
    summary = "TF1 summaries, merge_all and FileWriter -> tf.summary v2 written from the fetched values"
    needles = ("summary",)
    interests = (cst.Call,)
    detects = (*SUMMARY_OPS, *MERGES, *WRITERS)
    requires_tf2 = True

    summarizes = True

    @classmethod
    def summarize(cls, module: cst.Module, names: TFNames) -> Optional[dict]:
        """For a file importing this one: the module's functions and classes that make TF
        summaries when called (a ``merge_all`` there merges them too)."""
        making = sorted(
            statement.name.value for statement in module.body if isinstance(statement, (cst.FunctionDef, cst.ClassDef))
            and any(isinstance(node, cst.Call) and names.is_tf(node.func, *SUMMARY_OPS, *OTHER_SUMMARY_OPS)
                    for node in walk(statement, code_only=True)))
        return {"summarizing": making} if making else None

    def plan(self, module: cst.Module) -> None:
        try:
            self._plan(module)
        except Decline as decline:  # the whole program's summaries stay: nothing planned is made
            raise Decline(decline.node, "summaries not migrated: " + decline.reason) from None

    # -- reading the program --------------------------------------------------------------

    def _plan(self, module: cst.Module) -> None:
        self._literals: Optional[list[cst.SimpleString]] = None
        self._placeholder_names: Optional[set[str]] = None
        taken = training.used_names(module)
        summaries: list[Summary] = []
        merges: dict[str, list[Summary]] = {}
        merge_statements: list[cst.SimpleStatementLine] = []
        writers: dict[str, tuple[cst.SimpleStatementLine, cst.Call]] = {}
        # The program's code: its top level, and the body of each module function (a program
        # written in ``main()``); all of its summaries, merges and writers must be in one of them.
        self._owners: dict[int, Optional[cst.FunctionDef]] = {
            id(n): None for n in own_nodes(module) if isinstance(n, cst.SimpleStatementLine)}
        for function in (s for s in module.body if isinstance(s, cst.FunctionDef)):
            self._owners.update({id(n): function for n in own_nodes(function.body) if isinstance(n, cst.SimpleStatementLine)})
        self._owner: Optional[tuple[Optional[cst.FunctionDef]]] = None
        for node in walk(module, code_only=True):
            if not isinstance(node, cst.Call):
                continue
            symbol = self.tf.tf_symbol(node.func)
            if symbol is None or symbol.path not in (*SUMMARY_OPS, *MERGES, *WRITERS):
                continue
            statement, name = self._definition(module, node)
            if symbol.path in SUMMARY_OPS:
                summaries.append(self._summary(statement, node, symbol.path.split(".")[1], name, taken))
            elif symbol.path in MERGES:
                if symbol.path == "summary.merge_all":
                    self._no_imported_summaries(module, node)
                merged = self._merged(node, symbol.path, summaries)
                if symbol.path == "summary.merge_all":
                    merged += self._object_summaries(module, node)
                merges[self._named(node, name)] = merged
                merge_statements.append(statement)
            else:
                writers[self._named(node, name)] = (statement, node)
        by_name = {s.name: [s] for s in summaries if s.name is not None}
        fetchable = {**by_name, **merges}
        fetches = self._fetches(module, fetchable)
        adds = self._adds(module, writers, fetches)
        graphs = self._graph_writes(module, writers)
        owner = self._owner[0] if self._owner is not None else None
        if owner is not None and not fetches:
            raise Decline(next(iter([*(x.call for x in summaries), *(w[1] for w in writers.values())]), owner.name),
                          f"it is made in `{owner.name.value}`, which does not fetch its summaries itself (a caller "
                          "merging all summaries may: only a program written in the function is migrated)")
        for statement in [*(f.statement for f in fetches), *(a[0] for a in adds.values()), *graphs]:
            if id(statement) not in self._owners or self._owners[id(statement)] is not owner:
                raise Decline(statement, "the program's summaries are fetched or written elsewhere than where they are "
                                         "made (another function, or the top-level code)")
        self._check_uses(module, writers, fetches, adds, fetchable,
                         [*merge_statements, *(x.statement for x in summaries), *graphs])
        for statement in graphs:
            if self.fix(statement, "`add_graph` goes: a TF2 program has no session graph (tf.summary.trace_on/"
                                   "trace_export around a tf.function call records one)"):
                self.remove(statement)
        self._rewrite(summaries, merge_statements, writers, fetches, adds, fetchable, taken)

    def _no_imported_summaries(self, module: cst.Module, merge: cst.Call) -> None:
        """Declines a ``merge_all`` in a file importing a project module's function or class that
        makes summaries when called: TF1 merged those too, and they are not written here."""
        for statement in import_statements(module):
            if isinstance(statement, cst.ImportFrom) and not statement.relative and statement.module is not None:
                pairs = [(source(statement.module), alias) for alias in statement.names] \
                    if not isinstance(statement.names, cst.ImportStar) else [(source(statement.module), None)]
            elif isinstance(statement, cst.Import):
                pairs = [(source(alias.name), None) for alias in statement.names]
            else:
                continue
            for name, alias in pairs:
                _, summary = self.local_module(name)
                making = set((summary or {}).get("summarizing") or ())
                # A function another codemod's rewrite made a class (its export): the class makes them.
                making |= {function for function, split in self._exported_classes(name).items()
                           if split.get("class") in making}
                picked = making if alias is None else making & {source(alias.name)}
                if picked:
                    raise Decline(merge, f"`merge_all` also merges the summaries that `{sorted(picked)[0]}` ({name}.py) "
                                         "makes when called, which this migration does not write")

    def _object_summaries(self, module: cst.Module, merge: cst.Call) -> list[Summary]:
        """The summaries ``merge_all`` merges that objects of project classes made when called
        before it (their module exports them: a network function's histograms of its variables):
        each call made them again, under its scope made unique (``critic``, then ``critic_1``)."""
        exported = self._exported_summaries(module)
        if not exported:
            return []
        order = {id(n): i for i, n in enumerate(walk(module, code_only=True))}
        parents = self.state.parents(module)
        found: list[Summary] = []
        opened: dict[tuple[str, str], int] = {}
        called: set[str] = set()  # objects called before: a later call shares their variables
        for node in walk(module, code_only=True):
            if not (isinstance(node, cst.Name) and node.value in exported):
                continue
            made, summaries = exported[node.value]
            call = parents.get(id(node))
            if node is made:
                continue
            if not (isinstance(call, cst.Call) and call.func is node):
                raise Decline(node, f"`{node.value}` makes summaries when called, and is used other than called")
            line = statement_holding(call, parents)
            if not isinstance(line, cst.SimpleStatementLine) \
                    or self._owners.get(id(line), "elsewhere") is not (self._owner or (None,))[0]:
                raise Decline(call, f"`{node.value}` makes summaries when called, and is called elsewhere than in the "
                                    "program's code that merges them")
            if order[id(call)] > order[id(merge)]:
                continue  # made after merge_all: not merged
            prefix = self._scope_prefix(call)
            making = node.value not in called
            called.add(node.value)
            for kind, scope, name, attribute, taken in summaries:
                first, _, rest = scope.partition("/")
                count = opened.get((prefix, first), 0)
                unique = (first if not count else f"{first}_{count}") + (f"/{rest}" if rest else "")
                written = re.sub(r"[^-/\w.]", "_", name).lstrip("/") + ("_1" if taken and making else "")
                tag = f"{prefix}{unique}/{written}"
                found.append(Summary(line, call, kind, tag, cst.SimpleString(f'"{tag}"'), cst.Name(node.value), None,
                                     direct=f"{node.value}.{attribute}"))
            firsts = {scope.partition("/")[0] for _, scope, *_ in summaries}
            for first in firsts:
                opened[(prefix, first)] = opened.get((prefix, first), 0) + 1
        return found

    def _exported_classes(self, module_name: str) -> dict[str, dict]:
        """What a project module's rewrite exports of the functions it made classes (function ->
        its ``class``, and the ``summaries`` the class leaves to its callers), whichever
        codemod's summary carries it."""
        found: dict[str, dict] = {}
        for summary in (self.state.project.get(module_name) or {}).values():
            if isinstance(summary, dict):
                found.update(summary.get("classes") or {})
        return found

    def _exported_summaries(self, module: cst.Module) -> dict[str, tuple[cst.Name, list]]:
        """Module-level objects of project classes that make summaries when called: name ->
        (the name where it is made, the summaries its class exports)."""
        classes: dict[str, list] = {}
        for statement in module.body:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if not isinstance(small, cst.ImportFrom) or small.relative or small.module is None \
                        or isinstance(small.names, cst.ImportStar):
                    continue
                for split in self._exported_classes(source(small.module)).values():
                    for alias in small.names:
                        if split.get("summaries") and source(alias.name) == split.get("class"):
                            local = source(alias.asname.name) if alias.asname else source(alias.name)
                            classes[local] = split["summaries"]
        objects: dict[str, tuple[cst.Name, list]] = {}
        for statement in module.body:
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                    and isinstance(small.value, cst.Call) and isinstance(small.value.func, cst.Name) \
                    and small.value.func.value in classes:
                objects[small.targets[0].target.value] = (small.targets[0].target, classes[small.value.func.value])
        return objects

    def _definition(self, module: cst.Module, call: cst.Call) -> tuple[cst.SimpleStatementLine, Optional[str]]:
        """The statement ``[name =] <call>`` the call makes on its own, and the name it binds."""
        found = statement_of(call, self.state.parents(module))
        if found is None:
            raise Decline(call, f"`{source(call.func)}(...)` is not a statement of its own (`x = {source(call.func)}(...)`)")
        name, statement = found
        if id(statement) not in self._owners:
            raise Decline(call, "it is made inside a class, a nested function or a lambda; only a program's top-level "
                                "code or a module function's own lines are migrated")
        owner = self._owners[id(statement)]
        if self._owner is not None and self._owner[0] is not owner:
            first, other = (f"`{f.name.value}`" if f is not None else "the top-level code" for f in (self._owner[0], owner))
            raise Decline(call, f"the program's summaries are made both in {first} and in {other}: a merge of them is "
                                "not read across functions")
        self._owner = (owner,)
        return statement, name

    @staticmethod
    def _named(call: cst.Call, name: Optional[str]) -> str:
        if name is None:
            raise Decline(call, "its result is not kept in a name")
        return name

    def _summary(self, statement: cst.SimpleStatementLine, call: cst.Call, kind: str, name: Optional[str],
                 taken: set[str]) -> Summary:
        tag = argument(call, 0, "name")
        value = argument(call, 1, "tensor" if kind in ("scalar", "image", "text") else "values")
        if not isinstance(tag, cst.SimpleString) or not isinstance(tag.evaluated_value, str) or value is None:
            raise Decline(call, "its tag is not a literal string")
        extra = [a.keyword.value if a.keyword else "positional" for a in call.args[2:]]
        allowed = ("max_outputs", "positional") if kind == "image" else ()
        if any(word not in allowed for word in extra) or len(extra) > 1:
            raise Decline(call, f"it passes {', '.join(w for w in extra if w not in allowed) or 'more arguments'}, "
                                "which this migration does not map")
        # TF1's tag: the summary's name scope, its name cleaned as ``summary_scope`` cleans it.
        cleaned = re.sub(r"[^-/\w.]", "_", tag.evaluated_value).lstrip("/")
        written = self._scope_prefix(call) + cleaned + self._suffix(call, cleaned)
        literal = tag if written == tag.evaluated_value else cst.SimpleString(f"{tag.prefix}{tag.quote}{written}{tag.quote}")
        expression = None
        if not isinstance(value, cst.Name):
            expression = value
            value = cst.Name(training.fresh_name(f"{re.sub(r'[^0-9a-zA-Z_]', '_', written.rsplit('/', 1)[-1])}_summarized",
                                                 taken))
        return Summary(statement, call, kind, written, literal, value, name, argument(call, 2, "max_outputs"), expression)

    def _scope_prefix(self, call: cst.Call) -> str:
        """``"a/b/"`` for a summary made under ``name_scope("a")`` / ``variable_scope("b")``
        blocks, each named by a literal and opened once in the file (a scope opened again, or
        whose name the file writes elsewhere, may have been made unique by TF1: ``a_1``)."""
        parents = self.state.parents(self.tf.module)
        names: list[str] = []
        for node in ancestors(call, parents):
            if not isinstance(node, cst.With):
                continue
            for item in node.items:
                if not (isinstance(item.item, cst.Call) and self.tf.is_tf(item.item.func, "name_scope", "variable_scope")):
                    continue
                scope = item.item
                given = argument(scope, 0, "name") or argument(scope, None, "name_or_scope")
                if len(scope.args) != 1 or not isinstance(given, cst.SimpleString) \
                        or not isinstance(given.evaluated_value, str) or not re.fullmatch(r"[\w.-]+", given.evaluated_value):
                    raise Decline(call, f"it is made under `{source(scope)}`, whose prefix to its tag is not read here")
                # Names written inside the block are under the scope (``loss/loss``): only the others may clash.
                inside = {id(n) for n in walk(node.body, code_only=True)}
                if sum(1 for literal in self._strings() if literal.evaluated_value == given.evaluated_value
                       and id(literal) not in inside) != 1:
                    raise Decline(call, f"it is made under the scope `{given.evaluated_value}`, a name the file writes "
                                        f"again outside it (TF1 may have made the scope `{given.evaluated_value}_1`)")
                names.insert(0, given.evaluated_value)
        return "".join(f"{name}/" for name in names)

    def _suffix(self, call: cst.Call, name: str) -> str:
        """``_1`` when an op named ``name`` (``name="loss"``) was made before the summary in the
        same scope block: TF1 made the summary's name unique (``loss_1``)."""
        parents = self.state.parents(self.tf.module)
        block = next((n for n in ancestors(call, parents) if isinstance(n, (cst.With, cst.FunctionDef))), self.tf.module)
        line = statement_holding(call, parents)
        nodes = list(own_nodes(block))
        before = nodes[:next((i for i, n in enumerate(nodes) if n is line), len(nodes))]
        # Blocks opened inside this one are other scopes: their names do not clash.
        inner = {id(node) for with_ in before if isinstance(with_, cst.With)
                 for node in walk(with_.body, code_only=True)}
        taken = sum(1 for n in before if isinstance(n, cst.Arg) and n.keyword is not None and n.keyword.value == "name"
                    and isinstance(n.value, cst.SimpleString) and n.value.evaluated_value == name and id(n) not in inner)
        return f"_{taken}" if taken else ""

    def _strings(self) -> list[cst.SimpleString]:
        """Every string literal the file writes."""
        if self._literals is None:
            self._literals = [n for n in walk(self.tf.module, code_only=True)
                              if isinstance(n, cst.SimpleString) and isinstance(n.evaluated_value, str)]
        return self._literals

    def _merged(self, call: cst.Call, path: str, summaries: list[Summary]) -> list[Summary]:
        if path == "summary.merge_all":
            key = argument(call, 0, "key")
            if key is not None and not (isinstance(key, cst.SimpleString) and key.evaluated_value == "summaries") \
                    and (self.tf.tf_symbol(key) is None or self.tf.tf_symbol(key).path != "GraphKeys.SUMMARIES"):
                raise Decline(call, "`merge_all` of a collection other than the summaries'")
            if any(a.keyword is not None and a.keyword.value != "key" for a in call.args):
                raise Decline(call, "`merge_all` with arguments other than `key`")
            return list(summaries)
        listed = argument(call, 0, "inputs")
        if not isinstance(listed, (cst.List, cst.Tuple)) or len(call.args) != 1:
            raise Decline(call, "`merge` of something other than a literal list of summaries")
        by_name = {s.name: s for s in summaries if s.name is not None}
        picked = []
        for element in listed.elements:
            if not isinstance(element.value, cst.Name) or element.value.value not in by_name:
                raise Decline(call, f"`merge` of `{source(element.value)}`, which is not a summary made above it")
            picked.append(by_name[element.value.value])
        return picked

    def _fetches(self, module: cst.Module, fetchable: dict[str, list[Summary]]) -> list[Fetch]:
        """Every run that fetches a summary or a merged summary, unpacked into names."""
        found = []
        for statement in walk(module, code_only=True):
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for call in (n for n in walk(statement, code_only=True) if isinstance(n, cst.Call)):
                if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "run" and call.args):
                    continue
                fetched = call.args[0].value
                elements = fetched.elements if isinstance(fetched, (cst.List, cst.Tuple)) else None
                named = [e.value for e in elements] if elements is not None else [fetched]
                if not any(isinstance(n, cst.Name) and n.value in fetchable for n in named):
                    continue
                small = statement.body[0]
                if len(statement.body) != 1 or not isinstance(small, cst.Assign) or small.value is not call \
                        or len(small.targets) != 1:
                    raise Decline(call, "a run fetching summaries is not `result = sess.run(...)` on a line of its own")
                target = small.targets[0].target
                fetch = Fetch(statement, call)
                if elements is None:
                    if not isinstance(target, cst.Name):
                        raise Decline(call, "the fetched summary is not assigned to a name")
                    fetch.summaries.append((None, fetched.value, target.value))
                else:
                    if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != len(elements) \
                            or len(target_name_nodes(target)) != len(elements):
                        raise Decline(call, "the run's results are not unpacked into one name each")
                    for index, (element, bound) in enumerate(zip(named, target.elements)):
                        if isinstance(element, cst.Name) and element.value in fetchable:
                            fetch.summaries.append((index, element.value, bound.value.value))
                found.append(fetch)
        return found

    def _adds(self, module: cst.Module, writers: dict, fetches: list[Fetch]) -> dict[int, tuple[cst.SimpleStatementLine, str, str, Optional[cst.BaseExpression]]]:
        """``writer.add_summary(result, step)`` statements: id of the call -> (statement, writer, result, step)."""
        results = {result for fetch in fetches for _, _, result in fetch.summaries}
        found = {}
        for statement in walk(module, code_only=True):
            if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
                    and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call)):
                continue
            call = statement.body[0].value
            if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_summary"
                    and isinstance(call.func.value, cst.Name) and call.func.value.value in writers):
                continue
            summary = argument(call, 0, "summary")
            step = argument(call, 1, "global_step")
            if not isinstance(summary, cst.Name) or summary.value not in results:
                raise Decline(call, "`add_summary` of something other than a fetched summary")
            found[id(call)] = (statement, call.func.value.value, summary.value, step)
        return found

    @staticmethod
    def _graph_writes(module: cst.Module, writers: dict) -> list[cst.SimpleStatementLine]:
        """``writer.add_graph(...)`` statements, each a line of its own."""
        found = []
        for statement in walk(module, code_only=True):
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
                    and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call):
                func = statement.body[0].value.func
                if isinstance(func, cst.Attribute) and func.attr.value == "add_graph" \
                        and isinstance(func.value, cst.Name) and func.value.value in writers:
                    found.append(statement)
        return found

    def _check_uses(self, module: cst.Module, writers: dict, fetches: list[Fetch], adds: dict, fetchable: dict,
                    own_statements: list) -> None:
        """Writers, fetched summaries and summary ops are used only where this rewrites them."""
        allowed: set[int] = set()
        for statement in own_statements:
            allowed |= {id(n) for n in walk(statement, code_only=True)}
        for statement, call in writers.values():
            allowed |= {id(n) for n in walk(statement, code_only=True)}
        for fetch in fetches:
            allowed |= {id(n) for n in walk(fetch.statement, code_only=True)}
        for statement, *_ in adds.values():
            allowed |= {id(n) for n in walk(statement, code_only=True)}
        results = {result for fetch in fetches for _, _, result in fetch.summaries}
        for name in name_nodes(module):
            if id(name) in allowed:
                continue
            if name.value in results:
                raise Decline(name, f"the fetched summary `{name.value}` is used other than by `add_summary`")
            if name.value in fetchable:
                raise Decline(name, f"the summary `{name.value}` is used other than by a run or a merge")
            if name.value in writers and not self._writer_method(name, ("flush", "close")):
                raise Decline(name, f"the writer `{name.value}` is used other than by `add_summary`, `flush` and `close`")

    def _writer_method(self, name: cst.Name, methods: tuple[str, ...]) -> bool:
        parent = self.state.parents(self.tf.module).get(id(name))
        return isinstance(parent, cst.Attribute) and parent.value is name and parent.attr.value in methods

    # -- writing it -------------------------------------------------------------------------

    def _rewrite(self, summaries, merge_statements, writers, fetches, adds, fetchable, taken: set[str]) -> None:
        fetched = {name for fetch in fetches for _, name, _ in fetch.summaries}
        written = {id(s) for name in fetched for s in fetchable[name]}
        for summary in summaries:
            if summary.direct is not None:
                continue  # made by an object's call, which stays
            if id(summary) not in written and summary.name not in fetched:
                if self.fix(summary.call, f"`tf.summary.{summary.kind}` no run fetches: the TF1 program wrote nothing for it"):
                    self.remove(summary.statement)
            elif summary.expression is not None:
                if self.fix(summary.call, f"`tf.summary.{summary.kind}` is written from its fetched value with tf.summary "
                                          f"v2: the value it summarized is `{summary.value.value}`, fetched by the run"):
                    bound = cst.Assign([cst.AssignTarget(summary.value)], summary.expression)
                    self.replace(summary.statement, lambda updated, bound=bound: updated.with_changes(body=[bound]))
            elif self.fix(summary.call, f"`tf.summary.{summary.kind}` is written from its fetched value with tf.summary v2"):
                self.remove(summary.statement)
        for statement in merge_statements:
            self.remove(statement)
        for statement, call in writers.values():
            self._writer(call)
        values: dict[str, list[tuple[Summary, str]]] = {}
        for fetch in fetches:
            self._fetch(fetch, fetchable, taken, values)
        for statement, writer, result, step in adds.values():
            self._add(statement, writer, values[result], step)

    def _writer(self, call: cst.Call) -> None:
        logdir = argument(call, 0, "logdir")
        if logdir is None or any(a.keyword is not None and a.keyword.value not in WRITER_KEYWORDS for a in call.args):
            raise Decline(call, "`FileWriter` with arguments `create_file_writer` does not take")
        graph = argument(call, 1, "graph")
        note = (" (the graph is not written: a TF2 program has no session graph; tf.summary.trace_on/trace_export "
                "around a tf.function call records one)") if graph is not None else ""
        if not self.fix(call, f"tf.summary.FileWriter -> tf.summary.create_file_writer{note}"):
            raise Decline(call, "the writer is silenced")
        args = [cst.Arg(logdir)]
        for keyword in ("max_queue", "filename_suffix"):
            value = argument(call, None, keyword)
            if value is not None:
                args.append(cst.Arg(value, keyword=cst.Name(keyword)))
        flush = argument(call, None, "flush_secs")
        if flush is not None:
            args.append(cst.Arg(cst.parse_expression(f"({source(flush)}) * 1000"), keyword=cst.Name("flush_millis")))
        args = [a.with_changes(equal=no_space_equal()) if a.keyword else a
                for a in args]
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + args[-1:]
        self.replace(call, cst.Call(self.tf_expr("summary.create_file_writer"), args))

    def _fetch(self, fetch: Fetch, fetchable, taken: set[str], values) -> None:
        small = fetch.statement.body[0]
        single = fetch.summaries[0][0] is None
        fetched = [fetch.call.args[0].value] if single else [e.value for e in fetch.call.args[0].value.elements]
        targets = [small.targets[0].target] if single else [e.value for e in small.targets[0].target.elements]
        new_fetches: list[str] = []
        new_targets: list[str] = []
        by_index = {index: (name, result) for index, name, result in fetch.summaries}
        for index, (element, target) in enumerate(zip(fetched, targets)):
            key = None if single else index
            if key not in by_index:
                new_fetches.append(source(element))
                new_targets.append(source(target))
                continue
            name, result = by_index[key]
            values[result] = []
            for summary in fetchable[name]:
                if summary.direct is not None:
                    values[result].append((summary, summary.direct))
                    continue
                if summary.value.value in self._placeholders():
                    # TF1 summarized the value fed to the placeholder: it is written from that value.
                    values[result].append((summary, self._fed(fetch.call, summary.value.value)))
                    continue
                value_name = training.fresh_name(f"{result}_{re.sub(r'[^0-9a-zA-Z_]', '_', summary.tag)}", taken)
                values[result].append((summary, value_name))
                new_fetches.append(summary.value.value)
                new_targets.append(value_name)
        if not new_fetches:
            raise Decline(fetch.call, "the merged summary holds no summary")
        fetch_text = new_fetches[0] if len(new_fetches) == 1 else f"[{', '.join(new_fetches)}]"
        target_text = ", ".join(new_targets)
        new_call = fetch.call.with_changes(args=[fetch.call.args[0].with_changes(value=cst.parse_expression(fetch_text)),
                                                 *fetch.call.args[1:]])
        assign = small.with_changes(targets=[cst.AssignTarget(cst.parse_expression(target_text))], value=new_call)
        self.replace(fetch.statement, lambda updated: updated.with_changes(body=[assign]))

    def _placeholders(self) -> set[str]:
        """The names the file binds once, to a ``tf.placeholder``."""
        if self._placeholder_names is None:
            bound: dict[str, int] = {}
            made: set[str] = set()
            for node in walk(self.tf.module, code_only=True):
                for name in names_bound_here(node):
                    bound[name] = bound.get(name, 0) + 1
                if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                        and isinstance(node.value, cst.Call) and self.tf.is_tf(node.value.func, "placeholder"):
                    made.add(node.targets[0].target.value)
            self._placeholder_names = {name for name in made if bound.get(name) == 1}
        return self._placeholder_names

    @staticmethod
    def _fed(run: cst.Call, placeholder: str) -> str:
        """The name whose value ``run`` feeds to ``placeholder`` (``feed_dict={z: noise}``)."""
        feed = argument(run, 1, "feed_dict")
        for element in feed.elements if isinstance(feed, cst.Dict) else ():
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.Name) \
                    and element.key.value == placeholder:
                if not isinstance(element.value, cst.Name):
                    raise Decline(run, f"a summary of the placeholder `{placeholder}` is of the value fed to it, "
                                       f"`{source(element.value)}`, which is not a name (bind it to one first)")
                return element.value.value
        raise Decline(run, f"a summary of the placeholder `{placeholder}` is fetched by a run that does not feed it a "
                           "name in a literal `feed_dict`")

    def _add(self, statement: cst.SimpleStatementLine, writer: str, values, step: Optional[cst.BaseExpression]) -> None:
        step_text = source(step) if step is not None else "0"
        lines = []
        for summary, value_name in values:
            extra = f", max_outputs={source(summary.max_outputs)}" if summary.max_outputs is not None else ""
            function = source(self.tf_expr(f"summary.{summary.kind}"))
            lines.append(f"    {function}({source(summary.literal)}, {value_name}, step={step_text}{extra})\n")
        block = cst.parse_statement(f"with {writer}.as_default():\n{''.join(lines)}")
        self.replace(statement, block.with_changes(leading_lines=statement.leading_lines))

