"""Confirm, independently of the harness, every defect AUDITS.md reports.

    python .ci/confirm_audits.py     # needs the engines of tox -e audits installed

For each reported defect: sympy's exact value and derivative at the reported point
(evaluated by mpmath at 12,000 digits, then rounded to a double) beside what the engine does
there, run in a fresh interpreter from a few lines written here by hand (not the
harness's reproducer), and a verdict: CONFIRMED when the engine is off (a crash
where sympy's value and derivative are finite, a value or gradient off by more than
1e-9 relative, different bits from the same program).  Nothing from
``autograd.testing`` is used.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from dataclasses import dataclass

import mpmath
import sympy

x, y = sympy.symbols("x y", real=True)


@dataclass(frozen=True)
class Case:
    engine: str  # name==version
    defect: str  # kind (op), as AUDITS.md lists it
    imports: str  # the engine's import, binding V to its scalar class
    code: str  # builds `out` from `a` (and `b`) and runs backward; `grads` lists the leaves' gradients
    expr: sympy.Expr  # the same function in sympy, of x (and y)
    point: tuple[float, ...]


def edge(engine: str, imports: str, kind: str, op: str, source: str, expr: sympy.Expr, at: float) -> Case:
    return Case(engine, f"{kind} ({op})", imports, f"a = V({at!r})\nout = {source}\n", expr, (at,))


MICROGRAD = "from micrograd.engine import Value as V"
SCALARGRAD = "from scalargrad import Scalar as V"
PROPGRAD = "from propgrad import Value as V"
COREGRAD = "from coregrad import Scalar as V"
FEMTOGRAD = "from femtograd.femtograd import value as V"
TONYGRAD = "from tonygrad.engine import Value as V"
BACKPROP = "from backprop.engine import Value as V"

sigmoid = 1 / (1 + sympy.exp(-x))
CASES = [
    edge("micrograd==0.1.0", MICROGRAD, "crash", "powc", "a ** 0", x**0, 0.0),
    edge("scalargrad==1.0.5", SCALARGRAD, "crash", "powc", "a ** 0", x**0, 0.0),
    edge("scalargrad==1.0.5", SCALARGRAD, "crash", "sigmoid", "a.sigmoid()", sigmoid, -1e4),
    edge("propgrad==0.1.1", PROPGRAD, "crash", "powc", "a ** 0", x**0, 0.0),
    edge("propgrad==0.1.1", PROPGRAD, "wrong_value", "sigmoid", "a.sigmoid()", sigmoid, -100.0),
    edge("coregrad==0.1.0", COREGRAD, "crash", "powc", "a ** 0", x**0, 0.0),
    edge("coregrad==0.1.0", COREGRAD, "wrong_gradient", "rpow", "2 ** a", 2**x, 0.0),
    edge("coregrad==0.1.0", COREGRAD, "wrong_gradient", "vpow", "a ** a", x**x, 0.5),
    edge("coregrad==0.1.0", COREGRAD, "wrong_value", "tanh", "a.tanh()", sympy.tanh(x), 1e-300),
    edge("coregrad==0.1.0", COREGRAD, "wrong_value", "tanh", "a.tanh()", sympy.tanh(x), 1e4),
    edge("coregrad==0.1.0", COREGRAD, "wrong_gradient", "tanh", "a.tanh()", sympy.tanh(x), 1e4),
    edge("femtograd==0.0.5", FEMTOGRAD, "crash", "powc", "a ** 0", x**0, 0.0),
    edge("femtograd==0.0.5", FEMTOGRAD, "wrong_value", "tanh", "a.tanh()", sympy.tanh(x), 1e-300),
    edge("femtograd==0.0.5", FEMTOGRAD, "crash", "tanh", "a.tanh()", sympy.tanh(x), 1e4),
    edge("tonygrad==2.0.0", TONYGRAD, "crash", "powc", "a ** 0", x**0, 0.0),
    edge("tonygrad==2.0.0", TONYGRAD, "wrong_value", "tanh", "a.tanh()", sympy.tanh(x), 1e-300),
    edge("tonygrad==2.0.0", TONYGRAD, "crash", "tanh", "a.tanh()", sympy.tanh(x), 1e4),
    edge("backprop-lib==0.1.0", BACKPROP, "crash", "powc", "a ** 0", x**0, 0.0),
    edge("backprop-lib==0.1.0", BACKPROP, "wrong_gradient", "vpow", "a ** a", x**x, 0.5),
    edge("backprop-lib==0.1.0", BACKPROP, "wrong_value", "tanh", "a.tanh()", sympy.tanh(x), 1e-300),
    edge("backprop-lib==0.1.0", BACKPROP, "crash", "tanh", "a.tanh()", sympy.tanh(x), 1e4),
]

_RUN = """\
{imports}
try:
{code}
    out.backward()
    print(repr([float(out.{data})] + [float(v.{grad}) for v in {leaves}]))
except Exception as exc:
    print(repr(f"{{type(exc).__name__}}: {{exc}}"))
"""


def run_engine(case: Case, seed: str = "0") -> object:
    leaves = "[a, b]" if len(case.point) == 2 else "[a]"
    code = "\n".join("    " + line for line in case.code.strip().splitlines())
    program = _RUN.format(imports=case.imports, code=code, data="data", grad="grad", leaves=leaves)
    env = dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True, text=True,
                          env=env, check=True)  # fmt: skip
    return eval(done.stdout.strip().splitlines()[-1], {"nan": math.nan, "inf": math.inf})


def sympy_reference(case: Case) -> list[float]:
    """sympy's value and derivatives, evaluated by mpmath at 12,000 and 24,000 digits (they must agree).

    So many digits because 1 - tanh(x)**2 at x = 1e4 is 4e-8686: at fewer digits it cancels to
    0 (and sympy.N(expr, 30) even returns a wrong 1e-165 for it).
    """
    symbols = (x, y)[: len(case.point)]
    exprs = [case.expr, *(sympy.diff(case.expr, s) for s in symbols)]
    f = sympy.lambdify(symbols, exprs, modules="mpmath")
    results = []
    for dps in (12_000, 24_000):
        with mpmath.workdps(dps):
            results.append([float(v) for v in f(*(mpmath.mpf(p) for p in case.point))])
    assert results[0] == results[1], results
    return results[0]


def off(got: float, want: float) -> bool:
    if got != got:  # NaN
        return True
    return abs(got - want) > 1e-9 * max(abs(want), 1e-300)


def verdict(case: Case, want: list[float], got: object) -> str:
    kind = case.defect.split()[0]
    if isinstance(got, str):
        return "CONFIRMED" if kind == "crash" else f"engine raised ({got}), reported as {kind}"
    assert isinstance(got, list)
    if kind == "wrong_value":
        return "CONFIRMED" if off(got[0], want[0]) else "NOT confirmed: the value is right"
    if kind == "wrong_gradient":
        bad = [i for i in range(1, len(want)) if off(got[i], want[i])]
        return "CONFIRMED" if bad else "NOT confirmed: the gradient is right"
    return f"NOT confirmed: no {kind}"


#: d/dx of x*w0 + x*w1 + ... at x = 1 is w0 + w1 + ...: a float sum whose value depends on the order.
WEIGHTS = (1e16, 1.0, -1e16, 1.0, 3.0, 1e16, -1e16, 0.5, 2.0, -3.0)
_FAN_OUT = """\
{imports}
seen, kept = set(), []
for i in range(10):
    kept.append([object() for _ in range(7 * i)])
    a = V(1.0)
    terms = [a * V(w) for w in {weights}]
    out = terms[0]
    for t in terms[1:]:
        out = out + t
    out.backward()
    kept.append(out)
    seen.add(float(a.grad))
print(sorted(seen))
"""
NONDETERMINISTIC = {
    "micrograd==0.1.0": MICROGRAD, "scalargrad==1.0.5": SCALARGRAD, "propgrad==0.1.1": PROPGRAD,
    "pyfit==1.0.2": "from pyfit.engine import Scalar as V", "femtograd==0.0.5": FEMTOGRAD,
    "tonygrad==2.0.0": TONYGRAD, "backprop-lib==0.1.0": BACKPROP,
}  # fmt: skip


def confirm_nondeterminism(engine: str, imports: str) -> bool:
    exact = sum(sympy.Rational(w) for w in WEIGHTS)
    program = _FAN_OUT.format(imports=imports, weights=repr(WEIGHTS))
    seen = set()
    for seed in ("0", "1"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True,
                              text=True, env=env, check=True)  # fmt: skip
        seen.update(eval(done.stdout.strip().splitlines()[-1]))
    confirmed = len(seen) > 1
    result = "CONFIRMED" if confirmed else "NOT confirmed: one value"
    print(f"{engine:22} {'nondeterministic':24} dy/dx = {sympy.N(exact)} exactly; engine gave {sorted(seen)}")
    print(f"{'':22} {'':24}    over 10 builds x PYTHONHASHSEED 0, 1 -> {result}")
    return confirmed


def main() -> None:
    failures = 0
    for engine, imports in NONDETERMINISTIC.items():
        failures += not confirm_nondeterminism(engine, imports)
    for case in CASES:
        want = sympy_reference(case)
        got = run_engine(case)
        result = verdict(case, want, got)
        failures += not result.startswith("CONFIRMED")
        point = ", ".join(map(repr, case.point))
        print(f"{case.engine:22} {case.defect:24} at {point:10}  sympy [value, d/dx...] = {want}")
        print(f"{'':22} {'':24}    engine: {got}  -> {result}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
