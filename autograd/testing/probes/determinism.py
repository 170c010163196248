"""Probe ``determinism``: the same float graph, differentiated repeatedly, gives the same bits?

One float graph with fan-out, whose leaf gradients are sums whose value depends on the
order they are added in, built and differentiated several times in this process and in
fresh interpreters under several fixed ``PYTHONHASHSEED``\\ s.  Different bits:
``nondeterministic``.  (Engines that keep parents in a ``set`` show it only on floats:
rational sums do not depend on the order.)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from typing import Any

from autograd.testing.boundary import EngineRaised, child_path, engine_call
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome

#: Hash seeds of the fresh interpreters (fixed, so a verdict never depends on luck).
HASH_SEEDS = ("0", "1", "2", "3")
#: Seconds a fresh interpreter may take for its builds; past them it is named as timed out.
CHILD_TIMEOUT = 120
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


def _run_in_process(eng: Engine, body: str) -> list[Any]:
    """The gradients ``body`` prints, run here: the program is the engine's part (as it is in the
    fresh interpreters), reading what it printed is ours."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        engine_call("backward()", exec, body, {eng.class_name: eng.Value})
    return _result(out.getvalue())


def _run_fresh(program: str, seed: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=child_path())
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
        runs["this process"] = _run_in_process(eng, body)
    except EngineRaised as raised:
        notes.append(f"in this process the graph could not be differentiated ({raised.line()})")
    children = {s: _run_fresh(source, s) for s in HASH_SEEDS}
    for s, child in children.items():
        try:
            out, err = child.communicate(timeout=CHILD_TIMEOUT)
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
