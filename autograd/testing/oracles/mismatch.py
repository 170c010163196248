"""What an oracle says: a per-leaf report, a mismatch (the engine is outside the bound) or
inconclusive (the point cannot be judged), and the one message built for a mismatch."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath  # type: ignore[import-untyped]

from autograd.testing.oracles.reference import to_mpf

if TYPE_CHECKING:
    from autograd.testing.graph import Graph

__all__ = ["MP_DPS", "GradcheckReport", "GradientMismatch", "LeafComparison", "OracleInconclusive"]

#: mpmath working precision (decimal digits) for comparing numbers with the reference.
MP_DPS = 50


class OracleInconclusive(Exception):
    """The oracle cannot judge this point; ``.reason`` says why.  Not a defect of the engine.

    Raised when the reference does not settle at the highest precision, when a relu
    input is on different sides of its kink in floats and exactly (or closer to it than
    the forward error bound), when finite differences do not converge, and when a
    bound leaves the float range.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class GradientMismatch(AssertionError):
    """An engine's gradient disagrees with an oracle; ``.report`` holds the per-leaf comparison."""

    def __init__(self, message: str, report: GradcheckReport) -> None:
        super().__init__(message)
        self.report = report


@dataclass(frozen=True)
class LeafComparison:
    name: str
    value: Any
    engine: Any
    oracle: Any
    abs_err: float
    rel_err: float
    tol: float
    ok: bool


@dataclass
class GradcheckReport:
    """Per-input comparison of engine and oracle gradients; ``ok`` when every row agrees."""

    title: str
    rows: list[LeafComparison] = field(default_factory=list)
    details: str = ""

    @property
    def ok(self) -> bool:
        """True when every input's engine gradient agrees with the oracle within its tolerance."""
        return all(r.ok for r in self.rows)

    def __str__(self) -> str:
        cols = ("value", 14), ("engine", 24), ("oracle", 24), ("abs err", 9), ("rel err", 9), ("tol", 9)
        head = f"{'input':<6} " + " ".join(f"{c:>{w}}" for c, w in cols)
        lines = [f"{self.title}: {'ok' if self.ok else 'MISMATCH'}", head]
        for r in self.rows:
            lines.append(
                f"{r.name:<6} {_short(r.value):>14} {_short(r.engine):>24} {_short(r.oracle):>24} "
                f"{r.abs_err:>9.2e} {r.rel_err:>9.2e} {r.tol:>9.2e}{'' if r.ok else '  <-- differs'}"
            )
        return "\n".join(lines) + (f"\n{self.details}" if self.details else "")


def _short(x: Any) -> str:
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, Fraction | int):
        try:
            return str(x) if len(str(x)) <= 24 or isinstance(x, int) else str(mpmath.nstr(to_mpf(x), 17))
        except ValueError:  # more digits than str() converts (sys.get_int_max_str_digits)
            return str(mpmath.nstr(+to_mpf(Fraction(x)), 17))  # rounded to the working precision first
    if isinstance(x, mpmath.mpf):
        return str(mpmath.nstr(x, 17))
    return repr(x)


def _compare(name: str, value: Any, engine: Any, oracle: Any, tol: float) -> LeafComparison:
    """One row; a non-number from the engine is a mismatch, not a crash."""
    try:
        with mpmath.workdps(MP_DPS):
            diff = abs(to_mpf(engine) - to_mpf(oracle))
            abs_err = float(diff)
            rel_err = float(diff / abs(to_mpf(oracle))) if oracle != 0 else (0.0 if diff == 0 else math.inf)
            ok = diff <= tol
    except (TypeError, ValueError):
        abs_err, rel_err, ok = math.nan, math.nan, False
    return LeafComparison(name, value, engine, oracle, abs_err, rel_err, float(tol), bool(ok))


def _finish(
    report: GradcheckReport, graph: Graph | None, engine: Any, reproducer: Callable[[], str] | None = None
) -> GradcheckReport:
    """``report`` when every row agrees; else :class:`GradientMismatch` with the graph's
    expression, a runnable reproducer (``reproducer()``, by default the graph's snippet of its
    gradient) and the graph's description."""
    if report.ok:
        return report
    if graph is not None:
        expr = graph.sympy()[1]
        code = graph.snippet(engine) if reproducer is None else reproducer()
        report.details = (
            f"output = {expr}\nreproduce with (runnable):\n{code}\ngraph description: {graph.code()}"
        )
    raise GradientMismatch(str(report), report)
