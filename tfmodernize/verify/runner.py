"""Long-lived TensorFlow child processes of a mode (tf1 or tf2) that run scripts on request.

Importing TensorFlow costs seconds, running a fixture script milliseconds: a ``Child`` starts
``tfmodernize.verify.child`` once and sends it one script after another. A script that crashes
the child (abort, segfault) or runs past its timeout fails alone: the child is killed and a
new one is started for the next script. Nothing here imports TensorFlow.

``Harness`` owns a pool of children and runs a batch of scripts with several of them working at
the same time (one thread per child).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Optional, Sequence

import tfmodernize

MODES = ("tf1", "tf2")
RANDOM_MODES = ("num_random_ops", "constant")
VARIABLE_MODES = ("own", "record", "align")
#: Importing TensorFlow on a busy two-core machine can take long; this is not a script's time.
STARTUP_TIMEOUT = 300.0
#: Lines of the child's own stderr (TF logs, faulthandler dumps) kept with a failure.
LOG_TAIL_LINES = 20


@dataclass(frozen=True)
class Script:
    """One script to run, with the semantics (``tf1``/``tf2``) and random mode to run it in."""

    path: Path
    mode: str = "tf2"
    random: str = "num_random_ops"
    timeout: float = 120.0
    #: ``record``: report the initial value of every variable the script creates, in creation
    #: order (``RunResult.variables``); ``align``: start the script's trainable variables from
    #: ``initial_values`` (a recorded run's), matched by order, shape and dtype.
    variables: str = "own"
    initial_values: Optional[tuple[dict, ...]] = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.random not in RANDOM_MODES:
            raise ValueError(f"random must be one of {', '.join(RANDOM_MODES)}, not {self.random!r}")
        if self.variables not in VARIABLE_MODES:
            raise ValueError(f"variables must be one of {', '.join(VARIABLE_MODES)}, not {self.variables!r}")


@dataclass
class RunResult:
    """What one script left behind: concrete values by name, or why it could not run."""

    script: Script
    values: dict[str, Any] = field(default_factory=dict)
    #: Public module-level names that were not concrete values, with their type.
    skipped: dict[str, str] = field(default_factory=dict)
    error: Optional[str] = None
    output: str = ""
    #: What the script printed to stdout (not stderr, where TensorFlow logs).
    stdout: str = ""
    seconds: float = 0.0
    #: The child process that ran it (None if it died doing so).
    pid: Optional[int] = None
    #: ``record``: each variable created, in order: name, shape, dtype, trainable, initial value
    variables: list[dict] = field(default_factory=list)
    #: ``align``: what was aligned, and every variable that could not be matched
    alignment: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


def child_environment(mode: str) -> dict[str, str]:
    """The environment of a child: quiet, CPU only, deterministic; legacy Keras in tf1 only."""
    env = dict(os.environ)
    env.pop("TF_USE_LEGACY_KERAS", None)
    env.update(
        TF_CPP_MIN_LOG_LEVEL="2",
        TF_DETERMINISTIC_OPS="1",
        # oneDNN's fused CPU kernels round differently from the reference kernels.
        TF_ENABLE_ONEDNN_OPTS="0",
        CUDA_VISIBLE_DEVICES="-1",
        OMP_NUM_THREADS="1",
        PYTHONHASHSEED="0",
    )
    if mode == "tf1":
        env["TF_USE_LEGACY_KERAS"] = "1"
    # The child must import this very copy of tfmodernize, installed or not.
    package_root = str(Path(tfmodernize.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


class ChildError(Exception):
    """The child could not be started."""


class Child:
    """One TensorFlow child process of a mode; restarted after a crash or a timeout."""

    def __init__(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.tensorflow_version: Optional[str] = None
        self._process: Optional[subprocess.Popen] = None
        self._send: Optional[Connection] = None
        self._receive: Optional[Connection] = None
        self._log: Optional[Any] = None
        #: Why the child could not be started; later scripts fail at once with it.
        self._broken: Optional[str] = None

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        self._log = tempfile.TemporaryFile()
        try:
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tfmodernize.verify.child",
                    self.mode,
                    str(to_child_read),
                    str(from_child_write),
                ],
                pass_fds=(to_child_read, from_child_write),
                env=child_environment(self.mode),
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=self._log,
                start_new_session=True,
            )
        finally:
            os.close(to_child_read)
            os.close(from_child_write)
        self._send = Connection(to_child_write, readable=False)
        self._receive = Connection(from_child_read, writable=False)
        ready = self._reply(STARTUP_TIMEOUT, since=0)
        if not isinstance(ready, dict) or not ready.get("ready"):
            self.close()
            raise ChildError(f"the {self.mode} TensorFlow child did not start: {ready}")
        self.tensorflow_version = ready["tensorflow"]

    def close(self) -> None:
        for connection in (self._send, self._receive):
            if connection is not None:
                connection.close()
        self._send = self._receive = None
        if self._process is not None:
            # The child exits on EOF, but TensorFlow's interpreter shutdown takes seconds and
            # there is nothing to flush: do not wait for it.
            try:
                self._process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                self._kill()
            self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    # -- running ----------------------------------------------------------------------------

    def run(self, script: Script) -> RunResult:
        """Run ``script`` in this child; never raises for the script's own failures."""
        if script.mode != self.mode:
            raise ValueError(f"a {script.mode} script sent to the {self.mode} child")
        if self._broken is not None:
            return RunResult(script, error=self._broken)
        if not self.alive:
            self.close()
            try:
                self.start()
            except ChildError as error:
                self._broken = str(error)
                return RunResult(script, error=self._broken)
        assert self._send is not None and self._log is not None
        log_offset = self._log.seek(0, os.SEEK_END)
        started = time.perf_counter()
        try:
            self._send.send(
                {
                    "script": str(Path(script.path).resolve()),
                    "random": script.random,
                    "variables": script.variables,
                    "initial_values": list(script.initial_values or ()),
                }
            )
        except OSError:
            pass  # the child is gone: _reply reads the EOF and says so
        reply = self._reply(script.timeout, since=log_offset)
        if isinstance(reply, dict):
            if reply["retire"]:
                self.close()  # the next script gets a new child
            return RunResult(
                script,
                values=reply["values"],
                skipped=reply["skipped"],
                error=reply["error"],
                output=reply["output"],
                stdout=reply.get("stdout", ""),
                seconds=reply["seconds"],
                pid=reply["pid"],
                variables=reply.get("variables", []),
                alignment=reply.get("alignment", []),
            )
        return RunResult(script, error=reply, seconds=time.perf_counter() - started)

    def _reply(self, timeout: float, *, since: int) -> Any:
        """The child's next message, or a string saying why there is none (child then gone)."""
        assert self._receive is not None and self._process is not None
        try:
            if self._receive.poll(timeout):
                return self._receive.recv()
        except (EOFError, OSError):
            try:
                code = self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                code = None
            why = f"the {self.mode} child died (exit code {code})"
        else:
            self._dump_stacks()
            why = f"timed out after {timeout:g} s (the {self.mode} child was killed)"
        self._kill()
        tail = self._log_tail(since)
        self.close()
        return f"{why}\n{tail}" if tail else why

    def _dump_stacks(self) -> None:
        """Ask a hung child for its Python stacks (faulthandler), for the failure message."""
        assert self._process is not None
        try:
            self._process.send_signal(signal.SIGUSR1)
        except ProcessLookupError:
            return
        time.sleep(0.5)

    def _kill(self) -> None:
        if self._process is None or self._process.poll() is not None:
            return
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._process.wait()

    def _log_tail(self, since: int) -> str:
        assert self._log is not None
        self._log.seek(since)
        text = self._log.read().decode("utf-8", "replace")
        # faulthandler ends a crash dump with every loaded extension module: noise here.
        lines = [line for line in text.rstrip().splitlines() if not line.startswith("Extension modules:")]
        return "\n".join(lines[-LOG_TAIL_LINES:]).rstrip()


class Harness:
    """A pool of children, started on first use; use as a context manager to stop them.

    ``run`` runs one script in the most recently used idle child of its mode, so scripts run
    one after another by ``run`` share a child. ``run_all`` runs a batch with up to
    ``workers`` children at once: one per mode to begin with; a worker whose mode has no
    scripts left helps with the other mode's queue, starting a second child of that mode only
    when enough scripts are waiting to pay for importing TensorFlow again.
    """

    #: Scripts that must be waiting before a worker starts one more child of a busy mode: a
    #: second child halves the remaining time, importing TensorFlow costs about a dozen
    #: fixture scripts, so it pays from about two dozen on.
    STEAL_MINIMUM = 24

    def __init__(self, workers: Optional[int] = None) -> None:
        self.workers = max(1, workers if workers is not None else min(4, os.cpu_count() or 1))
        self._idle: dict[str, list[Child]] = {mode: [] for mode in MODES}
        self._children: list[Child] = []
        self._lock = threading.Lock()

    def __enter__(self) -> "Harness":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for child in self._children:
            child.close()
        self._children.clear()
        self._idle = {mode: [] for mode in MODES}

    def _acquire(self, mode: str) -> Child:
        with self._lock:
            if self._idle[mode]:
                return self._idle[mode].pop()
            child = Child(mode)
            self._children.append(child)
            return child

    def _release(self, child: Child) -> None:
        with self._lock:
            self._idle[child.mode].append(child)

    def run(self, script: Script) -> RunResult:
        child = self._acquire(script.mode)
        try:
            return child.run(script)
        finally:
            self._release(child)

    def run_all(self, scripts: Sequence[Script]) -> list[RunResult]:
        """Run every script, several children at once; results in the input's order."""
        queues = {mode: deque(i for i, script in enumerate(scripts) if script.mode == mode) for mode in MODES}
        serving = {mode: 0 for mode in MODES}
        results: list[Optional[RunResult]] = [None] * len(scripts)

        def next_job(current: Optional[str]) -> Optional[tuple[str, int]]:
            with self._lock:
                waiting = [mode for mode in MODES if queues[mode]]
                if not waiting:
                    return None
                if current not in waiting:
                    unserved = [mode for mode in waiting if serving[mode] == 0]
                    mode = max(unserved or waiting, key=lambda m: len(queues[m]))
                    if serving[mode] and not self._idle[mode] and len(queues[mode]) < self.STEAL_MINIMUM:
                        return None
                    if current is not None:
                        serving[current] -= 1
                    serving[mode] += 1
                    current = mode
                return current, queues[current].popleft()

        def work() -> None:
            current: Optional[str] = None
            child: Optional[Child] = None
            try:
                while (job := next_job(current)) is not None:
                    mode, index = job
                    if mode != current:
                        if child is not None:
                            self._release(child)
                        child, current = self._acquire(mode), mode
                    assert child is not None
                    results[index] = child.run(scripts[index])
            finally:
                if child is not None:
                    self._release(child)

        workers = min(self.workers, len(scripts))
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            for done in [pool.submit(work) for _ in range(workers)]:
                done.result()
        return [result for result in results if result is not None]
