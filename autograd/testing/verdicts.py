"""How a disagreement becomes a verdict, in one place: pure functions, no engine, no oracle.

* :func:`confirm`: "wrong only when a second method agrees".  A first oracle that
  rejects the engine is a defect only when a second, independent one rejects it too;
  a second oracle that agrees, or cannot judge, leaves it ``inconclusive``.
  :func:`second_vote` is that rule as every judge calls it: both :class:`Vote` s judge the
  numbers the engine gave in ONE run (the second method evaluates only forwards, in plain
  floats or the reference, on the same inputs; it never runs the engine again), and it
  words the verdict: an unresolved disagreement says so, with both methods' numbers.
  :data:`SECOND_VOTE_FD` are the margins of finite differences as that second vote.
* :func:`identity` and :func:`deduplicate`: a defect is reported once per
  ``(kind, op)`` (the smallest example kept; a crash of no op once per check: the checks
  run different code, e.g. a second backward() and a deep chain), a fact once per ``(kind, op, summary)``,
  an inconclusive case once per ``(kind, op, check)``.
* :func:`merge`: one finding per ``(kind, op)`` that names the others in its summary.
* :func:`tally`: whether one example was judged or left inconclusive by a check.
* :func:`severity` (and :func:`graded`, which applies it to a finding): how far off a wrong
  value or gradient is, and whether its point is ordinary or extreme.

The rule "failed only with a defect, passed only when something was judged" is
:func:`autograd.testing.findings.outcome`.
"""

from __future__ import annotations

import ast
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from autograd.testing.findings import DEFECT_KINDS, Finding, Severity

__all__ = [
    "INACCURATE_RTOL",
    "INACCURATE_ULPS",
    "ORDINARY_RANGE",
    "SECOND_VOTE_FD",
    "SecondVote",
    "Vote",
    "confirm",
    "deduplicate",
    "graded",
    "identity",
    "merge",
    "numbers",
    "second_vote",
    "severity",
    "smallest",
    "tally",
]

#: ``rtol`` and ``atol`` of central differences when they confirm a gradient that sympy rejected
#: beyond its derived tolerance: none beyond their own derived error (truncation ``|D(h) - D(2h)|``,
#: rounding ``4 eps |f| / h`` and the float function's forward bound) and the engine's derived
#: tolerance, which are added where they are called.  The margins of ``gradcheck``
#: (``FD_RTOL = 1e-7``, for functions of unknown accuracy) would leave every error between the
#: derived tolerance (about 1e-15 relative) and 1e-7 ``inconclusive``: a ``v / c`` computed as
#: ``v * (c + 1e-8) ** -1`` has d/dv off by 5e-9 relative, and the differences resolve 1e-10.
SECOND_VOTE_FD = {"rtol": 0.0, "atol": 0.0}


def confirm(first_rejects: bool, second_rejects: bool | None) -> str | None:
    """The verdict of two independent methods on one value: ``None`` (no finding),
    ``"defect"`` (both reject it) or ``"inconclusive"`` (only the first does, or the second
    cannot judge: ``second_rejects is None``).  The second alone rejecting is no finding:
    the first, primary method is the judge and only needs a second vote to convict."""
    if not first_rejects:
        return None
    return "defect" if second_rejects else "inconclusive"


@dataclass(frozen=True)
class Vote:
    """What one method says about numbers the engine gave: ``rejects`` (``None``: it cannot
    judge them) and ``says``, its own number(s) (or why it cannot judge) as a report shows them."""

    method: str
    rejects: bool | None
    says: str = ""


@dataclass(frozen=True)
class SecondVote:
    """The verdict of :func:`second_vote`: ``kind`` ``None``, ``"defect"`` or ``"inconclusive"``,
    and ``text``, both methods' words for a finding (empty when there is none)."""

    kind: str | None
    text: str


def second_vote(first: Vote, second: Callable[[], Vote]) -> SecondVote:
    """The rule of :func:`confirm` on one run's numbers: ``second`` (called only when ``first``
    rejects) is an independent method on the same numbers and inputs.  A defect names both
    methods; an inconclusive case says the first disagrees and the second did not confirm it
    (its number, or why it could not judge): unresolved, never cleared."""
    if not first.rejects:
        return SecondVote(None, "")
    vote = second()
    kind = confirm(True, vote.rejects)
    said = f"{first.method} {first.says}".strip()
    if kind == "defect":
        return SecondVote("defect", f"{said} differs, confirmed by {vote.method} {vote.says}".rstrip())
    if vote.rejects is None:
        return SecondVote(
            "inconclusive", f"{said} differs, {vote.method} cannot judge ({vote.says}): unresolved"
        )
    return SecondVote("inconclusive", f"{said} differs, {vote.method} {vote.says}: not confirmed, unresolved")


def identity(finding: Finding) -> tuple[Any, ...]:
    """What makes two findings the same report (see the module docstring)."""
    if finding.kind == "crash" and finding.op is None:
        return (finding.kind, None, finding.check)
    if finding.kind in DEFECT_KINDS:
        return (finding.kind, finding.op)
    if finding.kind == "inconclusive":
        return (finding.kind, finding.op, finding.check)
    return (finding.kind, finding.op, finding.summary)


def deduplicate(sized: Iterable[tuple[int, Finding]]) -> list[Finding]:
    """One finding per :func:`identity`: the smallest by size (the first of equal sizes),
    in the order each identity was first seen."""
    return [f for _, f in smallest(sized)]


def smallest(sized: Iterable[tuple[int, Finding]]) -> list[tuple[int, Finding]]:
    """:func:`deduplicate` keeping the sizes (to go on adding examples later)."""
    best: dict[tuple[Any, ...], tuple[int, Finding]] = {}
    for size, finding in sized:
        key = identity(finding)
        if key not in best or size < best[key][0]:
            best[key] = (size, finding)
    return list(best.values())


def merge(findings: Iterable[Finding], shown: int = 2) -> list[Finding]:
    """One finding per ``(kind, op)``: the first keeps its reproducer, ``shown`` more are named in
    its summary and the rest counted."""
    groups: dict[tuple[str, str | None], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.kind, f.op), []).append(f)
    out = []
    for first, *rest in groups.values():
        if rest:
            also = "; ".join(f.summary for f in rest[:shown])
            if len(rest) > shown:
                also += f"; {len(rest) - shown} more points"
            first = replace(first, summary=f"{first.summary} (also: {also})")
        out.append(first)
    return out


def tally(findings: Iterable[Finding]) -> str:
    """What one example's findings (of one check) say about it: ``"judged"`` (a verdict, a
    defect or none) or ``"inconclusive"`` (an oracle could not decide and nothing was found)."""
    kinds = {f.kind for f in findings}
    if kinds & set(DEFECT_KINDS):
        return "judged"
    return "inconclusive" if "inconclusive" in kinds else "judged"


# ---------------------------------------------------------------------- severity
#: A number of moderate magnitude: 0, or ``2**-500 <= |x| <= 2**500``.  A product, a square or a
#: quotient of two such numbers is still a normal float, so no usual formula of an op or of its
#: derivative leaves the normal floats on the way.
ORDINARY_RANGE = (2.0**-500, 2.0**500)
#: At an extreme point, a number off by at most this fraction of the exact result (its sign and
#: first three digits right) is "inaccurate at the extremes"; more is "wrong".  Finite differences,
#: the second vote of a float gradient, resolve about 1e-10: a confirmed error is rarely smaller.
INACCURATE_RTOL = 1e-3
#: ... or off by at most this many units in the last place of the exact result: on a subnormal
#: result one last place can be most of it (5e-324 for 1e-323).
INACCURATE_ULPS = 16


def severity(expected: Any, actual: Any, point: Iterable[Any] = ()) -> Severity | None:
    """How far off ``actual`` is from ``expected`` (numbers, or sequences of them of one length):
    the worst number's relative error and error in ulps of the expected number, and its point.

    The point is **ordinary** when every operand (``point``) and every exact result
    (``expected``) is a finite number of moderate magnitude (:data:`ORDINARY_RANGE`), else
    **extreme** (subnormal, tiny, huge, or near a pole, where the exact result is huge).  A
    wrong number is labelled ``"wrong"`` at an ordinary point, or at an extreme point when it is
    off by more than :data:`INACCURATE_RTOL` relative and :data:`INACCURATE_ULPS` last places;
    otherwise (an extreme point, a small error) ``"inaccurate at the extremes"``.
    ``None`` when the numbers cannot be paired (not numbers, or sequences of different lengths).
    """
    wants = list(expected) if isinstance(expected, Sequence) else [expected]
    gots = list(actual) if isinstance(actual, Sequence) else [actual]
    if not wants or len(wants) != len(gots) or not all(map(_is_number, [*wants, *gots])):
        return None
    ulps, relative = max(map(_error, wants, gots))
    where = "ordinary" if all(map(_moderate, [*point, *wants])) else "extreme"
    small = relative <= INACCURATE_RTOL or ulps <= INACCURATE_ULPS
    label = "inaccurate at the extremes" if where == "extreme" and small else "wrong"
    return Severity(label, where, relative, ulps)


def graded(finding: Finding) -> Finding:
    """A wrong value or gradient with its :func:`severity`, read from its ``expected`` and
    ``actual`` (Python source of numbers) and its ``point``; any other finding as it is."""
    if finding.kind not in ("wrong_value", "wrong_gradient") or finding.severity is not None:
        return finding
    return replace(
        finding, severity=severity(numbers(finding.expected), numbers(finding.actual), finding.point)
    )


def numbers(source: str) -> list[Any] | None:
    """The numbers written in ``source`` (``1.5``, ``-inf``, ``Fraction(1, 3)``,
    ``np.float32(0.5)``, a number's ``str`` in quotes such as ``'1/3'``, or a list of them), or
    ``None`` when it is anything else."""
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    items = tree.elts if isinstance(tree, ast.List | ast.Tuple) else [tree]
    out = [_number(item) for item in items]
    return None if any(x is None for x in out) else out


def _number(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and _is_number(node.value):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a number as str() wrote it
        return _str_number(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        x = _number(node.operand)
        return None if x is None else (-x if isinstance(node.op, ast.USub) else x)
    if isinstance(node, ast.Name) and node.id in ("inf", "nan"):
        return float(node.id)
    if isinstance(node, ast.Call) and not node.keywords:
        args = [_number(a) for a in node.args]
        fraction = isinstance(node.func, ast.Name) and node.func.id == "Fraction"
        if fraction and len(args) == 2 and all(isinstance(a, int) for a in args):  # repr(Fraction(1, 3))
            return Fraction(*args)
        if len(args) == 1:  # a number type's repr, float('inf') too: np.float64(0.5)
            return args[0]
    return None


def _str_number(text: str) -> Any:
    """``str()`` of an int, a float or a Fraction (``'1/3'``), else ``None``."""
    if "/" in text:
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            return None
    found = None if "[" in text or "(" in text else numbers(text)
    return found[0] if found and len(found) == 1 else None


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float | Fraction) and not isinstance(x, bool)


def _moderate(x: Any) -> bool:
    return bool(x == 0 or ORDINARY_RANGE[0] <= abs(x) <= ORDINARY_RANGE[1])  # not inf, not NaN


def _error(want: Any, got: Any) -> tuple[float, float]:
    """(ulps, relative error) of ``got`` against ``want``, computed exactly (floats are rationals)."""
    finite = [isinstance(x, int | Fraction) or math.isfinite(x) for x in (want, got)]
    if not all(finite):
        return (0.0, 0.0) if want == got else (math.inf, math.inf)
    error = abs(Fraction(got) - Fraction(want))
    if not error:
        return 0.0, 0.0
    relative = _float(error / abs(Fraction(want))) if want != 0 else math.inf
    # an exact result beyond the floats: in units of the largest float's last place
    last_place = Fraction(math.ulp(min(_float(abs(Fraction(want))), sys.float_info.max)))
    return _float(error / last_place), relative


def _float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf
