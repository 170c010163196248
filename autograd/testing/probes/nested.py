"""Probe ``nested``: differentiating a function that itself differentiates (perturbation confusion).

The classic of nested AD, ``d/dx [x * d/dy (x + y) at y = x] = 1``, and generated
nests of the same shape, two and three levels deep: at level k a polynomial
``E_k`` of the outer variables ``v_0 .. v_k`` and of the derivative ``D`` of the
level below, ``D = d/dv_(k+1) E_(k+1)`` taken at ``v_(k+1) = v_k``.  The answer is
``d/dv_0 E_0`` at a point.

The engine runs it as a user of ``backward(create_graph=True)`` would, one pass
per level from the innermost out: each variable is a fresh leaf holding the
point, every gradient the harness built is zeroed before a pass, and since the
leaf ``v_(k+1)`` stands for ``v_k``, the derivative at level k is the sum of the
gradients of the leaves ``v_k, v_(k+1), ...``.  An engine that mixes the
perturbations of two levels (a pass that sees gradients left by another) gets a
different number.

sympy differentiates the same nest on its own (``diff``, then ``subs``).  The
polynomials have small integer coefficients and the point is a dyadic rational,
so a float engine computes every value exactly.  The engine's number, from one run, is
judged by sympy and, where sympy rejects it, by a second method on the same number:
the nest's polynomials multiplied out and differentiated in Fractions (:func:`by_polynomials`).
A difference both see is a ``wrong_gradient``; one the second does not confirm (or cannot
judge: its answer is no float, so rounding could explain a float's) is ``inconclusive``.
Three-level nests take a pass through gradient nodes made by an earlier pass; an
engine whose interior gradients accumulate across passes would need those zeroed,
which the harness cannot reach, so it gets two-level nests only.
"""

from __future__ import annotations

import itertools
import operator
import random
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.boundary import EngineRaised, engine_call
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.ops import OPS
from autograd.testing.oracles.reference import certify
from autograd.testing.reproducers import program, show
from autograd.testing.verdicts import Vote, second_vote

__all__ = ["Nest", "by_polynomials", "probe_nested"]

#: Points (dyadic rationals: products of a few stay exact in floats).
POINTS = (0.75, -0.5, 1.25, 1.5, -1.25)
CONSTS = (-2, -1, 1, 2, 3)

Tree = tuple[Any, ...]  # ("var", j) | ("D",) | ("const", c) | (op, left, right), op in add sub mul
_SOURCE = {"add": "+", "sub": "-", "mul": "*"}
_OPERATOR = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}


@dataclass(frozen=True)
class Nest:
    """``levels[k]`` is E_k over v_0..v_k (and ``("D",)``, the level below, for k < depth - 1)."""

    levels: tuple[Tree, ...]
    point: float

    @property
    def depth(self) -> int:
        return len(self.levels)

    def describe(self) -> str:
        parts = []
        for k, tree in enumerate(self.levels):
            parts.append(f"E{k} = {_text(tree)}")
        inner = "; ".join(parts)
        return f"d/dv0 E0 at v0 = {self.point!r}, where {inner}, D = d/dv(k+1) E(k+1) at v(k+1) = vk"

    def expected(self) -> Fraction:
        """sympy's answer, exact (sympy's own ``diff``, evaluated in Fractions by
        :func:`autograd.testing.oracles.reference.certify`; no engine involved)."""
        v = sympy.symbols(f"v0:{self.depth}")
        below: Any = None
        for k in range(self.depth - 1, 0, -1):
            e = _sympy(self.levels[k], v, below)
            below = sympy.diff(e, v[k]).subs(v[k], v[k - 1])
        (answer,) = certify(v[:1], [sympy.diff(_sympy(self.levels[0], v, below), v[0])], [self.point])
        if not answer.exact:
            raise ValueError(f"nested: {self.describe()} is not a rational expression")
        return Fraction(answer.value)


def _text(tree: Tree, python: bool = False) -> str:
    """The tree as a formula (``v0 * D``) or as the reproducer's Python (``v[0] * g(D)``)."""
    if tree[0] == "var":
        return f"v[{tree[1]}]" if python else f"v{tree[1]}"
    if tree[0] == "D":
        return "g(D)" if python else "D"
    if tree[0] == "const":
        return f"{float(tree[1])!r}" if python else str(tree[1])
    return f"({_text(tree[1], python)} {_SOURCE[tree[0]]} {_text(tree[2], python)})"


def _sympy(tree: Tree, v: Any, below: Any) -> Any:
    if tree[0] == "var":
        return v[tree[1]]
    if tree[0] == "D":
        return below
    if tree[0] == "const":
        return sympy.Integer(tree[1])
    a, b = _sympy(tree[1], v, below), _sympy(tree[2], v, below)
    return {"add": a + b, "sub": a - b, "mul": a * b}[tree[0]]


Poly = dict[tuple[int, ...], Fraction]  # exponents of v_0 .. v_(depth-1) -> coefficient


def _poly(tree: Tree, depth: int, below: Poly) -> Poly:
    if tree[0] == "var":
        return {tuple(int(j == tree[1]) for j in range(depth)): Fraction(1)}
    if tree[0] == "D":
        return below
    if tree[0] == "const":
        return {(0,) * depth: Fraction(tree[1])}
    a, b = _poly(tree[1], depth, below), _poly(tree[2], depth, below)
    out: Poly = {}
    if tree[0] == "mul":
        for (ea, ca), (eb, cb) in itertools.product(a.items(), b.items()):
            e = tuple(x + y for x, y in zip(ea, eb, strict=True))
            out[e] = out.get(e, Fraction(0)) + ca * cb
        return out
    sign = 1 if tree[0] == "add" else -1
    for e, c in [*a.items(), *((e, sign * c) for e, c in b.items())]:
        out[e] = out.get(e, Fraction(0)) + c
    return out


def _diff(p: Poly, k: int) -> Poly:
    out: Poly = {}
    for e, c in p.items():
        if e[k]:
            d = (*e[:k], e[k] - 1, *e[k + 1 :])
            out[d] = out.get(d, Fraction(0)) + c * e[k]
    return out


def _merge(p: Poly, k: int) -> Poly:
    """``v_k`` replaced by ``v_(k-1)``."""
    out: Poly = {}
    for e, c in p.items():
        m = (*e[: k - 1], e[k - 1] + e[k], 0, *e[k + 1 :])
        out[m] = out.get(m, Fraction(0)) + c
    return out


def by_polynomials(nest: Nest) -> Fraction:
    """The nest's answer by a second method, independent of sympy: each level multiplied out
    as a polynomial in Fractions, differentiated and merged by hand."""
    below: Poly = {}
    for k in range(nest.depth - 1, 0, -1):
        below = _merge(_diff(_poly(nest.levels[k], nest.depth, below), k), k)
    top = _diff(_poly(nest.levels[0], nest.depth, below), 0)
    x = Fraction(nest.point)
    return sum((c * x ** sum(e) for e, c in top.items()), Fraction(0))


CLASSIC = Nest((("mul", ("var", 0), ("D",)), ("add", ("var", 0), ("var", 1))), 0.75)


def _tree(rng: random.Random, leaves: list[Tree], size: int) -> Tree:
    if size == 0:
        return rng.choice(leaves)
    left = rng.randrange(size)
    op = rng.choice(("add", "sub", "mul", "mul"))
    return (op, _tree(rng, leaves, left), _tree(rng, leaves, size - 1 - left))


def generate(rng: random.Random, depth: int) -> Nest:
    """A nest whose inner derivatives depend on the outer variables (else nothing can be confused)."""
    levels: list[Tree] = []
    for k in range(depth):
        leaves: list[Tree] = [("var", j) for j in range(k + 1)] + [
            ("const", rng.choice(CONSTS)) for _ in "ab"
        ]
        body = _tree(rng, leaves, rng.randint(1, 2))
        coupling = ("mul", ("var", k), ("var", rng.randrange(k))) if k else ("var", 0)
        if k < depth - 1:  # E_k uses the level below, times something of this level
            levels.append(("add", ("mul", coupling, ("D",)), body))
        else:  # the innermost: its derivative in v_k depends on an outer variable
            levels.append(("add", ("mul", coupling, ("var", k)), body))
    return Nest(tuple(levels), rng.choice(POINTS))


# ---------------------------------------------------------------------- the engine's side
class _Run:
    """One evaluation of a nest on an engine: every Value the harness built, to zero them."""

    def __init__(self, eng: Engine, nest: Nest) -> None:
        self.eng, self.nest = eng, nest
        self.built: list[Any] = []
        self.leaves: list[Any] = []

    def _keep(self, v: Any) -> Any:
        if isinstance(v, self.eng.Value):
            self.built.append(v)
        return v

    def _value(self, x: Any) -> Any:
        return x if isinstance(x, self.eng.Value) else self._keep(self.eng.make(x, stage="make"))

    def _apply(self, tree: Tree, below: Any) -> Any:
        if tree[0] == "var":
            return self.leaves[tree[1]]
        if tree[0] == "D":
            return self._value(below)
        if tree[0] == "const":
            return self._value(float(tree[1]))
        a, b = self._apply(tree[1], below), self._apply(tree[2], below)
        return self._keep(engine_call(_SOURCE[tree[0]], _OPERATOR[tree[0]], a, b))

    def derivative(self, k: int) -> Any:
        """d E_k / d v_k at v_k = v_(k-1) (= the point), with the levels below run first;
        what the engine raises is :class:`EngineRaised`."""
        eng = self.eng
        self.leaves.append(self._value(float(self.nest.point)))
        below = self.derivative(k + 1) if k + 1 < self.nest.depth else None
        e = self._apply(self.nest.levels[k], below)
        for v in self.built:
            eng.set_grad(v, 0)
        eng.backward(e, create_graph=True, stage="backward(create_graph=True)")
        # leaves v_k, v_(k+1), ... all stand for v_k: the derivative is the sum of their gradients
        total: Any = None
        for leaf in self.leaves[k:]:
            g = eng.grad(leaf, stage="reading a gradient")
            g = 0 if g is None else g
            if total is None:
                total = g
            elif isinstance(total, eng.Value) or isinstance(g, eng.Value):
                total = self._keep(engine_call("+", operator.add, self._value(total), self._value(g)))
            else:
                total = engine_call("+", operator.add, total, g)
        return total


def engine_answer(eng: Engine, nest: Nest) -> Any:
    """The engine's d/dv0 E0 (a number); what the engine raises is :class:`EngineRaised`."""
    total = _Run(eng, nest).derivative(0)
    return eng.data(total, stage="reading") if isinstance(total, eng.Value) else total


def _interior_accumulates(eng: Engine) -> bool:
    """Whether interior gradients grow across two backward() passes (the engine's code only)."""
    at = "two backward() passes"  # the stage any failure here is reported under
    a, b = eng.make(3.0, stage=at), eng.make(2.0, stage=at)
    h = eng.apply(OPS["mul"], [a, b], stage=at)
    y = eng.apply(OPS["mul"], [h, a], stage=at)
    eng.backward(y, stage=at)
    first = eng.grad(h, stage=at)
    eng.backward(y, stage=at)
    return bool(eng.grad(h, stage=at) != first)


def _reproducer(eng: Engine, nest: Nest, want: Fraction) -> str:
    """The nest run as a user of backward(create_graph=True) writes it, innermost level first."""
    levels = ", ".join(f"lambda v, D: {_text(tree, python=True)}" for tree in nest.levels)
    return program(
        eng,
        "def g(x):  # a gradient may be a plain number: a Value for the next level",
        "    return x if isinstance(x, {V}) else {V}(x)",
        f"levels = [{levels}]  # E_k of v[0..k] and D, the level below",
        "leaves = []",
        "def derivative(k):  # d E_k / d v[k], the leaves v[k], v[k+1], ... all standing for v[k]",
        f"    leaves.append({{V}}({nest.point!r}))",
        "    D = derivative(k + 1) if k + 1 < len(levels) else None",
        "    E = levels[k](leaves, D)",
        "    for x in leaves:",
        "        x.{grad} = 0",
        "    E.{backward}(create_graph=True)",
        "    total = g(leaves[k].{grad})",
        "    for x in leaves[k + 1:]:",
        "        total = total + g(x.{grad})",
        "    return total",
        "got = derivative(0)",
        "got = got.{data} if isinstance(got, {V}) else got",
        f"print('expected (sympy): {float(want)!r}; actual:', got)",
    )


def _off(got: Any, want: Fraction) -> bool:
    """Whether the engine's number is not exactly ``want`` (nan, inf, or no number: it is not)."""
    try:
        return Fraction(got) != want
    except (TypeError, ValueError, OverflowError):
        return True


def _polynomial_vote(got: Any, want: Fraction) -> Vote:
    method = "polynomials in Fractions"
    if not isinstance(got, int | Fraction) and Fraction(float(want)) != want:
        return Vote(method, None, f"{float(want)!r} is not exactly a float: rounding may explain it")
    return Vote(method, _off(got, want), repr(float(want)))


def probe_nested(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """The classic nest and generated ones, against sympy, for engines with create_graph."""
    eng = resolve_engine(engine)
    if not eng.higher_order:
        return outcome(
            "nested", [], judged=0, unit="nests", reason="backward(create_graph=True) is not supported"
        )
    try:
        shallow = _interior_accumulates(eng)
    except EngineRaised as raised:  # the engine cannot run two passes: nothing nested can run either
        return outcome(
            "nested", [], judged=0, unit="nests", reason=f"two backward() passes fail: {raised.line()}"
        )
    rng = random.Random(f"nested-{seed}")
    count = max(4, min(examples // 4, 12))
    depths = (2,) if shallow else (2, 3)
    nests = [CLASSIC] + [generate(rng, depths[i % len(depths)]) for i in range(count - 1)]
    found: dict[str, list[tuple[Nest, Finding]]] = {}  # by kind: one finding each, the first nest's
    judged = inconclusive = 0
    for nest in nests:
        want = nest.expected()
        try:
            got = engine_answer(eng, nest)
        except EngineRaised as raised:
            crash = Finding(
                "crash",
                "nested",
                f"in nested differentiation, {raised.stage} raises {raised.line()} on {nest.describe()}",
                expected=repr(float(want)),
                actual=raised.line(),
            )
            found.setdefault("crash", []).append((nest, crash))
            judged += 1
            continue
        vote = second_vote(
            Vote("sympy", _off(got, want), repr(float(want))),
            lambda: _polynomial_vote(got, by_polynomials(nest)),  # noqa: B023 (called right away)
        )
        if vote.kind is None:
            judged += 1
            continue
        kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"
        judged += kind == "wrong_gradient"
        inconclusive += kind == "inconclusive"
        wrong = Finding(
            kind,
            "nested",
            f"perturbation confusion: {nest.describe()} gives {show(got)}; {vote.text}",
            expected=repr(float(want)),
            actual=show(got),
        )
        found.setdefault(kind, []).append((nest, wrong))
    findings = []
    for group in found.values():
        nest, first = group[0]
        more = f" (and {len(group) - 1} more of {len(nests)} nests)" if len(group) > 1 else ""
        findings.append(
            replace(first, summary=first.summary + more, reproducer=_reproducer(eng, nest, nest.expected()))
        )
    levels = (
        "two levels only: interior gradients accumulate across passes" if shallow else "two and three levels"
    )
    reason = f"{len(nests)} nests ({levels}), the classic first, against sympy"
    return outcome("nested", findings, judged=judged, unit="nests", inconclusive=inconclusive, reason=reason)
