"""Tests of the verification harness itself (tfmodernize/verify).

The comparison rule is tested on plain values; the harness on the small programs of
``tests/verify_cases/<case>/`` (before.py, after.py, case.toml), all run in one batch by one
``Harness`` (two TensorFlow children) shared by the whole module.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from tfmodernize.verify.command import missing_requirements, verify_command
from tfmodernize.verify.compare import Status, compare_values, difference
from tfmodernize.verify.fixtures import FixtureCase

CASES_DIR = Path(__file__).resolve().parent / "verify_cases"
ROOT = CASES_DIR.parent.parent

needs_tensorflow = pytest.mark.skipif(bool(missing_requirements()), reason="needs the verify extra")


# -- the comparison rule -----------------------------------------------------------------------

EQUAL = [
    ("same floats", np.float32([1.0, 2.0]), np.float32([1.0, 2.0])),
    ("within rtol", np.float32([1000.0]), np.float32([1000.005])),
    ("within atol", np.float64([0.0]), np.float64([5e-7])),
    ("int32 vs int64", np.int32([1, 2]), np.int64([1, 2])),
    ("Python int vs np.int64", 3, np.int64(3)),
    ("Python float vs float32 scalar", 0.5, np.float32(0.5)),
    ("bool vs np.bool_", True, np.bool_(True)),
    ("None vs None", None, None),
    ("nan equals nan", np.float32([np.nan]), np.float32([np.nan])),
    ("list vs tuple", [1.0, 2.0], (1.0, 2.0)),
    ("nested dict", {"w": [np.ones(2)]}, {"w": (np.ones(2),)}),
    ("0-d array vs scalar", np.array(2.0), np.float64(2.0)),
]

DIFFERENT = [
    (
        "float32 vs float64",
        np.float32([1.0]),
        np.float64([1.0]),
        "x: dtypes differ: before float32 shape (1,), after float64 shape (1,)",
    ),
    ("int vs float", 3, 3.0, "x: kinds differ (integer vs float)"),
    ("bool vs int", True, 1, "x: kinds differ (bool vs integer)"),
    ("None vs zero", None, 0, "x: before None, after Python integer shape ()"),
    (
        "shape",
        np.zeros((2, 3), np.float32),
        np.zeros((3, 2), np.float32),
        "x: shapes differ: before float32 shape (2, 3), after float32 shape (3, 2)",
    ),
    ("integers exactly", np.int64([5]), np.int64([6]), "x: values differ in 1 of 1 element(s)"),
    ("length", [1, 2], [1, 2, 3], "x: length 2 before, 3 after"),
    ("dict keys", {"a": 1}, {"b": 1}, "x: keys differ (only before: 'a'; only after: 'b')"),
    ("nested path", {"w": [1.0, 2.0]}, {"w": [1.0, 2.5]}, "x['w'][1]: values differ"),
    ("list vs array", [1.0], np.float64([1.0]), "x: before list of 1, after float64 shape (1,)"),
    ("not numbers", "a", "a", "(not numbers)"),
]


@pytest.mark.parametrize(("before", "after"), [case[1:] for case in EQUAL], ids=[case[0] for case in EQUAL])
def test_equal_values(before, after) -> None:
    assert difference("x", before, after) is None


@pytest.mark.parametrize(
    ("before", "after", "fragment"), [case[1:] for case in DIFFERENT], ids=[case[0] for case in DIFFERENT]
)
def test_different_values(before, after, fragment) -> None:
    reason = difference("x", before, after)
    assert reason is not None and fragment in reason


def test_numeric_difference_names_errors_and_first_index() -> None:
    before = np.float32([[1.0, 2.0], [3.0, 4.0]])
    after = np.float32([[1.0, 2.0], [3.5, 4.25]])
    assert difference("w", before, after) == (
        "w: values differ in 2 of 4 element(s): max abs error 0.5, max rel error 0.1666667; "
        "first mismatch at index (1, 0): before 3, after 3.5; "
        "before float32 shape (2, 2), after float32 shape (2, 2)"
    )


def test_tolerances_are_per_call() -> None:
    assert difference("x", 1.0, 1.01) is not None
    assert difference("x", 1.0, 1.01, rtol=0.05) is None
    assert difference("x", 0.0, 0.01, atol=0.1) is None


def test_compare_values_uses_names_bound_in_both_runs() -> None:
    results = compare_values({"a": 1, "only_before": 2}, {"a": 1, "only_after": 3})
    assert [(r.name, r.status) for r in results] == [("a", Status.EQUAL)]


def test_compare_values_with_explicit_names_reports_missing_and_skipped() -> None:
    results = compare_values(
        {"a": 1.0},
        {"a": 1.0},
        compare=["a", "W", "gone"],
        before_skipped={"W": "RefVariable without a concrete value"},
    )
    by_name = {r.name: r for r in results}
    assert by_name["a"].status is Status.EQUAL
    assert by_name["W"].status is Status.MISSING
    assert "before: `W` is a RefVariable without a concrete value" in by_name["W"].detail
    assert "after: `W` is not bound at module level" in by_name["W"].detail
    assert "before: `gone` is not bound" in by_name["gone"].detail


def test_row_detail_names_nested_paths_only() -> None:
    [flat] = compare_values({"w": np.float32([1.0])}, {"w": np.float32([2.0])})
    [nested] = compare_values({"p": {"w": 1}}, {"p": {"w": 2}})
    assert flat.detail.startswith("values differ in 1 of 1")
    assert nested.detail.startswith("p['w']: values differ in 1 of 1")


def test_names_that_are_values_on_one_side_only_are_shown_not_judged() -> None:
    before_skipped = {"W": "RefVariable without a concrete value", "sess": "Session"}
    after_skipped = {"sess": "Session"}
    results = compare_values(
        {"a": 1}, {"a": 1, "W": np.float32([2.0])}, before_skipped=before_skipped, after_skipped=after_skipped
    )
    assert [(r.name, r.status, r.detail) for r in results] == [
        ("a", Status.EQUAL, "Python integer shape ()"),
        ("W", Status.NOT_COMPARED, "before: RefVariable without a concrete value; after: float32 shape (1,)"),
    ]
    assert all(r.ok for r in results)
    explicit = compare_values({"a": 1}, {"a": 1, "W": np.float32([2.0])}, compare=["a"], before_skipped=before_skipped)
    assert [r.name for r in explicit] == ["a"]


def test_nothing_to_compare_fails() -> None:
    [result] = compare_values({"a": 1}, {"b": 1})
    assert not result.ok and "no module-level name" in result.detail


@pytest.mark.parametrize(
    ("before", "after", "status"),
    [
        ({"g": None}, {"g": np.float32(6.0)}, Status.DIFFERS_AS_EXPECTED),
        ({"g": np.float32(6.0)}, {"g": np.float32(6.0)}, Status.UNEXPECTEDLY_EQUAL),
        ({"g": None}, {}, Status.MISSING),
    ],
    ids=["differs", "equal-fails", "missing-fails"],
)
def test_expected_difference(before, after, status) -> None:
    results = compare_values(before, after, expected_difference=["g"], reason="gradient was None")
    assert [r.status for r in results] == [status]
    assert results[0].ok is (status is Status.DIFFERS_AS_EXPECTED)


# -- the harness on real TensorFlow -------------------------------------------------------------

CASES = {
    path.name: FixtureCase.load(path, "harness")
    for path in sorted(CASES_DIR.iterdir())
    if (path / "before.py").is_file()
}


@pytest.fixture(scope="module")
def harness():
    from tfmodernize.verify.runner import Harness

    with Harness() as shared:
        yield shared


@pytest.fixture(scope="module")
def verdicts(harness) -> dict:
    from tfmodernize.verify.verdict import verify_pairs

    names = list(CASES)
    return dict(zip(names, verify_pairs([CASES[name].pair() for name in names], harness)))


@needs_tensorflow
@pytest.mark.parametrize(
    "name",
    ["random_tf1_tf2", "compat_v1_import", "traces_expected_difference", "none_vs_value", "local_module"],
)
def test_equal_programs_pass(verdicts, name) -> None:
    verdict = verdicts[name]
    assert verdict.status == "equal", verdict.explain()
    assert verdict.exit_code == 0


@needs_tensorflow
def test_tf1_random_ops_match_tf2_under_the_deterministic_tool(verdicts) -> None:
    verdict = verdicts["random_tf1_tf2"]
    assert verdict.before.script.mode == "tf1"
    assert [r.name for r in verdict.names] == ["noise_value", "y_value", "hidden_value", "w_value", "executing_eagerly"]
    assert all(r.status is Status.EQUAL for r in verdict.names)
    # Not a trivially equal case: the random values are real draws.
    noise = verdict.before.values["noise_value"]
    assert noise.dtype == np.float32 and noise.shape == (2, 3) and np.unique(noise).size == 6


@needs_tensorflow
def test_tf1_mode_graph_objects_are_not_values(verdicts) -> None:
    skipped = verdicts["random_tf1_tf2"].before.skipped
    assert {"x", "w", "b", "y", "sess"} <= set(skipped)
    assert "without a concrete value" in skipped["w"]


@needs_tensorflow
def test_trace_counts_are_recorded(verdicts) -> None:
    verdict = verdicts["traces_expected_difference"]
    assert verdict.before.values["traces"] == 3 and verdict.after.values["traces"] == 1
    assert {r.name: r.status for r in verdict.names}["traces"] is Status.DIFFERS_AS_EXPECTED


@needs_tensorflow
def test_expected_difference_that_is_equal_fails(verdicts) -> None:
    verdict = verdicts["expected_but_equal"]
    assert verdict.status == "different" and verdict.exit_code == 1
    assert "traces: unexpectedly equal: expected to differ (claimed fewer traces)" in verdict.explain()


@needs_tensorflow
def test_numeric_error_fails_with_the_details(verdicts) -> None:
    verdict = verdicts["numeric_error"]
    assert verdict.status == "different"
    text = verdict.explain()
    assert "w_final: different: values differ in 1 of 4 element(s): max abs error 0.0009999275" in text
    assert "first mismatch at index (1, 1): before 4.5, after 4.501" in text
    assert "before float32 shape (2, 2), after float32 shape (2, 2)" in text


@needs_tensorflow
def test_dtype_change_fails(verdicts) -> None:
    verdict = verdicts["dtype_change"]
    assert verdict.status == "different"
    assert (
        "w_final: different: dtypes differ: before float32 shape (2, 2), after float64 shape (2, 2)"
        in verdict.explain()
    )


@needs_tensorflow
@pytest.mark.parametrize(
    ("name", "fragments"),
    [
        (
            "crash_exception",
            ["after.py (after, tf2 mode) could not run", 'after.py", line 6', "shapes must be equal", "about to fail"],
        ),
        ("crash_abort", ["the tf2 child died (exit code -6)", 'crash_abort/after.py", line 6']),
        ("hang", ["timed out after 3 s", 'hang/after.py", line 7']),
    ],
)
def test_failing_after_script_fails_cleanly(verdicts, name, fragments) -> None:
    verdict = verdicts[name]
    assert verdict.status == "error" and verdict.exit_code == 2
    assert verdict.before.ok and verdict.names == []
    text = verdict.explain()
    for fragment in fragments:
        assert fragment in text
    assert "Extension modules" not in text


@needs_tensorflow
def test_hang_is_stopped_near_its_timeout(verdicts) -> None:
    assert 3 <= verdicts["hang"].after.seconds < 15


@needs_tensorflow
@pytest.mark.parametrize("mode", ["tf1", "tf2"])
def test_each_script_starts_from_fresh_state(harness, mode) -> None:
    from tfmodernize.verify.runner import Script

    probe = Script(CASES_DIR / "isolation" / "probe.py", mode)
    polluter = Script(CASES_DIR / "isolation" / "polluter.py", mode)
    first, polluted, second = harness.run(probe), harness.run(polluter), harness.run(probe)
    assert polluted.ok, polluted.error
    assert first.ok, first.error
    assert first.pid == polluted.pid == second.pid
    assert first.values["functions_run_eagerly"] is False
    assert first.values["graph_ops"] == 0
    assert first.values["sees_leftover"] is False
    assert first.values["first_layer_name_is_dense"] is True
    assert first.values["floatx_is_float32"] is first.values["policy_is_float32"] is True
    assert first.values["executing_eagerly"] is (mode == "tf2")
    assert difference("state", first.values, second.values) is None


@needs_tensorflow
@pytest.mark.parametrize("mode", ["tf1", "tf2"])
def test_a_script_that_switches_process_behaviour_retires_its_child(harness, mode) -> None:
    from tfmodernize.verify.runner import Script

    probe = Script(CASES_DIR / "isolation" / "probe.py", mode)
    first = harness.run(probe)
    switcher = harness.run(Script(CASES_DIR / "isolation" / "switches_behaviour.py", mode))
    second = harness.run(probe)
    assert switcher.ok and switcher.values == {"switched": True}, switcher.error
    assert first.pid == switcher.pid != second.pid
    assert difference("state", first.values, second.values) is None


@needs_tensorflow
@pytest.mark.parametrize(("random", "same"), [("constant", True), ("num_random_ops", False)])
def test_random_mode_is_per_script(harness, random, same) -> None:
    from tfmodernize.verify.runner import Script

    script = Script(CASES_DIR / "random_modes" / "probe.py", "tf2", random)
    first, again = harness.run(script), harness.run(script)
    assert first.ok, first.error
    assert first.pid == again.pid
    assert first.values["same"] is same
    assert difference("draws", first.values, again.values) is None


@needs_tensorflow
def test_modules_beside_a_tf1_script_are_tf1_too(verdicts) -> None:
    verdict = verdicts["local_module"]
    assert verdict.status == "equal", verdict.explain()
    assert verdict.before.values["total"] == np.float32(18.0)


@needs_tensorflow
def test_modules_beside_a_script_are_forgotten_after_it(harness) -> None:
    from tfmodernize.verify.runner import Script

    first = harness.run(Script(CASES_DIR / "local_module" / "after.py"))
    second = harness.run(Script(CASES_DIR / "isolation" / "uses_constants.py"))
    assert first.ok and second.ok, (first.error, second.error)
    assert first.pid == second.pid
    assert second.values["scale"] == 5.0


@needs_tensorflow
@pytest.mark.parametrize(("mode", "tf_keras", "eager"), [("tf1", True, False), ("tf2", False, True)])
def test_modes_give_their_keras_and_execution(harness, mode, tf_keras, eager) -> None:
    from tfmodernize.verify.runner import Script

    result = harness.run(Script(CASES_DIR / "isolation" / "keras_version.py", mode))
    assert result.ok, result.error
    assert result.values == {
        "keras_is_tf_keras": tf_keras,
        "keras_is_keras_3": not tf_keras,
        "executing_eagerly": eager,
    }


@needs_tensorflow
def test_child_restarts_after_a_crash(harness) -> None:
    from tfmodernize.verify.runner import Script

    probe = Script(CASES_DIR / "isolation" / "probe.py")
    before = harness.run(probe)
    crash = harness.run(Script(CASES_DIR / "crash_abort" / "after.py"))
    after = harness.run(probe)
    assert before.ok and "died" in crash.error and crash.pid is None
    assert after.ok and after.pid != before.pid
    assert difference("state", before.values, after.values) is None


class _FakeChild:
    """Stands in for a TensorFlow child: tf2 scripts take twice as long as tf1 scripts."""

    def __init__(self, mode: str, number: int) -> None:
        self.mode, self.number = mode, number

    def run(self, script):
        from tfmodernize.verify.runner import RunResult

        time.sleep(0.01 if self.mode == "tf2" else 0.005)
        return RunResult(script, pid=self.number)


def _recording_harness(workers: int):
    from tfmodernize.verify.runner import Harness

    class RecordingHarness(Harness):
        def __init__(self) -> None:
            super().__init__(workers)
            self.started: list[str] = []

        def _acquire(self, mode: str):
            with self._lock:
                if self._idle[mode]:
                    return self._idle[mode].pop()
                self.started.append(mode)
                return _FakeChild(mode, len(self.started))

    return RecordingHarness()


def test_run_all_balances_modes_over_workers(tmp_path) -> None:
    from tfmodernize.verify.runner import Script

    scripts = [Script(tmp_path / f"s{i}.py", "tf1" if i < 6 else "tf2") for i in range(60)]
    harness = _recording_harness(workers=2)
    results = harness.run_all(scripts)
    assert [result.script for result in results] == scripts
    # Both modes start at once; once tf1 is done its worker starts a second tf2 child.
    assert sorted(harness.started[:2]) == ["tf1", "tf2"] and harness.started[2:] == ["tf2"]
    assert len({result.pid for result in results if result.script.mode == "tf2"}) == 2


def test_run_all_starts_no_extra_child_for_a_few_scripts(tmp_path) -> None:
    from tfmodernize.verify.runner import Script

    scripts = [Script(tmp_path / "a.py", "tf1")] + [Script(tmp_path / f"b{i}.py", "tf2") for i in range(3)]
    harness = _recording_harness(workers=2)
    harness.run_all(scripts)
    assert sorted(harness.started) == ["tf1", "tf2"]


def test_a_child_that_cannot_start_fails_every_script_with_the_reason(tmp_path, monkeypatch) -> None:
    import tfmodernize.verify.runner as runner

    fake = tmp_path / "fake" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no TensorFlow here')\n")
    real_environment = runner.child_environment

    def broken_environment(mode: str) -> dict[str, str]:
        env = real_environment(mode)
        env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{tmp_path / 'fake'}"
        return env

    monkeypatch.setattr(runner, "child_environment", broken_environment)
    script = runner.Script(CASES_DIR / "isolation" / "probe.py")
    with runner.Harness() as harness:
        first, second = harness.run_all([script, script])
    assert "the tf2 TensorFlow child did not start" in first.error
    assert "ImportError: no TensorFlow here" in first.error
    assert second.error == first.error


# -- the user-facing command --------------------------------------------------------------------


def _console() -> Console:
    return Console(record=True, width=200, color_system=None)


@needs_tensorflow
@pytest.mark.parametrize(
    ("case", "code", "fragments"),
    [
        ("random_tf1_tf2", 0, ["noise_value", "equal: every compared value matches"]),
        ("numeric_error", 1, ["w_final", "different", "first mismatch at index (1, 1)"]),
        ("crash_exception", 2, ["could not run", "shapes must be equal"]),
    ],
)
def test_verify_command_exit_codes_and_table(harness, case, code, fragments) -> None:
    console = _console()
    config = CASES[case]
    exit_code = verify_command(
        config.before,
        config.after,
        compare=None,
        rtol=1e-5,
        atol=1e-6,
        old_mode=config.before_mode(),
        timeout=60,
        console=console,
        harness=harness,
    )
    text = console.export_text()
    assert exit_code == code, text
    for fragment in fragments:
        assert fragment in text


@needs_tensorflow
def test_verify_command_compares_exactly_the_names_given(harness) -> None:
    console = _console()
    case = CASES["numeric_error"]
    exit_code = verify_command(
        case.before,
        case.after,
        compare=["absent"],
        rtol=1e-5,
        atol=1e-6,
        old_mode="tf2",
        timeout=60,
        console=console,
        harness=harness,
    )
    text = console.export_text()
    assert exit_code == 1
    assert "absent" in text and "not bound at module level" in text and "w_final" not in text


def test_verify_command_without_tensorflow_says_how_to_install(monkeypatch, tmp_path) -> None:
    import tfmodernize.verify.command as command

    script = tmp_path / "s.py"
    script.write_text("x = 1\n")
    monkeypatch.setattr(command.importlib.util, "find_spec", lambda name: None)
    console = _console()
    exit_code = verify_command(
        script, script, compare=None, rtol=1e-5, atol=1e-6, old_mode="tf1", timeout=10, console=console
    )
    assert exit_code == 2
    assert "pip install 'tfmodernize[verify]'" in console.export_text()


@pytest.mark.parametrize(
    ("options", "fragment"),
    [({"old_mode": "tf3"}, "--old-mode must be tf1 or tf2"), ({"timeout": 0}, "--timeout must be positive")],
)
def test_verify_command_rejects_bad_options(tmp_path, options, fragment) -> None:
    script = tmp_path / "s.py"
    script.write_text("x = 1\n")
    console = _console()
    arguments = {"compare": None, "rtol": 1e-5, "atol": 1e-6, "old_mode": "tf1", "timeout": 10, **options}
    assert verify_command(script, script, console=console, **arguments) == 2
    assert fragment in console.export_text()


def test_verify_command_reports_a_missing_file(tmp_path) -> None:
    console = _console()
    code = verify_command(
        tmp_path / "nope.py",
        tmp_path / "nope.py",
        compare=None,
        rtol=1e-5,
        atol=1e-6,
        old_mode="tf1",
        timeout=10,
        console=console,
    )
    assert code == 2 and "nope.py: no such file" in console.export_text()


@needs_tensorflow
def test_cli_verify_never_imports_tensorflow_in_its_own_process() -> None:
    case = CASES["traces_expected_difference"]
    program = textwrap.dedent(
        f"""
        import sys
        from typer.testing import CliRunner
        from tfmodernize.cli import app
        result = CliRunner().invoke(app, ["verify", {str(case.before)!r}, {str(case.before)!r},
                                          "--compare", "results,traces", "--old-mode", "tf2", "--timeout", "60"])
        print(result.output)
        print("exit", result.exit_code, "tensorflow imported:", "tensorflow" in sys.modules)
        """
    )
    completed = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert "exit 0 tensorflow imported: False" in completed.stdout, completed.stdout + completed.stderr
    assert "results" in completed.stdout and "traces" in completed.stdout


PRINTING_TF1 = """\
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable([[0.5], [-1.0]])
y = tf.matmul(x, w)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(3):
        print("step", step, "output", sess.run(y, feed_dict={x: np.ones((1, 2)) * step}))
"""


@needs_tensorflow
@pytest.mark.parametrize(
    ("scale", "code", "fragment"),
    [
        ("1.0", 0, "6 numbers printed, equal in order"),
        ("1.5", 1, "number 4 of 6 differs"),
    ],
)
def test_verify_stdout_compares_what_a_migrated_script_prints(harness, tmp_path, scale, code, fragment) -> None:
    from tfmodernize.registry import builtin_codemods
    from tfmodernize.engine import transform_text

    before = tmp_path / "script_tf1.py"
    before.write_text(PRINTING_TF1)
    migrated, _ = transform_text(PRINTING_TF1, builtin_codemods())
    assert "tf.function" in migrated
    after = tmp_path / "script_tf2.py"
    after.write_text(migrated.replace("[[0.5], [-1.0]]", f"[[0.5 * {scale}], [-1.0]]"))
    console = _console()
    exit_code = verify_command(
        before,
        after,
        compare=None,
        rtol=1e-5,
        atol=1e-6,
        old_mode="tf1",
        timeout=60,
        stdout=True,
        console=console,
        harness=harness,
    )
    text = console.export_text()
    assert exit_code == code, text
    assert fragment in text


ALIGN_BEFORE = """
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
hidden = tf.layers.dense(x, 4, activation=tf.nn.relu)
out = tf.layers.dense(hidden, 1)
loss = tf.reduce_mean(tf.square(out - 1.0))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
data = np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    losses = [float(sess.run([step, loss], {x: data})[1]) for _ in range(5)]
"""

ALIGN_AFTER = """
import numpy as np
import tensorflow as tf

hidden_layer = tf.keras.layers.Dense({units}, activation=tf.nn.relu)
out_layer = tf.keras.layers.Dense(1)
hidden_layer.build((None, 3))
out_layer.build((None, {units}))
optimizer = tf.keras.optimizers.SGD(0.1)
data = np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(out_layer(hidden_layer(x)) - 1.0))
    variables = hidden_layer.trainable_variables + out_layer.trainable_variables
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


losses = [float(train_step(data)) for _ in range(5)]
"""


@needs_tensorflow
def test_align_variables_starts_keras_layers_from_tf1s_initial_weights(harness, tmp_path) -> None:
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(ALIGN_BEFORE)
    after.write_text(ALIGN_AFTER.format(units=4))
    console = _console()
    assert verify_command(before, after, compare=["losses"], timeout=60, console=console, harness=harness) == 1
    console = _console()
    code = verify_command(
        before, after, compare=["losses"], timeout=60, align_variables=True, console=console, harness=harness
    )
    text = console.export_text()
    assert code == 0, text
    assert "aligned 4 trainable variable(s)" in text


@needs_tensorflow
def test_align_variables_lists_what_it_could_not_match(harness, tmp_path) -> None:
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(ALIGN_BEFORE)
    after.write_text(ALIGN_AFTER.format(units=5))  # another hidden width: no shape matches
    console = _console()
    code = verify_command(
        before, after, compare=["losses"], timeout=60, align_variables=True, console=console, harness=harness
    )
    text = " ".join(console.export_text().split())
    assert code == 1
    assert "aligned 0 trainable variable(s)" in text
    assert "[3, 5] float32: not matched with the next recorded variable dense/kernel:0 [3, 4] float32" in text
    assert "dense_1/bias:0 [1] float32: no variable of the new program took its value" in text


@needs_tensorflow
def test_a_failing_notebook_shows_its_code_not_its_json(harness, tmp_path) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from tfmodernize.verify.runner import Script

    notebook = new_notebook(cells=[new_code_cell("x = 1"), new_code_cell("y = x / 0  # the failing line")])
    path = tmp_path / "nb.ipynb"
    path.write_text(nbformat.writes(notebook))
    result = harness.run(Script(path, "tf2"))
    assert not result.ok
    assert "nb.ipynb (code cells)" in result.error and "y = x / 0  # the failing line" in result.error
