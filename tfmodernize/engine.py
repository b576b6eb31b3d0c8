"""Source -> Outcome: the rewrite pipeline (``docs/architecture.md``, "The pipeline").

    decode -> text pre-filter -> parse once -> one shared detection traversal
           -> the codemods that detected something, in catalogue order, each planning edits
              on the tree it receives and the edits applied in one pass (``edits.apply``)
           -> render once -> re-parse check -> Outcome

``run`` first reads what the files of the run import of each other and how they call each
other's functions (``project``); the imported modules are rewritten first, in this process, and
the codemods' summaries of them read off the rewritten text. It then maps the other files over
a process pool, each with the view of the project modules it imports and the callers of its
own functions, and yields outcomes in input order. Nothing here imports
tensorflow or knows a codemod by name.
"""

from __future__ import annotations

import ast
import gc
import io
import os
import re
import sys
import tokenize
import traceback
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Iterator, Optional, Sequence

import libcst as cst
from libcst.codemod import CodemodContext

from tfmodernize.codemod import TFCodemod
from tfmodernize.file_state import FileState
from tfmodernize.registry import is_migration, select_codemods
from tfmodernize.results import Finding, Fix
from tfmodernize.settings import Settings
from tfmodernize.cache import OutcomeCache
from tfmodernize import project as project_modes
from tfmodernize.packages import added
from tfmodernize.project import Callers, ProjectIndex, ProjectView, Rewritten, summarize as summarize_project
from tfmodernize.notebooks import Layout
from tfmodernize.sources import Discovered, Source, SourceError, decode_source, read_source
from tfmodernize import tfsymbols, treewalk
from tfmodernize.tfsymbols import TFNames, needs_scope_analysis, tf_import_aliases

#: A file can only match a codemod if it imports one of these (every match is by qualified name).
PREFILTER = re.compile(r"\b(?:tensorflow|keras|tf_keras)\b")

#: Python 2 constructs, to say "run 2to3 first" rather than just "syntax error".
_PY2_HINTS = re.compile(
    r"^\s*print\s+[^\s(=]|^\s*exec\s+[\"'\w]|\bexcept\s+[\w.]+\s*,\s*\w+\s*:|\bur[\"']|^\s*raise\s+\w+\s*,|<>|`\w+`",
    re.MULTILINE,
)


@dataclass
class Outcome:
    """What happened to one file."""

    path: Path
    old: Optional[str] = None
    new: Optional[str] = None
    new_bytes: Optional[bytes] = None
    old_bytes: Optional[bytes] = None
    fixes: list[Fix] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: Optional[str] = None
    skipped: Optional[str] = None
    #: What keeps the file on ``tf.compat.v1``: ``(construct, line)`` pairs (``FileState.kept_on_v1``).
    kept_on_v1: list[tuple[str, int]] = field(default_factory=list)
    #: What the rewrite tells the files importing this one, by codemod (``FileState.exports``).
    exports: dict = field(default_factory=dict)
    #: For a notebook, where its code cells are in ``old``/``new`` (lines of findings are module lines).
    layout: Optional[Layout] = None

    @property
    def changed(self) -> bool:
        return self.error is None and self.new is not None and self.new != self.old

    @property
    def cannot_run(self) -> bool:
        """Whether the file is kept on compat.v1 by a name TF 2.x no longer has (``tf.contrib``,
        ``tf.estimator`` since TF 2.16)."""
        return cannot_run(self.status, (construct for construct, _ in self.kept_on_v1))

    @property
    def added_packages(self) -> list[str]:
        """The distributions beside TensorFlow the rewrite made the file need (``tf-slim``)."""
        return added(self.old, self.new) if self.changed else []

    @property
    def status(self) -> str:
        """``failed``, ``skipped``, ``kept-on-compat-v1``, ``migrated`` or ``unchanged``."""
        if self.error is not None:
            return "failed"
        if self.skipped is not None:
            return "skipped"
        if self.kept_on_v1:
            return "kept-on-compat-v1"
        return "migrated" if self.changed else "unchanged"


#: The TF1 namespaces gone from TF 2.x even under compat.v1: ``tf.contrib`` since TF 2.0,
#: ``tf.estimator`` since TF 2.16 (tensorflow-estimator 2.15 does not import on later versions).
GONE_NAMESPACES = ("tf.contrib.", "tf.estimator.")


def cannot_run(status: str, constructs: Iterable[str]) -> bool:
    """Whether a file of ``status`` kept on compat.v1 by ``constructs`` still cannot run on TF
    2.x: a name of ``GONE_NAMESPACES`` is not there, even under compat.v1."""
    return status == "kept-on-compat-v1" and any(c.startswith(GONE_NAMESPACES) for c in constructs)


class RewriteError(Exception):
    """A file that parsed but could not be rewritten; the message is ``line:col: reason``."""


def _syntax_message(error: "cst.ParserSyntaxError | SyntaxError", text: str) -> str:
    """``line:col: not Python 3 syntax: reason``, with CPython's wording where it has one."""
    if isinstance(error, SyntaxError):
        line, column, reason = error.lineno or 1, error.offset or 1, error.msg
    else:
        line, column = error.raw_line, error.raw_column + 1
        reason = str(error.message).splitlines()[0] if str(error.message) else "invalid syntax"
    hint = " (Python 2 source? run 2to3 first)" if _PY2_HINTS.search(_without_strings(text)) else ""
    return f"{line}:{column}: not Python 3 syntax: {reason}{hint}"


def _without_strings(text: str) -> str:
    """``text`` with string literals emptied and comments dropped, as far as it tokenizes: Python 2
    syntax is looked for in code, not in a docstring's ``backticks``."""
    lines = text.splitlines(keepends=True)
    tokens = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            tokens.append(token)
    except (tokenize.TokenError, SyntaxError):
        pass  # what tokenized before the error is masked; the rest is searched as it is
    for token in reversed(tokens):
        if token.type not in (tokenize.STRING, tokenize.COMMENT):
            continue
        (start_row, start_col), (end_row, end_col) = token.start, token.end
        keep = '""' if token.type == tokenize.STRING else ""
        if start_row == end_row:
            line = lines[start_row - 1]
            lines[start_row - 1] = line[:start_col] + keep + line[end_col:]
        else:
            lines[start_row - 1] = lines[start_row - 1][:start_col] + keep + "\n"
            for row in range(start_row, end_row - 1):
                lines[row] = "\n"
            lines[end_row - 1] = lines[end_row - 1][end_col:]
    return "".join(lines)


@dataclass
class _Asking:
    """What the detection walk asks of a node, for the codemods not found yet (``_detect``)."""

    #: Node type -> the codemods whose ``detect`` is asked about it.
    wanted: dict[type, list[type[TFCodemod]]] = field(default_factory=dict)
    #: For a Name or Attribute naming no TF symbol: only the codemods that want those too.
    untyped: dict[type, list[type[TFCodemod]]] = field(default_factory=dict)
    #: Name and Attribute, when a codemod wants it only as a TF symbol (its TF symbol is read).
    typed: set[type] = field(default_factory=set)
    #: Calls are matched against the codemods' ``detects`` by the call's TF path, read once per
    #: call, instead of asking each codemod (``detect`` is asked about the other node types).
    by_path: dict[str, list[type[TFCodemod]]] = field(default_factory=dict)

    @classmethod
    def remaining(cls, candidates: Sequence[type[TFCodemod]], found: set) -> Optional["_Asking"]:
        """What to ask for the ``candidates`` not ``found`` yet; None once all are."""
        if len(found) == len(candidates):
            return None
        return cls.of(c for c in candidates if c not in found)

    @classmethod
    def of(cls, codemods: Iterable[type[TFCodemod]]) -> "_Asking":
        asking = cls()
        for codemod in codemods:
            for kind in codemod.interests:
                if kind is cst.Call and codemod.detects:
                    for path in codemod.detects:
                        asking.by_path.setdefault(path, []).append(codemod)
                    continue
                asking.wanted.setdefault(kind, []).append(codemod)
                if kind in (cst.Name, cst.Attribute):
                    if codemod.detects_tf_names_only:
                        asking.typed.add(kind)
                    else:
                        asking.untyped.setdefault(kind, []).append(codemod)
        return asking


def _detect(
    module: cst.Module,
    candidates: Sequence[type[TFCodemod]],
    names: TFNames,
    asked: Optional[set[int]] = None,
    parent_of: Optional[dict[int, cst.CSTNode]] = None,
) -> set[type[TFCodemod]]:
    """One traversal asking every candidate's ``detect`` about the node types it wants; a
    codemod found is asked no more (what the walk asks is made again without it).

    ``asked``: ids of the nodes every candidate was already asked about, under the same names
    (nodes are immutable, so a node's whole subtree was too): the walk does not go into them,
    and adds the nodes it goes through. After a codemod's rewrite only its new nodes are walked.
    ``parent_of``, given for a tree walked whole (``asked`` empty), receives each code node's
    parent on the way (``edits.parents``): the walk goes on to the end for it, asking nothing
    more once every candidate is found.
    """
    found: set[type[TFCodemod]] = {c for c in candidates if not c.interests}
    asking = _Asking.remaining(candidates, found)
    if asking is None and parent_of is None:
        return found
    if asked is None:
        asked = set()
    stack: list[cst.CSTNode] = [module]
    pop, extend, children, mark = stack.pop, stack.extend, treewalk.children, asked.add
    update = parent_of.update if parent_of is not None else None
    while stack:
        node = pop()
        key = id(node)
        if key in asked:
            continue
        if asking is not None:
            kind = type(node)
            if kind is cst.Call and asking.by_path:
                symbol = names.tf_symbol(node.func)
                if symbol is not None and symbol.path in asking.by_path:
                    found.update(asking.by_path[symbol.path])
                    asking = _Asking.remaining(candidates, found)
            ask = asking.wanted.get(kind) if asking is not None else None
            if ask is not None:
                if kind in asking.typed and names.tf_symbol(node) is None:
                    ask = asking.untyped.get(kind, ())
                before = len(found)
                for codemod in ask:
                    if codemod.detect(node, names):
                        found.add(codemod)
                if len(found) != before:
                    asking = _Asking.remaining(candidates, found)
            if asking is None and update is None:
                return found
        mark(key)
        below = children(node, code_only=True)
        if below:  # most nodes are leaves
            if update is not None:
                update(dict.fromkeys(map(id, below), node))
            extend(reversed(below))
    return found


def transform_text(
    text: str,
    codemods: Sequence[type[TFCodemod]],
    *,
    path: str = "<string>",
    unsafe_fixes: bool = False,
    project: Optional[ProjectView] = None,
    callers: Optional[Callers] = None,
    refused: Optional[str] = None,
    project_on_v1: Optional[str] = None,
) -> tuple[str, FileState]:
    """Rewrite one module's text with ``codemods``; returns the new text and what happened.
    ``project``/``callers``: the project modules the file imports, and how the other files of
    the run use its functions (``tfmodernize.project``); ``refused``: why a file importing this
    one stays on TF1, so no rewrite may change what it calls (``FileState.exports_refused``);
    ``project_on_v1``: why the project the file belongs to stays on TF1 (``FileState.project_on_v1``).

    Raises ``SyntaxError``/``cst.ParserSyntaxError`` for input that does not parse and ``RewriteError`` when a
    rewrite would not parse (the rewrite is then dropped). A codemod whose obligations are
    left unfulfilled is taken out and the file rewritten again without it.
    """
    with _collector_paused():
        try:
            new_text, state = _transform_text(
                text,
                codemods,
                path=path,
                unsafe_fixes=unsafe_fixes,
                project=project,
                callers=callers,
                refused=refused,
                project_on_v1=project_on_v1,
            )
        finally:
            treewalk.forget()  # the nodes of this file's trees are not needed again
            tfsymbols.forget()
        # The trees go while the collector is paused, freed by reference counting: resumed, its
        # first pass would otherwise scan every node they hold once more.
        state.release()
        return new_text, state


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause CPython's cycle collector while a file is rewritten; restore it after.

    A parse builds an object for every token and a rewrite many more, and the trees live until
    the file is done. The collector, run every 700 allocations by default, scans those living
    objects again and again, although almost everything is freed by reference counting: over a
    fifth of the time of a run on real code (``benchmarks/throughput.py``). The cyclic garbage
    one file's rewrite leaves (LibCST's position records, for one) waits until the file is done,
    then the collector runs as usual: the peak memory of a run on the model zoo stays the same.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _transform_text(
    text: str,
    codemods: Sequence[type[TFCodemod]],
    *,
    path: str,
    unsafe_fixes: bool,
    project: Optional[ProjectView],
    callers: Optional[Callers] = None,
    refused: Optional[str] = None,
    project_on_v1: Optional[str] = None,
) -> tuple[str, FileState]:
    declined: list[Finding] = []
    # A file run again without some codemods is parsed once: LibCST's trees never change.
    parsed: dict[str, object] = {}
    while True:
        new_text, state = _transform_once(
            text,
            codemods,
            parsed=parsed,
            path=path,
            unsafe_fixes=unsafe_fixes,
            project=project,
            callers=callers,
            refused=refused,
            project_on_v1=project_on_v1,
        )
        tf2_only = {f.code for f in state.fixes} & {c.code for c in codemods if c.requires_tf2}
        if state.kept_on_v1 and tf2_only and not state.obligations:
            blocker, line = state.kept_on_v1[0]
            # A file kept on compat.v1 runs with v2 behaviour off: TF2 rewrites in it would not run.
            # What those codemods declined still says why the file is kept (positions are the
            # file's as written, so they hold); so does an unsafe fix left out, whose codemod
            # reads another tree on the next run.
            declined.extend(f for f in state.findings if (f.code in tf2_only or f.unsafe_fix) and f not in declined)
            for codemod in codemods:
                if codemod.code in tf2_only:
                    declined.append(
                        Finding(
                            codemod.code,
                            codemod.name,
                            f"not applied: its rewrite is TF2 code, but {blocker} (line {line}) "
                            "keeps the file on tf.compat.v1, and a file is migrated whole or kept on v1 whole; "
                            f"migrate {blocker} to let the rest follow",
                            1,
                            1,
                            1,
                            1,
                        )
                    )
            codemods = [c for c in codemods if c.code not in tf2_only]
            continue
        if not state.obligations:
            state.findings[:0] = declined
            return new_text, state
        culprits = {o.by for o in state.obligations}
        selected = {c.code for c in codemods}
        for obligation in state.obligations:
            owner = next(c for c in codemods if c.code == obligation.by)
            if obligation.needs not in selected:
                why = f"{obligation.needs} is not selected"
            else:
                # The needed codemod's own findings say why it declined; their positions are in
                # a tree that is being thrown away, so only the messages are kept.
                said = sorted({f.message for f in state.findings if f.code == obligation.needs})
                why = f"{obligation.needs} did not complete" + (f" ({'; '.join(said)})" if said else "")
            declined.append(
                Finding(
                    owner.code,
                    owner.name,
                    f"not applied: {obligation.reason}, which needs {obligation.needs}, but {why}",
                    1,
                    1,
                    1,
                    1,
                )
            )
        codemods = [c for c in codemods if c.code not in culprits]


def _transform_once(
    text: str,
    codemods: Sequence[type[TFCodemod]],
    *,
    path: str,
    unsafe_fixes: bool,
    project: Optional[ProjectView] = None,
    callers: Optional[Callers] = None,
    refused: Optional[str] = None,
    project_on_v1: Optional[str] = None,
    parsed: Optional[dict[str, object]] = None,
) -> tuple[str, FileState]:
    """One rewrite of ``text`` by ``codemods``. ``parsed``: where the text's trees are kept for a
    run of the same text again (``module``, ``syntax``, ``aliases``)."""
    state = FileState(
        text=text,
        unsafe_fixes=unsafe_fixes,
        project=project or {},
        callers=callers,
        exports_refused=refused,
        project_on_v1=project_on_v1,
    )
    if not text.strip() or not PREFILTER.search(text):
        return text, state
    wanted = {c for c in codemods if c.wanted_by(state)}
    candidates = [c for c in codemods if c in wanted or c.applies_to_text(text)]
    # CPython's parser first: it is ~10x faster than LibCST's and stricter (LibCST accepts
    # some Python 2 forms such as ``except E, e:``), and its messages are the familiar ones.
    if parsed:
        syntax, module, aliases = parsed["syntax"], parsed["module"], parsed["aliases"]
    else:
        syntax = ast.parse(text)
        try:
            module = cst.parse_module(text)
        except cst.ParserSyntaxError as error:
            # CPython accepted it: valid Python that LibCST's grammar does not cover.
            reason = str(error.message).splitlines()[0] if str(error.message) else "invalid syntax"
            raise RewriteError(
                f"{error.raw_line}:{error.raw_column + 1}: valid Python that LibCST cannot parse "
                f"({reason}); file left untouched"
            ) from None
        aliases = tf_import_aliases(module)
        if parsed is not None:
            parsed.update(syntax=syntax, module=module, aliases=aliases)
    if not aliases or not candidates:
        return text, state
    state.needs_scope = needs_scope_analysis(text, aliases)
    state.parsed, state.syntax = module, syntax
    names = state.names(module)
    # The nodes every candidate has been asked about (kept alive by ``trees``, so ids stay theirs).
    asked: set[int] = set()
    trees = [module]
    parent_of: dict[int, cst.CSTNode] = {}
    found = _detect(module, candidates, names, asked, parent_of) | wanted
    state.know_parents(module, parent_of)
    changed = False
    for index, codemod in enumerate(candidates):
        if codemod not in found:
            continue
        fixes_before = len(state.fixes)
        context = CodemodContext(filename=path, full_module_name=None)
        instance = codemod(context, state)
        result = instance.transform_module(module)
        instance.done()
        if len(state.fixes) > fixes_before:
            changed = True
            module = result
            trees.append(module)
            previous, names = names, state.names(module)
            if state.needs_scope or names.aliases != previous.aliases or names.ambiguous != previous.ambiguous:
                asked = set()  # a name may now mean something else: ask about every node again
            later = [c for c in candidates[index + 1 :] if c not in found]
            found |= _detect(module, later, names, asked)
    if not changed or state.obligations:
        return text, state
    new_text = module.code
    if text.endswith("\r") and not new_text.endswith("\r"):
        new_text += "\r"  # LibCST drops the last newline of a file written with `\r` alone
    try:
        ast.parse(new_text)
    except SyntaxError as error:
        raise RewriteError(
            f"{error.lineno}:{error.offset}: rewrite dropped, it would not parse ({error.msg}); "
            f"codemods involved: {', '.join(sorted({f.code for f in state.fixes}))}"
        ) from None
    return new_text, state


#: LibCST's transformers recurse once per nesting level; a 2,000-branch ``elif`` chain nests
#: 2,000 deep. Python 3.11 keeps Python-to-Python calls off the C stack, so a higher limit is safe.
RECURSION_LIMIT = 30_000


def process(
    discovered: Discovered,
    settings: Settings,
    project: Optional[ProjectView] = None,
    callers: Optional[Callers] = None,
    refused: Optional[str] = None,
    project_on_v1: Optional[str] = None,
) -> Outcome:
    """Run the selected codemods on one file, knowing the ``project`` modules it may import and
    how the other files of the run use its functions (``tfmodernize.project``; ``refused``: why
    a file importing this one stays on TF1, so no rewrite may change what it calls;
    ``project_on_v1``: why the file's project stays on TF1, so the file does too).
    Never raises: problems land in ``error``."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    path = discovered.path
    outcome = Outcome(path)
    if discovered.problem is not None:
        outcome.error = discovered.problem
        return outcome
    try:
        source = read_source(path) if discovered.data is None else decode_source(path, discovered.data)
    except SourceError as error:
        outcome.error = str(error)
        return outcome
    outcome.old, outcome.old_bytes, outcome.layout = source.text, source.data, source.layout
    if not source.text.strip():
        outcome.skipped = "empty file"
        outcome.new = source.text
        return outcome
    if not PREFILTER.search(source.text):
        outcome.skipped = "no TensorFlow import"
        outcome.new = source.text
        return outcome
    codemods = select_codemods(settings.select, settings.ignore)
    cache = key = None
    if settings.cache_dir is not None:
        cache = OutcomeCache(settings.cache_dir, codemods, settings.unsafe_fixes)
        key = cache.key(
            source.data
            + ProjectIndex.fingerprint(project or {}, callers)
            + (b"" if refused is None else b"\0" + refused.encode("utf-8", "surrogateescape"))
            + (b"" if project_on_v1 is None else b"\1" + project_on_v1.encode("utf-8", "surrogateescape"))
        )
        hit = cache.get(key)
        if hit is not None:
            _fill(
                outcome,
                source,
                hit["new"],
                hit["fixes"],
                hit["findings"],
                hit["error"],
                [tuple(pair) for pair in hit.get("kept_on_v1") or ()],
                hit.get("exports") or {},
            )
            return outcome
    new_text, fixes, findings, error, kept_on_v1, exported = _rewrite(
        source, codemods, settings, project, callers, refused, project_on_v1
    )
    _fill(outcome, source, new_text, fixes, findings, error, kept_on_v1, exported)
    if cache is not None and not (error or "").startswith("internal error"):
        cache.put(
            key, new=new_text, fixes=fixes, findings=findings, error=error, kept_on_v1=kept_on_v1, exports=exported
        )
    return outcome


def _rewrite(
    source: Source,
    codemods: Sequence[type[TFCodemod]],
    settings: Settings,
    project: Optional[ProjectView] = None,
    callers: Optional[Callers] = None,
    refused: Optional[str] = None,
    project_on_v1: Optional[str] = None,
) -> tuple[Optional[str], list[Fix], list[Finding], Optional[str], list[tuple[str, int]], dict]:
    """(new text, fixes, findings, error, kept-on-v1 blocker, exports) for one decoded source."""
    try:
        new_text, state = transform_text(
            source.text,
            codemods,
            path=str(source.path),
            unsafe_fixes=settings.unsafe_fixes,
            project=project,
            callers=callers,
            refused=refused,
            project_on_v1=project_on_v1,
        )
        source.encode(new_text)
    except (cst.ParserSyntaxError, SyntaxError) as error:
        return None, [], [], _syntax_message(error, source.text), [], {}
    except RewriteError as error:
        return None, [], [], str(error), [], {}
    except UnicodeEncodeError as error:
        return None, [], [], f"rewrite cannot be encoded as {source.encoding}: {error.reason}", [], {}
    except SourceError as error:  # a notebook whose rewrite cannot be split back into its cells
        return None, [], [], str(error), [], {}
    except Exception as error:  # a codemod bug must not stop the run
        try:  # where it failed, for the bug report: the innermost frame
            frame = traceback.extract_tb(error.__traceback__)[-1]
            tail = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
        except Exception:  # noqa: BLE001 - even a traceback that cannot be formatted stays in its file
            tail = type(error).__name__
        return None, [], [], f"internal error, file left untouched: {type(error).__name__}: {error} [{tail}]", [], {}
    findings = [replace(f, path=str(source.path)) for f in state.findings]
    return new_text, state.fixes, findings, None, state.kept_on_v1, state.exports if new_text != source.text else {}


def _fill(
    outcome: Outcome,
    source: Source,
    new_text: Optional[str],
    fixes: list[Fix],
    findings: list[Finding],
    error: Optional[str],
    kept_on_v1: list[tuple[str, int]],
    exports: dict,
) -> None:
    outcome.error = error
    if error is None:
        outcome.new = new_text
        outcome.new_bytes = source.data if new_text == source.text else source.encode(new_text)
        outcome.fixes, outcome.findings, outcome.kept_on_v1, outcome.exports = fixes, findings, kept_on_v1, exports


def _end_with_parent(parent: int) -> None:
    """A pool worker ends when the run that started it dies (SIGKILL included), instead of
    living on as an orphan: Linux signals it through PR_SET_PDEATHSIG."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not Linux: the pool's own shutdown is all there is
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _process_star(item: tuple) -> Outcome:
    """``process(*item)``: (discovered, settings, view, callers[, refused[, project_on_v1]])."""
    try:
        return process(*item)
    except Exception as error:  # noqa: BLE001 - an internal error never escapes its file
        return Outcome(item[0].path, error=f"internal error, file left untouched: {type(error).__name__}: {error}")


def _why_kept(outcome: Outcome) -> str:
    """``"; TFM101 line 44: ..."``: the finding of a migration that left the file on TF1 (an
    unsafe fix not applied first, then a decline), for the modules it imports to report."""
    ranked = sorted(
        (f for f in outcome.findings if f.unsafe_fix or " not migrated" in f.message),
        key=lambda f: (not f.unsafe_fix, f.line),
    )
    return f"; {ranked[0].code} line {ranked[0].line}: {ranked[0].message}" if ranked else ""


def run(files: Iterable[Discovered], settings: Settings) -> Iterator[Outcome]:
    """Process ``files``, yielding outcomes in input order; uses ``settings.jobs`` processes.

    With a project pre-pass, the modules other files of the run import are rewritten first, in
    this process, each after the modules it imports (``tfmodernize.project``): their summaries
    describe them as rewritten. The rest go to the pool. Then a project (a script and the
    project modules it imports) is made one mode: where one of its files stays on TF1, the
    others are rewritten again to stay with it (``_projects_together``)."""
    files = list(files)
    codemods = select_codemods(settings.select, settings.ignore)
    done: dict[Path, Outcome] = {}
    index: Optional[ProjectIndex] = None
    if len(files) > 1 or any(c.summarizes for c in codemods):
        by_path = {f.path.resolve(): f for f in files if f.problem is None}

        def rewrite(path: Path, view: ProjectView, callers: Optional[Callers], refused: Optional[str]) -> Rewritten:
            outcome = _process_star((by_path[path], settings, view, callers, refused))
            done[path] = outcome
            if outcome.error is None and not outcome.kept_on_v1 and outcome.new is not None:
                return Rewritten(outcome.new, outcome.exports)
            if outcome.kept_on_v1:
                return Rewritten(stays=_kept_reason(outcome) + _why_kept(outcome))
            return Rewritten(stays=outcome.error or "it is not rewritten")

        index = summarize_project(list(by_path), codemods, settings.src, rewrite=rewrite)
        done = {path: outcome for path, outcome in done.items() if path in index.rewritten}
        items = [
            (f, settings, index.view_from(f.path), index.callers_of(f.path))
            if f.problem is None
            else (f, settings, None, None)
            for f in files
        ]
    else:
        items = [(f, settings, None, None) for f in files]
    pending = [item for item in items if item[0].problem is not None or item[0].path.resolve() not in done]
    if index is None:
        yield from _in_order(items, done, _processed(pending, settings))
        return
    outcomes = list(_in_order(items, done, _processed(pending, settings)))
    yield from _projects_together(outcomes, items, index, settings)


def _processed(pending: list, settings: Settings) -> Iterator[Outcome]:
    """The outcomes of the ``pending`` items, in order: in this process, or over the pool."""
    if settings.jobs <= 1 or len(pending) <= 1:
        yield from (_process_star(item) for item in pending)
        return
    workers = min(settings.jobs, len(pending))
    chunk = max(1, min(16, len(pending) // (workers * 4)))
    with ProcessPoolExecutor(max_workers=workers, initializer=_end_with_parent, initargs=(os.getpid(),)) as pool:
        yield from pool.map(_process_star, pending, chunksize=chunk)


def _projects_together(outcomes: list[Outcome], items: list, index: ProjectIndex, settings: Settings) -> list[Outcome]:
    """``outcomes`` with every project of the run in one mode: the files that must stay on TF1
    with a file of their project (``project.on_v1_together``) rewritten again with the reason,
    so they are kept on ``tf.compat.v1`` too; one that cannot be (no plain TensorFlow import to
    switch) is left as written, with the findings saying why. Rounds repeat until nothing more
    must stay: a file left as written keeps its own importers."""
    status: dict[Path, str] = {}
    why: dict[Path, str] = {}
    position: dict[Path, int] = {}
    for at, (outcome, item) in enumerate(zip(outcomes, items)):
        if item[0].problem is not None or outcome.skipped is not None or outcome.old is None:
            continue
        path = outcome.path.resolve()
        position[path] = at
        status[path], reason = _project_status(outcome)
        if reason is not None:
            why[path] = reason
    outside: dict[Path, Optional[str]] = {}

    def tf1_outside(path: Path) -> Optional[str]:
        """Why a project module outside the run is TF1 code as written (its rewrite would keep it
        on compat.v1 or migrate it), or None."""
        if path not in outside:
            state, reason = _project_status(process(Discovered(path), settings))
            outside[path] = (
                reason
                if state == project_modes.KEPT
                else "it needs a migration"
                if state == project_modes.MIGRATED
                else None
            )
        return outside[path]

    settled: set[Path] = set()  # rewritten again already: what that gave stands
    while True:
        forced = {
            path: reason
            for path, reason in project_modes.on_v1_together(index, status, why, tf1_outside).items()
            if path not in settled
        }
        if not forced:
            return outcomes
        for path, reason in forced.items():
            settled.add(path)
            item = items[position[path]]
            again = _process_star((item[0], settings, item[2], item[3], None, reason))
            if again.error is None and not again.kept_on_v1 and not _imports_tensorflow(again.new):
                # Its migration left no TensorFlow in it (``tf.flags`` -> absl): no mode to share.
                outcomes[position[path]], status[path] = again, project_modes.AS_IS
                continue
            if again.error is None and not again.kept_on_v1:
                # Not kept on compat.v1 (no plain TensorFlow import to switch): left as written.
                again.new, again.new_bytes, again.fixes, again.exports = again.old, again.old_bytes, [], {}
                again.findings.extend(_left_as_written(reason, settings, again.path))
                status[path], why[path] = project_modes.FAILED, f"it stays as written ({reason})"
            else:
                status[path], why[path] = _project_status(again)
            outcomes[position[path]] = again


def _left_as_written(reason: str, settings: Settings, path: Path) -> list[Finding]:
    """Why a file its project keeps on TF1 is left as written: the finding of the codemod the
    project asked to keep it on ``tf.compat.v1`` (``wanted_by`` a ``project_on_v1``), which
    found no plain TensorFlow import to switch."""
    asked = FileState(text="", project_on_v1=reason)
    selected = select_codemods(settings.select, settings.ignore)
    keeper = next((c for c in selected if c.wanted_by(asked)), None)
    if keeper is None:
        return []
    message = (
        f"left as written: {reason}, so this file must stay on TF1 with it, but it has no plain "
        "module-level `import tensorflow` to switch to tf.compat.v1: import tensorflow.compat.v1 "
        "here by hand"
    )
    return [Finding(keeper.code, keeper.name, message, 1, 1, 1, 1, path=str(path))]


def _imports_tensorflow(text: Optional[str]) -> bool:
    """Whether ``text`` still imports TensorFlow (or Keras) anywhere."""
    if text is None or not PREFILTER.search(text):
        return False
    try:
        return bool(tf_import_aliases(cst.parse_module(text)))
    except cst.ParserSyntaxError:
        return True


def _kept_reason(outcome: Outcome) -> str:
    """``"tf.Session on line 9 has no TF2 migration there"``: the first construct keeping a file on TF1."""
    construct, line = outcome.kept_on_v1[0]
    return f"{construct} on line {line} has no TF2 migration there"


def _project_status(outcome: Outcome) -> tuple[str, Optional[str]]:
    """What a file became, for ``project.on_v1_together``, and what keeps it on TF1 if it stays."""
    if outcome.error is not None:
        return project_modes.FAILED, f"it could not be rewritten: {outcome.error}"
    if outcome.kept_on_v1:
        return project_modes.KEPT, _kept_reason(outcome)
    if outcome.changed and any(is_migration(fix.code) for fix in outcome.fixes):
        return project_modes.MIGRATED, None
    return project_modes.AS_IS, None


def _in_order(items: list, done: dict[Path, Outcome], results: Iterator[Outcome]) -> Iterator[Outcome]:
    """The outcomes of ``items`` in their order: those the pre-pass made (``done``), the rest from
    ``results`` (the pending items', in order)."""
    for item in items:
        discovered = item[0]
        made = done.get(discovered.path.resolve()) if discovered.problem is None else None
        yield made if made is not None else next(results)
