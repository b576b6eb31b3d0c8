"""What a reviewer of migrated code sees first (issue 35), counted per original/migrated pair.

    python benchmarks/migrated_quality.py fixtures/session-to-function  # <case>/before.py, after.py
    python benchmarks/migrated_quality.py --original DIR --migrated DIR  # same relative paths
    python benchmarks/migrated_quality.py --migrate examples             # migrated now

For each pair, and summed over the folder:

- ``width``: the longest line the migration wrote (a line the original does not hold) against
  the file's own style, ``min(100, max(88, longest line of the original)))``; ``wide`` counts
  the written lines wider than that (a trailing comment the original has is its author's: a
  line is as wide as its code then; a line the original already had wider than the style is
  its author's wherever the migration moved it);
- ``misaligned``: continuation lines inside a bracket followed by code on its own line
  (visual indent) that do not start right after that bracket, but those the original has;
- ``orphaned``: comment lines of the original kept although the statement right below them
  is gone or no longer follows them (a statement rewritten where it stood still follows it, a
  function made a class, a call made an object and its call (the first of them), a class's
  tensor made a method; a comment on a ``minimize`` goes with the update that replaces it; a
  session run made a call of the function written for it, binding no name the run did not; a
  statement gone with the objects made where it stood, whose calls bind what its paragraph
  bound (``cell = ...`` -> ``rnn = SimpleRNN(...)``, ``output, state = rnn(x)``); a statement
  wrapped over other lines is read as one line);
  ``lost``: comment lines gone although their statement is kept (a comment above a blank line
  heads a section: not counted). A comment line is found by its words in a run of comment lines
  of the migrated file, wherever the run's lines are cut (a comment reflowed to the file's width
  is kept, not lost);
- ``names``: functions and names the migration introduced with ``_and_`` in them or ending in
  a number (``train_step_2``);
- ``blank``: runs of blank lines (a line of spaces is blank) longer than the original's longest
  and than two; ``layout``: targets with a
  dangling comma (``a, b,  = ...``);
- ``tf.function``: functions decorated with ``tf.function`` in the migrated file;
- ``numpy-in-loop``: ``.numpy()`` calls inside a ``for``/``while`` loop of the migrated file;
  ``every-step``: those a loop makes at every pass (not under an ``if``/``try`` of its body);
  ``unread-step``: names a loop binds to such values at every pass that it does not read at
  every pass (read only under an ``if``, or after the loop: converted where read instead).

Never imports TensorFlow (``--migrate`` runs the rewrite, which does not either).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import io
import re
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = (
    "width",
    "wide",
    "misaligned",
    "orphaned",
    "lost",
    "names",
    "blank",
    "layout",
    "tf.function",
    "numpy-in-loop",
    "every-step",
    "unread-step",
)


@dataclass
class Quality:
    name: str
    width: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)


def style_width(original: str) -> int:
    longest = max((len(line) for line in original.splitlines()), default=0)
    return min(100, max(88, longest))


def comment_lines(source: str) -> list[int]:
    """Line numbers (0-based) of the lines holding only a comment."""
    lines = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and not token.line[: token.start[1]].strip():
                lines.append(token.start[0] - 1)
    except (tokenize.TokenError, SyntaxError):
        pass
    return lines


def statement_extents(source: str) -> dict[int, tuple[int, int]]:
    """First line (0-based) of every statement -> the lines it spans, its body included."""
    extents = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt):
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            extents[start - 1] = (start - 1, node.end_lineno)
    return extents


def statement_heads(source: str) -> dict[int, str]:
    """First line (0-based) of every statement -> its code as one line: a simple statement's
    lines joined (a call its author or a migration wrapped reads as written on one line), a
    block's first line(s) up to its body."""
    lines = source.splitlines()
    heads = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt):
            body = getattr(node, "body", None)
            end = body[0].lineno - 1 if isinstance(body, list) and body else node.end_lineno
            end = max(end, node.lineno)
            heads[node.lineno - 1] = "".join(line.strip() for line in lines[node.lineno - 1 : end])
    return heads


def comment_words(line: str) -> list[str]:
    """The words of a comment line, without its ``#`` prefix."""
    return line.strip().lstrip("#").split()


class CommentRuns:
    """The comment lines of a file read as runs of consecutive lines, each a sequence of words:
    an original comment line is found in a run holding its words in order, wherever they are
    wrapped (a comment reflowed at another width), each place found once."""

    def __init__(self, lines: list[str], comments: list[int]) -> None:
        self.runs: list[tuple[str, list[int]]] = []  # (" word word ", the line of each word)
        run: list[int] = []
        for number in comments + [-2]:
            if run and number != run[-1] + 1:
                words = [(word, n) for n in run for word in comment_words(lines[n])]
                self.runs.append((" " + " ".join(w for w, _ in words) + " ", [n for _, n in words]))
                run = []
            run.append(number)
        self.used: set[tuple[int, int]] = set()

    def take(self, number: int) -> None:
        """Line ``number``, found as it was written: its place is used."""
        for index, (text, owners) in enumerate(self.runs):
            if number in owners:
                first = owners.index(number)
                at = 0
                for _ in range(first):
                    at = text.index(" ", at + 1)
                self.used.add((index, at))
                return

    def find(self, line: str) -> int | None:
        """The line of the first unused place holding ``line``'s words, marked used."""
        words = comment_words(line)
        if not words:
            return None
        wanted = " " + " ".join(words) + " "
        for index, (text, owners) in enumerate(self.runs):
            at = text.find(wanted)
            while at >= 0:
                if (index, at) not in self.used:
                    self.used.add((index, at))
                    return owners[text.count(" ", 0, at)]
                at = text.find(wanted, at + 1)
        return None


def next_code_line(lines: list[str], start: int, comments: set[int]) -> int | None:
    for number in range(start + 1, len(lines)):
        if lines[number].strip() and number not in comments:
            return number
    return None


def similar(a: str, b: str) -> bool:
    """The same statement, maybe rewritten: the same assignment targets (``self.w`` is ``w``
    moved into a method), or mostly the same text."""
    target_a, target_b = (re.match(r"\s*([\w., ]+?)\s*=[^=]", line) for line in (a, b))
    if target_a and target_b:
        own_a, own_b = (re.sub(r"\bself\.", "", t.group(1)) for t in (target_a, target_b))
        return own_a == own_b
    return difflib.SequenceMatcher(None, a.strip(), b.strip()).ratio() >= 0.6


def made_for(new: str, old: str) -> bool:
    """``new`` is what replaced ``old``: the class a function became (``def build_net(x):`` ->
    ``class BuildNet(tf.Module):``), the object made for a call of it (``out = net(x)`` ->
    ``net = Net()``, called later), or the method a model class's tensor became
    (``self.loss = ...`` -> ``def _loss(self, x):``)."""

    def same(function: str, cls: str) -> bool:
        name = function.replace("_", "").lower()
        return name in (cls.lower(), cls.lower().removesuffix("module"))

    function = re.match(r"\s*def (\w+)\(", old)
    made = re.match(r"\s*class (\w+)\(", new)
    if function and made:
        return same(function.group(1), made.group(1))
    tensor = re.match(r"\s*self\.(\w+) = ", old)
    method = re.match(r"\s*def _?(\w+)\(self", new)
    if tensor and method:
        return tensor.group(1) == method.group(1)
    made = re.match(r"\s*\w+ = ([A-Z]\w*)\(", new)
    return bool(made) and any(same(called, made.group(1)) for called in re.findall(r"(\w+)\(", old))


def rewritten_in_place(
    old_lines: list[str], new_lines: list[str], opcodes: list, statement: int, follower: int, starts: set[int]
) -> bool:
    """Whether the migrated line ``follower`` is the original ``statement`` rewritten where it
    stood: the lines around both are the same, and of the statements the diff replaced there,
    ``follower`` reads most like this one."""
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "replace" and i1 <= statement < i2 and j1 <= follower < j2:
            candidates = [n for n in range(i1, i2) if n in starts] or [statement]
            text = new_lines[follower].strip()
            best = max(candidates, key=lambda n: difflib.SequenceMatcher(None, old_lines[n].strip(), text).ratio())
            return best == statement
    return False


def assigned(line: str) -> Optional[set[str]]:
    """The names a statement line assigns (``a, b = ...``, ``[a, _] = ...``); None when it
    assigns none."""
    target = re.match(r"\s*\[?([\w., ]+?)\]?\s*=[^=]", line)
    if target is None:
        return None
    return {name.strip() for name in target.group(1).split(",")} - {"", "_"}


def run_made_call(old: str, new: str, functions: set[str]) -> bool:
    """``new`` calls a function the migration wrote in place of the session run ``old``
    (``summary, acc = sess.run([merged, accuracy], ...)`` -> ``acc = evaluate(x, y)``), binding
    no name the run did not."""
    if ".run(" not in old or not any(re.search(rf"\b{name}\(", new) for name in functions):
        return False
    made, ran = assigned(new), assigned(old) or set()
    return made is None or made <= ran


def objects_made_for(lines: list[str], heads: dict, follower: int, paragraph: list[str]) -> bool:
    """The lines from ``follower`` to the next blank line make the objects
    (``rnn = SimpleRNN(...)``) whose calls compute what the statements of ``paragraph`` (the
    original statement and those after it up to a blank line) computed:
    ``output, state = rnn(x)`` in place of ``output, state = tf.nn.dynamic_rnn(cell, x)``."""
    made = []
    for line in lines[follower:]:
        if not line.strip():
            break
        bound = re.match(r"(\w+) = ", line.strip())
        made += [bound.group(1)] if bound else []
    for head in heads.values():
        if any(re.search(rf"=\s*{name}\(", head) for name in made):
            if any(assigned(head) and assigned(head) == assigned(line) for line in paragraph):
                return True
    return False


def paragraph_of(lines: list[str], statement: int, heads: dict, comments: set) -> list[str]:
    """The statements (as one line each) from ``statement`` to the next blank or comment line."""
    found = []
    for number in range(statement, len(lines)):
        if not lines[number].strip() or number in comments:
            break
        if number in heads:
            found.append(heads[number])
    return found


def comments(original: str, migrated: str, quality: Quality) -> None:
    old_lines, new_lines = original.splitlines(), migrated.splitlines()
    old_comments, new_comments = comment_lines(original), comment_lines(migrated)
    old_set, new_set = set(old_comments), set(new_comments)
    extents = statement_extents(original)
    starts = set(extents)
    opcodes = difflib.SequenceMatcher(
        None, [line.strip() for line in old_lines], [line.strip() for line in new_lines], autojunk=False
    ).get_opcodes()
    new_code = {line.strip() for n, line in enumerate(new_lines) if n not in new_set}
    old_heads, new_heads = statement_heads(original), statement_heads(migrated)
    defined = [
        {node.name for node in ast.walk(ast.parse(text)) if isinstance(node, ast.FunctionDef)}
        for text in (original, migrated)
    ]
    written_functions = defined[1] - defined[0]
    taken: dict[str, list[int]] = {}
    for number in new_comments:
        taken.setdefault(new_lines[number].strip(), []).append(number)
    # A comment not kept line for line may be kept with its words wrapped at another width.
    reflowed = CommentRuns(new_lines, new_comments)
    orphaned = lost = 0
    for number in old_comments:
        statement = next_code_line(old_lines, number, old_set)
        if statement is None or any(not old_lines[n].strip() for n in range(number, statement)):
            continue  # above a blank line: it heads what follows, not one statement
        first, end = extents.get(statement, (statement, statement + 1))
        own = [old_lines[n] for n in range(first, end) if n not in old_set and old_lines[n].strip()]
        text = old_lines[number].strip()
        places = taken.get(text)
        place = places.pop(0) if places else reflowed.find(text)
        if places is not None and place is not None and text == new_lines[place].strip():
            reflowed.take(place)
        if place is None:
            if any(line.strip() in new_code for line in own[:1]):
                lost += 1
                quality.details.append(f"lost: {text}")
            continue
        follower = next_code_line(new_lines, place, new_set)
        after = next_code_line(old_lines, end - 1, old_set)  # the original statement after it
        new_head = new_heads.get(follower, "")
        paragraph = paragraph_of(old_lines, statement, old_heads, old_set)
        gone = own[0].strip() not in new_code
        if follower is None:
            kept = False
        else:
            update = any(call in new_lines[follower] for call in ("tape.gradient(", ".apply_gradients("))
            heads = [follower]
            if new_lines[follower].strip().startswith("@"):  # a decorated definition: its ``def``
                after = range(follower, len(new_lines))
                heads += [n for n in after if re.match(r"\s*(def|class) ", new_lines[n])][:1]
            kept = (
                any(similar(new_lines[follower], line) for line in own)
                # a statement wrapped over other lines than its author's: read as one line
                or similar(new_heads.get(follower, new_lines[follower]), old_heads.get(statement, own[0]))
                or any(made_for(new_lines[n], line) for n in heads for line in own)
                or rewritten_in_place(old_lines, new_lines, opcodes, statement, follower, starts)
                # a run of the session made a call of the function written for it, the run
                # right after it (if any) not: that one would be what follows the comment
                or (
                    run_made_call(old_heads.get(statement, own[0]), new_head, written_functions)
                    and not run_made_call(old_heads.get(after, ""), new_head, written_functions)
                )
                # a statement gone, replaced by the objects made where it stood
                or (gone and objects_made_for(new_lines, new_heads, follower, paragraph))
                # The rules: a comment on a minimize goes with the update replacing it.
                or (update and any(".minimize(" in line for line in own))
            )
        if not kept:
            orphaned += 1
            quality.details.append(f"orphaned: {text}")
    quality.counts["orphaned"], quality.counts["lost"] = orphaned, lost


def introduced_names(original: str, migrated: str) -> set[str]:
    def bound(tree: ast.AST) -> set[str]:
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
        return names

    return bound(ast.parse(migrated)) - bound(ast.parse(original))


def is_tf_function(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, ast.Attribute) and target.attr == "function"


def numpy_in_loops(tree: ast.AST) -> int:
    count = 0
    for loop in ast.walk(tree):
        if isinstance(loop, (ast.For, ast.While)):
            for node in ast.walk(loop):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "numpy"
                    and not node.args
                ):
                    count += 1
    return count  # a loop inside a loop counts its calls once per enclosing loop


def numpy_every_step(tree: ast.AST) -> int:
    """``.numpy()`` calls a loop makes at every pass: in its body, not under an ``if``/``try``
    of that body (a value printed every 100 steps is converted only then)."""
    count = 0

    def visit(node: ast.AST) -> None:
        nonlocal count
        if isinstance(node, (ast.If, ast.Try, ast.FunctionDef, ast.Lambda)):
            return
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "numpy"
            and not node.args
        ):
            count += 1
        for child in ast.iter_child_nodes(node):
            visit(child)

    for loop in ast.walk(tree):
        if isinstance(loop, (ast.For, ast.While)):
            for statement in loop.body:
                visit(statement)
    return count


def _numpy_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "numpy"
        and not node.args
    )


def _every_pass(body: list[ast.stmt]):
    """The statements of a loop's body run at every pass: not under an ``if``/``try`` of it, not
    in a function defined there (those of a loop inside it are, as far as the outer one goes)."""
    for statement in body:
        if isinstance(statement, (ast.If, ast.Try, ast.FunctionDef, ast.ClassDef)):
            continue
        yield statement
        if isinstance(statement, (ast.With, ast.For, ast.While)):
            yield from _every_pass(statement.body)


def numpy_unread_each_step(tree: ast.AST) -> list[str]:
    """Names a loop binds to ``.numpy()`` values at every pass (``value = step(x).numpy()``,
    ``a, b = [t.numpy() for t in step(x)]``) that no statement run at every pass reads: the
    program reads them only at some steps (under an ``if``) or after the loop, so converting
    them at every step is a numpy round trip it did not need."""
    found = []
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        every = list(_every_pass(loop.body))
        read = {
            node.id
            for part in [*every, *([loop.test] if isinstance(loop, ast.While) else [])]
            for node in ast.walk(part)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        }
        for statement in every:
            if not isinstance(statement, ast.Assign):
                continue
            if not any(_numpy_call(node) for node in ast.walk(statement.value)):
                continue
            bound = [
                node.id
                for target in statement.targets
                for node in ast.walk(target)
                if isinstance(node, ast.Name) and node.id != "_"
            ]
            found += [name for name in bound if name not in read]
    return found


def blank_runs(source: str) -> list[int]:
    """How many blank lines (whitespace only counts as blank) each run of them holds."""
    return [run.count("\n") for run in re.findall(r"(?:\n[ \t]*)+(?=\n)", "\n" + source)]


def trailing_comments(source: str) -> dict[int, tokenize.TokenInfo]:
    """Line number (0-based) -> the comment ending it after code."""
    found = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and token.line[: token.start[1]].strip():
                found[token.start[0] - 1] = token
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def written_widths(original: str, migrated: str, limit: int) -> list[tuple[int, str]]:
    """``(width, line)`` of each line the migration wrote; a trailing comment the original has
    is its author's, not counted in the width. A line the original already had wider than
    ``limit`` (the file's style) is its author's too, wherever the migration moved it (into a
    function, out of a session block): not a written line."""
    old_set = {line.rstrip() for line in original.splitlines()}
    authors_wide = {line.strip() for line in original.splitlines() if len(line) > limit}
    authors = {token.string for token in trailing_comments(original).values()}
    ending = trailing_comments(migrated)
    found = []
    for number, line in enumerate(migrated.splitlines()):
        if line.rstrip() in old_set or line.strip() in authors_wide:
            continue
        comment = ending.get(number)
        if comment is not None and comment.string in authors:
            found.append((len(line[: comment.start[1]].rstrip()), line))
        else:
            found.append((len(line), line))
    return found


def visual_misalignments(source: str) -> list[str]:
    """Lines inside a bracket followed by code on its own line (visual indent) that do not
    start right after it (a closing bracket may stand anywhere)."""
    lines = source.splitlines()
    found: list[str] = []
    brackets: list[tuple[int, bool]] = []  # (column, visual)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)]
    except (tokenize.TokenError, SyntaxError):
        return found
    after_break = False
    for index, token in enumerate(tokens):
        if token.type == tokenize.NL:
            after_break = bool(brackets)
            continue
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            continue
        closing = token.type == tokenize.OP and token.string in (")", "]", "}")
        if after_break and brackets and not closing:
            column, visual = brackets[-1]
            if visual and token.start[1] != column + 1:
                found.append(lines[token.start[0] - 1])
        after_break = False
        if token.type == tokenize.OP and token.string in ("(", "[", "{"):
            following = tokens[index + 1]
            visual = following.start[0] == token.start[0] and following.type not in (tokenize.NL, tokenize.COMMENT)
            brackets.append((token.start[1], visual))
        elif closing and brackets:
            brackets.pop()
    return found


def misaligned(original: str, migrated: str) -> list[str]:
    """``visual_misalignments`` of ``migrated`` that ``original`` does not have (by text)."""
    theirs: dict[str, int] = {}
    for line in visual_misalignments(original):
        theirs[line.strip()] = theirs.get(line.strip(), 0) + 1
    found = []
    for line in visual_misalignments(migrated):
        if theirs.get(line.strip(), 0):
            theirs[line.strip()] -= 1
        else:
            found.append(line)
    return found


def measure(name: str, original: str, migrated: str) -> Quality:
    quality = Quality(name)
    limit = style_width(original)
    written = written_widths(original, migrated, limit)
    widest = max((size for size, _ in written), default=0)
    quality.width = f"{widest}/{limit}"
    quality.counts["wide"] = sum(size > limit for size, _ in written)
    quality.details += [f"wide ({size}): {line.strip()}" for size, line in written if size > limit]
    off = misaligned(original, migrated)
    quality.counts["misaligned"] = len(off)
    quality.details += [f"misaligned: {line.strip()}" for line in off]
    comments(original, migrated, quality)
    odd = sorted(n for n in introduced_names(original, migrated) if "_and_" in n or re.search(r"_\d+$", n))
    quality.counts["names"] = len(odd)
    quality.details += [f"name: {n}" for n in odd]
    allowed = max(blank_runs(original), default=0)
    quality.counts["blank"] = sum(run > max(allowed, 2) for run in blank_runs(migrated))
    quality.counts["layout"] = sum(bool(re.search(r",[ \t]*=[^=]", line)) for _, line in written)
    tree = ast.parse(migrated)
    quality.counts["tf.function"] = sum(
        is_tf_function(d) for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) for d in node.decorator_list
    )
    quality.counts["numpy-in-loop"] = numpy_in_loops(tree)
    quality.counts["every-step"] = numpy_every_step(tree)
    unread = numpy_unread_each_step(tree)
    quality.counts["unread-step"] = len(unread)
    quality.details += [f"converted at every step, read at some: {name}" for name in unread]
    return quality


def fixture_pairs(folder: Path):
    for case in sorted(p for p in folder.iterdir() if p.is_dir() and p.name[0] not in "_."):
        if (case / "before.py").is_file() and (case / "after.py").is_file():
            yield case.name, (case / "before.py").read_text(), (case / "after.py").read_text()
        elif (case / "before").is_dir() and (case / "after").is_dir():
            for before in sorted((case / "before").rglob("*.py")):
                after = case / "after" / before.relative_to(case / "before")
                if after.is_file():
                    yield f"{case.name}/{before.name}", before.read_text(), after.read_text()


def folder_pairs(original: Path, migrated: Path):
    for before in sorted(original.rglob("*.py")):
        after = migrated / before.relative_to(original)
        if after.is_file():
            yield str(before.relative_to(original)), before.read_text(), after.read_text()


def migrated_now(folder: Path):
    sys.path.insert(0, str(ROOT))
    from tfmodernize.registry import select_codemods
    from tfmodernize.engine import transform_text

    for program in sorted(folder.glob("*.py")):
        source = program.read_text()
        new, _ = transform_text(source, select_codemods())
        if new != source:
            yield program.name, source, new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fixtures", nargs="?", type=Path, help="a folder of <case>/before.py, after.py")
    parser.add_argument("--original", type=Path)
    parser.add_argument("--migrated", type=Path)
    parser.add_argument("--migrate", type=Path, help="migrate the folder's .py files now")
    parser.add_argument("--details", action="store_true", help="name each finding")
    args = parser.parse_args()
    if args.migrate:
        pairs = migrated_now(args.migrate)
    elif args.original and args.migrated:
        pairs = folder_pairs(args.original, args.migrated)
    elif args.fixtures:
        pairs = fixture_pairs(args.fixtures)
    else:
        parser.error("give a fixture folder, --original and --migrated, or --migrate")
    results = []
    for name, original, migrated in pairs:
        try:
            results.append(measure(name, original, migrated))
        except SyntaxError as error:
            print(f"{name}: cannot parse ({error})", file=sys.stderr)
    width = max([len(q.name) for q in results] + [8])
    print(f"{'program':<{width}}  " + "  ".join(f"{c:>7}" for c in COLUMNS))
    for quality in results:
        cells = [quality.width] + [quality.counts[c] for c in COLUMNS[1:]]
        print(f"{quality.name:<{width}}  " + "  ".join(f"{c:>7}" for c in cells))
        if args.details:
            for line in quality.details:
                print(f"    {line}")
    totals = [sum(q.counts[c] for q in results) for c in COLUMNS[1:]]
    print(f"{'total':<{width}}  {'':>7}  " + "  ".join(f"{t:>7}" for t in totals))
    over = sum(1 for q in results if q.counts["wide"])
    print(f"{len(results)} pairs; {over} with lines wider than their file's style")


if __name__ == "__main__":
    main()
