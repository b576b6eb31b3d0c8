"""Engine and sources: bad input of every kind, faithful round trips, atomic writes, order."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tfmodernize.registry import builtin_codemods, find_codemod
from tfmodernize.engine import process, run, transform_text
from tfmodernize.settings import Settings
from tfmodernize.sources import Discovered, discover, write_atomic

OLD = "import tensorflow as tf\ntf.config.experimental_run_functions_eagerly(True)\n"
NEW = "import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n"
ONE_JOB = Settings(jobs=1)


def outcome_for(path: Path, settings: Settings = ONE_JOB):
    return process(Discovered(path), settings)


def test_rewrites_a_tf_file(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(OLD)
    outcome = outcome_for(path)
    assert outcome.changed and outcome.new == NEW and outcome.error is None
    assert [f.code for f in outcome.fixes] == ["TFM207"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(
            b"import tensorflow as tf\nx = (\n", "2:5: not Python 3 syntax: '(' was never closed", id="syntax-error"
        ),
        pytest.param(b"import tensorflow as tf\nprint 'hello'\n", "not Python 3 syntax", id="python2-print"),
        pytest.param(
            b"import tensorflow as tf\ntry:\n    pass\nexcept ValueError, e:\n    pass\n",
            "run 2to3 first",
            id="python2-except",
        ),
        pytest.param(
            b"import tensorflow as tf\nx = '\xff\xfe'\n", "cannot be decoded as utf-8 (line 2", id="undecodable"
        ),
        pytest.param(
            b"# -*- coding: klingon -*-\nimport tensorflow\n", "bad encoding declaration", id="unknown-cookie"
        ),
        pytest.param(b"\x7fELF\x02\x01\x01\x00\x00\x00import tensorflow", "binary file", id="binary"),
    ],
)
def test_bad_input_is_reported_and_untouched(tmp_path, content, message):
    path = tmp_path / "bad.py"
    path.write_bytes(content)
    outcome = outcome_for(path)
    assert outcome.error is not None and message in outcome.error
    assert not outcome.changed
    assert path.read_bytes() == content


def test_python2_message_names_line_and_column(tmp_path):
    path = tmp_path / "old.py"
    path.write_text("import tensorflow as tf\nprint 'hello'\n")
    assert outcome_for(path).error.startswith("2:1: not Python 3 syntax")


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "secret.py"
    path.write_text(OLD)
    real = Path.read_bytes

    def deny(self):
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", deny)
    assert outcome_for(path).error == "cannot be read: permission denied"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file_by_mode(tmp_path):
    path = tmp_path / "secret.py"
    path.write_text(OLD)
    path.chmod(0)
    assert "permission denied" in outcome_for(path).error


@pytest.mark.parametrize("content", ["", "\n\n", "   \n"])
def test_empty_files_are_skipped(tmp_path, content):
    path = tmp_path / "empty.py"
    path.write_text(content)
    outcome = outcome_for(path)
    assert outcome.error is None and not outcome.changed and outcome.skipped == "empty file"


def test_run_goes_on_after_a_bad_file(tmp_path):
    (tmp_path / "a_bad.py").write_text("import tensorflow as tf\nx = (\n")
    (tmp_path / "b_good.py").write_text(OLD)
    outcomes = list(run(discover([tmp_path]), ONE_JOB))
    assert [o.path.name for o in outcomes] == ["a_bad.py", "b_good.py"]
    assert outcomes[0].error and outcomes[1].changed


def test_empty_folder(tmp_path):
    assert list(run(discover([tmp_path]), ONE_JOB)) == []


def test_missing_input_raises():
    with pytest.raises(FileNotFoundError):
        list(discover([Path("/nonexistent/nowhere")]))


@pytest.mark.parametrize(
    ("encoding", "header"),
    [
        ("latin-1", "# -*- coding: latin-1 -*-\n"),
        ("cp1252", "# vim: set fileencoding=cp1252 :\n"),
        ("utf-8", ""),
    ],
)
def test_encoding_is_preserved(tmp_path, encoding, header):
    text = header + "import tensorflow as tf\n# Größe: é\ntf.config.experimental_run_functions_eagerly(True)\n"
    path = tmp_path / "enc.py"
    path.write_bytes(text.encode(encoding))
    outcome = outcome_for(path)
    assert outcome.changed
    assert outcome.new_bytes == text.replace("experimental_run", "run").encode(encoding)


def test_bom_is_preserved(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + OLD.encode())
    outcome = outcome_for(path)
    assert outcome.new_bytes == b"\xef\xbb\xbf" + NEW.encode()


def test_crlf_is_preserved(tmp_path):
    path = tmp_path / "crlf.py"
    path.write_bytes(OLD.replace("\n", "\r\n").encode())
    outcome = outcome_for(path)
    assert outcome.new_bytes == NEW.replace("\n", "\r\n").encode()


def test_missing_trailing_newline_is_preserved(tmp_path):
    path = tmp_path / "nonl.py"
    path.write_bytes(OLD.rstrip("\n").encode())
    assert outcome_for(path).new_bytes == NEW.rstrip("\n").encode()


def test_atomic_write_keeps_mode_and_content(tmp_path):
    path = tmp_path / "tool.py"
    path.write_text(OLD)
    path.chmod(0o751)
    write_atomic(path, NEW.encode(), OLD.encode())
    assert path.read_text() == NEW
    assert path.stat().st_mode & 0o777 == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["tool.py"]


def test_atomic_write_refuses_a_file_changed_meanwhile(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("edited by someone else\n")
    with pytest.raises(Exception, match="changed on disk"):
        write_atomic(path, NEW.encode(), OLD.encode())
    assert path.read_text() == "edited by someone else\n"


def test_killed_run_leaves_no_half_written_file(tmp_path):
    """SIGKILL an `apply` mid-run: every file is entirely old or entirely new."""
    tree = tmp_path / "tree"
    tree.mkdir()
    padding = "".join(f"value_{i} = {i} * 2  # padding line to make the file long\n" for i in range(3000))
    old = OLD + padding
    new = NEW + padding
    for i in range(120):
        (tree / f"m{i:03}.py").write_text(old)
    process_ = subprocess.Popen(
        [sys.executable, "-m", "tfmodernize", "apply", str(tree), "--jobs", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(p.read_text() == new for p in tree.glob("m*.py") if p.stat().st_size):
            break
        time.sleep(0.02)
    process_.send_signal(signal.SIGKILL)
    process_.wait()
    contents = [p.read_text() for p in sorted(tree.glob("m*.py"))]
    assert len(contents) == 120
    assert all(c in (old, new) for c in contents)
    assert any(c == new for c in contents), "the run was killed before it wrote anything"
    assert any(c == old for c in contents), "the run finished before it was killed"


def test_discovery_skips_what_it_should(tmp_path):
    for rel in [
        "pkg/a.py",
        "pkg/sub/b.py",
        ".git/hooks/x.py",
        ".hidden/c.py",
        "venv/lib/d.py",
        "myenv/pyvenv.cfg",
        "myenv/lib/e.py",
        "lib/site-packages/f.py",
        "build/g.py",
        "dist/h.py",
        "pkg/generated/i.py",
        "pkg/notes.txt",
    ]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    found = [d.path.relative_to(tmp_path).as_posix() for d in discover([tmp_path], exclude=["pkg/generated"])]
    assert found == ["pkg/a.py", "pkg/sub/b.py"]


def test_explicit_file_is_always_taken(tmp_path):
    path = tmp_path / "build" / "script.py"
    path.parent.mkdir()
    path.write_text("x = 1\n")
    assert [d.path for d in discover([path])] == [path]


def test_symlink_out_of_tree_is_reported(tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text(OLD)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link.py").symlink_to(outside)
    (tree / "inner.py").write_text(OLD)
    (tree / "inner_link.py").symlink_to(tree / "inner.py")
    found = {d.path.name: d.problem for d in discover([tree])}
    assert found["inner.py"] is None and found["inner_link.py"] is None
    assert "outside" in found["link.py"]
    assert process(Discovered(tree / "link.py", found["link.py"]), ONE_JOB).error


def test_parallel_run_keeps_input_order(tmp_path):
    for i in range(40):
        (tmp_path / f"f{i:02}.py").write_text(OLD if i % 3 else "x = 1\n")
    files = list(discover([tmp_path]))
    serial = [(o.path, o.new) for o in run(files, Settings(jobs=1))]
    parallel = [(o.path, o.new) for o in run(files, Settings(jobs=2))]
    assert serial == parallel
    assert [p for p, _ in parallel] == sorted(p for p, _ in parallel)


def test_files_without_tensorflow_come_out_identical(tmp_path):
    text = "import numpy as np  \r\nx = np.zeros(3)\t\n\n\n"
    path = tmp_path / "plain.py"
    path.write_bytes(text.encode())
    outcome = outcome_for(path)
    assert outcome.skipped == "no TensorFlow import" and not outcome.changed


def test_whole_catalogue_is_idempotent_on_its_own_output():
    source = OLD + "y = tf.constant(1.0)\n"
    once, _ = transform_text(source, builtin_codemods())
    twice, state = transform_text(once, builtin_codemods())
    assert twice == once and state.fixes == []


def test_a_crashing_codemod_leaves_the_file_untouched(tmp_path, monkeypatch):
    codemod = find_codemod("TFM207")

    def explode(self, original):
        raise RuntimeError("boom")

    monkeypatch.setattr(codemod, "leave_Attribute", explode)
    path = tmp_path / "a.py"
    path.write_text(OLD)
    outcome = outcome_for(path, Settings(jobs=1, select=("TFM207",)))
    assert "internal error" in outcome.error and "boom" in outcome.error
    assert "test_engine.py:" in outcome.error and "in explode" in outcome.error  # where, for the report
    assert path.read_text() == OLD


# -- obligations: a rewrite that needs a later codemod is all-or-nothing -----------------------

import libcst as cst  # noqa: E402

from tfmodernize.codemod import TFCodemod  # noqa: E402


class MovesWork(TFCodemod):
    """What it does\n    x\nWhy it matters\n    x\nBefore\n    x\nAfter\n    x"""

    code, name, summary = "TFM191", "moves-work", "renames tf.old_op to tf.half_done"
    interests = (cst.Attribute,)

    @classmethod
    def detect(cls, node, names):
        return names.is_tf(node, "old_op")

    def leave_Attribute(self, original):
        if self.tf.is_tf(original, "old_op") and self.fix(original, "half of a migration"):
            self.oblige("TFM192", "tf.half_done is only valid once finished")
            self.replace(original.attr, cst.Name("half_done"))


class FinishesWork(TFCodemod):
    """What it does\n    x\nWhy it matters\n    x\nBefore\n    x\nAfter\n    x"""

    code, name, summary = "TFM192", "finishes-work", "finishes tf.half_done unless told not to"
    interests = (cst.Attribute,)

    @classmethod
    def detect(cls, node, names):
        return names.is_tf(node, "half_done")

    def leave_Call(self, original):
        if not self.tf.is_tf(original.func, "half_done"):
            return
        if original.args:
            self.report(original, "cannot finish a call with arguments")
            return
        self.fix(original, "finished")
        self.discharge()
        self.replace(original.func.attr, cst.Name("new_op"))


def test_obligation_fulfilled_keeps_both_rewrites():
    new, state = transform_text("import tensorflow as tf\ntf.old_op()\n", [MovesWork, FinishesWork])
    assert new == "import tensorflow as tf\ntf.new_op()\n"
    assert [f.code for f in state.fixes] == ["TFM191", "TFM192"] and state.findings == []


def test_obligation_unfulfilled_drops_the_obliging_codemod_and_says_why():
    source = "import tensorflow as tf\ntf.old_op(1)\n"
    new, state = transform_text(source, [MovesWork, FinishesWork])
    assert new == source and state.fixes == []
    assert [f.code for f in state.findings] == ["TFM191"]
    message = state.findings[0].message
    assert "needs TFM192" in message and "cannot finish a call with arguments" in message


def test_obligation_on_an_unselected_codemod():
    source = "import tensorflow as tf\ntf.old_op()\n"
    new, state = transform_text(source, [MovesWork])
    assert new == source
    assert "TFM192 is not selected" in state.findings[0].message


def test_discovery_respects_gitignore(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("generated/\n*_pb2.py\n")
    for rel in ["src/model.py", "src/model_pb2.py", "generated/ops.py", "src/keep.py"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    found = [d.path.relative_to(tmp_path).as_posix() for d in discover([tmp_path])]
    assert found == ["src/keep.py", "src/model.py"]
    explicit = tmp_path / "src" / "model_pb2.py"
    assert [d.path for d in discover([explicit])] == [explicit]


def test_discovery_outside_git_still_reads_gitignore_files(tmp_path):
    (tmp_path / ".gitignore").write_text("generated/\n*_pb2.py\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".gitignore").write_text("scratch.py\n!keep_pb2.py\n")
    for name in ("a.py", "model_pb2.py", "generated/b.py", "pkg/c.py", "pkg/scratch.py", "pkg/keep_pb2.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    found = sorted(d.path.relative_to(tmp_path).as_posix() for d in discover([tmp_path]))
    assert found == ["a.py", "pkg/c.py", "pkg/keep_pb2.py"]  # the deepest .gitignore decides, `!` re-includes


def test_exclude_globs_follow_gitignore_rules(tmp_path):
    for name in ("gen/a.py", "gen/sub/b.py", "deep/x/gen_c.py", "top.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    found = sorted(d.path.relative_to(tmp_path).as_posix() for d in discover([tmp_path], ["gen/*.py", "gen_*.py"]))
    assert found == ["gen/sub/b.py", "top.py"]  # `*` does not cross `/`; a name-only glob matches at any depth


MATCH_PROGRAM = """\
import tensorflow as tf

mode = "train"
match mode:
    case "train":
        rate = tf.log(2.0)
    case _:
        rate = None


def pick(kind, x):
    match kind:
        case {"op": "log"}:
            return tf.log(x)
        case [first, *_]:
            return tf.to_float(first)
    return x
"""


def test_match_statements_are_walked(tmp_path):
    path = tmp_path / "matching.py"
    path.write_text(MATCH_PROGRAM)
    outcome = outcome_for(path)
    assert outcome.error is None
    assert "tf.math.log(2.0)" in outcome.new and "tf.math.log(x)" in outcome.new
    assert "tf.cast(first, tf.float32)" in outcome.new


# -- crashes and hangs found by fuzzing and by hand (issue 17): each stays in its file ---------


def test_symlink_loop_is_reported_and_the_run_goes_on(tmp_path):
    (tmp_path / "loop_a.py").symlink_to(tmp_path / "loop_b.py")
    (tmp_path / "loop_b.py").symlink_to(tmp_path / "loop_a.py")
    (tmp_path / "real.py").write_text(OLD)
    found = {d.path.name: d.problem for d in discover([tmp_path])}
    assert found["real.py"] is None
    assert "resolves to no file" in found["loop_a.py"] and "resolves to no file" in found["loop_b.py"]
    outcomes = {o.path.name: o for o in run(discover([tmp_path]), ONE_JOB)}
    assert outcomes["real.py"].changed and outcomes["loop_a.py"].error


def test_file_name_that_is_not_utf8_is_processed(tmp_path):
    name = os.fsdecode(b"caf\xe9_model.py")  # Latin-1 bytes: a surrogate escape in the str
    (tmp_path / name).write_text(OLD)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    found = list(discover([tmp_path]))
    assert [d.path.name for d in found] == [name] and found[0].problem is None
    assert outcome_for(found[0].path).changed


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_named_like_a_module_is_skipped_not_read(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "real.py").write_text(OLD)
    found = {d.path.name: d for d in discover([tmp_path])}
    assert "FIFO" in found["pipe.py"].problem
    assert "FIFO" in process(found["pipe.py"], ONE_JOB).error  # would block forever if read
    named = list(discover([tmp_path / "pipe.py"]))
    assert "FIFO" in named[0].problem


def test_deeply_nested_elif_chain_is_rewritten(tmp_path):
    lines = ["import tensorflow as tf", "x = 3", "if x == 0:", "    y = tf.log(1.0)"]
    for branch in range(1, 700):
        lines += [f"elif x == {branch}:", f"    y = tf.log({branch}.0)"]
    path = tmp_path / "deep.py"
    path.write_text("\n".join(lines) + "\n")
    outcome = outcome_for(path)
    assert outcome.error is None and outcome.new.count("tf.math.log(") == 700


def test_internal_error_never_escapes_its_file(tmp_path, monkeypatch):
    import tfmodernize.engine as engine

    def explode(discovered, settings):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(engine, "process", explode)
    (tmp_path / "a.py").write_text(OLD)
    (tmp_path / "b.py").write_text(OLD)
    outcomes = list(run(discover([tmp_path]), ONE_JOB))
    assert [o.path.name for o in outcomes] == ["a.py", "b.py"]
    assert all("internal error" in o.error for o in outcomes)


def test_carriage_return_only_newlines_keep_the_last_one(tmp_path):
    path = tmp_path / "mac.py"
    path.write_bytes(b"import tensorflow as tf\rx = tf.log(2.0)\r")
    outcome = outcome_for(path)
    assert outcome.new_bytes == b"import tensorflow as tf\rx = tf.math.log(2.0)\r"


def test_backticks_in_a_docstring_are_no_python2_hint(tmp_path):
    path = tmp_path / "doc.py"
    path.write_text('import tensorflow as tf\n\n\ndef f():\n    """Returns `x`."""\n    return (\n')
    error = outcome_for(path).error
    assert "not Python 3 syntax" in error and "2to3" not in error


def test_killed_parallel_run_leaves_no_worker_behind(tmp_path):
    """SIGKILL of `apply --jobs 2`: its pool workers end with it (no orphans)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    padding = "".join(f"value_{i} = {i} * 2\n" for i in range(3000))
    for i in range(60):
        (tree / f"m{i:03}.py").write_text(OLD + padding)
    run_ = subprocess.Popen(
        [sys.executable, "-m", "tfmodernize", "apply", "--no-cache", str(tree), "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(p.read_text().startswith(NEW) for p in tree.glob("m*.py")):
        time.sleep(0.02)
    run_.send_signal(signal.SIGKILL)
    run_.wait()
    deadline = time.monotonic() + 10
    alive = True
    while alive and time.monotonic() < deadline:
        try:
            os.killpg(run_.pid, 0)  # anyone left in the run's process group?
            time.sleep(0.1)
        except ProcessLookupError:
            alive = False
    assert not alive, "pool workers outlived the killed run"


def test_apply_removes_temporaries_a_killed_run_left(tmp_path):
    from tfmodernize.sources import remove_stale_temporaries

    source = tmp_path / "m.py"
    source.write_text(OLD)
    stale = tmp_path / ".m.py.abc123.tfm-tmp"
    stale.write_text("half")
    fresh = tmp_path / ".m.py.def456.tfm-tmp"
    fresh.write_text("being written")
    foreign = tmp_path / ".other.py.abc123.tfm-tmp"
    foreign.write_text("not beside a source of this run")
    old_time = time.time() - 60
    os.utime(stale, (old_time, old_time))
    os.utime(foreign, (old_time, old_time))
    assert remove_stale_temporaries([source]) == [stale]
    assert not stale.exists() and fresh.exists() and foreign.exists()


def test_valid_python_libcst_cannot_parse_is_not_called_python2(tmp_path, monkeypatch):
    import libcst

    import tfmodernize.engine as engine

    def refuse(text):
        raise libcst.ParserSyntaxError("unexpected token", lines=text.splitlines(True), raw_line=2, raw_column=4)

    monkeypatch.setattr(engine.cst, "parse_module", refuse)
    path = tmp_path / "new_syntax.py"
    path.write_text(OLD)
    error = outcome_for(path).error
    assert error.startswith("2:5: valid Python that LibCST cannot parse") and "not Python 3" not in error


# -- detection after a rewrite ---------------------------------------------------------------


class SwitchesToV1(TFCodemod):
    """What it does\n    x\nWhy it matters\n    x\nBefore\n    x\nAfter\n    x"""

    code, name, summary = "TFM193", "switches-to-v1", "imports tensorflow.compat.v1 as tf"
    interests = (cst.Import,)

    @classmethod
    def detect(cls, node, names):
        return True

    def leave_Import(self, original):
        if self.fix(original, "now compat.v1"):
            self.replace(original, cst.parse_statement("import tensorflow.compat.v1 as tf").body[0])


class SeesV1Names(TFCodemod):
    """What it does\n    x\nWhy it matters\n    x\nBefore\n    x\nAfter\n    x"""

    code, name, summary = "TFM194", "sees-v1-names", "reports tf.old_op reached through compat.v1"
    interests = (cst.Attribute,)

    @classmethod
    def detect(cls, node, names):
        symbol = names.tf_symbol(node)
        return symbol is not None and symbol.v1 and symbol.path == "old_op"

    def leave_Attribute(self, original):
        if self.tf.is_tf(original, "old_op") and self.tf.tf_symbol(original).v1:
            self.report(original, "seen through compat.v1")


def test_detection_after_an_import_change_asks_about_unchanged_nodes_again():
    # ``tf.old_op`` is the same node before and after the import changed, but it now means
    # compat.v1's: the later codemod must be asked about it again.
    new, state = transform_text("import tensorflow as tf\ntf.old_op()\n", [SwitchesToV1, SeesV1Names])
    assert new.startswith("import tensorflow.compat.v1 as tf\n")
    assert [(f.code, f.message) for f in state.findings] == [("TFM194", "seen through compat.v1")]


def test_required_text_must_all_be_present():
    from tfmodernize.codemods.tf2.predict_in_tape import PredictInTape

    assert not PredictInTape.applies_to_text("y = model.predict(x)\n")
    assert PredictInTape.applies_to_text("with tf.GradientTape() as tape:\n    y = model.predict(x)\n")


def test_cycle_collector_is_paused_while_rewriting_and_restored_after():
    import gc

    seen = []

    class Recording(find_codemod("TFM109")):
        def plan(self, module):
            seen.append(gc.isenabled())
            super().plan(module)

    assert gc.isenabled()
    new, _ = transform_text("import tensorflow as tf\nx = tf.random_normal([2])\n", [Recording])
    assert "tf.random.normal" in new and seen == [False]
    assert gc.isenabled()
    with pytest.raises(SyntaxError):
        transform_text("import tensorflow as tf\nx = (\n", [Recording])
    assert gc.isenabled()
    gc.disable()  # a caller that paused it itself finds it paused still
    try:
        transform_text("import tensorflow as tf\nx = tf.random_normal([2])\n", [Recording])
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_detection_asks_about_names_naming_no_tf_symbol_only_the_codemods_that_want_them():
    import libcst as cst

    asked: dict[str, list[str]] = {"tf-only": [], "any": []}

    def codemod(label: str, tf_only: bool):
        class Probe(find_codemod("TFM109")):
            detects_tf_names_only = tf_only
            interests = (cst.Attribute,)

            @classmethod
            def detect(cls, node, names):
                asked[label].append(cst.Module(body=[]).code_for_node(node))
                return False

        return Probe

    transform_text(
        "import tensorflow as tf\nvalue = tf.nn.relu\nother = value.attr\n",
        [codemod("tf-only", True), codemod("any", False)],
    )
    assert asked["tf-only"] == ["tf.nn.relu", "tf.nn"]
    assert asked["any"] == ["tf.nn.relu", "tf.nn", "value.attr"]


ESTIMATOR_ON_V1 = """\
import tensorflow as tf

threads = tf.train.start_queue_runners()
config = tf.estimator.RunConfig()
"""


@pytest.mark.parametrize(
    ("status", "constructs", "expected"),
    [
        ("kept-on-compat-v1", ["tf.contrib.layers.flatten"], True),
        # tf.estimator is gone since TF 2.16, compat.v1 included
        ("kept-on-compat-v1", ["tf.Session", "tf.estimator.RunConfig"], True),
        ("kept-on-compat-v1", ["tf.Session", "tf.placeholder"], False),
        # a name merely starting so is not in the namespace
        ("kept-on-compat-v1", ["tf.estimators_table"], False),
        ("migrated", ["tf.estimator.RunConfig"], False),
    ],
)
def test_cannot_run_counts_the_namespaces_gone_from_tf2(status, constructs, expected):
    from tfmodernize.engine import cannot_run

    assert cannot_run(status, constructs) is expected


def test_a_file_kept_on_v1_with_an_estimator_name_cannot_run(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(ESTIMATOR_ON_V1)
    outcome = process(Discovered(path), Settings(jobs=1))
    assert outcome.status == "kept-on-compat-v1"
    assert ("tf.estimator.RunConfig", 4) in outcome.kept_on_v1
    assert outcome.cannot_run
    plain = tmp_path / "plain.py"
    plain.write_text("import tensorflow as tf\n\nthreads = tf.train.start_queue_runners()\n")
    assert not process(Discovered(plain), Settings(jobs=1)).cannot_run
