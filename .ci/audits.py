"""Regenerate AUDITS.md: the audit of real scalar autograd engines from the package index.

    tox -e audits                 # installs the pinned engines below, then runs this script
    python .ci/audits.py          # the same, with the engines already installed

Each engine is audited in a fresh interpreter (``autograd.testing.audit.audit``), so
that no engine's import side effects (logging set-up, numpy warnings) reach another.
The per-engine notes on how each reported defect was confirmed are written by hand,
after checking every defect against sympy (``.ci/confirm_audits.py``): they live in
NOTES below and go into AUDITS.md as they are.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the autograd of this checkout, installed or not

from autograd.testing.findings import DEFECT_KINDS  # noqa: E402


@dataclass(frozen=True)
class Audited:
    requirement: str  # name==version, as tox.ini's [testenv:audits] installs it
    target: str  # what is passed to audit()
    why: str  # why this engine is in the list


ENGINES = (
    Audited("micrograd==0.1.0", "micrograd.engine", "the reference scalar engine everyone copies"),
    Audited("scalargrad==1.0.5", "scalargrad", "class Scalar; converts every number to float"),
    Audited("propgrad==0.1.1", "propgrad", "refuses Fraction data (TypeError)"),
    Audited("pyfit==1.0.2", "pyfit.engine", "class Scalar; no pow, tanh, exp, log, sigmoid"),
    Audited("coregrad==0.1.0", "coregrad", "class Scalar; numpy tanh; parents in a tuple"),
    Audited("femtograd==0.0.5", "femtograd.femtograd", "class value (lower case), parents in .prev"),
    Audited("tonygrad==2.0.0", "tonygrad.engine", "micrograd with tanh"),
    Audited("backprop-lib==0.1.0", "backprop.engine", "micrograd with tanh and exp, Value ** Value"),
)

#: How each engine's defects were confirmed (by hand, see .ci/confirm_audits.py), by requirement.
#: "confirm_audits" = sympy's value and derivative at the reported point (mpmath, 12,000 digits)
#: beside the engine run from hand-written lines in a fresh interpreter; "source" = the line of
#: the engine's source (site-packages) that causes it.
NOTES: dict[str, str] = {
    "micrograd==0.1.0": (
        "crash (powc): d(x**0)/dx at 0 is 0 (sympy), the engine raises ZeroDivisionError (confirm_audits, "
        "at 0.0 and, in the audit's exact check, at Fraction(0)); source: `other * self.data**(other-1)`. "
        "nondeterministic: d/dx of sum_i x*w_i (exactly 4.5 by sympy) took 5 to 8 different values between "
        "1.5 and 6.0 over 10 builds under PYTHONHASHSEED 0 and 1 in each run of confirm_audits; source: "
        "`_prev = set(_children)` and Values hash by address, so the order in which gradient shares are "
        "summed changes from build to build (and from run to run)."
    ),
    "scalargrad==1.0.5": (
        "crash (powc): as micrograd (same rule). crash (sigmoid): sigmoid(-1e4) is 1.1e-4343 exactly, 0.0 "
        "as a double, its derivative 0.0 (sympy), the engine raises OverflowError from "
        "`1 / (1 + math.exp(-self.data))` (confirm_audits). nondeterministic: as micrograd (parents in a "
        "set; confirm_audits saw 6 or 7 different sums)."
    ),
    "propgrad==0.1.1": (
        "crash (powc): as micrograd. wrong_value (sigmoid): sigmoid(-100) = 3.72e-44 (sympy), the engine "
        "returns 0.0 because it clamps every x < -50 to 0.0 (confirm_audits; an absolute error of 4e-44, "
        "but all of the value). nondeterministic: as micrograd (parents in a set)."
    ),
    "pyfit==1.0.2": "nondeterministic: as micrograd (`_prev: Set[Scalar] = set(children)`; confirm_audits).",
    "coregrad==0.1.0": (
        "crash (powc): as micrograd (`other.data * (self.data ** (other.data - 1.0))` at 0.0). "
        "wrong_value (tanh): tanh(±1e-300) = ±1e-300 (sympy), the engine's (e^2x - 1)/(e^2x + 1) gives 0.0; "
        "tanh(1e4) = 1.0, the engine gives nan (inf/inf). wrong_gradient (tanh): at 1e4 the derivative is "
        "4e-8686, 0.0 as a double, the engine gives nan (from the nan value). wrong_gradient (vpow, rpow): "
        "the exponent's gradient line is commented out in `__pow__`, so d(x**x)/dx at 0.5 is "
        "0.7071 instead of x**x*(ln x + 1) = 0.2170 and d(2**x)/dx at 0 is 0 instead of ln 2 (sympy; the "
        "audit also confirmed both by finite differences). All by confirm_audits."
    ),
    "femtograd==0.0.5": (
        "crash (powc): as micrograd. wrong_value (tanh): tanh(±1e-300) gives 0.0, want ±1e-300 (sympy), "
        "from `(math.exp(2*x)-1)/(math.exp(2*x)+1)`; crash (tanh): the same formula raises OverflowError at "
        "1e4 where tanh is 1.0. nondeterministic: parents in a set (`self.prev = set(children)`). All by "
        "confirm_audits."
    ),
    "tonygrad==2.0.0": (
        "as femtograd: the same tanh formula, the same power rule, parents in a set (confirm_audits)."
    ),
    "backprop-lib==0.1.0": (
        "as femtograd for powc, tanh and nondeterministic; wrong_gradient (vpow): `Value ** Value` unwraps "
        "the exponent to a number (its docstring says only the base gets a gradient), so d(x**x)/dx at 0.5 "
        "is 0.7071 instead of 0.2170 (sympy; confirm_audits, and finite differences in the audit)."
    ),
    "verified-autograd (this repository)": "no defects.",
}

#: Harness false alarms met while auditing these engines, each with its regression test and fix.
FALSE_ALARMS = (
    "pyfit 1.0.2 (no negation, no powers) got a `crash` from the stateful check, which fell back to "
    "`-x` and drew `x ** 2`, and would have from linearity (`Fraction * Value`): the stateful machine "
    "now draws only the ops the engine has (falling back to `a + a`), linearity is not applicable "
    "without `c * x`. Regression: `test_the_audit_never_feeds_an_engine_an_op_it_lacks` on the "
    "`tests/engines/missing_ops.py` fixture.",
    "`.ci/confirm_audits.py` first evaluated sympy's derivative of tanh at 1e4 with `sympy.N(expr, 30)`, "
    "which returned 1.1e-165 for 1 - tanh(10000)**2 = 4e-8686; it now evaluates with mpmath at 12,000 "
    "and 24,000 digits and requires both to agree. (The harness's own reference got 0.0, right as a "
    "double.)",
)

_CHILD = """\
import json, sys, time
from autograd.testing.audit import audit
start = time.perf_counter()
report = audit(sys.argv[1])
seconds = time.perf_counter() - start
data = report.to_json()
print(json.dumps({"text": str(report), "json": json.loads(data) if isinstance(data, str) else data,
                  "seconds": seconds}))
"""


def installed_version(requirement: str) -> str:
    name, _, want = requirement.partition("==")
    try:
        have = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        sys.exit(f"audits: {name} is not installed; run `tox -e audits` (or pip install {requirement})")
    if have != want:
        sys.exit(f"audits: {name} {have} is installed, AUDITS.md is about {requirement}")
    return have


def run_audit(target: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", _CHILD, target],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"audits: auditing {target} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary_row(requirement: str, result: dict) -> str:
    report = result["json"]
    findings = report["findings"]
    defects = [f for f in findings if f["kind"] in DEFECT_KINDS]
    by_kind: dict[str, list[str]] = {}
    for f in defects:
        by_kind.setdefault(f["kind"], []).append(f.get("op") or "-")
    shown = "; ".join(f"{k}: {', '.join(sorted(set(ops)))}" for k, ops in sorted(by_kind.items())) or "none"
    depths = [f["actual"].split(" (")[0] or f["expected"] for f in findings if f["kind"] == "depth_limit"]
    invalid = sum(f["kind"] == "accepts_invalid" for f in findings)
    unsupported = sorted({f.get("op") or "numbers" for f in findings if f["kind"] == "unsupported"})
    checks = report["checks"]
    na = [name for name, status in checks.items() if status == "not_applicable"]
    return (
        f"| {requirement} | `{report['class']}` | {shown} | {', '.join(depths) or '?'} | {invalid} | "
        f"{', '.join(unsupported) or '-'} | {', '.join(na) or '-'} | {result['seconds']:.0f} s |"
    )


def render(results: dict[str, dict]) -> str:
    lines = [
        "# Audits of scalar autograd engines from the package index",
        "",
        "Generated by `tox -e audits` (`.ci/audits.py`): each engine below, at the pinned version, "
        "audited with `autograd.testing.audit.audit(target)` at default settings in a fresh "
        f"interpreter (Python {sys.version_info.major}.{sys.version_info.minor}). Our own engine is "
        "the last row. Defects are `wrong_gradient`, `wrong_value`, `crash` and `nondeterministic`; "
        "everything else is information.",
        "",
        "## How each defect was confirmed",
        "",
        "Every defect reported below was checked by hand against sympy (`.ci/confirm_audits.py` "
        "evaluates sympy's value or derivative at the reported point and runs the engine there "
        "independently of the harness):",
        "",
    ]
    for requirement in results:
        lines.append(f"- **{requirement}**: {NOTES.get(requirement, 'not yet confirmed')}")
    lines += ["", "Harness false alarms met on the way, and their fixes:", ""]
    lines += [f"- {text}" for text in FALSE_ALARMS]
    lines += [
        "",
        "`inconclusive` findings below are disagreements one oracle saw and the other did not: "
        "never counted as defects.",
    ]
    lines += [
        "",
        "## Summary",
        "",
        "| engine | class | defects (kind: ops) | depth_limit | accepts_invalid | unsupported "
        "| checks not applicable | audit time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [summary_row(req, result) for req, result in results.items()]
    for requirement, result in results.items():
        lines += ["", f"## {requirement}", "", "```text", result["text"].rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    results: dict[str, dict] = {}
    for engine in ENGINES:
        installed_version(engine.requirement)
    for engine in ENGINES:
        start = time.perf_counter()
        results[engine.requirement] = run_audit(engine.target)
        print(f"audited {engine.requirement} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    results["verified-autograd (this repository)"] = run_audit("autograd")
    text = render(results)
    path = ROOT / "AUDITS.md"
    path.write_text(text)
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
