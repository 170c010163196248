"""Regenerate docs/frameworks/: the audit of the frameworks people train with, function by function.

    tox -e frameworks                     # = python .ci/frameworks.py
    python .ci/frameworks.py --only mygrad  # re-audit one, the others from the last run
    python .ci/frameworks.py --reports      # audit nothing: each defect's report made again
    python .ci/frameworks.py --check pytorch  # CI: the function checks find the saved defects
    python .ci/frameworks.py --render     # audit nothing: the pages from the saved results

Each framework is audited through the adapter the library ships for it (0-d float64 tensors or
arrays), in a child process, by the command line a user runs: the table's ops and every
elementwise function the adapter maps, identified against the catalogue and judged at the edges
of its domain against certified references, to first and second order where the framework has
one.  For each defect the run then writes what a maintainer needs to act on it:

- a **standalone reproducer** importing only the framework (the adapter writes it from the same
  source text of the function that the audit called), run once: its output goes into the page;
- **where it occurs**: the defect's point moved along its most extreme operand (the others held),
  on its side of zero, by bisection over the floats in order, up and down to where the framework's
  number is right again by the finding's own criterion (not finite; zero for a nonzero result; or
  off by at least a sixteenth of the error found, and where the exact result is subnormal or zero,
  off by at least a 1024th of the smallest normal number), narrowed to the part around the point
  where 64 evenly spread points all show it; 16 points spread over it are then checked and counted;
- its **likely cause** and **upstream status**, from NOTES (written by hand after searching the
  framework's issue tracker; a defect without a note says it has not been searched).

Results are saved as JSON in .ci/framework-results/ (the pages are rendered from them alone:
tests/test_framework_pages.py checks that the committed pages are what ``--render`` writes).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.metadata
import itertools
import json
import math
import re
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the autograd of this checkout, installed or not
from autograd.testing.findings import DEFECT_KINDS, SEVERITIES  # noqa: E402

RESULTS = ROOT / ".ci" / "framework-results"
DOCS = ROOT / "docs" / "frameworks"
TIMEOUT = 1800  # seconds one framework's audit may take
SAMPLES = 16  # points checked inside each interval found
GRID = 64  # points that narrow an interval to the part around the finding


@dataclass(frozen=True)
class Framework:
    name: str  # the page's file name
    title: str
    requirement: str  # pinned in pyproject.toml's extra of the same name
    adapter: str  # MODULE:OBJECT


FRAMEWORKS = (
    Framework("pytorch", "PyTorch", "torch==2.13.0", "autograd.testing.adapters:torch_float64"),
    Framework("jax", "JAX", "jax==0.10.2", "autograd.testing.adapters.jax:jax_float64"),
    Framework("mygrad", "MyGrad", "mygrad==2.5.0", "autograd.testing.adapters.mygrad:mygrad_float64"),
    Framework(
        "tinygrad", "tinygrad", "tinygrad==0.14.0", "autograd.testing.adapters.tinygrad:tinygrad_float64"
    ),
    # installed apart (its import name is autograd): tox.ini's frameworks environment does it
    Framework("hips", "HIPS autograd", "autograd==1.9.1", "autograd.testing.adapters.hips:hips_float64"),
)
#: Frameworks the issue names that have no adapter yet, and why.
NOT_AUDITED: tuple[tuple[str, str], ...] = ()

#: By hand, after searching the framework's issue tracker: the likely cause and upstream status of
#: each defect, keyed framework, function, kind.
NOTES: dict[str, Any] = tomllib.loads((ROOT / ".ci" / "framework-notes.toml").read_text())


# ---------------------------------------------------------------------- reading findings
_AT = re.compile(
    r"^(?:(?:d/d\w+|forward|backward\(\)) of )?(?P<expr>.+?) "
    r"at (?P<point>\w+ = [^,:;\s]+(?:, \w+ = [^,:;\s]+)*)(?:[:;]| raises)"
)


def expression_of(summary: str) -> tuple[str, list[tuple[str, float]]] | None:
    """The expression and the point of a finding's summary (``x.acosh() at x = 1e+300: ...``),
    None for a finding of a whole graph."""
    found = _AT.match(summary)
    if found is None:
        return None
    leaves = []
    for part in found["point"].split(", "):
        name, _, number = part.partition(" = ")
        leaves.append((name, float(number)))
    return found["expr"], leaves


def order_of(finding: dict[str, Any]) -> int:
    """2 for a finding of the second derivatives at the edges, else 1."""
    return 2 if finding["check"] == "edge_second_order" else 1


def row_of(op: str) -> str:
    """The catalogue row (or table op) a finding's op names: ``celu~elu`` -> ``elu``; a function
    the audit did not identify (``acos~?``) by its own name."""
    method, _, row = op.rpartition("~")
    return method if row == "?" else row


# ---------------------------------------------------------------------- where a defect occurs
def _key(x: float) -> int:
    """The floats in order as integers (-0.0 and 0.0 are one)."""
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return bits if bits >= 0 else -(bits & 0x7FFFFFFFFFFFFFFF)


def _float(k: int) -> float:
    return struct.unpack("<d", struct.pack("<q", k if k >= 0 else (-k) | -0x8000000000000000))[0]


class Judge:
    """Does a point show the defect a finding reports?  The framework's value and gradients (through
    the adapter's scalar class) against the certified reference of the same expression."""

    def __init__(self, adapter: Any, finding: dict[str, Any], expr: str, names: list[str]) -> None:
        import sympy

        from autograd.testing import resolve_engine
        from autograd.testing.ops import OPS
        from autograd.testing.ops.catalogue import known

        self.engine, self.names, self.kind = resolve_engine(adapter=adapter), names, finding["kind"]
        self.order = order_of(finding)
        self.code = compile(expr, "<finding>", "eval")  # ours: an expression that does not parse propagates
        found = (finding.get("severity") or {}).get("relative_error")
        self.threshold = 1e-3 if found is None else min(max(found / 16, 16 * 2.0**-52), 1e-3)
        numbers = [float(x) for x in re.findall(r"[-+]?(?:nan|inf|[\d.]+(?:e[-+]?\d+)?)", finding["actual"])]
        #: the finding's class: the same class at another point is the same defect
        self.way = (
            "not finite"
            if any(not math.isfinite(x) for x in numbers)
            else "zero"
            if numbers and all(x == 0 for x in numbers)
            else "off"
        )
        self.symbols = sympy.symbols(names, real=True)
        method, row = finding["op"].rpartition("~")[0], row_of(finding["op"])
        specs = {}
        for name in set(re.findall(r"\.(\w+)\(", expr)):
            spec = known(row) if name == method else OPS[name] if name in OPS else known(name)
            if spec.parameter:
                raise ValueError(f"{spec.name} is a family with a parameter the audit fitted")
            specs[name] = spec
        self.sym = _sympy(expr, specs, dict(zip(names, self.symbols, strict=True)))
        # the value, then the gradient or every entry of the Hessian (both orders of a mixed partial)
        indices = itertools.product(range(len(names)), repeat=self.order)
        partials = (sympy.diff(self.sym, *(self.symbols[i] for i in index)) for index in indices)
        self.exprs = [self.sym, *partials]
        if any(e.has(sympy.Derivative) for e in self.exprs):
            raise ValueError(f"sympy has no closed form of the derivative of {expr}")

    def shows(self, point: list[float]) -> bool:
        from autograd.testing.oracles.derivatives import derivatives_of
        from autograd.testing.oracles.reference import ReferenceUnresolved, certify

        try:
            ref = certify(self.symbols, self.exprs, point, exact=False)
        except (ReferenceUnresolved, ValueError):
            return False
        wanted = ref[:1] if self.kind == "wrong_value" else ref[1:]
        if any(not r.defined or not abs(float(r.value)) <= sys.float_info.max for r in wanted):
            return False
        from autograd.testing import boundary

        engine = self.engine

        def build() -> tuple[list[Any], list[Any], Any]:
            leaves = [engine.make(x) for x in point]
            names = dict(zip(self.names, leaves, strict=True))
            out = boundary.engine_call("forward", eval, self.code, {"Fraction": Fraction}, names)
            return leaves, leaves, out  # a framework's gradients do not pass through interior .grad

        try:  # only the framework's calls are inside the boundary: a fault of ours propagates
            if self.order == 2:
                found = derivatives_of(build, engine, len(point), 2)
                actual = [found[index] for index in sorted(found)]
            else:
                leaves, _, out = build()
                engine.backward(out)
                actual = (
                    [engine.data(out)] if self.kind == "wrong_value" else [engine.grad(v) for v in leaves]
                )
        except boundary.EngineRaised:
            return self.kind == "crash"
        return any(self._off(float(a), float(r.value)) for a, r in zip(actual, wanted, strict=True))

    def _off(self, actual: float, expected: float) -> bool:
        if self.way == "not finite":
            return not math.isfinite(actual)
        if abs(expected) < sys.float_info.min:  # zero or subnormal: off by a good part of the normal range
            far = math.isfinite(actual) and abs(actual - expected) >= sys.float_info.min / 1024
            return far and (self.way != "zero" or actual == 0)
        if self.way == "zero":
            return actual == 0
        return math.isfinite(actual) and abs(actual - expected) >= self.threshold * abs(expected)


def _sympy(expr: str, specs: dict[str, Any], symbols: dict[str, Any]) -> Any:
    """``expr`` (method syntax) as a sympy expression: each method its row's sympy function, each
    float literal the rational it stores."""
    import sympy

    from autograd.testing.adapters.common import function_syntax

    class Rewrite(ast.NodeTransformer):
        def visit_Constant(self, node: ast.Constant) -> ast.AST:
            if isinstance(node.value, float):
                q = Fraction(node.value)
                exact = [ast.Constant(q.numerator), ast.Constant(q.denominator)]
                return ast.Call(ast.Name("Fraction", ast.Load()), exact, [])
            return node

    calls, _ = function_syntax(expr, set(specs))
    tree = ast.fix_missing_locations(Rewrite().visit(ast.parse(calls, mode="eval")))
    namespace = {
        **symbols,
        "Fraction": sympy.Rational,
        **{m: (lambda *a, s=s: s.sym(list(a), None)) for m, s in specs.items()},
    }
    return eval(compile(tree, "<expression>", "eval"), namespace)


def _edge(shows: Any, near: int, far: int) -> int:
    """The last key from ``near`` (shows) towards ``far`` that shows, by bisection (one crossing)."""
    if shows(far):
        return far
    while abs(far - near) > 1:
        mid = (far + near) // 2
        near, far = (mid, far) if shows(mid) else (near, mid)
    return near


def _around(shows: Any, here: int, lo: int, hi: int) -> tuple[int, int]:
    """The part of [lo, hi] around ``here`` where every one of 64 evenly spread keys shows the
    defect, its ends found again by bisection: the search above assumes one crossing a side, and a
    defect at both tiny and huge inputs (not between) would otherwise span both."""
    keys = sorted({*(lo + (hi - lo) * k // (GRID - 1) for k in range(GRID)), here})
    marks = [k == here or shows(k) for k in keys]
    a = b = keys.index(here)
    while a > 0 and marks[a - 1]:
        a -= 1
    while b < len(keys) - 1 and marks[b + 1]:
        b += 1
    low = keys[a] if a == 0 else _edge(shows, keys[a], keys[a - 1])
    high = keys[b] if b == len(keys) - 1 else _edge(shows, keys[b], keys[b + 1])
    return low, high


def interval(judge: Judge, leaves: list[tuple[str, float]]) -> dict[str, Any]:
    """The interval of the most extreme operand, around the finding's point and on its side of zero,
    where the defect shows: bisection away from zero and towards it, then narrowed to the part
    around the point (:func:`_around`)."""
    point = [x for _, x in leaves]
    i = max(range(len(point)), key=lambda j: abs(math.log2(abs(point[j]))) if point[j] else 1100.0)

    def shows(key: int) -> bool:
        return judge.shows([*point[:i], _float(key), *point[i + 1 :]])

    here = _key(point[i])
    if not shows(here):
        return {"operand": leaves[i][0], "shown": False}
    side = -1 if point[i] < 0 else 1
    tiny, top = _key(side * 5e-324), _key(side * sys.float_info.max)
    out = _edge(shows, here, top)
    inward = _edge(shows, here, tiny) if here != 0 else 0
    lo, hi = _around(shows, here, *sorted((inward, out)))
    samples = [lo + (hi - lo) * k // (SAMPLES - 1) for k in range(SAMPLES)]
    return {
        "operand": leaves[i][0],
        "shown": True,
        "low": _float(lo),
        "high": _float(hi),
        "sampled": SAMPLES,
        "showing": sum(shows(k) for k in samples),
    }


# ---------------------------------------------------------------------- running
def load_adapter(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def audit(fw: Framework) -> dict[str, Any]:
    """The audit's JSON document (the CLI in a child process), with its wall time."""
    command = [sys.executable, "-m", "autograd.testing", "audit", "--json", "--adapter", fw.adapter]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=TIMEOUT, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{fw.title}: the audit exited with {done.returncode}:\n{done.stderr[-3000:]}")
    return {"audit": json.loads(done.stdout), "seconds": round(time.perf_counter() - start, 1)}


def defect_report(fw: Framework, adapter: Any, finding: dict[str, Any]) -> dict[str, Any]:
    """What the page says of one defect: standalone reproducer and its output, interval."""
    parsed = expression_of(finding["summary"])
    report: dict[str, Any] = {"finding": finding}
    if parsed is None:
        return report
    expr, leaves = parsed
    program = adapter.standalone(expr, leaves, order=order_of(finding))
    # python -c puts the directory it runs in first on the path: a framework installed apart runs
    # in its own (HIPS autograd's import name, autograd, is this package's too)
    where = getattr(adapter, "standalone_directory", None)
    ran = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=600, cwd=where
    )
    report.update(
        expression=expr,
        point=leaves,
        standalone=program,
        output=ran.stdout.strip() or (ran.stderr.strip().splitlines() or ["(no output)"])[-1],
    )
    if _ops_in(expr) > 1:  # a graph the audit drew: where it occurs is its point
        report["interval"] = {"skipped": "a drawn graph of several ops, not one function"}
        return report
    try:
        judge = Judge(adapter, finding, expr, [n for n, _ in leaves])
    except (KeyError, StopIteration, ValueError) as exc:
        report["interval"] = {"skipped": f"{type(exc).__name__}: {exc}"}
    else:
        report["interval"] = interval(judge, leaves)
    return report


def _ops_in(expr: str) -> int:
    """How many operations ``expr`` applies (calls, operators)."""
    kinds = (ast.Call, ast.BinOp, ast.UnaryOp)
    return sum(isinstance(node, kinds) for node in ast.walk(ast.parse(expr, mode="eval")))


def version_of(fw: Framework, adapter: Any) -> str:
    """The installed version of the framework (looked up where it is installed apart, if it is)."""
    name = fw.requirement.partition("==")[0]
    where = getattr(adapter, "standalone_directory", None)
    if where is None:
        return importlib.metadata.version(name)
    (found,) = importlib.metadata.distributions(name=name, path=[where])
    return str(found.version)


def run(fw: Framework) -> dict[str, Any]:
    result = audit(fw)
    adapter = load_adapter(fw.adapter)
    findings = [f for f in result["audit"]["findings"] if f["kind"] in DEFECT_KINDS]
    result["defects"] = [defect_report(fw, adapter, f) for f in findings]
    result["version"] = version_of(fw, adapter)
    return result


# ---------------------------------------------------------------------- pages
def save(fw: Framework, result: dict[str, Any]) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{fw.name}.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")


def saved(fw: Framework) -> dict[str, Any] | None:
    path = RESULTS / f"{fw.name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def functions_of(result: dict[str, Any]) -> dict[str, str]:
    """Each function the audit judged, by its row (table op or catalogue row) -> how it was called."""
    caps = result["audit"]["capabilities"]
    judged = {op: op for op in caps["ops"]}
    for form, row in caps.get("extra_ops", {}).items():
        # a function not identified (checked by self-consistency) by its own name
        judged.setdefault(row or re.findall(r"(\w+)\(", form)[-1], form)
    return judged


def cell(result: dict[str, Any], row: str) -> str:
    """One function of one framework in the matrix: its defects' severity, or judged clean."""
    if row not in functions_of(result):
        return ""
    labels = {
        (d["finding"].get("severity") or {}).get("label", SEVERITIES[0])
        for d in result["defects"]
        if row_of(d["finding"]["op"] or "") == row
    }
    if SEVERITIES[0] in labels:
        return "**wrong**"
    if labels:
        return "at the extremes"
    return "passed"


def index_page(results: dict[str, dict[str, Any]]) -> str:
    rows = sorted({row for r in results.values() for row in functions_of(r)})
    names = [fw for fw in FRAMEWORKS if fw.name in results]
    head = "| function | " + " | ".join(f"[{fw.title}]({fw.name}.md)" for fw in names) + " |"
    lines = [
        "# The frameworks, function by function",
        "",
        "Each framework audited through the adapter the library ships for it (0-d float64 tensors or",
        "arrays): the op table and every elementwise function the adapter maps, identified against the",
        "catalogue by its values and judged at the edges of its domain against certified references,",
        "first and second derivatives where the framework has a second order. A cell says **wrong**",
        "(a defect at an ordinary point, or as large as the result), *at the extremes* (inaccurate",
        "only at extreme points), *passed* (judged, no defect) or nothing (the adapter maps no such",
        "function). How a finding is judged: [the verdict standard](../verdicts.md). Regenerate with",
        "`tox -e frameworks`.",
        "",
        head,
        "|---|" + "---|" * len(names),
        *(f"| `{row}` | " + " | ".join(cell(results[fw.name], row) for fw in names) + " |" for row in rows),
        "",
        "## Audited",
        "",
        "| framework | version | functions judged | defects | audit time |",
        "|---|---|---|---|---|",
        *(
            f"| [{fw.title}]({fw.name}.md) | {results[fw.name]['version']} | "
            f"{len(functions_of(results[fw.name]))} | {len(results[fw.name]['defects'])} | "
            f"{results[fw.name]['seconds']:.0f} s |"
            for fw in names
        ),
        "",
        "Audit time: the wall time of the whole audit (every check, not only the functions) on the",
        "2-core machine that generated these pages, beside whatever else ran on it then: a ceiling, not",
        "a benchmark.",
        "",
        *(["## Not audited yet", ""] if NOT_AUDITED else []),
        *(f"- **{name}**: {why}." for name, why in NOT_AUDITED),
        *([""] if NOT_AUDITED else []),
    ]
    return "\n".join(lines)


def _number(x: float) -> str:
    return repr(float(x))


def where(report: dict[str, Any]) -> str:
    found = report.get("interval")
    if found is None:
        return "a graph of several ops (the harness's reproducer in the audit report)"
    if "skipped" in found:
        return f"not searched ({found['skipped']})"
    if not found["shown"]:
        return "the point itself did not show it again when the interval was searched (not repeatable)"
    others = [f"{n} = {_number(x)}" for n, x in report["point"] if n != found["operand"]]
    held = f" ({', '.join(others)})" if others else ""
    return (
        f"{found['operand']} in [{_number(found['low'])}, {_number(found['high'])}]{held}, on the point's "
        "side of zero; "
        f"{found['showing']} of {found['sampled']} points spread over it show it"
    )


#: Where a finding's expected value comes from, when not from a certified reference: a function the
#: audit did not identify is judged against its own forward's central differences.
EXPECTED_FROM = {
    "self_consistency": (
        "central differences of the framework's own forward: not identified, no certified reference"
    ),
}


def defect_section(fw: Framework, report: dict[str, Any]) -> list[str]:
    f = report["finding"]
    row = row_of(f["op"] or "")
    severity = (f.get("severity") or {}).get("label", "")
    notes = NOTES.get(fw.name, {}).get(row, {}).get(f["kind"], {})
    lines = [
        f"### `{row}`: {f['kind']}" + (f" ({severity})" if severity else ""),
        "",
        f"- **Found**: {f['summary']}",
        f"- **Expected** ({EXPECTED_FROM.get(f['check'], 'certified')}): `{f['expected']}`; "
        f"**actual**: `{f['actual']}`",
        f"- **Where**: {where(report)}",
        f"- **Likely cause**: {notes.get('cause', 'not analysed yet')}",
        f"- **Upstream**: {notes.get('upstream', 'not searched yet')}",
        "",
    ]
    if "standalone" in report:
        lines += [
            f"Reproducer (imports only {fw.title}):",
            "",
            "```python",
            report["standalone"],
            "```",
            "",
            f"Its output: `{report['output']}`",
            "",
        ]
    return lines


def framework_page(fw: Framework, result: dict[str, Any]) -> str:
    audit_doc = result["audit"]
    defects = result["defects"]
    facts = [f for f in audit_doc["findings"] if f["kind"] == "convention"]
    lines = [
        f"# {fw.title} {result['version']}",
        "",
        "[All frameworks](index.md) · [the verdict standard](../verdicts.md)",
        "",
        f"- **Audited as**: `python -m autograd.testing audit --json --adapter {fw.adapter}`",
        f"- **Functions judged**: {len(functions_of(result))} (the table's ops and the adapter's functions)",
        f"- **Defects**: {len(defects)}",
        f"- **Audit time**: {result['seconds']:.0f} s",
        "",
        "## Defects",
        "",
    ]
    if not defects:
        lines += ["None found.", ""]
    for report in defects:
        lines += defect_section(fw, report)
    lines += ["## Conventions", "", *(f"- {f['summary']}" for f in facts), ""]
    return "\n".join(lines)


def pages(results: dict[str, dict[str, Any]]) -> dict[str, str]:
    written = {"index.md": index_page(results)}
    for fw in FRAMEWORKS:
        if fw.name in results:
            written[f"{fw.name}.md"] = framework_page(fw, results[fw.name])
    return written


#: The checks that judge the framework's functions (the part of an audit CI repeats with --check).
FUNCTION_CHECKS = ("extra_ops", "edge_points", "out_of_domain", "edge_second_order")


def check(fw: Framework) -> list[str]:
    """The function checks run again on ``fw``: each defect they find that the saved result lacks,
    and each saved defect of theirs they no longer find (the pages are stale, or the harness
    changed its verdict: either way a person must look)."""
    from autograd.testing import resolve_engine, run_checks

    kept = saved(fw)
    if kept is None:
        return [f"{fw.title}: no saved result (.ci/framework-results/{fw.name}.json)"]
    outcomes = run_checks(list(FUNCTION_CHECKS), resolve_engine(adapter=load_adapter(fw.adapter)))
    now = {(f.kind, f.op) for o in outcomes.values() for f in o.findings if f.kind in DEFECT_KINDS}
    # the audit reports one finding per kind and op, from the first check that found it
    found = [d["finding"] for d in kept["defects"]]
    saved_all = {(f["kind"], f["op"]) for f in found}
    theirs = {(f["kind"], f["op"]) for f in found if f["check"] in FUNCTION_CHECKS}
    return [f"{fw.title}: new defect {d}" for d in sorted(now - saved_all)] + [
        f"{fw.title}: saved defect no longer found {d}" for d in sorted(theirs - now)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="frameworks to audit again, by name, comma-separated")
    parser.add_argument("--render", action="store_true", help="audit nothing: pages from the saved results")
    parser.add_argument(
        "--reports", action="store_true", help="audit nothing: each saved defect's report made again"
    )
    parser.add_argument(
        "--check", default="", help="frameworks whose function checks must find the saved defects (CI)"
    )
    args = parser.parse_args()
    if args.check:
        names = set(args.check.split(","))
        differences = [line for fw in FRAMEWORKS if fw.name in names for line in check(fw)]
        print("\n".join(differences) or f"{args.check}: the saved defects, no other", flush=True)
        raise SystemExit(1 if differences else 0)
    only = {n for n in args.only.split(",") if n}
    results = {}
    for fw in FRAMEWORKS:
        if args.reports and (kept := saved(fw)) is not None and (not only or fw.name in only):
            adapter = load_adapter(fw.adapter)
            kept["defects"] = [defect_report(fw, adapter, d["finding"]) for d in kept["defects"]]
            save(fw, kept)
            results[fw.name] = kept
            continue
        if args.render or args.reports or (only and fw.name not in only):
            kept = saved(fw)
            if kept is not None:
                results[fw.name] = kept
            continue
        print(f"auditing {fw.title} ...", flush=True)
        results[fw.name] = run(fw)
        save(fw, results[fw.name])
        print(
            f"  {len(results[fw.name]['defects'])} defects, audit {results[fw.name]['seconds']} s", flush=True
        )
    DOCS.mkdir(parents=True, exist_ok=True)
    for name, text in pages(results).items():
        (DOCS / name).write_text(text)


if __name__ == "__main__":
    main()
