"""Probes: what an audit asks of an engine beside the gradient checks on random graphs.

Each probe is ``probe_NAME(engine, *, examples, seed) -> CheckOutcome`` and builds
everything it needs itself, so the probes are independent: a defect one of them
meets never hides what another would find.  Every finding carries a runnable
reproducer that imports the engine under test (by the names the engine adapter
discovered) and prints what was expected and what happened.

``depth``
    The deepest chain ``y = y*w + b`` whose ``backward()`` completes at Python's
    default recursion limit (1000), probed up to 100,000 steps: a ``depth_limit``
    fact.  The chains run in a child interpreter: one that kills it (a compiled
    engine's C stack overflow, SIGSEGV) is a ``crash`` with the signal, beside the
    ``depth_limit`` fact of what survives; the audit goes on.
``determinism``
    One float graph with fan-out, whose leaf gradients are sums whose value
    depends on the order they are added in, built and differentiated several
    times in this process and in fresh interpreters under several fixed
    ``PYTHONHASHSEED``\\ s.  Different bits: ``nondeterministic``.  (Engines that
    keep parents in a ``set`` show it only on floats: rational sums do not
    depend on the order.)
``bad_inputs``
    A str, None, a complex, NaN, a bool and a list as data, and a str operand:
    accepted without an error at once is ``accepts_invalid`` (with what
    happened next).
``edge_points``
    Points inside each op's domain where engines often go wrong: ``x ** 0``,
    ``x ** 1``, ``x ** 2`` at 0, relu at 0 (its value), tanh / sigmoid / exp at
    tiny and large finite inputs (±1e4; sigmoid also at ±100, exp at ±700).  Expected values
    come from sympy and mpmath.
    An exception is a ``crash``, a value off beyond the forward tolerance is
    ``wrong_value``; a gradient is ``wrong_gradient`` only when sympy's
    derivative (mpmath) AND central finite differences both reject it, and
    ``inconclusive`` when only one does.
``conventions``
    What a second ``backward()`` does to leaves, interior nodes and the output,
    how the output gradient is seeded, and relu'(0): ``convention`` facts.
``support``
    The ops of the table and the number types (int, Fraction) the engine lacks:
    ``unsupported`` facts.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from autograd.testing.boundary import Died, EngineChild, EngineRaised, child_path, engine_call
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.ops import OPS
from autograd.testing.reproducers import program, show

__all__ = [
    "PROBES",
    "probe_bad_inputs",
    "probe_conventions",
    "probe_depth",
    "probe_determinism",
    "probe_edge_points",
    "probe_support",
]


# ---------------------------------------------------------------------- shared helpers
def _same_const(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b  # 2 and 2.0 are different constants here


# ---------------------------------------------------------------------- depth
DEFAULT_RECURSION_LIMIT = 1000
DEPTH_MAX = 100_000


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
    while error is not None and bad - good > 1:
        if isinstance(error, Died) and bad - good <= DEATH_PRECISION * bad:
            break  # close enough: where a stack overflows depends on the machine anyway
        mid = (good + bad) // 2
        probed += 1
        mid_error = _depth_failure(child, mid)
        if mid_error is None:
            good = mid
        else:
            bad, error = mid, mid_error
    return good, bad, error, probed


def probe_depth(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """The deepest chain ``y = y*w + b`` that backward survives at the default recursion limit
    (in a child interpreter: a chain that kills it is a ``crash``, and the audit goes on)."""
    eng = resolve_engine(engine)
    reason = f"chains y = y*w + b of up to {DEPTH_MAX:,} steps at recursion limit {DEFAULT_RECURSION_LIMIT}"
    with EngineChild(_depth_program(eng)) as child:
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


# ---------------------------------------------------------------------- determinism
#: Hash seeds of the fresh interpreters (fixed, so a verdict never depends on luck).
HASH_SEEDS = ("0", "1", "2", "3")
#: Terms whose float sum depends on the order they are added in (exact sum 4.5).
FAN_OUT_WEIGHTS = (1e16, 1.0, -1e16, 1.0, 3.0, 1e16, -1e16, 0.5, 2.0, -3.0)

_DETERMINISM_BODY = """\
import json

def gradients():
    x = {V}(1.0)
    ws = [{V}(c) for c in {weights}]
    terms = [x * w for w in ws]  # x fans out to every term
    y = terms[0]
    for t in terms[1:]:
        y = y + t
    y.{backward}()
    return [repr(v.{grad}) for v in [x, *ws]], (x, ws, y)

kept, runs = [], []
for i in range({builds}):
    kept.append([object() for _ in range(7 * i)])  # the next nodes land elsewhere in memory
    grads, graph = gradients()
    kept.append(graph)
    runs.append(grads)
print({mark!r} + json.dumps(runs))"""
#: The line of a determinism run that holds its result (what the engine prints is not parsed).
RESULT_MARK = "determinism-result: "


def _result(printed: str) -> list[Any]:
    """The runs a determinism program printed, whatever else the engine printed around them."""
    lines = [line for line in printed.splitlines() if line.startswith(RESULT_MARK)]
    if not lines:
        raise ValueError(f"no line starting with {RESULT_MARK!r} in the output")
    return list(json.loads(lines[-1].removeprefix(RESULT_MARK)))


_child_path = child_path  # the name the tests use


def _run_in_process(eng: Engine, body: str) -> list[Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(body, {eng.class_name: eng.Value})
    return _result(out.getvalue())


def _run_fresh(program: str, seed: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=_child_path())
    return subprocess.Popen(
        [sys.executable, "-c", program], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def determinism_body(eng: Engine, builds: int) -> str:
    """The determinism program for this engine (after its import line): `builds` builds, one result line."""
    names = {"V": eng.class_name, "grad": eng.grad_attr, "backward": eng.backward_method}
    return _DETERMINISM_BODY.format(
        weights=repr(list(FAN_OUT_WEIGHTS)), builds=builds, mark=RESULT_MARK, **names
    )


def probe_determinism(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """The same float graph, differentiated repeatedly here and under several hash seeds: same bits?"""
    eng = resolve_engine(engine)
    builds = max(2, min(examples, 10))
    body = determinism_body(eng, builds)
    source = f"{eng.import_line()}\n{body}"
    runs: dict[str, list[Any]] = {}
    notes = []
    try:
        runs["this process"] = engine_call("backward()", _run_in_process, eng, body)
    except EngineRaised as raised:
        notes.append(f"in this process the graph could not be differentiated ({raised.line()})")
    children = {s: _run_fresh(source, s) for s in HASH_SEEDS}
    for s, child in children.items():
        try:
            out, err = child.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            notes.append(f"PYTHONHASHSEED={s}: timed out")
            continue
        if child.returncode == 0:
            runs[f"PYTHONHASHSEED={s}"] = _result(out)
        else:
            notes.append(f"PYTHONHASHSEED={s}: {(err.strip().splitlines() or ['no output'])[-1]}")
    reason = (
        f"{builds} builds of an 11-leaf float graph with fan-out, in this process and in fresh "
        f"interpreters with PYTHONHASHSEED in {', '.join(HASH_SEEDS)}"
    )
    if notes:
        reason += "; " + "; ".join(notes)
    judged = sum(len(grads) for grads in runs.values())
    seen: dict[str, list[str]] = {}  # the gradients of x, as printed, and where each was seen
    for where, grads in runs.items():
        for i, g in enumerate(grads):
            seen.setdefault(json.dumps(g), []).append(f"{where}, build {i + 1}")
    if len(seen) <= 1:
        return outcome("determinism", [], judged=judged, unit="builds", reason=reason)
    variants = [f"{json.loads(g)[0]} ({places[0]})" for g, places in seen.items()]
    reproducer = "\n".join(
        [
            "import os, subprocess, sys",
            f"PROGRAM = {source!r}",
            "for seed in " + repr(HASH_SEEDS[:2]) + ":",
            "    env = dict(os.environ, PYTHONHASHSEED=seed)",
            "    out = subprocess.run([sys.executable, '-c', PROGRAM], env=env, capture_output=True,",
            "                         text=True, check=True).stdout",
            f"    result = [line for line in out.splitlines() if line.startswith({RESULT_MARK!r})][-1]",
            f"    runs = eval(result.removeprefix({RESULT_MARK!r}))",
            "    print(f'PYTHONHASHSEED={seed}: d y/d x in each build:', [g[0] for g in runs])",
            "print('expected: one value, the same in every build and under every seed; actual: above')",
        ]
    )
    finding = Finding(
        "nondeterministic",
        "determinism",
        f"the same float graph gives {len(seen)} different gradients across runs: dy/dx = "
        + ", ".join(variants[:4]),
        reproducer=reproducer,
        expected="the same bits in every run",
        actual="; ".join(variants),
    )
    return outcome("determinism", [finding], judged=judged, unit="builds", reason=reason)


# ---------------------------------------------------------------------- bad inputs
#: Data that is not a finite real number: (source, value).
GARBAGE: tuple[tuple[str, Any], ...] = (
    ("'abc'", "abc"),
    ("None", None),
    ("complex(1, 2)", complex(1, 2)),
    ("float('nan')", math.nan),
    ("True", True),
    ("[1]", [1]),
)


def _what_happens_next(eng: Engine, v: Any) -> str:
    """Use an accepted garbage Value as a number: where does it fail, if anywhere?"""
    steps: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        ("v * v", lambda s: s["v"] * s["v"]),
        ("v * v + v", lambda s: s["y"] + s["v"]),
        ("backward()", lambda s: eng.backward(s["y"])),
    ]
    state = {"v": v, "y": None}
    for label, step in steps:
        try:
            result = engine_call(label, step, state)
        except EngineRaised as raised:
            return f"fails later, in {label}: {raised.line()}"
        if result is not None:
            state["y"] = result
    try:
        data, grad = engine_call("reading", lambda: (eng.data(state["y"]), eng.grad(v)))
    except EngineRaised as raised:  # an attribute missing on a half-built Value
        return f"never fails in arithmetic, then: {raised.line()}"
    return f"never fails: v * v + v = {data!r}, its gradient {grad!r}"


def probe_bad_inputs(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Garbage as data and as an operand: refused at once, or accepted silently?"""
    eng = resolve_engine(engine)
    accepted = []
    for source, x in GARBAGE:
        try:
            v = engine_call("make", eng.make, x)
        except EngineRaised:
            continue  # refused at once: what we want
        accepted.append((source, _what_happens_next(eng, v)))
    findings = []
    if accepted:
        lines = ["for bad in [" + ", ".join(s for s, _ in accepted) + "]:"]
        lines += [
            "    try:",
            "        v = {V}(bad)",
            "        y = v * v + v",
            "        y.{backward}()",
            "        print(repr(bad), 'expected: an error at once; actual: accepted, v*v+v =', y.{data})",
            "    except Exception as exc:",
            "        print(repr(bad), 'expected: an error at once; actual: accepted, then', repr(exc))",
        ]
        findings.append(
            Finding(
                "accepts_invalid",
                "bad_inputs",
                f"accepts {len(accepted)} of {len(GARBAGE)} invalid data values without an error: "
                + ", ".join(f"{s} ({what.split(':')[0]})" for s, what in accepted),
                reproducer=program(eng, *lines),
                expected="TypeError or ValueError when the Value is made",
                actual="; ".join(f"{s}: accepted, {what}" for s, what in accepted),
            )
        )
    findings += _str_operand(eng)
    reason = f"{len(GARBAGE)} invalid data values ({', '.join(s for s, _ in GARBAGE)}) and v * 's'"
    return outcome("bad_inputs", findings, judged=len(GARBAGE) + 1, unit="inputs", reason=reason)


def _str_operand(eng: Engine) -> list[Finding]:
    for start in (2, 2.0):  # an int first: "s" * 2 is a str in Python, so int data shows more
        try:
            v = engine_call("make", eng.make, start)
        except EngineRaised:
            continue
        try:
            w = engine_call("v * 's'", lambda: v * "s")  # noqa: B023
        except EngineRaised:
            return []  # refused at once
        try:
            got = repr(engine_call("reading", eng.data, w))
        except EngineRaised as raised:
            got = f"a Value whose data cannot be read ({raised.line()})"
        reproducer = program(
            eng,
            f"v = {{V}}({start!r})",
            "try:",
            "    w = v * 's'",
            "    print(\"expected: TypeError for v * 's'; actual: accepted, data =\", repr(w.{data}))",
            "except Exception as exc:",
            "    print('refused:', repr(exc))",
        )
        return [
            Finding(
                "accepts_invalid",
                "bad_inputs",
                f"v * 's' with v = {start!r} is accepted: data {got}",
                "mul",
                reproducer,
                "TypeError naming the op and the str",
                f"accepted, data {got}",
            )
        ]
    return []


# ---------------------------------------------------------------------- edge points
# derived from the op table: autograd.testing.probes.edges
from autograd.testing.probes.edges import probe_edge_points, probe_out_of_domain  # noqa: E402


# ---------------------------------------------------------------------- conventions
def _change(first: Any, second: Any) -> str:
    if second == 2 * first:
        return "doubled"
    if second == first:
        return "unchanged"
    return f"{show(first)} -> {show(second)}"


def _backward_numbers(eng: Engine) -> tuple[list[Any], list[Any], Any]:
    """The engine's side (nothing else): gradients of a, b, h, y after one and two backward()
    on y = (a*b)*a, and the output's gradient after backward() from 5.0."""
    a, b = eng.make(3.0), eng.make(2.0)
    h = a * b
    y = h * a
    eng.backward(y)
    first = [eng.grad(v) for v in (a, b, h, y)]
    eng.backward(y)
    second = [eng.grad(v) for v in (a, b, h, y)]
    a, b = eng.make(3.0), eng.make(2.0)
    y = (a * b) * a
    eng.set_grad(y, 5.0)
    eng.backward(y)
    return first, second, eng.grad(y)


def _backward_facts(first: list[Any], second: list[Any], seeded: Any) -> str:
    """Second backward() on y = (a*b)*a, and the output's gradient seeding, in words."""
    leaves = sorted({_change(first[0], second[0]), _change(first[1], second[1])})
    interior = _change(first[2], second[2])
    accumulates = {
        "doubled": "interior gradients accumulate across calls",
        "unchanged": "interior nodes hold the latest pass only",
    }.get(interior, "")
    facts = [
        f"a second backward() on y = (a*b)*a: leaf gradients {' and '.join(leaves)}, interior ones {interior}"
        + (f" ({accumulates})" if accumulates else "")
        + f", the output's {_change(first[3], second[3])}"
    ]
    seeding = {
        1: "assigned 1 (a gradient left on it is overwritten)",
        6: "1 is added to it (a gradient left on it flows back too)",
    }.get(seeded, f"becomes {show(seeded)}")
    facts.append(f"the output's gradient is {seeding}")
    return "; ".join(facts)


_BACKWARD_FACTS_REPRODUCER = (
    "a, b = {V}(3.0), {V}(2.0)",
    "h = a * b",
    "y = h * a",
    "y.{backward}()",
    "print('after one backward():  a, b, h, y gradients', a.{grad}, b.{grad}, h.{grad}, y.{grad})",
    "y.{backward}()",
    "print('after two backward():  a, b, h, y gradients', a.{grad}, b.{grad}, h.{grad}, y.{grad})",
    "a, b = {V}(3.0), {V}(2.0)",
    "y = (a * b) * a",
    "y.{grad} = 5.0",
    "y.{backward}()",
    "print('output gradient 5.0 before backward(), after:', y.{grad})",
)


def probe_conventions(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Facts about backward() that engines choose differently; none of them is a defect."""
    eng = resolve_engine(engine)
    findings, notes = [], []
    try:
        numbers = engine_call("backward()", _backward_numbers, eng)
    except EngineRaised as raised:
        notes.append(f"backward conventions not determined: {raised.line()}")
    else:
        summary = _backward_facts(*numbers)
        findings.append(
            Finding("convention", "conventions", summary, None, program(eng, *_BACKWARD_FACTS_REPRODUCER))
        )
    if eng.supports("relu"):
        try:
            slope = engine_call("relu(0)", _relu_slope_at_zero, eng)
        except EngineRaised as raised:
            notes.append(f"relu'(0) not determined: {raised.line()}")
        else:
            reproducer = program(
                eng, "x = {V}(0.0)", "x.relu().{backward}()", 'print("relu\'(0) =", x.{grad})'
            )
            findings.append(
                Finding(
                    "convention", "conventions", f"relu'(0) is taken as {show(slope)}", "relu", reproducer
                )
            )
    reason = "second backward(), output gradient seeding, relu'(0)"
    if notes:
        reason += "; " + "; ".join(notes)
    return outcome("conventions", findings, judged=len(findings), unit="facts", reason=reason)


def _relu_slope_at_zero(eng: Engine) -> Any:
    x = eng.make(0.0)
    eng.backward(OPS["relu"].apply(eng, [x], None))
    return eng.grad(x)


# ---------------------------------------------------------------------- support
def _op_error(eng: Engine, op: str, const: Any) -> str:
    spec = OPS[op]
    try:
        engine_call(op, lambda: spec.apply(eng, [eng.make(1.5) for _ in range(spec.arity)], const))
    except EngineRaised as raised:
        return raised.line()
    return "no error"


def _number_type_facts(eng: Engine) -> list[str]:
    """What the adapter found int and Fraction data to become (``Engine.number_types``), in words."""
    facts = []
    for kind, example in (("int", 3), ("fraction", Fraction(1, 3))):
        label = "Fraction" if kind == "fraction" else kind
        how = eng.number_types[kind]
        if how == "refused":
            try:
                engine_call("make", eng.make, example)
            except EngineRaised as raised:
                facts.append(f"{label} data: refused ({raised.line()})")
            else:
                facts.append(f"{label} data: refused by + - * / or backward()")
        elif how == "float":
            try:
                made = engine_call("make", lambda: eng.data(eng.make(example)))  # noqa: B023
            except EngineRaised:  # accepted when the adapter probed it; refused now
                made = None
            if isinstance(made, float):
                facts.append(f"{label} data: silently converted to float ({example!r} -> {made!r})")
            else:
                facts.append(f"{label} data: does not stay exact through + - * / and backward()")
    return facts


def _op_reproducer(eng: Engine, source: str) -> str:
    return program(
        eng,
        "from fractions import Fraction",
        "x, y = {V}(1.5), {V}(1.5)",
        "try:",
        f"    {source}",
        f"    print('{source}: supported')",
        "except Exception as exc:",
        f"    print('{source}: unsupported,', type(exc).__name__, exc)",
    )


def probe_support(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """The ops of the table (constants included) and the number types the engine lacks."""
    eng = resolve_engine(engine)
    findings = []
    probed = [name for name, spec in OPS.items() if not spec.variadic]  # vsum, dot: optional fused ops
    for name in probed:
        spec = OPS[name]
        usable = spec.usable_consts(eng) if spec.consts else ()
        if not eng.supports(name):
            const = spec.consts[0] if spec.consts else None
            error = _op_error(eng, name, const)
            source = spec.source(["x", "y"][: spec.arity], const)
            reproducer = _op_reproducer(eng, source)
            findings.append(
                Finding("unsupported", "support", f"{source} is not supported ({error})", name, reproducer)
            )
        elif len(usable) < len(spec.consts):
            missing = [c for c in spec.consts if not any(_same_const(c, u) for u in usable)]
            const = missing[0]
            source = spec.source(["x"], const)
            reproducer = _op_reproducer(eng, source)
            findings.append(
                Finding(
                    "unsupported",
                    "support",
                    f"{', '.join(spec.source(['x'], c) for c in missing)} not supported "
                    f"({_op_error(eng, name, const)})",
                    name,
                    reproducer,
                )
            )
    facts = _number_type_facts(eng)
    if facts:
        reproducer = program(
            eng,
            "from fractions import Fraction",
            "for x in (3, Fraction(1, 3)):",
            "    try:",
            "        v = {V}(x)",
            "        y = v * v + v",
            "        y.{backward}()",
            "        print(repr(x), 'expected exact: v*v+v =', x * x + x, 'and d/dv =', 2 * x + 1, ';',",
            "              'actual:', repr(y.{data}), repr(v.{grad}))",
            "    except Exception as exc:",
            "        print(repr(x), 'refused:', type(exc).__name__, exc)",
        )
        findings.append(Finding("unsupported", "support", "; ".join(facts), None, reproducer))
    reason = f"{len(probed)} ops of the table (their reflected forms and constants), int and Fraction data"
    judged = len(probed) + 2  # each op, int data, Fraction data
    return outcome("support", findings, judged=judged, unit="ops and number types", reason=reason)


#: The probes by name, in the order an audit runs them.
PROBES: dict[str, Callable[..., CheckOutcome]] = {
    "support": probe_support,
    "edge_points": probe_edge_points,
    "out_of_domain": probe_out_of_domain,
    "bad_inputs": probe_bad_inputs,
    "conventions": probe_conventions,
    "determinism": probe_determinism,
    "depth": probe_depth,
}
