"""TFM113 compat-fallback.

What it does
    Runs last. In a file that, after every other codemod, still names TF1-only API (names TF
    2.x does not have: ``tf.Session``, ``tf.placeholder``, ``tf.get_variable``, ``tf.layers``,
    ``tf.train.Saver``, ...; graph-mode API such as sessions and TF1's TPU functions however
    spelled, ``from tensorflow.compat.v1 import tpu`` included), it makes the smallest rewrite
    that runs the file on TF 2.x with the behaviour it had on TF 1.x, and says what keeps it
    there:

    * ``import tensorflow as tf`` becomes ``import tensorflow.compat.v1 as tf`` (same alias);
    * at the entry point of a program (session code at module level, an
      ``if __name__ == "__main__":`` block, a module-level call of a function defined in the
      file, ``tf.app.run``/``absl.app.run``, placeholders made in top-level code)
      ``tf.disable_v2_behavior()`` follows the import;
      a library module that only builds graphs gets no switch (it is global to the process:
      the program importing the module must turn it off) and a finding saying so;
    * a file using ``tf.layers``, ``tf.nn.rnn_cell`` or ``tf.keras`` through the v1 API (Keras 2,
      which TF 2.16+ only provides through the tf-keras package) sets ``TF_USE_LEGACY_KERAS``
      before importing TensorFlow, and a finding names the package to install;
    * ``tf.contrib`` cannot run on TF 2.x at all: a finding names it (contrib-to-core replaces the
      names core TensorFlow has or says why not, api-renames says what replaces the others), and
      the file is still switched so that the rest runs as TF1;
    * a program that calls ``tf.enable_eager_execution()`` ran eagerly: it gets no switch, and
      in a file that is otherwise TF2 code the call (which TF 2.x lacks) is removed.

    A project (a script and the project modules it imports) runs in one process, with v2
    behaviour on or off for all of it: when one of its files stays on TF1, the engine runs the
    others again with the reason, and each is kept on compat.v1 with it, TF2 code as it stands
    included (its datasets and tensors must be the TF1 ones the other modules read), its entry
    point switching v2 behaviour off.

    A file already on ``import tensorflow.compat.v1 as tf`` that runs sessions without
    switching v2 behaviour off gets the switch at its entry point. Every such file is reported
    as kept on compat.v1 with its first blocking construct, so a codebase's remaining work can
    be counted (``--statistics``).

    The TF2 names other codemods wrote into such a file are spelled ``tf.compat.v2.X`` by them
    (api-renames does so in any file that keeps TF1-only names), so they keep TF2's meaning
    under the compat.v1 import. compat-v1-import (TFM112) does the opposite once nothing needs
    v1; the two never both apply, and a second run changes nothing.

Why it matters
    TensorFlow's own ``tf_upgrade_v2`` renames TF1 code into ``tf.compat.v1`` but leaves v2
    behaviour on, so its output fails at the first placeholder. A team migrating step by step
    needs every file to run after each step: idiomatic TF2 where the migration is proven,
    TF1 behaviour on TF 2.x elsewhere, and a list of what still needs a person.

Before
    import tensorflow as tf

    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.get_variable("w", [2, 1])
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())

After
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()

    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.get_variable("w", [2, 1])
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())

Fixtures: ``fixtures/compat-fallback/``.

Fix safety
    The file keeps TF1 behaviour exactly: the compat.v1 API with v2 behaviour off is TF1's; TF2
    rewrites that would not run in such a file are taken out.

Declines when
    TensorFlow is not imported with a plain module-level import, or the import is silenced; a library
    module gets no global switch (a finding says the importing program must set it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

import libcst as cst

from tfmodernize.analysis.contrib import in_reexported_tf1_module
from tfmodernize.analysis.tf1_api import PLACEHOLDERS, TF1_PACKAGES, V2_OFF, V2_ON, tf1_package
from tfmodernize.analysis import tf_objects
from tfmodernize.analysis.program import entry_point
from tfmodernize.analysis.program import GRAPH_PROGRAM
from tfmodernize.analysis.tables import tables
from tfmodernize.codemod import TFCodemod
from tfmodernize.tfsymbols import TFNames, TFSymbol, dotted_name, root_name
from tfmodernize.treewalk import import_statements, walk

V1 = "tensorflow.compat.v1"
#: TF paths (through the v1 API) that need Keras 2, i.e. the tf-keras package, on TF 2.16+.
LEGACY_KERAS = ("layers", "nn.rnn_cell", "keras")
#: TF paths whose call switches v2 behaviour (or eager execution) off.
SWITCHES = V2_OFF
#: TF1 calls asking for what TF 2.x does anyway: a program making them ran eagerly.
EAGER_REQUESTS = V2_ON


def _statement_import(statement: cst.CSTNode) -> Optional[cst.Import]:
    if (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Import)
    ):
        return statement.body[0]
    return None


@dataclass
class _Facts:
    """What ``CompatFallback._facts`` reads off a file."""

    blockers: list[tuple[cst.CSTNode, str, str]] = field(default_factory=list)
    graph_program: bool = False  #: it names graph-mode API (sessions, placeholders)
    legacy_keras: Optional[str] = None  #: the first TF path it names that needs Keras 2
    switched: bool = False  #: it switches v2 behaviour or eager execution off
    asks_eager: bool = False  #: it asks for eager execution
    sets_legacy: bool = False  #: it sets TF_USE_LEGACY_KERAS
    #: ``tf.enable_eager_execution()`` and the like, each a statement of its own.
    eager_statements: list[cst.SimpleStatementLine] = field(default_factory=list)


class CompatFallback(TFCodemod):
    __doc__ = __doc__
    code = "TFM113"
    name = "compat-fallback"
    summary = (
        "a file that still needs TF1 runs on TF 2.x: tensorflow.compat.v1 with v2 behaviour off at its entry point"
    )
    interests = (cst.Attribute, cst.Name)
    detects_tf_names_only = True

    @classmethod
    def wanted_by(cls, state) -> bool:
        # A project staying on TF1 keeps every file of it there, TF2 code as it stands included;
        # a member only TF1 objects have (``ds.output_types``) is no TF name: its text asks.
        return state.project_on_v1 is not None or tf_objects.MEMBER_TEXT.search(state.text) is not None

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        # What ``_facts`` counts: a TF1-only name (spelled ``tf.compat.v1.X`` under ``import
        # tensorflow``, only graph-mode API), or a request for eager execution that may go. Any
        # other name of the v1 API counts beside an import of a TF1 package (``tf_slim``).
        symbol = names.tf_symbol(node)
        if symbol is None or not (tables().tf1_only(symbol.path) or symbol.v1):
            return False
        return _blocks(node, symbol, names) or _imports_tf1_package(names.module)

    def visit_Module(self, node: cst.Module) -> bool:
        self._plan = None
        self._first_uses: Optional[dict[str, cst.CSTNode]] = None
        self._eager_requests: list[cst.SimpleStatementLine] = []
        facts = self._facts(node)
        blockers = facts.blockers
        project = self.state.project_on_v1
        if not blockers and project is not None:
            # TF2 code as it stands, in a project that stays on TF1: its TF names must mean
            # what they mean in the TF1 modules it shares the process with (datasets and
            # their iterators, graph tensors), so it is kept on compat.v1 with them.
            anchor = next((s for s in node.body if self._tf_import(s) is not None), None)
            if anchor is not None:
                # The reason names the neighbouring file first (``model.py, which it imports, ...``).
                neighbour = project.split(", which ")[0] if ", which " in project else "its project"
                blockers = [
                    (
                        anchor,
                        f"{neighbour} (a file of its project, on TF1)",
                        "plain" if self._tf_import(anchor)[1] == "tensorflow" else "v1",
                    )
                ]
        if not blockers:
            # ``tf.enable_eager_execution()`` in a file that is TF2 code otherwise: TF 2.x runs
            # eagerly and has no such name, so the request goes.
            self._eager_requests = facts.eager_statements
            return False
        first_node, first, _ = blockers[0]
        imports = [(i, s) for i, s in enumerate(node.body) if self._tf_import(s) is not None]
        # TF1-only names reached through ``import tensorflow``: that import must become compat.v1.
        through_plain = any(spelling == "plain" for _, _, spelling in blockers)
        plain = [(i, s) for i, s in imports if self._tf_import(s)[1] == "tensorflow"]
        v1_imports = [(i, s) for i, s in imports if self._tf_import(s)[1] == V1]
        anchors = plain if through_plain else v1_imports or plain
        if not anchors and all(what in TF1_PACKAGES.values() for _, what, _ in blockers):
            # A module using tf-slim alone (no TensorFlow import left): nothing here to switch.
            self.state.keep_on_v1(first, self._line_of(first, first_node))
            self.report(
                first_node,
                f"this module builds TF1 graphs with {first}: the program that imports it must "
                "call tf.compat.v1.disable_v2_behavior() before building graphs",
            )
            return False
        if not anchors and self._imported_plainly(self.state.parsed):
            # A TF2 rewrite took the file's last read of ``tf`` and its import with it: kept on
            # v1, the file is rewritten again without the TF2 codemods, and its import stays.
            self.state.keep_on_v1(first, self._line_of(first, first_node))
            return False
        if not anchors:
            self.report(
                first_node,
                f"{first} needs TF1, but TensorFlow is not imported with a plain module-level "
                "`import tensorflow as tf`: import tensorflow.compat.v1 by hand",
            )
            return False
        anchor_index, anchor = anchors[0]
        if self.suppressed(anchor):
            return False
        first_of_each = {}  # the first use of each TF1-only name: the line a finding cites
        for blocker_node, what, _ in blockers:
            first_of_each.setdefault(what, blocker_node)
        for what, blocker_node in first_of_each.items():
            self.state.keep_on_v1(what, self._line_of(what, blocker_node))
        self._why = f"{first} (line {self._line_of(first, first_node)}) has no TF2 migration here"
        if project is not None:
            self._why = project
        alias, module = self._tf_import(anchor)
        # ``tf.compat.v1.X`` spelled out under ``import tensorflow as tf`` (tf_upgrade_v2's output)
        # keeps the import; the switch is then spelled out too.
        switch_prefix = alias if through_plain or module == V1 else f"{alias}.compat.v1"
        # In a project kept on TF1, the entry point switches v2 behaviour off for every module.
        graph = through_plain or facts.graph_program or project is not None
        # A script building its graph in top-level code (placeholders at module level, no
        # function to call) is a program too: nothing imports a module for that.
        entry = entry_point(node, self.tf) or self._graph_built_at_top_level(node)
        # A program that asked for eager execution ran eagerly: keep it so.
        needs_switch = entry is not None and graph and not facts.switched and not facts.asks_eager
        if entry is None and graph and project is None:
            self.report(
                anchor,
                "this module builds a TF1 graph but has no entry point (no session code, "
                '`if __name__ == "__main__":` or app.run): the program that imports it must call '
                "tf.compat.v1.disable_v2_behavior() before building graphs",
            )
        legacy = facts.legacy_keras
        if legacy is not None:
            self.report(
                anchor,
                f"tf.{legacy} needs Keras 2 on TF 2.16+: install the tf-keras package "
                "(pip install tf-keras); the file sets TF_USE_LEGACY_KERAS=1 before importing TensorFlow",
            )
        for contrib_node, what, _ in blockers:
            if what.startswith("tf.contrib."):
                self.report(
                    contrib_node,
                    f"{what} is gone from TF 2.x: this file cannot run until it is replaced "
                    "(the contrib-to-core, contrib-to-slim or api-renames finding on it says what replaces it)",
                )
                break
        add_legacy = legacy is not None and not facts.sets_legacy
        if not through_plain and not needs_switch and not add_legacy:
            self.report(anchor, f"kept on tf.compat.v1: {self._why}")
            return False
        self._plan = (anchor_index, alias, through_plain, switch_prefix if needs_switch else None, add_legacy)
        return False

    # -- analysis ---------------------------------------------------------------------------

    def _tf_import(self, statement: cst.CSTNode) -> Optional[tuple[str, str]]:
        """``(alias, module)`` of a module-level ``import tensorflow[.compat.v1] as alias``."""
        imported = _statement_import(statement)
        if imported is None or len(imported.names) != 1:
            return None
        alias = imported.names[0]
        module = dotted_name(alias.name)
        if module not in ("tensorflow", V1):
            return None
        if alias.asname is None:
            return ("tensorflow", module) if module == "tensorflow" else None
        return (alias.asname.name.value, module) if isinstance(alias.asname.name, cst.Name) else None

    def _imported_plainly(self, written: Optional[cst.Module]) -> bool:
        """Whether the file as written imports TensorFlow at module level (``_tf_import``)."""
        return written is not None and any(self._tf_import(s) is not None for s in written.body)

    def _graph_built_at_top_level(self, module: cst.Module) -> Optional[cst.CSTNode]:
        """The first top-level statement (outside definitions and blocks) naming a placeholder."""
        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(n, (cst.Attribute, cst.Name))
                and (symbol := self.tf.tf_symbol(n)) is not None
                and symbol.path in PLACEHOLDERS
                for n in walk(statement, code_only=True)
            ):
                return statement
        return None

    def _line_of(self, what: str, node: cst.CSTNode) -> int:
        """The line of ``node``, a use of the TF name ``what``. A node an earlier codemod wrote
        anew as text (session-to-function's functions) stands for no node of the file as
        written: the line is then that of the first use of ``what`` in the file as written."""
        line, column, _, _ = self.state.position(node)
        if (line, column) != (1, 1) or self.state.parsed is None:
            return line
        if self._first_uses is None:  # read once per file, and only for such a node
            parsed = self.state.parsed
            names = TFNames.for_module(parsed)
            self._first_uses = {}
            for n in walk(parsed, code_only=True):
                if isinstance(n, (cst.Attribute, cst.Name)) and (symbol := names.tf_symbol(n)) is not None:
                    self._first_uses.setdefault(f"tf.{symbol.path}", n)
        first = self._first_uses.get(what)
        return line if first is None else self.state.position(first)[0]

    def _facts(self, module: cst.Module) -> "_Facts":
        """What the plan needs to know of the file, read in one walk over its code.

        ``blockers``: what keeps the file TF1 code, in source order: ``(node, "tf.Session",
        spelling)``. ``spelling`` is ``plain`` for a TF1-only name reached through ``import
        tensorflow``, ``v1`` through a ``tensorflow.compat.v1`` import, ``spelled`` for
        ``tf.compat.v1.X`` written out under ``import tensorflow``; the last counts only for
        graph-mode API (sessions, placeholders): other v1 names spelled that way run on TF 2.x
        as they are. Names inside imports, and the inner parts of a dotted name, are not
        blockers; every name counts for the other facts.
        """
        facts = _Facts()
        inner: set[int] = set()
        members = False  # an attribute named like a member only TF1 objects have
        # Without scope analysis a plain name is TF's only as one of the file's TF aliases: the
        # other names (most of a file's nodes) are passed over without resolving them.
        aliases = None if self.state.needs_scope else self.tf.aliases
        for node in walk(module, code_only=True):
            kind = type(node)
            if kind is cst.Name and aliases is not None and node.value not in aliases:
                continue
            if kind is cst.Import or kind is cst.ImportFrom:
                inner.update(id(n) for n in walk(node, code_only=True))
                package = tf1_package(node)
                if package is not None:  # ``import tf_slim as slim``: its layers build TF1 graphs
                    facts.blockers.append((node, package, "v1"))
                    facts.graph_program = True
            elif kind is cst.Attribute or kind is cst.Name:
                if kind is cst.Attribute:
                    inner.add(id(node.value))
                    members = members or node.attr.value in tf_objects.MEMBER_NAMES
                symbol = self.tf.tf_symbol(node)
                if symbol is None:
                    continue
                facts.graph_program = facts.graph_program or _graph_only(symbol.path)
                if (
                    facts.legacy_keras is None
                    and not symbol.v2
                    and any(symbol.path == p or symbol.path.startswith(p + ".") for p in LEGACY_KERAS)
                ):
                    facts.legacy_keras = symbol.path
                if (
                    id(node) in inner
                    or symbol.v2
                    or not tables().tf1_only(symbol.path)
                    or symbol.path in EAGER_REQUESTS
                ):
                    continue
                root = root_name(node)
                through = self.tf.qualify(root) if root is not None else None
                spelling = "v1" if through == V1 else "spelled" if symbol.v1 else "plain"
                if spelling != "spelled" or _graph_only(symbol.path):
                    facts.blockers.append((node, f"tf.{symbol.path}", spelling))
            elif kind is cst.Call:
                facts.switched = facts.switched or self.tf.is_tf(node.func, *SWITCHES)
                facts.asks_eager = facts.asks_eager or self.tf.is_tf(node.func, *EAGER_REQUESTS)
            elif kind is cst.SimpleString and not facts.sets_legacy:
                # Without an escape, a literal holds what it says: most need no evaluating.
                raw = node.value
                facts.sets_legacy = ("\\" in raw or "TF_USE_LEGACY_KERAS" in raw) and (
                    node.evaluated_value == "TF_USE_LEGACY_KERAS"
                )
            elif kind is cst.SimpleStatementLine and len(node.body) == 1 and isinstance(node.body[0], cst.Expr):
                call = node.body[0].value
                if (
                    isinstance(call, cst.Call)
                    and not call.args
                    and (symbol := self.tf.tf_symbol(call.func)) is not None
                    and not symbol.v1
                    and symbol.path in EAGER_REQUESTS
                ):
                    facts.eager_statements.append(node)
        if members:
            # ``dataset.make_one_shot_iterator()`` on a dataset made through ``import tensorflow``:
            # TF 2.x's dataset has no such member; TF1's, made through compat.v1, has.
            facts.blockers += [
                (node, f"`{what}`", "plain") for node, what in tf_objects.v1_only_members(module, self.tf)
            ]
        return facts

    # -- rewrite ----------------------------------------------------------------------------

    def leave_Module(self, original: cst.Module) -> None:
        if self._eager_requests:
            for statement in self._eager_requests:
                if self.fix(statement, "TF 2.x runs eagerly: the request for eager execution goes"):
                    self.remove(statement)
            return
        if self._plan is None:
            return
        index, alias, switch_import, switch_prefix, add_legacy = self._plan
        anchor = original.body[index]
        if not self.fix(anchor, f"kept on tf.compat.v1 with TF1 behaviour, so it runs on TF 2.x: {self._why}"):
            return
        imports_os = any(
            _statement_import(s) is not None
            and dotted_name(_statement_import(s).names[0].name) == "os"
            and _statement_import(s).names[0].asname is None
            for s in original.body[:index]
        )

        def switched(statement: cst.SimpleStatementLine) -> cst.FlattenSentinel:
            if switch_import:
                imported = _statement_import(statement)
                name = _parsed(V1, expression=True)
                asname = cst.AsName(name=cst.Name(alias))
                statement = statement.with_changes(
                    body=[imported.with_changes(names=[imported.names[0].with_changes(name=name, asname=asname)])]
                )
            new = [statement]
            if switch_prefix is not None:
                new.append(_parsed(f"{switch_prefix}.disable_v2_behavior()"))
            if add_legacy:
                environ = [
                    _parsed("import os"),
                    _parsed('os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.layers: Keras 2, from tf-keras'),
                ]
                if imports_os:
                    environ = environ[1:]
                environ[0] = environ[0].with_changes(leading_lines=statement.leading_lines)
                new = environ + [statement.with_changes(leading_lines=[])] + new[1:]
            return cst.FlattenSentinel(new)

        self.replace(anchor, switched)


def _blocks(node: cst.CSTNode, symbol: TFSymbol, names: TFNames) -> bool:
    """Whether the name ``node`` (``symbol``) keeps a file on TF1 as ``_facts`` counts it, or is
    a request for eager execution that may go (a ``contrib`` name always counts)."""
    if symbol.path in EAGER_REQUESTS:
        return not symbol.v1
    if symbol.v2 or not tables().tf1_only(symbol.path):
        return False
    if not symbol.v1 or _graph_only(symbol.path) or symbol.path.startswith("contrib."):
        return True
    root = root_name(node)
    return root is not None and names.qualify(root) == V1


def _graph_only(path: str) -> bool:
    """Whether the TF1-only name ``tf.<path>`` works only in a TF1 graph, however it is spelled
    (``tf.compat.v1.Session``, ``from tensorflow.compat.v1 import tpu``'s ``tpu.rewrite``)."""
    return path in GRAPH_PROGRAM or (in_reexported_tf1_module(path) and tables().tf1_only(path))


@lru_cache(maxsize=1)
def _imports_tf1_package(module: cst.Module) -> bool:
    """Whether ``module`` imports a package that builds TF1 graphs (``tf1_api.TF1_PACKAGES``)."""
    return any(tf1_package(statement) is not None for statement in import_statements(module))


@lru_cache(maxsize=64)
def _parsed(code: str, *, expression: bool = False) -> cst.CSTNode:
    """``code`` parsed, once: nodes never change, and the applier copies what an edit brings in."""
    return cst.parse_expression(code) if expression else cst.parse_statement(code)
