"""The op row: one record per operation, every fact about it a named field.

A row (:class:`OpSpec`) says how to apply the op to an engine's Values (``call``), what it
is in sympy (``sym``) and in plain Python numbers (``num``), how a reproducer writes it
(``source``) and a report names it (``form``), which constants it takes (``consts``),
where it is defined (``region``: mathematically; ``domain``: with the margins that keep
float checks well conditioned), where it has kinks, whether it maps rationals to
rationals, and how its floating-point evaluation can err.  Nothing here knows a
derivative rule: partial derivatives come from sympy's ``diff`` of ``sym``.

Describing a new elementwise function takes its sympy expression, its float function
and, where it is not defined everywhere, its region: a pole or a branch point is a
point the region leaves out (``1 / x``: the reals without 0; ``lgamma``: without the
non-positive integers), a kink is listed in ``kinks`` (``abs``, ``relu`` at 0).  A
binary function (``atan2``, ``hypot``) gives one set per operand, the other held at
``PARTNER``.  What an engine supports is not a fact of the row but of the engine: see
:mod:`autograd.testing.engines.support`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

__all__ = [
    "AWAY_FROM_ZERO", "BOUND", "FLOAT_MODULES", "KINK_MARGIN", "MP_MODULES", "PARTNER", "POSITIVE", "REALS",
    "Call", "OpSpec", "Relu", "Step", "Variadic", "const_source", "nonzero", "sym_const",
]  # fmt: skip

#: Largest magnitude a node may take in generated graphs (keeps exp, pow and products tame).
BOUND = 100.0
#: Smallest distance between a relu input and its kink at 0 in generated graphs.
KINK_MARGIN = 0.01
#: Smallest |denominator| (div, c / x, negative powers) and smallest log / non-integer-pow argument.
AWAY_FROM_ZERO = 0.1

#: The value of the other operand while the edge probes move one operand of a binary op.
PARTNER = 1.5
REALS = sympy.S.Reals
POSITIVE = sympy.Interval.open(0, sympy.oo)

Num = Any  # int, float or Fraction
Args = Sequence[Num]


class Relu(sympy.Function):  # type: ignore[misc]
    """relu in sympy: evaluates on numbers, differentiates to ``Step`` (no Piecewise, so no
    comparisons with the 1/0 that sympy writes into never-taken branches)."""

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if x.is_Number:
            return x if x > 0 else sympy.S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return Step(self.args[0])


class Step(sympy.Function):  # type: ignore[misc]
    """relu's derivative: 1 for x > 0, else 0 (the engine's convention at the kink 0)."""

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if x.is_Number:
            return sympy.S.One if x > 0 else sympy.S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return sympy.S.Zero  # away from the kink, which generated graphs avoid


#: What ``sympy.lambdify`` needs, on top of mpmath, for the functions defined here.
_RELU_STEP = {"Relu": lambda x: x if x > 0 else 0 * x, "Step": lambda x: 1 if x > 0 else 0}
MP_MODULES = [_RELU_STEP, "mpmath"]
FLOAT_MODULES = [_RELU_STEP, "math", "mpmath"]  # mpmath for what math lacks (polygamma)


def sym_const(c: Num) -> sympy.Expr:
    """A constant as an exact sympy number (a float becomes the rational it stores)."""
    if isinstance(c, Fraction):
        return sympy.Rational(c.numerator, c.denominator)
    return sympy.Integer(c) if isinstance(c, int) else sympy.Rational(c)


def const_source(c: Num) -> str:
    return repr(c)  # Fraction(1, 2), 2, -0.5: all valid Python


def nonzero() -> Any:
    """The reals without 0 (the region of a denominator)."""
    return REALS - sympy.FiniteSet(0)


def _always(args: Args, c: Num) -> bool:
    return True


def _never(c: Num) -> bool:
    return False


def _abs_out(args: Args, c: Num, out: Num) -> Num:
    return abs(out)


def _two_eps(args: Args, c: Num, out: Num) -> Num:
    return 2


def _reals(c: Num) -> tuple[Any, ...]:
    return (REALS, REALS)


@dataclass(frozen=True)
class Call:
    """How an op is applied to an engine's Values, as data (``Engine.apply`` does it).

    ``target`` is an operator function (``operator.truediv``), called with ``operands``; a
    method name (``"log"``), called on the first operand with the others; or, with ``fused``,
    the name of one of the engine's fused functions (``"vsum"``: a list of Values; ``"dot"``:
    weights, inputs and a start).  ``operands`` names them in order: ``"v0"``, ``"v1"`` (the
    op's Values) and ``"c"`` (its constant), so ``c - v`` is ``Call(operator.sub, ("c", "v0"))``.
    ``numbers`` are plain numbers passed after the operands (an engine's method that takes a
    number, not a Value: ``v.scaled(0.7)``).  A row without a call of its own (a catalogue row,
    applied through an engine's method) has ``target`` None.
    """

    target: Callable[..., Any] | str | None
    operands: tuple[str, ...] = ("v0",)
    fused: bool = False
    numbers: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Variadic:
    """The operand counts of a variadic op: ``least``, then any number of ``step`` more.

    ``names`` are the operands of the op's example point: where an engine's support is probed,
    where the edge probe moves one operand, and how a report shows the op (``dot([w], [x], b)``).
    """

    least: int = 1
    step: int = 1
    names: tuple[str, ...] = ("x", "y")

    def takes(self, n: int) -> bool:
        return n >= self.least and (n - self.least) % self.step == 0


@dataclass(frozen=True)
class OpSpec:
    """One operation.  The first six fields may be given in order; the rest by name only."""

    #: The stable key the harness uses (``mulc``); reports show ``form``.
    name: str
    #: Operands; 0 means variadic (vsum, dot), their counts in ``variadic``.
    arity: int
    #: What to call in the engine (see :class:`Call`), applied by ``Engine.apply``.
    call: Call
    #: The op in sympy, of its operands' expressions and its constant.
    sym: Callable[[Sequence[sympy.Expr], Num], sympy.Expr]
    #: The op on plain numbers; exact on rationals where ``rational`` says so.
    num: Callable[[Args, Num], Num]
    #: Python source applying the op to named Values (a reproducer's line).
    source: Callable[[Sequence[str], Num], str]
    _: KW_ONLY
    #: How a report names the op: ``c * v``, ``v.exp()``, ``abs(v)`` (defaults to ``name``).
    form: str = ""
    #: A variadic op's operand counts (used only when ``arity`` is 0).
    variadic_arity: Variadic = Variadic()
    #: The constant choices; () for an op without a constant.
    consts: tuple[Num, ...] = ()
    #: ``consts`` hold a parameter of the function (leaky_relu's slope), not a constant operand.
    parameter: bool = False
    #: Operands (as floats) inside the checked domain: the region with margins for float checks.
    domain: Callable[[Args, Num], bool] = _always
    #: Where each operand may lie for the value to be a real number (one ``sympy.Set`` per operand,
    #: the others held at ``PARTNER``); the edge and out-of-domain probes derive their points from it.
    region: Callable[[Num], tuple[Any, ...]] = _reals
    #: First-operand points where the op is not differentiable.
    kinks: tuple[float, ...] = ()
    #: Closed over the rationals, given the constant: exact on Fractions.
    rational: Callable[[Num], bool] = _never
    #: Where the exact state machine uses the op, as (rank, constant) pairs (constant None: the op
    #: takes none): it stays exact on rationals there.  The rank orders the machine's ops of the
    #: same arity (hypothesis shrinks a sampled op towards the lowest).
    machine_steps: tuple[tuple[int, Num], ...] = ()
    #: Absolute forward rounding error of the op's result, in units of machine epsilon.
    fwd_err: Callable[[Args, Num, Num], Num] = _abs_out
    #: Relative error (in eps) with which an engine may evaluate each local partial from the
    #: op's inputs and output, beyond the inputs' own errors (which the oracle propagates itself).
    partial_err: Callable[[Args, Num, Num], Num] = _two_eps
    #: The local partial is formed from O(1) quantities (1 - t*t, s*(1 - s)): its rounding errs
    #: by a few eps absolutely, however small the partial itself is.
    bounded_partials: bool = False
    #: Where an engine's support is probed (default: 1.5 for each of ``sample_arity`` operands);
    #: an engine's extra op is tried where it was found to give a value (``asin`` refuses 1.5).
    probe: tuple[float, ...] = ()

    @property
    def variadic(self) -> bool:
        return self.arity == 0

    @property
    def label(self) -> str:
        """The op as a report names it: its form."""
        return self.form or self.name

    def takes(self, n: int) -> bool:
        """Whether the op takes ``n`` operands."""
        return self.variadic_arity.takes(n) if self.variadic else n == self.arity

    @property
    def sample_arity(self) -> int:
        """Operands at the op's example point: its arity, or a variadic op's example count."""
        return self.arity or len(self.variadic_arity.names)

    @property
    def operand_names(self) -> tuple[str, ...]:
        """The operands of the op's example point: ``x, y`` for a binary op, ``w, x, b`` for dot."""
        if self.variadic:
            return self.variadic_arity.names
        return ("x", "y", "z")[: self.arity] if self.arity <= 3 else tuple(f"x{i}" for i in range(self.arity))

    @property
    def example(self) -> str:
        """The op as Python source on its example operands, with its first constant: ``x + 1``."""
        return self.source(list(self.operand_names), (self.consts or (None,))[0])

    def rule(self, nargs: int, c: Num) -> Callable[..., list[float]]:
        """Float ``f(*args) -> [value, partial per operand]``, from sympy's diff of ``sym``.

        Used only to size tolerances, where double precision is plenty.
        """
        return _float_rule(self, nargs, c)


@functools.cache
def _float_rule(spec: OpSpec, nargs: int, c: Num) -> Callable[..., list[float]]:
    symbols = sympy.symbols(f"a0:{nargs}", real=True)
    expr = spec.sym(symbols, c)
    partials = [sympy.diff(expr, s) for s in symbols]
    f = sympy.lambdify(symbols, [expr, *partials], modules=FLOAT_MODULES)
    return lambda *args: [float(v) for v in f(*args)]
