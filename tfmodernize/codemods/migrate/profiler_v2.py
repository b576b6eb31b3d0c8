"""TFM118 profiler-v2.

What it does
    Moves code written against TF 1.14's private eager profiler,
    ``tensorflow.python.eager.profiler``, to the public TF 2.x profiler,
    ``tf.profiler.experimental``:

    * ``profiler.start()`` -> ``tf.profiler.experimental.start(logdir)``, with the directory the
      program later saved that profile to;
    * ``result = profiler.stop()`` followed by ``profiler.save(logdir, result)`` ->
      ``tf.profiler.experimental.stop()`` (TF 2.x saves where ``start`` said);
    * ``profiler.stop()`` whose result is dropped -> ``tf.profiler.experimental.stop(save=False)``;
    * ``profiler.Profiler(logdir)`` -> ``tf.profiler.experimental.Profile(logdir)``;
    * ``profiler.start_profiler_server(port)`` -> ``tf.profiler.experimental.server.start(port)``;

    and drops the import once nothing reads it. In a file that stays TF1 code, which
    compat-fallback (TFM113) keeps on ``import tensorflow.compat.v1 as tf``, where TF 2.x's
    profiler is not, the names are spelled ``tf.compat.v2.profiler.experimental...``.

Why it matters
    TensorFlow 2.x has no ``tensorflow.python.eager.profiler``: a module importing it fails at
    import, and so does every module importing that one. In TF 1.14-era codebases the import
    sits in shared utilities (a Keras callback profiling a window of steps), so one line keeps
    every training script of the codebase from starting.

Before
    from tensorflow.python.eager import profiler

    class StepWindow(object):
        def __init__(self, log_dir):
            self.log_dir = log_dir

        def begin(self):
            profiler.start()

        def end(self):
            result = profiler.stop()
            profiler.save(self.log_dir, result)

After
    import tensorflow as tf

    class StepWindow(object):
        def __init__(self, log_dir):
            self.log_dir = log_dir

        def begin(self):
            tf.profiler.experimental.start(self.log_dir)

        def end(self):
            tf.profiler.experimental.stop()

Fix safety
    The same steps are profiled into the same directory, for TensorBoard's profile plugin to
    show; TF 2.x writes its own trace format there (``*.xplane.pb``), which the TensorBoard of
    TF 2.x reads. ``start`` needs the directory when the profile begins, so it is rewritten only
    where the directory every ``save`` of the file writes to is one expression that already
    holds its value there: a parameter or local the same function does not rebind, a
    module-level name bound once, or ``self.<attr>`` of the same class set only in
    ``__init__``.

Declines when
    (the file keeps its import, with a finding at each problem) ``save`` is not the statement
    right after the ``result = profiler.stop()`` it saves, or the saves of the file write to
    different directories, or that directory cannot be read where ``start`` is; any other use
    of the profiler module (passed around, ``maybe_create_event_file``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.codemod import TFCodemod
from tfmodernize.codemods.migrate.api_renames.evidence import tf1_evidence
from tfmodernize.names import local_names, module_bindings, parameter_names
from tfmodernize.syntax import ancestors, source, statement_holding
from tfmodernize.tfsymbols import TFNames, import_bindings
from tfmodernize.treewalk import walk

PROFILER = "tensorflow.python.eager.profiler"

#: TF 1.14 profiler function -> its TF 2.x public home (the arguments are the same).
SAME_ARGUMENTS = {
    "Profiler": "profiler.experimental.Profile",
    "start_profiler_server": "profiler.experimental.server.start",
}


@dataclass
class _Use:
    """A call of one of the profiler module's functions."""

    call: cst.Call
    function_name: str
    statement: Optional[cst.CSTNode]
    function: Optional[cst.FunctionDef]


@dataclass
class _Plan:
    """What the file does with the profiler module: its calls, and what cannot be rewritten."""

    locals: dict[str, cst.SimpleStatementLine]  # local name -> its import statement
    uses: list[_Use] = field(default_factory=list)
    problems: list[tuple[cst.CSTNode, str]] = field(default_factory=list)


class ProfilerV2(TFCodemod):
    __doc__ = __doc__
    code = "TFM118"
    name = "profiler-v2"
    summary = (
        "TF 1.14's private tensorflow.python.eager.profiler (start, stop + save) -> "
        "tf.profiler.experimental, which TF 2.x has"
    )
    needles = ("eager",)
    interests = (cst.Attribute, cst.Name)
    detects_tf_names_only = True
    #: A migration: before compat-v1-import and compat-fallback read what the file still needs.
    runs_before = ("TFM112", "TFM113")

    @classmethod
    def detect(cls, node: cst.CSTNode, names: TFNames) -> bool:
        symbol = names.tf_symbol(node)
        return symbol is not None and symbol.path.startswith("python.eager.profiler")

    def plan(self, module: cst.Module) -> None:
        plan = _Plan(_profiler_imports(module))
        if not plan.locals:
            return
        parents = self.state.parents(module)
        # TF 2.x's profiler is not in tf.compat.v1: in a file that stays TF1 code (which
        # compat-fallback keeps on the compat.v1 import) its names are spelled tf.compat.v2.X.
        self._spell_v2 = tf1_evidence(module, self.tf, None)[1] or self.state.project_on_v1 is not None
        for node in walk(module, code_only=True):
            if isinstance(node, cst.Name) and node.value in plan.locals:
                self._read_use(node, parents, plan)
        edits = self._rewrites(module, plan, parents) if not plan.problems else []
        if plan.problems:
            for node, why in plan.problems:
                self.report(
                    node,
                    f"tensorflow.python.eager.profiler is gone from TF 2.x and this use is not moved to "
                    f"tf.profiler.experimental: {why}",
                )
            return
        for apply_edit in edits:
            apply_edit()
        for local, statement in plan.locals.items():
            for small in statement.body:
                for bound, qualified in import_bindings(small):
                    if bound == local and qualified == PROFILER:
                        self._drop_import(small, local)

    # -- reading -----------------------------------------------------------------------------

    def _read_use(self, name: cst.Name, parents: dict, plan: _Plan) -> None:
        parent = parents.get(id(name))
        if isinstance(parent, (cst.ImportAlias, cst.AsName)) or any(
            isinstance(holder, (cst.Import, cst.ImportFrom)) for holder in ancestors(name, parents)
        ):
            return
        call = parents.get(id(parent))
        if not (
            isinstance(parent, cst.Attribute)
            and parent.value is name
            and isinstance(call, cst.Call)
            and call.func is parent
        ):
            plan.problems.append((name, f"`{source(parent or name)}` uses the module other than by calling it"))
            return
        function = next((node for node in ancestors(call, parents) if isinstance(node, cst.FunctionDef)), None)
        plan.uses.append(_Use(call, parent.attr.value, statement_holding(call, parents), function))

    def _rewrites(self, module: cst.Module, plan: _Plan, parents: dict) -> list:
        """The edits, as closures run once the whole file is known to be rewritable."""
        edits = []
        saves = {id(use.call): use for use in plan.uses if use.function_name == "save"}
        paired: set[int] = set()
        paired_saves: list[_Use] = []
        logdirs: list[cst.BaseExpression] = []
        starts: list[_Use] = []
        for use in plan.uses:
            kind = use.function_name
            if kind == "start" and not use.call.args:
                starts.append(use)
            elif kind == "stop" and not use.call.args:
                edit = self._stop(use, saves, paired, (paired_saves, logdirs), parents, plan)
                if edit is not None:
                    edits.append(edit)
            elif kind in SAME_ARGUMENTS:
                edits.append(self._same_arguments(use))
            elif kind != "save":
                plan.problems.append((use.call, f"`{source(use.call.func)}(...)` has no TF 2.x counterpart here"))
        for use in plan.uses:
            if use.function_name == "save" and id(use.call) not in paired:
                plan.problems.append(
                    (use.call, "the profile saved is not the `result = profiler.stop()` of the statement before it")
                )
        pairs = [(save, logdir) for save, logdir in zip(paired_saves, logdirs)]
        for use in starts:
            logdir = self._logdir_for(use, pairs, module, parents, plan)
            if logdir is not None:
                edits.append(self._start(use, logdir))
        return edits

    def _stop(self, use: _Use, saves: dict, paired: set, found: tuple, parents: dict, plan: _Plan):
        statement = use.statement
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        if len(getattr(statement, "body", ())) != 1:
            plan.problems.append((use.call, "`profiler.stop()` shares its line with another statement"))
            return None
        if isinstance(small, cst.Expr) and small.value is use.call:
            return lambda: self._replace_call(use, "profiler.experimental.stop", "save=False")
        following = _next_statement(statement, parents)
        result = _assigned_name(small, use.call)
        save = _save_of(following, result, saves)
        if result is None or save is None or _read_elsewhere(result, use, saves, parents):
            plan.problems.append((use.call, "`profiler.stop()`'s result is not saved by the statement right after it"))
            return None
        paired.add(id(save.call))
        found[0].append(save)
        found[1].append(save.call.args[0].value)

        def edit() -> None:
            if self.fix(use.call, "profiler.stop() + save -> tf.profiler.experimental.stop() (saves where start said)"):
                root = self._root()
                self.replace(small, cst.Expr(cst.parse_expression(f"{root}.profiler.experimental.stop()")))
                self.remove(following)

        return edit

    def _root(self) -> str:
        """TF2's top level, as the file names it (``tf``; ``tf.compat.v2`` in TF1 code)."""
        return self.tf_root(spell_v2=self._spell_v2)

    def _same_arguments(self, use: _Use):
        def edit() -> None:
            home = SAME_ARGUMENTS[use.function_name]
            if self.fix(use.call, f"profiler.{use.function_name} -> tf.{home}"):
                self.replace(use.call.func, cst.parse_expression(f"{self._root()}.{home}"))

        return edit

    def _replace_call(self, use: _Use, home: str, arguments: str) -> None:
        if self.fix(use.call, f"profiler.{use.function_name}() -> tf.{home}({arguments})"):
            self.replace(use.call, cst.parse_expression(f"{self._root()}.{home}({arguments})"))

    def _start(self, use: _Use, logdir: cst.BaseExpression):
        def edit() -> None:
            message = f"profiler.start() -> tf.profiler.experimental.start({source(logdir)}), where it is saved"
            if self.fix(use.call, message):
                call = cst.parse_expression(f"{self._root()}.profiler.experimental.start(x)")
                self.replace(use.call, call.with_changes(args=[cst.Arg(logdir)]))

        return edit

    def _logdir_for(
        self, start: _Use, pairs: list, module: cst.Module, parents: dict, plan: _Plan
    ) -> Optional[cst.BaseExpression]:
        """The directory the profile ``start`` begins is saved to: the saves of its function, else
        of its class's methods, else of the whole file, must all write to one expression that
        holds the same value where ``start`` is."""
        scopes = (
            lambda save: save.function is start.function,
            lambda save: (
                _class_of(save.function, parents) is not None
                and _class_of(save.function, parents) is _class_of(start.function, parents)
            ),
            lambda save: True,
        )
        candidates = next(
            (found for in_scope in scopes if (found := [pair for pair in pairs if in_scope(pair[0])])),
            [],
        )
        written = {source(logdir) for _, logdir in candidates}
        if len(written) != 1:
            why = "no `save` of it says" if not written else f"its saves write to {len(written)} directories"
            plan.problems.append((start.call, f"`profiler.start()` needs the log directory in TF 2.x, and {why}"))
            return None
        logdir = candidates[0][1]
        if not _readable_at(logdir, start.function, module, parents, [save.function for save, _ in candidates]):
            plan.problems.append(
                (
                    start.call,
                    f"`profiler.start()` needs the log directory in TF 2.x, and `{source(logdir)}`, "
                    "where the profile is saved, may hold another value here: pass it to start",
                )
            )
            return None
        return logdir

    def _drop_import(self, small: cst.CSTNode, local: str) -> None:
        module_path, _, name = PROFILER.rpartition(".")
        if isinstance(small, cst.ImportFrom):
            self.remove_import(module_path, name, asname=local if local != name else None)
        else:
            self.remove_import(PROFILER, asname=local)


def _profiler_imports(module: cst.Module) -> dict[str, cst.SimpleStatementLine]:
    """Local name -> the top-level import statement binding it to the TF 1.14 profiler."""
    found = {}
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    for local, qualified in import_bindings(small):
                        if qualified == PROFILER and "." not in local:
                            found[local] = statement
    return found


def _next_statement(statement: cst.CSTNode, parents: dict) -> Optional[cst.CSTNode]:
    block = parents.get(id(statement))
    body = getattr(block, "body", None)
    if not isinstance(body, (list, tuple)):
        return None
    for index, candidate in enumerate(body):
        if candidate is statement:
            return body[index + 1] if index + 1 < len(body) else None
    return None


def _assigned_name(small: Optional[cst.CSTNode], call: cst.Call) -> Optional[str]:
    if (
        isinstance(small, cst.Assign)
        and small.value is call
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value
    return None


def _save_of(statement: Optional[cst.CSTNode], result: Optional[str], saves: dict) -> Optional[_Use]:
    """The ``profiler.save(logdir, result)`` that ``statement`` is, if it saves ``result``."""
    if result is None or not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Expr) or id(small.value) not in saves:
        return None
    call = small.value
    if len(call.args) != 2 or any(arg.keyword is not None or arg.star for arg in call.args):
        return None
    saved = call.args[1].value
    if not (isinstance(saved, cst.Name) and saved.value == result):
        return None
    return saves[id(call)]


def _read_elsewhere(result: str, stop: _Use, saves: dict, parents: dict) -> bool:
    """Whether the stopped profile's name is read anywhere but in a ``profiler.save``."""
    if stop.function is None:
        return True  # module level: every later statement could read it
    in_saves = {id(node) for use in saves.values() for node in walk(use.call)}
    return any(
        isinstance(node, cst.Name) and node.value == result and id(node) not in in_saves
        for node in walk(stop.function.body, code_only=True)
        if not isinstance(parents.get(id(node)), cst.AssignTarget)
    )


def _readable_at(
    logdir: cst.BaseExpression,
    function: Optional[cst.FunctionDef],
    module: cst.Module,
    parents: dict,
    save_functions: list[Optional[cst.FunctionDef]],
) -> bool:
    """Whether ``logdir``, the expression a ``save`` writes to, holds the same value in
    ``function`` (where ``start`` is)."""
    if isinstance(logdir, cst.Name):
        name = logdir.value
        if function is not None and all(saved is function for saved in save_functions):
            return name not in local_names(function)  # a parameter or a global, not rebound
        bound_in_functions = any(
            name in local_names(node) or name in parameter_names(node)
            for node in (function, *save_functions)
            if node is not None
        )
        return not bound_in_functions and name in module_bindings(module) and _bound_once(module, name)
    if (
        isinstance(logdir, cst.Attribute)
        and isinstance(logdir.value, cst.Name)
        and function is not None
        and all(saved is not None for saved in save_functions)
    ):
        owner = logdir.value.value
        methods = [function, *save_functions]
        classes = {id(_class_of(method, parents)) for method in methods}
        if len(classes) != 1 or _class_of(function, parents) is None:
            return False
        if any(not parameter_names(method) or parameter_names(method)[0] != owner for method in methods):
            return False
        return _set_only_in_init(_class_of(function, parents), logdir.attr.value)
    return False


def _class_of(function: cst.FunctionDef, parents: dict) -> Optional[cst.ClassDef]:
    """The class ``function`` is a method of (defined directly in its body)."""
    block = parents.get(id(function))
    holder = parents.get(id(block))
    return holder if isinstance(holder, cst.ClassDef) else None


def _set_only_in_init(klass: cst.ClassDef, attribute: str) -> bool:
    """Whether every assignment to ``<first parameter>.<attribute>`` in the class's methods is in
    ``__init__``."""
    for statement in klass.body.body:
        if not isinstance(statement, cst.FunctionDef) or statement.name.value == "__init__":
            continue
        owner = parameter_names(statement)[0] if parameter_names(statement) else None
        for node in walk(statement.body, code_only=True):
            targets = []
            if isinstance(node, cst.AssignTarget):
                targets.append(node.target)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                targets.append(node.target)
            for target in targets:
                for part in walk(target, code_only=True):
                    if (
                        isinstance(part, cst.Attribute)
                        and part.attr.value == attribute
                        and isinstance(part.value, cst.Name)
                        and part.value.value == owner
                    ):
                        return False
    return True


def _bound_once(module: cst.Module, name: str) -> bool:
    """Whether one module-level statement binds ``name`` and no function declares it global."""
    binding = 0
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    binding += sum(
                        isinstance(target.target, cst.Name) and target.target.value == name for target in small.targets
                    )
    declared_global = any(
        isinstance(node, cst.Global) and any(item.name.value == name for item in node.names)
        for node in walk(module, code_only=True)
    )
    return binding == 1 and not declared_global
