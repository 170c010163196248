"""Probe ``depth``: the deepest chain ``y = y*w + b`` whose ``backward()`` completes at
Python's default recursion limit (1000), probed up to 100,000 steps: a ``depth_limit`` fact.

The chains run in a child interpreter: one that kills it (a compiled engine's C stack
overflow, SIGSEGV) is a ``crash`` with the signal, beside the ``depth_limit`` fact of what
survives; the audit goes on.  A chain that does not finish within :data:`CHAIN_SECONDS` is
neither: a slow engine (or a framework's adapter) is not a crashing one, so the fact says how
deep the chains that finished went, and the longer chains are left inconclusive.
"""

from __future__ import annotations

import re
from typing import Any

from autograd.testing.boundary import Died, EngineChild
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.reproducers import program

DEFAULT_RECURSION_LIMIT = 1000
DEPTH_MAX = 100_000
#: How long one chain (building it and its backward()) may take in the child before it is ended.
CHAIN_SECONDS = 120.0


#: The depth probe's child: one chain per request (its length), at Python's default recursion
#: limit, in the main thread of a fresh interpreter (an empty stack), so that an engine that
#: overflows the C stack (SIGSEGV) kills the child, not the audit.
_DEPTH_BODY = """\
sys.setrecursionlimit({limit})

def chain(steps):
    stage('building')
    w, b, y = {V}(0.5), {V}(1.0), {V}(1.0)
    for _ in range(steps):
        y = y * w + b
    stage('backward()')
    y.{backward}()
    stage('freeing the graph')

for line in sys.stdin:
    try:
        chain(int(line))
    except Exception as exc:
        answer(type(exc).__name__ + ': ' + str(exc))
    else:
        answer(None)
"""
#: A death is bisected until the gap is this fraction of the chain (each death costs an interpreter).
DEATH_PRECISION = 0.05
BISECTIONS_MAX = 64  # bisecting 10_000..DEPTH_MAX to one step takes 17


class _NoChild(Exception):
    """A fresh interpreter could not run the engine (e.g. a class that cannot be imported by name)."""

    def __init__(self, died: Died) -> None:
        super().__init__(f"{died.how}: {died.stderr}")
        self.died = died


def _depth_program(eng: Engine) -> str:
    names = {"V": eng.class_name, "backward": eng.backward_method}
    return f"{eng.import_line()}\n" + _DEPTH_BODY.format(limit=DEFAULT_RECURSION_LIMIT, **names)


def _depth_failure(child: EngineChild, steps: int) -> str | Died | None:
    """How a chain of ``steps`` fails in ``child``: the exception's line, the child's death, or None."""
    result = child.ask(str(steps))
    if isinstance(result, Died):
        if not result.signal and result.stage == "starting":  # not the chain's doing
            raise _NoChild(result)
        return result
    return None if result is None else re.sub(r" at 0x[0-9a-fA-F]+", "", str(result))[:300]


def _depth_search(child: EngineChild) -> tuple[int, int, str | Died | None, int]:
    """(deepest chain that survives, shallowest that fails, how it fails, chains run)."""
    good, bad, probed = 0, 0, 0
    error: str | Died | None = None
    for steps in (1, 10, 100, 1000, 10_000, DEPTH_MAX):  # grow by tens, then bisect
        probed += 1
        error = _depth_failure(child, steps)
        if error is not None:
            bad = steps
            break
        good = steps
    for _ in range(BISECTIONS_MAX):  # a bound, never reached: no slip in this loop can hang an audit
        if error is None or bad - good <= 1:
            break
        if isinstance(error, Died) and error.timed_out:
            break  # every try past the time limit costs the whole limit, and tells nothing
        if isinstance(error, Died) and bad - good <= DEATH_PRECISION * bad:
            break  # close enough: where a stack overflows depends on the machine anyway
        mid = (good + bad) // 2
        probed += 1
        mid_error = _depth_failure(child, mid)
        if mid_error is None:
            good = mid
        elif isinstance(mid_error, Died) and mid_error.timed_out:
            break  # what fails at ``bad`` stays the finding; between, nothing finished in time
        else:
            bad, error = mid, mid_error
    return good, bad, error, probed


def probe_depth(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """The deepest chain ``y = y*w + b`` that backward survives at the default recursion limit
    (in a child interpreter: a chain that kills it is a ``crash``, and the audit goes on)."""
    eng = resolve_engine(engine)
    reason = f"chains y = y*w + b of up to {DEPTH_MAX:,} steps at recursion limit {DEFAULT_RECURSION_LIMIT}"
    with EngineChild(_depth_program(eng), timeout=CHAIN_SECONDS) as child:
        try:
            good, bad, error, probed = _depth_search(child)
        except _NoChild as no_child:
            summary = f"depth not probed: a fresh interpreter cannot run `{eng.import_line()}` ({no_child})"
            found = [Finding("inconclusive", "depth", summary, expected="an engine importable by name")]
            return outcome("depth", found, judged=0, unit="chains", inconclusive=1, reason=reason)
        reason += f", in {child.started} child interpreter{'s' if child.started > 1 else ''}"
    if error is None:
        summary = f"backward() survives the deepest chain probed, {DEPTH_MAX:,} steps of y = y*w + b"
        found = [Finding("depth_limit", "depth", summary, expected=">= 100,000")]
        return outcome("depth", found, judged=probed, unit="chains", reason=reason)
    if isinstance(error, Died) and error.timed_out:
        return _depth_timeout(good, bad, error, probed, reason)
    if isinstance(error, Died):
        return _depth_death(eng, good, bad, error, probed, reason)
    past = bad + 10  # a few steps more: a script's own stack is a little shallower than the probe's
    reproducer = program(
        eng,
        "import sys",
        f"sys.setrecursionlimit({DEFAULT_RECURSION_LIMIT})  # Python's default",
        "w, b, y = {V}(0.5), {V}(1.0), {V}(1.0)",
        f"for _ in range({past}):",
        "    y = y * w + b",
        "try:",
        "    y.{backward}()",
        f"    print('backward() completed {past} steps')",
        "except Exception as exc:",
        f"    print('expected: backward() completes {past} steps; actual:', type(exc).__name__, exc)",
    )
    finding = Finding(
        "depth_limit",
        "depth",
        f"backward() survives chains y = y*w + b of {good:,} steps at the default recursion limit; "
        f"{bad:,} steps raise {error.split(':')[0]}",
        reproducer=reproducer,
        expected=f"{DEPTH_MAX:,} steps",
        actual=f"{good:,} steps ({error})",
    )
    return outcome("depth", [finding], judged=probed, unit="chains", reason=reason)


def _depth_death(eng: Engine, good: int, bad: int, died: Died, probed: int, reason: str) -> CheckOutcome:
    """A chain that kills the interpreter: a ``crash`` (no program can catch or survive it,
    unlike an exception at a depth limit), beside the ``depth_limit`` fact of what survives."""
    chain = program(
        eng,
        "w, b, y = {V}(0.5), {V}(1.0), {V}(1.0)",
        f"for _ in range({bad}):",
        "    y = y * w + b",
        "y.{backward}()",
        "del y  # freeing the graph",
        "print('survived')",
    )
    reproducer = "\n".join(
        [
            "import subprocess, sys",
            f"PROGRAM = {chain!r}",
            "done = subprocess.run([sys.executable, '-c', PROGRAM], capture_output=True, text=True)",
            f"print('expected: a chain of {bad} steps survives (or raises); actual: exit status',",
            "      done.returncode, '(negative: killed by that signal)', done.stdout.strip())",
        ]
    )
    crash = Finding(
        "crash",
        "depth",
        f"{died.stage} of a chain y = y*w + b of {bad:,} steps kills the interpreter ({died.how}); "
        f"{good:,} steps survive",
        reproducer=reproducer,
        expected="backward() completes, or raises an exception a program can catch",
        actual=f"{died.how} during {died.stage}" + (f" ({died.stderr})" if died.stderr else ""),
    )
    limit = Finding(
        "depth_limit",
        "depth",
        f"backward() survives chains y = y*w + b of {good:,} steps; {bad:,} steps kill the process "
        f"({died.how})",
        expected=f"{DEPTH_MAX:,} steps",
        actual=f"{good:,} steps ({died.how} at {bad:,} steps, during {died.stage})",
    )
    return outcome("depth", [crash, limit], judged=probed, unit="chains", reason=reason)


def _depth_timeout(good: int, bad: int, died: Died, probed: int, reason: str) -> CheckOutcome:
    """A chain that did not finish in time: what finished is a fact; the longer chains are not
    judged (slow is not a crash: the time probe judges how backward() scales)."""
    limit = Finding(
        "depth_limit",
        "depth",
        f"backward() survives chains y = y*w + b of {good:,} steps at the default recursion limit; "
        f"longer ones not judged ({bad:,} steps {died.how}, during {died.stage})",
        expected=f"{DEPTH_MAX:,} steps",
        actual=f"{good:,} steps (then {died.how})",
    )
    summary = (
        f"a chain of {bad:,} steps {died.how} during {died.stage}: chains past {good:,} steps not judged"
    )
    unjudged = Finding("inconclusive", "depth", summary, expected=f"finished within {CHAIN_SECONDS:g} s")
    return outcome(
        "depth", [limit, unjudged], judged=probed - 1, unit="chains", inconclusive=1, reason=reason
    )
