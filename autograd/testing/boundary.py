"""The one boundary between the harness and the engine under test.

Whatever an engine raises is a fact about the engine (a crash, a refusal, a missing
op); whatever the harness raises is a bug of ours and must propagate, never read as
"no finding".  So every call into an engine that may raise goes through
:func:`engine_call`, which turns the engine's exception into :class:`EngineRaised`.
What is called there is the engine's own callable only: :class:`~autograd.testing.engines.Engine`
resolves it (a method, an attribute, an operator and its operands) in harness code first.
Harness code that must run while the engine is called (the adapter's scalar class) is
marked with :func:`harness_code`: its exceptions leave as :class:`HarnessFault`.  The
command line runs the audit through :func:`tool_call`: a fault of ours ends it with its
traceback and the exit status :data:`HARNESS_FAULT`, never with a verdict.  These three
are the only broad ``except`` clauses of the harness (tests/test_testing_boundary.py
scans the package).

An engine may also kill the interpreter (a compiled engine's stack overflow is a
SIGSEGV), which no ``except`` can catch: what may do that runs in an
:class:`EngineChild`, a fresh interpreter whose death is a fact (:class:`Died`),
and the audit goes on.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "HARNESS_FAULT",
    "Died",
    "EngineChild",
    "EngineRaised",
    "HarnessFault",
    "child_path",
    "engine_call",
    "error_line",
    "harness_code",
    "tool_call",
]


class EngineRaised(Exception):
    """The engine under test raised ``exc`` (``stage`` says where: "forward", "backward()", ...)."""

    def __init__(self, stage: str, exc: BaseException) -> None:
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.stage, self.exc = stage, exc

    def line(self) -> str:
        """One line: the exception's type and message (see :func:`error_line`)."""
        return error_line(self.exc)


def error_line(exc: BaseException) -> str:
    """One line: the exception's type and message, without object addresses (they vary by run)."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", f"{type(exc).__name__}: {exc}")[:300]


def engine_call(stage: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``, which must be the engine's own code (a bound method or function
    of the engine, an operator applied to its Values); whatever it raises becomes
    :class:`EngineRaised`.  An :class:`EngineRaised` from a call nested inside (an ``Engine``
    accessor within a timed step) is told under this call's ``stage``, the step the caller names.

    Harness code must resolve what to call *before* this, so that its own faults propagate
    (see :class:`autograd.testing.engines.Engine`)."""
    try:
        return call(*args, **kwargs)
    except HarnessFault:
        raise
    except EngineRaised as raised:
        raise EngineRaised(stage, raised.exc) from raised.exc
    except Exception as exc:
        raise EngineRaised(stage, exc) from exc


# ---------------------------------------------------------------------- the harness's own faults
#: The command line's exit status when the harness itself failed (a bug of autograd.testing,
#: never a verdict on the engine): distinct from 1 (defects found) and 2 (could not audit).
HARNESS_FAULT = 3
#: The line a harness fault is reported with, after its traceback.
HARNESS_FAULT_LINE = (
    "this is a bug of autograd.testing, not a finding about the engine: please report it, with the "
    "traceback above and the command that ran it, to the autograd project's issue tracker"
)


class HarnessFault(Exception):
    """The harness raised ``exc`` (a bug of ours): see :func:`tool_call` and :func:`harness_code`."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.exc = exc

    def report(self) -> str:
        """The traceback and :data:`HARNESS_FAULT_LINE`, as the command line prints them."""
        trace = "".join(traceback.format_exception(self.exc))
        return f"{trace}{HARNESS_FAULT_LINE}"


def tool_call(call: Callable[..., Any], *args: Any, expected: tuple[type[BaseException], ...] = (),
              **kwargs: Any) -> Any:  # fmt: skip
    """``call(*args, **kwargs)`` for the command line: an ``expected`` exception (the user's
    error, e.g. an engine that cannot be found) propagates as it is; any other is a fault of the
    harness (the engine's own exceptions never leave :func:`engine_call` as themselves) and
    becomes :class:`HarnessFault`, which keeps the original traceback."""
    try:
        return call(*args, **kwargs)
    except expected:
        raise
    except HarnessFault:
        raise
    except Exception as exc:
        raise HarnessFault(exc) from exc


@contextlib.contextmanager
def harness_code() -> Iterator[None]:
    """Marks harness code that runs while the engine is being called (the adapter's scalar
    class stands in for an engine, and its own bookkeeping runs inside :func:`engine_call`):
    an exception raised in the block is ours, and leaves as :class:`HarnessFault`, which
    :func:`engine_call` lets through instead of reading it as the engine's."""
    try:
        yield
    except (EngineRaised, HarnessFault):
        raise
    except Exception as exc:
        raise HarnessFault(exc) from exc


# ---------------------------------------------------------------------- a child interpreter
#: What a child program prints before each stage of a request, and with each answer.
STAGE_MARK = "engine-child-stage: "
ANSWER_MARK = "engine-child-answer: "
#: The lines a child program starts with: ``stage(name)`` and ``answer(obj)`` (JSON) helpers.
CHILD_HELPERS = f"""\
import json, sys
def stage(name):
    print({STAGE_MARK!r} + name, flush=True)
def answer(obj):
    print({ANSWER_MARK!r} + json.dumps(obj), flush=True)
"""


def child_path() -> str:
    """Every directory this interpreter imports from, for a fresh one to import the same engine."""
    return os.pathsep.join(os.path.abspath(p) if p else os.getcwd() for p in sys.path)


@dataclass(frozen=True)
class Died:
    """A child interpreter ended during a request: ``how`` ("killed by SIGSEGV", "timed out
    after 120 s", "exit status 1"), ``stage`` (the last one it announced) and its last line on stderr."""

    how: str
    stage: str
    stderr: str = ""

    @property
    def signal(self) -> str:
        """The signal's name when a signal ended it, else ''."""
        return self.how.removeprefix("killed by ") if self.how.startswith("killed by ") else ""

    @property
    def timed_out(self) -> bool:
        """Whether the request outlived the child's time limit (the child was ended, not killed by
        anything of its own: a slow engine, or one that hangs, not one that crashed)."""
        return self.how.startswith("timed out")


class EngineChild:
    """A fresh interpreter running ``program`` (which imports the engine itself), asked one
    request at a time: ``ask(request)`` writes ``request`` as one line on its stdin; the
    program reads it, calls ``stage(name)`` before each dangerous part and ``answer(obj)``
    when done.  When the child dies instead, ``ask`` returns a :class:`Died` and the next
    ``ask`` starts a new child: one interpreter (~0.1-0.3 s) per death, not per request.
    Use as a context manager (the child is ended on exit)."""

    def __init__(self, program: str, *, timeout: float = 120.0) -> None:
        self.program = f"{CHILD_HELPERS}{program}"
        self.timeout = timeout
        self.started = 0  # interpreters started (for the outcome's reason)
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()

    def __enter__(self) -> EngineChild:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> subprocess.Popen[str]:
        env = dict(os.environ, PYTHONPATH=child_path())
        proc = subprocess.Popen(
            [sys.executable, "-c", self.program],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.started += 1
        lines: queue.Queue[str | None] = queue.Queue()
        self._lines = lines

        def pump() -> None:  # stdout, line by line, then None at EOF
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line.rstrip("\n"))
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        return proc

    def ask(self, request: str) -> Any:
        """The child's answer to ``request`` (a JSON value), or a :class:`Died`."""
        if self._proc is None:
            self._proc = self._start()
        proc = self._proc
        assert proc.stdin is not None
        stage = "starting"
        try:
            proc.stdin.write(request + "\n")
            proc.stdin.flush()
        except BrokenPipeError:  # it died before reading (e.g. on import): told below
            pass
        while True:
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                self.close()
                return Died(f"timed out after {self.timeout:g} s", stage)
            if line is None:
                return self._death(stage)
            if line.startswith(STAGE_MARK):
                stage = line.removeprefix(STAGE_MARK)
            elif line.startswith(ANSWER_MARK):
                return json.loads(line.removeprefix(ANSWER_MARK))

    def _death(self, stage: str) -> Died:
        proc, self._proc = self._proc, None
        assert proc is not None and proc.stderr is not None
        returncode = proc.wait()
        err = proc.stderr.read().strip().splitlines()
        if returncode < 0:
            try:
                how = f"killed by {signal.Signals(-returncode).name}"
            except ValueError:
                how = f"killed by signal {-returncode}"
        else:
            how = f"exit status {returncode}"
        return Died(how, stage, err[-1] if err else "")

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.communicate()
